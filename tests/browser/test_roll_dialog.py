"""Rolling from the sheet opens a real dialog (issue 14): the focus moves into it, Esc closes
it, the focus returns to the roll link that opened it; on a phone and on a desktop. Without
JavaScript the roll link opens the sheet with the dialog in place and the roll posts."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.test_layout import SIZES
from tests.browser.world import World, build_world

pytestmark = pytest.mark.browser

LINK = '#sheet-form a.roll-link[data-roll="skill:Kampfkunst"]'


@pytest.fixture(scope="module")
def world(browser: Browser, base_url: str) -> Iterator[World]:
    built = build_world(browser, base_url)
    yield built
    built.gm.close()
    built.player.close()


def open_dialog(page: Page) -> None:
    link = page.locator(LINK)
    link.scroll_into_view_if_needed()
    link.click()
    dialog = page.locator("dialog#roll-dialog")
    expect(dialog).to_be_visible()
    expect(page.locator("dialog#roll-dialog:modal")).to_have_count(1)
    assert page.evaluate("document.getElementById('roll-dialog').contains(document.activeElement)")
    box = dialog.bounding_box()
    size = page.viewport_size
    assert box and size and box["y"] >= 0 and box["y"] + box["height"] <= size["height"], box


@pytest.mark.parametrize("size", SIZES)
def test_the_roll_dialog_takes_and_gives_back_the_focus(world: World, size: str) -> None:
    page = world.player.new_page()
    page.set_viewport_size(SIZES[size])
    page.goto(world.sheets["hh"])
    expect(page.locator("#live-status")).to_have_attribute("data-state", "online")

    open_dialog(page)
    page.keyboard.press("Escape")
    expect(page.locator("dialog#roll-dialog")).to_be_hidden()
    # Polled: the roll's own live push may replace the link just after the dialog closes.
    expect(page.locator('a.roll-link[data-roll="skill:Kampfkunst"]')).to_be_focused()

    # A changed option re-renders the dialog: it stays open and the option keeps the focus.
    open_dialog(page)
    with page.expect_response(lambda r: "/roll?" in r.url):
        page.locator("#roll-modifier").fill("2")
        page.locator("#roll-modifier").dispatch_event("change")
    expect(page.locator("#roll-odds")).to_contain_text("%")
    expect(page.locator("dialog#roll-dialog:modal")).to_have_count(1)
    expect(page.locator("#roll-modifier")).to_be_focused()

    # Rolling shows the result in the dialog, focused; the close button gives the focus back.
    page.locator("#roll-submit").click()
    expect(page.locator("#roll-result")).to_contain_text("2W10")
    expect(page.locator("#roll-result")).to_be_focused()
    page.locator("#roll-close").click()
    expect(page.locator("dialog#roll-dialog")).to_be_hidden()
    # Polled: the roll's own live push may replace the link just after the dialog closes.
    expect(page.locator('a.roll-link[data-roll="skill:Kampfkunst"]')).to_be_focused()
    page.close()


def test_the_roll_works_without_javascript(browser: Browser, base_url: str, world: World) -> None:
    context = browser.new_context(
        base_url=base_url, java_script_enabled=False, storage_state=world.player.storage_state()
    )
    try:
        page = context.new_page()
        page.goto(world.sheets["hh"])
        page.locator(LINK).click()
        dialog = page.locator("dialog#roll-dialog")
        expect(dialog).to_be_visible()
        expect(page.locator("#roll-odds")).to_contain_text("%")
        page.locator("#roll-submit").click()
        expect(page.locator("#roll-result")).to_contain_text("2W10")
        expect(dialog).to_be_visible()
        page.locator("#roll-close").click()  # method="dialog" needs no script
        expect(dialog).to_be_hidden()
    finally:
        context.close()
