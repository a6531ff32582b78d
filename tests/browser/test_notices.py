"""A member on any page of the campaign is told when a fight begins and when it is their turn:
a toast (a live region that stays in the DOM) and the tab title."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.world import _campaign, _character, account, ok

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}


def test_a_player_is_told_of_the_fight_and_their_turn(browser: Browser, base_url: str) -> None:
    gm, player = account(browser, base_url, "sl"), account(browser, base_url, "held")
    campaign_id = _campaign(gm.request, player.request, "hh")
    character_id = _character(player.request, campaign_id, "Alrik")
    base = f"/api/v1/campaigns/{campaign_id}"
    goblin = next(
        e for e in ok(gm.request.post(f"{base}/bestiary/samples")) if e["name"] == "Goblin"
    )
    encounter = ok(gm.request.post(f"{base}/encounters", data={"name": "Am Pass"}))
    api = f"{base}/encounters/{encounter['id']}"
    ok(gm.request.post(f"{api}/participants", data={"character_id": character_id}))
    ok(gm.request.post(f"{api}/participants", data={"entry_id": goblin["id"]}))

    page = player.new_page()
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    sheet = player.new_page()
    page.goto(f"/campaigns/{campaign_id}")
    sheet.goto(f"/campaigns/{campaign_id}/characters/{character_id}")
    for p in (page, sheet):
        expect(p.locator("#notices[sse-connect]")).to_have_count(1)
        p.locator("#toast").evaluate("el => { el.dataset.kept = 'yes'; }")
    untold = page.title()
    assert not untold.startswith("●")

    ok(gm.request.post(f"{api}/actions/start", data={}))
    for p in (page, sheet):
        expect(p.locator("#toast .alert")).to_be_visible()
        expect(p).to_have_title(re.compile(r"^● (Kampf!|Dein Zug) — Tafelrunde$"))
        # The live region itself stayed: only its content changed.
        expect(p.locator("#toast")).to_have_attribute("data-kept", "yes")
        expect(p.locator("#toast")).to_have_attribute("role", "status")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

    # The GM passes turns until Alrik's: the title says "Dein Zug", the toast links the fight.
    for _step in range(4):
        if ok(gm.request.get(api))["turn"]["name"] == "Alrik":
            break
        ok(gm.request.post(f"{api}/actions/next", data={}))
    expect(page).to_have_title("● Dein Zug — Tafelrunde")
    toast = page.locator("#toast .alert")
    expect(toast).to_contain_text("Du bist am Zug mit Alrik")
    expect(toast.get_by_role("link", name="Zum Kampf")).to_have_attribute(
        "href", f"/campaigns/{campaign_id}/encounters/{encounter['id']}"
    )
    # Closing the toast keeps the focus on the page, not on <body>.
    toast.get_by_role("button", name="Schließen").click()
    expect(page.locator("#toast .alert")).to_have_count(0)
    assert page.evaluate("document.activeElement.id") == "main"

    # A fresh page during the turn is told at once; after the turn the title is plain again.
    page.reload()
    expect(page).to_have_title("● Dein Zug — Tafelrunde")
    ok(gm.request.post(f"{api}/actions/next", data={}))
    expect(page).to_have_title(untold)
    expect(page.locator("#toast .alert")).to_have_count(0)
    gm.close()
    player.close()
