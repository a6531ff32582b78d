"""Two people at one table, each in their own browser: the live dice log end to end (issue 2)."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.browser.conftest import DESKTOP, OpenPage
from tests.browser.flows import (
    assert_seqs_unique,
    create_campaign,
    entry_with,
    invite_link,
    join,
    log_entries,
    register,
    roll,
    wait_live,
)
from tests.browser.proxy import FlakyProxy

pytestmark = pytest.mark.browser

PHONE: ViewportSize = {"width": 390, "height": 844}
FACES = re.compile(r"^\[(\d+), (\d+)\] \+ 3$")


@dataclass
class Table:
    gm: Page
    player: Page
    gm_name: str
    player_name: str
    path: str


def sit_down(
    open_page: OpenPage, player_viewport: ViewportSize = DESKTOP, player_url: str | None = None
) -> Table:
    """A GM registers and creates a campaign; a player registers, follows the invite, joins.

    Both end on the campaign page with its live stream open.
    """
    gm = open_page()
    gm_name = register(gm, "sl")
    path = create_campaign(gm, "Nordmark")
    link = invite_link(gm)
    wait_live(gm)

    player = open_page(player_viewport, player_url)
    player_name = register(player, "spieler")
    if player_url:
        # The player reaches the same server by another address (through the proxy).
        link = player_url + link.removeprefix(gm.url.split("/campaigns")[0])
    join(player, link)
    expect(player).to_have_url(re.compile(re.escape(path) + "$"))
    wait_live(player)
    # The GM's open page learns of the new member without a reload.
    expect(gm.locator("#members-region")).to_contain_text(player_name)
    return Table(gm, player, gm_name, player_name, path)


def mark_page(page: Page) -> None:
    """Tag the document; the tag survives only while no reload happens."""
    page.evaluate("window.__noReload = true")


def assert_not_reloaded(page: Page) -> None:
    assert page.evaluate("window.__noReload === true"), "the page was reloaded"


@pytest.mark.parametrize("player_viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_live_dice_log_between_gm_and_player(
    open_page: OpenPage, player_viewport: ViewportSize
) -> None:
    table = sit_down(open_page, player_viewport)
    gm, player = table.gm, table.player
    expect(player.locator("#log-heading")).to_have_text("Würfelprotokoll")
    mark_page(player)
    mark_page(gm)

    # A public roll appears on the player's open page, with its faces.
    roll(gm, "2W10+3", "Angriff auf den Ork")
    seen = entry_with(player, "Angriff auf den Ork")
    expect(seen).to_have_count(1)
    expect(seen.locator(".who")).to_have_text(table.gm_name)
    expect(seen.locator(".expr")).to_have_text("2W10+3")
    expect(seen.locator(".faces")).to_have_text(FACES)
    match = FACES.match(seen.locator(".faces").inner_text().strip())
    assert match is not None
    faces = [int(match.group(1)), int(match.group(2))]
    assert all(1 <= f <= 10 for f in faces), faces
    expect(seen.locator(".total")).to_have_text(f"= {sum(faces) + 3}")
    # The GM's page shows the very same result (the server rolled once).
    gm_entry = entry_with(gm, "Angriff auf den Ork")
    expect(gm_entry.locator(".faces")).to_have_text(seen.locator(".faces").inner_text())
    assert_not_reloaded(player)

    # A GM-only roll: the GM sees it; the player gets a bare stub and nothing of its content.
    roll(gm, "1d20+7", "Hinterhalt der Goblins", visibility="gm")
    expect(entry_with(gm, "Hinterhalt der Goblins")).to_have_count(1)
    stub = player.locator("#dice-log > li.roll.secret")
    expect(stub).to_have_count(1)
    expect(stub.locator(".who")).to_have_text(table.gm_name)
    expect(stub.locator(".what")).not_to_be_empty()
    for part in (".label", ".expr", ".faces", ".total"):
        expect(stub.locator(part)).to_have_count(0)
    expect(log_entries(player)).to_have_count(2)
    for secret in ("Hinterhalt der Goblins", "1d20+7"):
        expect(player.locator("body")).not_to_contain_text(secret)
        assert secret not in player.content()
    assert_not_reloaded(player)

    # The player rolls too; the GM sees it live.
    roll(player, "3W6", "Kletterprobe")
    expect(entry_with(gm, "Kletterprobe")).to_have_count(1)
    expect(entry_with(player, "Kletterprobe")).to_have_count(1)

    # Bad input is answered at the field, and nothing is rolled.
    roll(gm, "10000d10000", "zu viel")
    error = gm.locator("#roll-form #expression-error")
    expect(error).to_be_visible()
    expect(error).not_to_be_empty()
    expect(gm.locator("#roll-expression")).to_have_attribute("aria-invalid", "true")
    expect(gm.locator("#roll-expression")).to_have_value("10000d10000")
    assert_not_reloaded(gm)

    if player_viewport == PHONE:
        width = player.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"page is {width}px wide on a {PHONE['width']}px phone"
        expect(player.locator("#roll-form button[type=submit]")).to_be_in_viewport()

    # English, per user: the reloaded page speaks English; the stub still hides everything.
    player.locator("header.top details.menu > summary").click()
    player.locator("#lang-select").select_option("en")
    player.locator("form.lang button[type=submit]").click()
    expect(player.locator("html")).to_have_attribute("lang", "en")
    expect(player.locator("#log-heading")).to_have_text("Dice log")
    expect(player.locator("#dice-log > li.roll.secret .what")).to_have_text("rolled secretly")
    for secret in ("Hinterhalt der Goblins", "1d20+7"):
        assert secret not in player.content()
    wait_live(player)

    # After the reload the stream resumes after what the page shows: nothing twice.
    roll(gm, "1W6", "Schluss")
    expect(entry_with(player, "Schluss")).to_have_count(1)
    expect(log_entries(player)).to_have_count(4)
    assert_seqs_unique(player)
    assert "10000d10000" not in player.content()


def test_live_status_goes_online(open_page: OpenPage) -> None:
    page = open_page()
    register(page, "solo")
    create_campaign(page, "Einsame Insel")
    status = page.locator("#live-status")
    wait_live(page)
    expect(status).to_have_text(status.get_attribute("data-online") or "")


def test_roll_made_while_offline_arrives_once_after_reconnect(
    open_page: OpenPage, flaky_proxy: FlakyProxy
) -> None:
    table = sit_down(open_page, player_url=flaky_proxy.url)
    gm, player = table.gm, table.player
    roll(gm, "1W6", "vorher")
    expect(entry_with(player, "vorher")).to_have_count(1)
    mark_page(player)

    flaky_proxy.cut()
    expect(player.locator("#live-status")).to_have_attribute("data-state", "offline")
    roll(gm, "2W6", "während der Funkstille")
    expect(entry_with(gm, "während der Funkstille")).to_have_count(1)
    expect(entry_with(player, "während der Funkstille")).to_have_count(0)

    flaky_proxy.restore()
    wait_live(player)
    expect(entry_with(player, "während der Funkstille")).to_have_count(1)
    # A later roll proves the stream has caught up; the missed one is still there once.
    roll(gm, "1W20", "danach")
    expect(entry_with(player, "danach")).to_have_count(1)
    expect(entry_with(player, "während der Funkstille")).to_have_count(1)
    expect(log_entries(player)).to_have_count(3)
    assert_seqs_unique(player)
    assert_not_reloaded(player)
