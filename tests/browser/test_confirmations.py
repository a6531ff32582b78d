"""Destructive actions ask first: a <dialog> with JavaScript, a page of the server's without;
and the attack form's default target is an enemy, never an ally."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.world import _campaign, _character, _running_fight, account, ok

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}


def test_ending_a_fight_asks_in_a_dialog_and_the_target_is_an_enemy(
    browser: Browser, base_url: str
) -> None:
    gm, player = account(browser, base_url, "sl"), account(browser, base_url, "held")
    campaign_id = _campaign(gm.request, player.request, "hh")
    character_id = _character(player.request, campaign_id, "Alrik")
    api = _running_fight(gm.request, campaign_id, character_id)
    page = gm.new_page()
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    page.goto(api.removeprefix("/api/v1"))
    actor = ok(gm.request.get(api))["turn"]["name"]
    chosen = page.locator("#attack-target option:checked").inner_text()
    if actor.startswith("Goblin"):
        assert chosen == "Alrik", (actor, chosen)
    else:
        assert chosen.startswith("Goblin"), (actor, chosen)

    end = page.get_by_role("button", name="Kampf beenden")
    end.click()
    dialog = page.locator("#confirm-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Den Kampf beenden?")
    dialog.get_by_role("button", name="Abbrechen").click()
    expect(dialog).to_be_hidden()
    expect(end).to_be_focused()
    assert ok(gm.request.get(api))["status"] == "running"
    end.click()
    dialog.locator("#confirm-dialog-yes").click()
    # The page comes back without the GM's fight tools: the fight is over.
    expect(page.get_by_role("button", name="Kampf beenden")).to_have_count(0)
    assert ok(gm.request.get(api))["status"] == "ended"
    gm.close()
    player.close()


def test_deleting_an_encounter_without_javascript_asks_on_a_page(
    browser: Browser, base_url: str
) -> None:
    gm = account(browser, base_url, "sl")
    campaign = ok(gm.request.post("/api/v1/campaigns", data={"name": "Runde", "system": "hh"}))
    base = f"/api/v1/campaigns/{campaign['id']}"
    encounter = ok(gm.request.post(f"{base}/encounters", data={"name": "Am Pass"}))
    plain = browser.new_context(
        base_url=base_url, storage_state=gm.storage_state(), java_script_enabled=False,
        viewport=PHONE,  # type: ignore[arg-type]
    )  # fmt: skip
    page = plain.new_page()
    url = f"/campaigns/{campaign['id']}/encounters/{encounter['id']}"
    page.goto(url)
    page.locator("form[action$='/delete'] button").click()
    expect(page.locator("h1")).to_have_text("Die Begegnung „Am Pass“ löschen?")
    page.get_by_role("link", name="Abbrechen").click()
    expect(page).to_have_url(re.compile(re.escape(url) + "$"))
    page.locator("form[action$='/delete'] button").click()
    page.get_by_role("button", name="Begegnung löschen").click()
    expect(page).to_have_url(re.compile(r"/encounters$"))
    assert gm.request.get(f"{base}/encounters/{encounter['id']}").status == 404
    plain.close()
    gm.close()


def test_deleting_a_chat_message_asks_in_a_dialog(browser: Browser, base_url: str) -> None:
    gm, player = account(browser, base_url, "sl"), account(browser, base_url, "held")
    campaign_id = _campaign(gm.request, player.request, "hh")
    chat = f"/campaigns/{campaign_id}/chat"
    page = player.new_page()
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    page.goto(chat)
    page.locator("#chat-text").fill("Vertippt")
    page.locator("#chat-form button[type=submit]").first.click()
    message = page.locator(".chat-msg", has_text="Vertippt")
    expect(message).to_be_visible()
    message.locator("summary").click()
    delete = message.get_by_role("button", name="Löschen")
    delete.click()
    dialog = page.locator("#confirm-dialog")
    expect(dialog).to_contain_text("Diese Nachricht löschen?")
    dialog.get_by_role("button", name="Abbrechen").click()
    expect(dialog).to_be_hidden()
    expect(page.locator(".chat-msg.deleted")).to_have_count(0)
    delete.click()
    dialog.locator("#confirm-dialog-yes").click()
    expect(page.locator(".chat-msg.deleted")).to_have_count(1)
    expect(page.locator(".chat-msg", has_text="Vertippt")).to_have_count(0)
    gm.close()
    player.close()
