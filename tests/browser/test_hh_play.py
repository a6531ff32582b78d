"""H&H in play in the browser (issue 13): the defence prompt counts its deadline down (a
timer a screen reader reads on request, not every second), and a player rolls from the
sheet with another character helping (Helfen).

Dice are the live server's (random): the goblin attacks until its attack roll succeeds (the
GM grants the retries, logged as overrides).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.flows import wait_live
from tests.browser.test_one_figure import _act, _pid, _sheet
from tests.browser.world import account, attack_until_hit, ok

pytestmark = pytest.mark.browser


def test_the_countdown_ticks_and_a_friend_helps_from_the_sheet(
    browser: Browser, base_url: str
) -> None:
    gm_ctx, player_ctx = account(browser, base_url, "slp"), account(browser, base_url, "heldp")
    gm, player = gm_ctx.request, player_ctx.request
    created = ok(gm.post("/api/v1/campaigns", data={"name": "Am Fluss", "system": "hh"}))
    ok(player.post("/api/v1/campaigns/join", data={"invite_code": created["invite_code"]}))
    base = f"/api/v1/campaigns/{created['id']}"
    arjun = _sheet(player, base, "Arjun", {"skills.Kampfkunst": 12, "skills.Spürsinn": 10})
    _sheet(player, base, "Brida", {"skills.Spürsinn": 14})

    goblin = next(e for e in ok(gm.post(f"{base}/bestiary/samples")) if e["name"] == "Goblin")
    encounter = ok(gm.post(f"{base}/encounters", data={"name": "Furt"}))
    api = f"{base}/encounters/{encounter['id']}"
    ok(gm.post(f"{api}/participants", data={"character_id": arjun}))
    ok(gm.post(f"{api}/participants", data={"entry_id": goblin["id"]}))
    view = _act(gm, api, "start")
    hero = _pid(view, "Arjun")

    fight = player_ctx.new_page()
    fight.goto(api.removeprefix("/api/v1"))
    wait_live(fight)
    _act(gm, api, "next")  # Arjun's step passes; the goblin attacks until it hits
    attack_until_hit(gm, api, hero)

    # The prompt arrives live; its countdown is shown and ticks; the deadline text stays.
    pending = fight.locator("#pending")
    expect(pending).to_contain_text("danach wird verteidigt, wenn eine Reaktion übrig ist")
    timer = pending.locator('[role="timer"]')
    expect(timer).to_be_visible()
    expect(timer).to_have_attribute("aria-live", "off")
    expect(timer).to_have_attribute("aria-label", "Verbleibende Sekunden für die Antwort")
    first = int(timer.inner_text())
    assert 0 < first <= 120
    expect(timer).not_to_have_text(str(first))  # it ticks
    assert int(timer.inner_text()) < first
    button = pending.locator('button[name="choice"][value="none"]')
    with fight.expect_response(lambda r: "/respond" in r.url):
        button.click()
    # The hit waits for Arjun's Glück: the same countdown, then he takes it.
    accept = pending.locator('button[name="choice"][value="accept"]')
    expect(accept).to_be_visible()
    expect(pending).to_contain_text("danach zählt der Treffer voll")
    expect(timer).to_be_visible()
    with fight.expect_response(lambda r: "/respond" in r.url):
        accept.click()
    expect(fight.locator("[role=timer]")).to_have_count(0)

    # From the sheet: Spürsinn with Brida helping; the result names her help.
    sheet = player_ctx.new_page()
    sheet.goto(f"/campaigns/{created['id']}/characters/{arjun}")
    wait_live(sheet)
    link = sheet.locator('#sheet-form a.roll-link[data-roll="skill:Spürsinn"]')
    link.scroll_into_view_if_needed()
    link.click()
    dialog = sheet.locator("dialog#roll-dialog")
    expect(dialog).to_be_visible()
    dialog.get_by_label("Hilfe von (Helfen)").select_option(label="Brida")
    with sheet.expect_response(lambda r: r.request.method == "POST" and "/roll" in r.url):
        sheet.locator("#roll-submit").click()
    result = sheet.locator("#roll-result")
    expect(result).to_contain_text("Helfen: Brida (Spürsinn)")
    expect(result).to_contain_text("Spürsinn 10")
    for context in (gm_ctx, player_ctx):
        context.close()
