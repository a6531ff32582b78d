"""Issue 31, item 16 in the browser: the GM marks the group's quest «erledigt» with one
click and edits a note in place; the player sees both."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.world import gm_and_player, ok

pytestmark = pytest.mark.browser


def test_the_gm_closes_a_quest_and_edits_it_in_the_journal(browser: Browser, base_url: str) -> None:
    gm, player, campaign_id = gm_and_player(browser, base_url, "quest", "hh")
    journal = f"/campaigns/{campaign_id}/journal"
    body = {"title": "Der verschwundene Müller", "sharing": "group", "quest": "open"}
    quest = ok(player.request.post(f"/api/v1{journal}", data=body))
    note = f"#note-{quest['id']}"
    page = gm.new_page()
    page.goto(journal)
    card = page.locator(note)
    expect(card).to_contain_text("Queste: offen")
    card.get_by_role("button", name="Als erledigt markieren").click()
    expect(page.locator(note)).to_contain_text("Queste: erledigt")
    page.locator(note).locator("summary", has_text="Notiz bearbeiten").click()
    page.locator(f"#note-{quest['id']}-title").fill("Der Müller ist zurück")
    page.locator(f"#note-{quest['id']}-save").click()
    expect(page.locator(note)).to_contain_text("Der Müller ist zurück")
    reader = player.new_page()
    reader.goto(journal)
    expect(reader.locator(note)).to_contain_text("Der Müller ist zurück")
    expect(reader.locator(note)).to_contain_text("Queste: erledigt")
    gm.close()
    player.close()
