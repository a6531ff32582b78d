"""No Content-Security-Policy error in the console after HTMX swaps: nothing the app swaps in
carries an inline style or script (the CSP forbids both)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, ConsoleMessage, expect

from tests.browser.world import _campaign, _character, _running_fight, account, ok

pytestmark = pytest.mark.browser


def test_swaps_cause_no_csp_errors(browser: Browser, base_url: str) -> None:
    gm, player = account(browser, base_url, "sl"), account(browser, base_url, "held")
    campaign_id = _campaign(gm.request, player.request, "hh")
    character_id = _character(player.request, campaign_id, "Alrik")
    api = _running_fight(gm.request, campaign_id, character_id)
    errors: list[str] = []

    def record(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text:
            errors.append(message.text)

    sheet = player.new_page()
    sheet.on("console", record)
    sheet.goto(f"/campaigns/{campaign_id}/characters/{character_id}")
    expect(sheet.locator("#notices[sse-connect]")).to_have_count(1)
    field = sheet.locator('#sheet-form [name="xp"]')
    with sheet.expect_response(lambda r: r.request.method == "POST"):
        field.fill("5")
        field.dispatch_event("change")
    sheet.locator("a.roll-link").first.click()
    expect(sheet.locator("#roll-dialog")).to_be_visible()
    sheet.keyboard.press("Escape")

    fight = gm.new_page()
    fight.on("console", record)
    fight.goto(api.removeprefix("/api/v1"))
    expect(fight.locator("#live-status")).to_have_attribute("data-state", "online")
    actor = fight.locator("#turn").get_attribute("data-actor") or ""
    ok(gm.request.post(f"{api}/actions/next", data={}))
    expect(fight.locator("#turn")).not_to_have_attribute("data-actor", actor)
    assert not errors, errors
    gm.close()
    player.close()
