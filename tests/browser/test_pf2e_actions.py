"""Issue 31, item 4 in the browser: a PF2e hero's controls count the turn's actions (◆◆◆)
and disable the Strike, with the reason, once all three are spent; the reaction is shown
beside them and spent by its own form."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.world import gm_and_player, ok

pytestmark = pytest.mark.browser


def _valeros_turn(
    browser: Browser, base_url: str, name: str
) -> tuple[BrowserContext, BrowserContext, str]:
    """Valeros (a Langschwert) against an Oger of 500 TP, in Valeros's turn: (GM, player,
    the fight's API address)."""
    gm, player, campaign_id = gm_and_player(browser, base_url, name, "pf2e")
    api = f"/api/v1/campaigns/{campaign_id}"
    hero = ok(player.request.post(f"{api}/characters", data={"name": "Valeros"}))
    sword = ok(
        player.request.post(
            f"{api}/characters/{hero['id']}/items", data={"starter": "pf2e:langschwert"}
        )
    )
    ok(
        player.request.post(
            f"{api}/characters/{hero['id']}/items/{sword['id']}/equip", data={"slot": "weapon"}
        )
    )
    ogre = ok(gm.request.post(f"{api}/bestiary", data={"name": "Oger", "data": {"tp": 500}}))
    encounter = ok(gm.request.post(f"{api}/encounters", data={"name": "Hof"}))
    fight = f"{api}/encounters/{encounter['id']}"
    ok(gm.request.post(f"{fight}/participants", data={"character_id": hero["id"]}))
    ok(gm.request.post(f"{fight}/participants", data={"entry_id": ogre["id"]}))
    view = ok(gm.request.post(f"{fight}/actions/start", data={}))
    if view["turn"]["name"] != "Valeros":
        ok(gm.request.post(f"{fight}/actions/next", data={}))
    return gm, player, fight


def _use_reaction(page: Page, name: str) -> None:
    """Names and uses the reaction. The last Strike's live push may redraw the controls
    between typing and the click (the name typed is then gone and the required field stops
    the form): the player types and taps again, as a person would."""
    budget = page.locator("#reaction-budget")
    for _attempt in range(3):
        page.locator("#reaction-name").fill(name)
        page.locator("#reaction-button").click()
        try:
            expect(budget).to_have_attribute("data-reaction", "spent", timeout=4000)
            return
        except AssertionError:
            continue
    expect(budget).to_have_attribute("data-reaction", "spent")


def _strike(page: Page, left: str) -> None:
    """One Strike, until the budget shows ``left``. The last step's live push may swap the
    controls at the moment of the tap, which then reaches no form (seen once in CI): the
    player taps again, as a person would — a tap that did reach the server shows within
    the wait, so none is counted twice."""
    budget = page.locator("#action-budget")
    for _attempt in range(3):
        page.locator("#attack-button").click()
        try:
            expect(budget).to_contain_text(left, timeout=4000)
            return
        except AssertionError:
            continue
    expect(budget).to_contain_text(left)


def test_three_strikes_then_the_strike_is_disabled(browser: Browser, base_url: str) -> None:
    gm, player, fight = _valeros_turn(browser, base_url, "aktion")
    page = player.new_page()
    page.goto(fight.removeprefix("/api/v1"))
    budget = page.locator("#action-budget")
    expect(budget).to_contain_text("◆◆◆")
    for left in ("◆◆◇", "◆◇◇", "◇◇◇"):
        _strike(page, left)
    expect(page.locator("#attack-button")).to_be_disabled()
    expect(page.locator("#budget-reason")).to_contain_text("Dafür bleibt keine Aktion")
    # The reaction is no action: it is still there, and the player uses it (§9).
    expect(page.locator("#reaction-budget")).to_contain_text("◆")
    _use_reaction(page, "Schild blocken")
    expect(page.locator("#reaction-budget")).to_contain_text("◇")
    expect(page.locator("#action-budget")).to_contain_text("◇◇◇")  # no action for it
    gm.close()
    player.close()


def test_a_spell_spends_the_actions_it_names(browser: Browser, base_url: str) -> None:
    """Issue 31: the player casts a two-action spell attack from the spell form; the budget
    goes down by two and the log names the spell with its cost."""
    gm, player, fight = _valeros_turn(browser, base_url, "zauber")
    page = player.new_page()
    page.goto(fight.removeprefix("/api/v1"))
    expect(page.locator("#action-budget")).to_contain_text("◆◆◆")
    page.locator("#spell-box summary").click()
    page.locator("#spell-name").fill("Strahl der Kälte")
    page.locator("#spell-actions").select_option("2")
    page.locator("#spell-attack").fill("7")
    page.locator("#spell-damage").fill("1W4")
    page.locator("#spell-button").click()
    expect(page.locator("#action-budget")).to_contain_text("◆◇◇")
    expect(page.locator("#combat-log")).to_contain_text("Strahl der Kälte (2 Aktion(en))")
    gm.close()
    player.close()
