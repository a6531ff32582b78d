"""Every main page fits a 390 × 844 phone and a 1280 × 800 desktop (issue 14): no sideways
scrolling, touch targets of at least 44 px, inputs that do not make iPhones zoom, checkboxes
and radio buttons on the line of their words, a compact header whose menu works without
JavaScript."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, expect

from tests.browser.conftest import DESKTOP
from tests.browser.world import World, build_world

pytestmark = pytest.mark.browser

PHONE: ViewportSize = {"width": 390, "height": 844}
SIZES = {"phone": PHONE, "desktop": DESKTOP}

# Controls a finger must hit: every visible button, select and text input, and links styled
# as buttons. Inline text links in running prose are exempt (WCAG 2.5.8 "inline").
TARGETS = (
    "button, select, input:not([type=hidden]):not([type=checkbox]):not([type=radio]),"
    " summary, a.roll-link, header.top a, header.top summary,"
    " label:has(> input[type=checkbox]), label:has(> input[type=radio])"
)

MEASURE = """(targets) => {
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && !el.closest("[hidden]");
  };
  const name = (el) => (el.id ? "#" + el.id : el.tagName.toLowerCase()) +
    " " + (el.textContent || el.getAttribute("name") || "").trim().slice(0, 30);
  const els = [...document.querySelectorAll(targets)].filter(visible);
  const clipped = [...document.querySelectorAll("button, select, input")].filter(visible)
    .filter((el) => el.scrollWidth > el.clientWidth + 1 && el.tagName === "BUTTON").map(name);
  // A checkbox or radio button in its label sits on the line of its words, before them:
  // its middle within their height, its right edge left of where they begin.
  const offLine = [...document.querySelectorAll("label")].filter(visible).filter((label) => {
    const box = label.querySelector(":scope > input[type=checkbox], :scope > input[type=radio]");
    if (!box || !visible(box) || !label.lastChild || box === label.lastChild) return false;
    const words = document.createRange();
    words.setStartAfter(box);
    words.setEndAfter(label.lastChild);
    const b = box.getBoundingClientRect(), w = words.getBoundingClientRect();
    const middle = b.top + b.height / 2;
    return middle < w.top || middle > w.bottom || b.right > w.left + 1;
  }).map(name);
  // A label's words run past its box: they are cut off, or hidden under the field beside it
  // (a label for screen readers only, one pixel wide, is hidden on purpose).
  const cutLabels = [...document.querySelectorAll("label")].filter(visible)
    .filter((el) => el.clientWidth > 1 && el.scrollWidth > el.clientWidth + 1).map(name);
  // A label that ends a line while its field begins the next one: read as the label of
  // whatever stands after it. (A label above its field starts where the field does; one for
  // screen readers only, one pixel wide, is not shown.)
  const torn = [...document.querySelectorAll("label[for]")].filter(visible).filter((label) => {
    const field = document.getElementById(label.htmlFor);
    if (!field || !visible(field) || label.contains(field)) return false;
    const l = label.getBoundingClientRect(), f = field.getBoundingClientRect();
    return l.width > 1 && f.top >= l.bottom - 1 && l.left > f.left + 4;
  }).map(name);
  // A button that looks like a link has no background of its own (a «Revoke» in a white
  // chip on the page's cream).
  const chips = [...document.querySelectorAll("button.link")].filter(visible)
    .filter((el) => getComputedStyle(el).backgroundColor !== "rgba(0, 0, 0, 0)").map(name);
  // A button stretched to the height of what stands beside it (more than two lines).
  const tall = [...document.querySelectorAll("button")].filter(visible)
    .filter((el) => el.getBoundingClientRect().height > 72).map(name);
  return {
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    small: els.filter((el) => el.getBoundingClientRect().height < 44).map(name),
    tinyFont: [...document.querySelectorAll("input, select, textarea")].filter(visible)
      .filter((el) => parseFloat(getComputedStyle(el).fontSize) < 16).map(name),
    clipped,
    offLine,
    cutLabels,
    torn,
    chips,
    tall,
  };
}"""


@pytest.fixture(scope="module")
def world(browser: Browser, base_url: str) -> Iterator[World]:
    built = build_world(browser, base_url)
    yield built
    built.gm.close()
    built.player.close()


def _pages(world: World) -> list[tuple[str, BrowserContext, str]]:
    both = [(name, world.gm, path) for name, path in world.gm_pages().items()]
    both += [(name, world.player, path) for name, path in world.player_pages().items()]
    return both


def all_pages(
    world: World, browser: Browser, base_url: str, viewport: ViewportSize
) -> Iterator[tuple[str, Page]]:
    """Every main page in turn, loaded at ``viewport``: logged out, as the GM, as the player."""
    anonymous = browser.new_context(base_url=base_url, viewport=viewport)
    try:
        for path in ("/login", "/register"):
            page = anonymous.new_page()
            page.goto(path)
            yield path, page
            page.close()
    finally:
        anonymous.close()
    for name, context, path in _pages(world):
        page = context.new_page()
        page.set_viewport_size(viewport)
        page.goto(path)
        yield name, page
        page.close()


#: What each list of elements the page's measure returns is, when it is not empty.
LISTED = {
    "small": "touch targets under 44 px",
    "tinyFont": "inputs under 16 px make iPhones zoom",
    "clipped": "buttons cut off",
    "cutLabels": "labels cut off",
    "torn": "labels torn from their fields",
    "tall": "buttons stretched tall",
    "chips": "link buttons with a background",
    "offLine": "checkboxes off their words' line",
}


def _problems(page: Page, where: str) -> list[str]:
    """What is wrong with the page as shown: empty when it fits."""
    m = page.evaluate(MEASURE, TARGETS)
    found = [f"{where}: {what}: {m[key]}" for key, what in LISTED.items() if m[key]]
    if m["scrollWidth"] > m["innerWidth"]:
        found.append(f"{where}: {m['scrollWidth']} px wide in {m['innerWidth']} px")
    return found


@pytest.mark.parametrize("size", SIZES)
def test_every_main_page_fits(world: World, browser: Browser, base_url: str, size: str) -> None:
    found: list[str] = []
    for name, page in all_pages(world, browser, base_url, SIZES[size]):
        found += _problems(page, f"{name} {size}")
    assert not found, "\n".join(found)


def test_phone_header_is_compact_and_its_menu_works_without_javascript(
    browser: Browser, base_url: str, world: World
) -> None:
    context = browser.new_context(
        base_url=base_url, viewport=PHONE, java_script_enabled=False,
        storage_state=world.player.storage_state(),
    )  # fmt: skip
    try:
        page = context.new_page()
        page.goto("/campaigns")
        header = page.locator("header.top")
        box = header.bounding_box()
        assert box and box["height"] <= 64, box
        logout = page.locator("header.top form[action='/logout'] button")
        everywhere = page.locator("header.top form[action='/logout-everywhere'] button")
        expect(logout).to_be_hidden()
        page.locator("header.top details.menu > summary").click()
        expect(logout).to_be_visible()
        expect(everywhere).to_be_visible()
        a, b = logout.bounding_box(), everywhere.bounding_box()
        assert a and b
        # Not side by side: "Log out everywhere" sits on its own row, well apart.
        assert b["y"] >= a["y"] + a["height"] + 8, (a, b)
        page.locator("header.top details.menu a[href='/campaigns']").click()
        expect(page).to_have_url(f"{base_url}/campaigns")
    finally:
        context.close()


def test_on_a_phone_a_scene_shows_its_board_in_the_first_screen(
    world: World, browser: Browser, base_url: str
) -> None:
    """The player's scene page: the board begins in the upper half of a phone's screen, and
    the map's help waits in its fold until asked for («So geht der Plan»)."""
    page = world.player.new_page()
    try:
        page.set_viewport_size(PHONE)
        page.goto(world.scene)
        help_text = page.locator("#map-help")
        expect(help_text).to_be_hidden()
        box = page.locator("#map-region .map-viewport").bounding_box()
        assert box and box["y"] < PHONE["height"] / 2, box
        page.locator("#map-region .map-help-fold > summary").click()
        expect(help_text).to_be_visible()
    finally:
        page.close()
