"""No Content-Security-Policy error in the console, on any main page or after its swaps and
pushes: nothing the app serves or swaps in carries an inline style or script (the CSP forbids
both)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, expect

from tests.browser.world import (
    World,
    _campaign,
    _character,
    _running_fight,
    account,
    build_world,
    ok,
)

pytestmark = pytest.mark.browser


class CspErrors:
    """Every console message of the pages it watches that reports a CSP violation."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def record(self, message: ConsoleMessage) -> None:
        text = message.text
        if "Content Security Policy" in text or "Content-Security-Policy" in text:
            self.seen.append(f"{message.page.url if message.page else ''}: {text}")

    def watch(self, page: Page) -> Page:
        page.on("console", self.record)
        return page


@pytest.fixture(scope="module")
def world(browser: Browser, base_url: str) -> Iterator[World]:
    built = build_world(browser, base_url)
    yield built
    built.gm.close()
    built.player.close()


def _change(page: Page, name: str, value: str) -> None:
    field = page.locator(f'#sheet-form [name="{name}"]')
    with page.expect_response(lambda r: r.request.method == "POST"):
        field.fill(value)
        field.blur()


def test_main_pages_and_their_swaps_cause_no_csp_errors(world: World) -> None:
    errors = CspErrors()
    for context, pages in ((world.gm, world.gm_pages()), (world.player, world.player_pages())):
        page = errors.watch(context.new_page())
        for path in pages.values():
            page.goto(path)
            page.wait_for_load_state("load")
        page.close()

    # Swaps on a sheet: a field's live check, the whole sheet after a refusal, the roll dialog,
    # an item equipped.
    sheet = errors.watch(world.player.new_page())
    sheet.goto(world.sheets["hh"])
    expect(sheet.locator("#live-status")).to_have_attribute("data-state", "online")
    _change(sheet, "xp", "5")
    _change(sheet, "lp", "999")
    expect(sheet.locator('#sheet-form [name="lp"]')).to_have_attribute("aria-invalid", "true")
    sheet.locator("a.roll-link").first.click()
    expect(sheet.locator("#roll-dialog")).to_be_visible()
    sheet.keyboard.press("Escape")
    sheet.locator("form[action$='/equip'] button").first.click()
    expect(sheet.locator("form[action$='/unequip']").first).to_be_visible()

    # Pushes on the combat page (GM and player) and the map.
    fight = errors.watch(world.gm.new_page())
    fight.goto(world.encounter)
    expect(fight.locator("#live-status")).to_have_attribute("data-state", "online")
    watching = errors.watch(world.player.new_page())
    watching.goto(world.encounter)
    expect(watching.locator("#live-status")).to_have_attribute("data-state", "online")
    scene = errors.watch(world.player.new_page())
    scene.goto(world.scene)
    actor = fight.locator("#turn").get_attribute("data-actor") or ""
    ok(world.gm.request.post(f"{world.encounter_api}/actions/next", data={}))
    expect(fight.locator("#turn")).not_to_have_attribute("data-actor", actor)
    expect(watching.locator("#turn")).not_to_have_attribute("data-actor", actor)
    fight.wait_for_timeout(300)
    assert not errors.seen, errors.seen


def _enlarge(page: Page, selector: str) -> None:
    """Enlarge a text box as its resize handle does: the browser puts the new size on the
    element as an inline style. (Headless Chromium's synthetic mouse does not reach the
    handle, so the size is set the way the handle sets it.)"""
    page.locator(selector).evaluate("el => { el.style.height = (el.offsetHeight + 80) + 'px'; }")


def test_a_pushed_sheet_keeps_a_resized_text_box_without_csp_errors(
    browser: Browser, base_url: str
) -> None:
    """The first evening: a player enlarged the Talente box, then the GM's changes arrived."""
    gm, player = account(browser, base_url, "sl"), account(browser, base_url, "held")
    campaign_id = _campaign(gm.request, player.request, "hh")
    character_id = _character(player.request, campaign_id, "Alrik")
    api = _running_fight(gm.request, campaign_id, character_id)
    errors = CspErrors()
    sheet = errors.watch(player.new_page())
    sheet.goto(f"/campaigns/{campaign_id}/characters/{character_id}")
    expect(sheet.locator("#live-status")).to_have_attribute("data-state", "online")
    talents = '#sheet-form [name="talents"]'
    _enlarge(sheet, talents)
    height = sheet.locator(talents).evaluate("el => el.offsetHeight")
    _change(sheet, "xp", "5")
    character = f"/api/v1/campaigns/{campaign_id}/characters/{character_id}"
    for xp in (7, 9):
        ok(gm.request.patch(character, data={"changes": {"xp": xp}}))
        expect(sheet.locator('#sheet-form [name="xp"]')).to_have_value(str(xp))
    assert sheet.locator(talents).evaluate("el => el.offsetHeight") == height
    fight = errors.watch(gm.new_page())
    fight.goto(api.removeprefix("/api/v1"))
    expect(fight.locator("#live-status")).to_have_attribute("data-state", "online")
    actor = fight.locator("#turn").get_attribute("data-actor") or ""
    ok(gm.request.post(f"{api}/actions/next", data={}))
    expect(fight.locator("#turn")).not_to_have_attribute("data-actor", actor)
    assert not errors.seen, errors.seen
    gm.close()
    player.close()
