"""A player keeps an H&H character sheet in the browser (issue 6, "done when")."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import OpenPage
from tests.browser.flows import create_campaign, invite_link, join, register, wait_live

pytestmark = pytest.mark.browser


def set_field(page: Page, name: str, value: str) -> None:
    """Type into a sheet field and leave it: HTMX saves on change and swaps the derived block."""
    field = page.locator(f'#sheet-form [name="{name}"]')
    with page.expect_response(
        lambda r: r.request.method == "POST" and re.search(r"/characters/\d+$", r.url) is not None
    ) as info:
        field.fill(value)
        field.blur()  # a real change: the browser sends it when the field loses focus
    assert info.value.status == 200, info.value.status


def derived(page: Page, key: str) -> str:
    return f'#derived [data-key="{key}"] .value'


def test_player_keeps_an_hh_sheet(open_page: OpenPage) -> None:
    gm = open_page()
    register(gm, "sl")
    campaign = create_campaign(gm, "Schattenwald", "hh")
    link = invite_link(gm)

    player = open_page()
    register(player, "held")
    join(player, link)
    other = open_page()
    register(other, "zweite")
    join(other, link)

    # The player creates an H&H character from the campaign page.
    player.locator("#characters-link").click()
    player.locator("#character-name").fill("Alrik")
    player.locator("#create-character button[type=submit]").click()
    expect(player).to_have_url(re.compile(r"/characters/\d+$"))
    sheet_path = "/" + player.url.split("/", 3)[3]
    wait_live(player)

    # Spürsinn and BE: Initiative and Reaktionen follow without a reload.
    set_field(player, "skills.Spürsinn", "15")
    expect(player.locator(derived(player, "initiative"))).to_have_text("15")
    expect(player.locator(derived(player, "reactions"))).to_have_text("3")
    set_field(player, "be", "3")
    expect(player.locator(derived(player, "initiative"))).to_have_text("12")
    expect(player.locator(derived(player, "reactions"))).to_have_text("3")
    set_field(player, "be", "4")
    expect(player.locator(derived(player, "initiative"))).to_have_text("11")
    expect(player.locator(derived(player, "reactions"))).to_have_text("2")

    # Fill the Rucksack (Reisekunde 5: five places carry freely) until «eingeschränkt».
    for _ in range(6):
        with player.expect_response(lambda r: r.url.endswith("/items")):
            player.locator("#starter-select").select_option("hh:seil")
            player.locator("#starter-form button[type=submit]").click()
    expect(player.locator("#rucksack-load")).to_contain_text("6 / 10")
    expect(player.locator("#rucksack-load")).to_contain_text("«eingeschränkt»")
    expect(player.locator('#derived [data-condition="eingeschränkt"]')).to_be_visible()

    # The GM watches the campaign page while the player rolls Kampfkunst from the sheet.
    gm.goto(campaign)
    wait_live(gm)
    player.locator('#sheet-form a.roll-link[data-roll="skill:Kampfkunst"]').click()
    expect(player.locator("#roll-odds")).to_contain_text("%")
    player.locator("#roll-submit").click()
    expect(player.locator("#roll-result")).to_contain_text("2W10")
    entry = gm.locator("#dice-log > li.roll").filter(has_text="Alrik: Kampfkunst")
    expect(entry).to_have_count(1)
    expect(entry.locator(".summary")).to_contain_text("2W10:")

    # A second player sees the sheet read-only and cannot change it.
    other.goto(sheet_path)
    expect(other.locator("#read-only")).to_be_visible()
    expect(other.locator('#sheet-form [name="be"]')).to_be_disabled()
    expect(other.locator("#starter-form")).to_have_count(0)
    status = other.evaluate(
        """async (path) => {
            const body = new URLSearchParams({version: "1", be: "9"});
            const r = await fetch(path, {method: "POST", body});
            return r.status;
        }""",
        sheet_path,
    )
    assert status == 403
