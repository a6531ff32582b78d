"""axe-core over every main page at phone and desktop size (issue 14): no critical or
serious violation. axe is vendored for the tests only (``tests/browser/vendor/``, from npm,
MPL-2.0); the app never serves it. It is injected through the DevTools protocol, so the
page's own CSP stays as it is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.browser.test_layout import SIZES, all_pages
from tests.browser.world import World, build_world

pytestmark = pytest.mark.browser

AXE = (Path(__file__).parent / "vendor" / "axe-4.14.1.min.js").read_text(encoding="utf-8")
RUN = """async () => {
  const result = await axe.run(document, { resultTypes: ["violations"] });
  return result.violations
    .filter((v) => v.impact === "critical" || v.impact === "serious")
    .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(" ")) }));
}"""


@pytest.fixture(scope="module")
def world(browser: Browser, base_url: str) -> Iterator[World]:
    built = build_world(browser, base_url)
    yield built
    built.gm.close()
    built.player.close()


def violations(page: Page) -> list[dict[str, Any]]:
    page.evaluate(AXE)
    found: list[dict[str, Any]] = page.evaluate(RUN)
    return found


@pytest.mark.parametrize("size", SIZES)
def test_no_serious_violation_on_any_main_page(
    world: World, browser: Browser, base_url: str, size: str
) -> None:
    found: dict[str, list[dict[str, Any]]] = {}
    checked = 0
    for name, page in all_pages(world, browser, base_url, SIZES[size]):
        if problems := violations(page):
            found[name] = problems
        checked += 1
    assert checked >= 14
    assert not found, found


def test_the_open_roll_dialog_and_the_open_menu_have_no_serious_violation(world: World) -> None:
    page = world.player.new_page()
    page.goto(world.sheets["pf2e"])
    page.locator("header.top details.menu > summary").click()
    assert not violations(page)
    page.locator("#sheet-form a.roll-link").first.click()
    page.locator("dialog#roll-dialog:modal").wait_for()
    assert not violations(page)
    page.close()
