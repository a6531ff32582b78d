"""Issue 28 in the browser: once an H&H hero's Handlung of the step is used (the attack
resolved), the attack button and the other actions are disabled with the reason, for the
player and the GM alike, and «Zug beenden» stays enabled."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import APIRequestContext, Browser, expect

from tests.browser.world import gm_and_player, ok

pytestmark = pytest.mark.browser

#: The GM's answer to what the goblin is asked: no defence, then the hit taken.
ANSWERS = {"defence": "none", "hit": "accept"}


def _resolve(gm: APIRequestContext, fight: str, view: dict[str, Any]) -> None:
    """Answer every open question of the attack as the GM (the goblin's controller)."""
    for _ in range(4):
        if not view.get("pending"):
            return
        kind = view["pending"].get("kind", "defence")
        view = ok(gm.post(f"{fight}/actions/respond", data={"choice": ANSWERS[kind]}))
    raise AssertionError(view["pending"])


def _alrik_on_turn(
    gm: APIRequestContext, player: APIRequestContext, campaign_id: int
) -> tuple[str, dict[str, Any]]:
    """The player's hero Alrik and a goblin in a running fight, on Alrik's step: the
    fight's API path and its view."""
    api = f"/api/v1/campaigns/{campaign_id}"
    hero = ok(player.post(f"{api}/characters", data={"name": "Alrik"}))
    goblin = next(e for e in ok(gm.post(f"{api}/bestiary/samples")) if e["name"] == "Goblin")
    encounter = ok(gm.post(f"{api}/encounters", data={"name": "Pass"}))
    fight = f"{api}/encounters/{encounter['id']}"
    ok(gm.post(f"{fight}/participants", data={"character_id": hero["id"]}))
    ok(gm.post(f"{fight}/participants", data={"entry_id": goblin["id"]}))
    view: dict[str, Any] = ok(gm.post(f"{fight}/actions/start", data={}))
    for _ in range(6):  # the goblin's steps come first when its Initiative is higher
        if view["turn"]["name"] == "Alrik":
            break
        view = ok(gm.post(f"{fight}/actions/next", data={}))
    assert view["turn"]["name"] == "Alrik"
    return fight, view


def test_a_used_handlung_disables_the_attack_with_the_reason(
    browser: Browser, base_url: str
) -> None:
    gm, player, campaign_id = gm_and_player(browser, base_url, "handlung", "hh")
    fight, _view = _alrik_on_turn(gm.request, player.request, campaign_id)
    page = player.new_page()
    page.goto(fight.removeprefix("/api/v1"))
    expect(page.locator("#attack-button")).to_be_enabled()
    page.locator("#attack-button").click()
    # Hidden while the goblin is asked, or disabled at once after a miss.
    expect(page.locator("#attack-button:enabled")).to_have_count(0)
    _resolve(gm.request, fight, ok(gm.request.get(fight)))
    gm_page = gm.new_page()
    for seen in (page, gm_page):
        seen.goto(fight.removeprefix("/api/v1"))
        attack = seen.locator("#attack-button")
        expect(attack).to_be_disabled()
        expect(attack).to_have_attribute("aria-describedby", "budget-reason")
        expect(seen.locator("#budget-reason")).to_contain_text(
            "Alrik hat die Handlung dieses Initiativeschritts schon genutzt."
        )
        expect(seen.locator("#aim-button")).to_be_disabled()
        expect(seen.locator("#next-turn")).to_be_enabled()
    gm.close()
    player.close()


def test_a_player_shakes_off_a_condition_from_the_combat_page_on_a_phone(
    browser: Browser, base_url: str
) -> None:
    """H&H: the acting figure's own conditions are offered to shake off (its Handlung); the
    try is logged live, and the form then waits for the next step."""
    gm, player, campaign_id = gm_and_player(browser, base_url, "abschuetteln", "hh")
    fight, view = _alrik_on_turn(gm.request, player.request, campaign_id)
    pid = str(view["turn"]["pid"])
    for key in ("verwirrt", "angeschlagen"):
        ok(
            gm.request.post(
                f"{fight}/actions/condition", data={"participant": pid, "condition": key}
            )
        )
    page = player.new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(fight.removeprefix("/api/v1"))
    choice = page.locator("#shake-off-condition")
    expect(choice).to_be_visible()
    expect(choice.locator("option")).to_have_text(["verwirrt", "angeschlagen"])
    page.locator("#shake-off-button").click()
    expect(page.locator("#combat-log")).to_contain_text("versucht, «verwirrt» abzuschütteln")
    expect(page.locator("#shake-off-button")).to_be_disabled()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    gm.close()
    player.close()
