"""The session record in three browsers (issue 16): the GM starts a session, the table talks
in and out of character and whispers, the GM shows a handout to one player (live, on their
page only), the GM ends the session; each member opens the record from the sessions page and
reads exactly what they may see (a player on a phone)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.browser.conftest import OpenPage
from tests.browser.flows import create_campaign, invite_link, join, register, wait_live
from tests.browser.test_talk import say

pytestmark = pytest.mark.browser

PHONE: ViewportSize = {"width": 390, "height": 844}


def record(page: Page, path: str) -> str:
    """Open the newest session's HTML record from the sessions page; its text."""
    page.goto(f"{path}/sessions")
    page.get_by_role("link", name="Protokoll (HTML)").first.click()
    expect(page.locator("body")).to_contain_text("Sitzung")
    return page.locator("body").inner_text()


def test_each_member_reads_their_own_record_of_the_session(open_page: OpenPage) -> None:
    gm = open_page()
    register(gm, "sl")
    path = create_campaign(gm, "Nordmark")
    link = invite_link(gm)
    first, second = open_page(PHONE), open_page()
    names = []
    for page in (first, second):
        names.append(register(page, "spieler"))
        join(page, link)
    gm.goto(f"{path}/sessions")
    gm.get_by_role("button", name="Sitzung beginnen").click()
    expect(gm.get_by_role("button", name="Sitzung beenden")).to_be_visible()

    for page in (gm, first, second):
        page.goto(f"{path}/chat")
        wait_live(page)
    # In character: the first player speaks as their hero (made over the API in the same
    # browser session), the GM reads the hero's name with the words.
    cid = path.rsplit("/", 1)[1]
    made = first.request.post(f"/api/v1/campaigns/{cid}/characters", data={"name": "Arjun"})
    assert made.status == 201, made.text()
    first.reload()
    wait_live(first)
    first.locator("#chat-kind").select_option("ic")
    first.locator("#chat-as").select_option(label="Arjun")
    say(first, "Ich gehe voran.")
    expect(gm.locator("#chat-log li", has_text="Ich gehe voran.")).to_contain_text("Arjun")
    first.locator("#chat-kind").select_option("ooc")
    first.locator("#chat-as").select_option("")
    say(first, "Wir brechen auf.")
    say(second, "/w gm GEHEIM-VON-ZWEI")
    say(gm, f"/w {names[0]} NUR-FUER-EINS")
    expect(first.locator("#chat-log")).to_contain_text("NUR-FUER-EINS")
    expect(gm.locator("#chat-log")).to_contain_text("GEHEIM-VON-ZWEI")

    # A handout shown to the first player reaches their campaign page live, and only theirs.
    for page in (first, second):
        page.goto(path)
        wait_live(page)
    gm.goto(f"{path}/handouts")
    gm.locator("#handout-title").fill("Karte der Mine")
    gm.locator("#handout-body").fill("Der Schacht liegt im Norden.")
    gm.get_by_role("button", name="Handout vorbereiten").click()
    handout = gm.locator("li.handout", has_text="Karte der Mine")
    handout.locator("select[name=to]").select_option(label=names[0])
    handout.get_by_role("button", name="Zeigen").click()
    expect(first.locator("#talk-panel")).to_contain_text("Karte der Mine")
    gm.goto(f"{path}/chat")
    say(gm, "Weiter geht es.")  # a barrier: what reached the second player before this
    expect(second.locator("#talk-panel")).to_contain_text("Weiter geht es.")
    assert "Karte der Mine" not in second.content()

    gm.goto(f"{path}/sessions")
    gm.get_by_role("button", name="Sitzung beenden").click()
    expect(gm.get_by_role("button", name="Sitzung beginnen")).to_be_visible()

    mine = record(first, path)
    assert "Wir brechen auf." in mine and "NUR-FUER-EINS" in mine and "Karte der Mine" in mine
    assert "Ich gehe voran." in mine
    assert "GEHEIM-VON-ZWEI" not in mine and "GEHEIM-VON-ZWEI" not in first.content()
    width = first.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, width
    theirs = record(second, path)
    assert "GEHEIM-VON-ZWEI" in theirs and "NUR-FUER-EINS" not in second.content()
    assert "Karte der Mine" not in second.content()
    everything = record(gm, path)
    assert "GEHEIM-VON-ZWEI" in everything and "NUR-FUER-EINS" in everything
