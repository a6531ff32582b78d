"""The chat in three browsers: a player's message and inline roll appear live in the GM's
panel on the campaign page; a whisper to the GM never reaches a third member (issue 16)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.browser.conftest import OpenPage
from tests.browser.flows import create_campaign, invite_link, join, register, wait_live

pytestmark = pytest.mark.browser

PHONE: ViewportSize = {"width": 390, "height": 844}


def say(page: Page, text: str) -> None:
    """Send the chat form (HTMX) and wait until the form comes back empty."""
    form = page.locator("#chat-form")
    form.locator("#chat-text").fill(text)
    with page.expect_response(lambda r: r.request.method == "POST" and "/chat" in r.url) as info:
        form.locator("button[type=submit]").click()
    assert info.value.status == 200, info.value.status
    expect(page.locator("#chat-text")).to_have_value("")


def test_chat_live_between_gm_player_and_a_third_member(open_page: OpenPage) -> None:
    gm = open_page()
    register(gm, "sl")
    path = create_campaign(gm, "Nordmark")
    link = invite_link(gm)
    player, third = open_page(PHONE), open_page()
    for page in (player, third):
        register(page, "spieler")
        join(page, link)
        page.goto(f"{path}/chat")
        wait_live(page)
    gm.goto(path)
    wait_live(gm)
    panel = gm.locator("#talk-panel #chat-log")

    say(player, "Hallo **Runde**")
    expect(panel).to_contain_text("Hallo Runde")
    expect(panel.locator("strong")).to_have_text("Runde")
    expect(third.locator("#chat-log")).to_contain_text("Hallo Runde")

    say(player, "/w gm GEHEIMER-PLAN")
    expect(panel).to_contain_text("GEHEIMER-PLAN")
    expect(player.locator("#chat-log")).to_contain_text("GEHEIMER-PLAN")
    say(player, "/r 2W10+3 Kampfkunst")
    expect(panel.locator("li.chat-roll")).to_contain_text("Kampfkunst")
    expect(gm.locator("#dice-log")).to_contain_text("Kampfkunst")
    # The third member got the roll after the whisper, but never the whisper.
    expect(third.locator("#chat-log li.chat-roll")).to_contain_text("Kampfkunst")
    assert "GEHEIMER-PLAN" not in third.content()
    third.reload()
    expect(third.locator("#chat-log")).to_contain_text("Kampfkunst")
    assert "GEHEIMER-PLAN" not in third.content()

    # The phone's chat page fits 390 px without sideways scrolling.
    width = player.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, width
    expect(player).to_have_url(re.compile(r"/chat$"))
