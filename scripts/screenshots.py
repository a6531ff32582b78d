"""Screenshots of every main page at 390 × 844 (phone) and 1280 × 800 (desktop).

Usage (from the repository root):

    PYTHONPATH=$PWD .venv/bin/python scripts/screenshots.py [--out docs/screenshots]

Migrates a fresh SQLite database in a temporary directory, starts uvicorn on it (the browser
tests' live server), builds the browser tests' table through the JSON API
(``tests/browser/world.py``: a GM and a player, one campaign per rule system, characters with
items, a running H&H fight), and saves the first screen of each page as
``<page>-<phone|desktop>.png`` with Debian's Chromium; then the main pages again in the
English UI as ``<page>-en-<phone|desktop>.png``. The dice are the server's, so the
combat log differs from run to run.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, ViewportSize, sync_playwright

from app.migrate import upgrade
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.browser.world import World, build_world
from tests.conftest import LiveServer

SIZES: dict[str, ViewportSize] = {
    "phone": {"width": 390, "height": 844},
    "desktop": {"width": 1280, "height": 800},
}
ANONYMOUS = {"login": "/login", "register": "/register"}
#: The pages shot again in the English UI, per user of the table.
ENGLISH = {
    "gm": ("campaign", "bestiary", "combat-gm"),
    "player": ("sheet-hh", "sheet-ds4", "sheet-pf2e", "combat-player"),
}


def _shoot(
    context: BrowserContext, pages: dict[str, str], out: Path, suffix: str = ""
) -> list[Path]:
    written: list[Path] = []
    for size, viewport in SIZES.items():
        page = context.new_page()
        page.set_viewport_size(viewport)
        for name, path in pages.items():
            page.goto(path)
            page.wait_for_load_state("networkidle")
            target = out / f"{name}{suffix}-{size}.png"
            page.screenshot(path=str(target), animations="disabled")
            written.append(target)
        page.close()
    return written


def _all(browser: Browser, url: str, world: World, out: Path) -> list[Path]:
    anonymous = browser.new_context(base_url=url)
    written = _shoot(anonymous, ANONYMOUS, out)
    anonymous.close()
    written += _shoot(world.gm, world.gm_pages(), out)
    written += _shoot(world.player, world.player_pages(), out)
    return written + _english(world, out)


def _english(world: World, out: Path) -> list[Path]:
    """The main pages in the English UI (the users choose English in the menu)."""
    written: list[Path] = []
    for context, pages, names in (
        (world.gm, world.gm_pages(), ENGLISH["gm"]),
        (world.player, world.player_pages(), ENGLISH["player"]),
    ):
        response = context.request.post(
            "/language", form={"locale": "en", "next": "/campaigns"}, max_redirects=0
        )
        assert response.status == 303, response.status
        written += _shoot(context, {name: pages[name] for name in names}, out, "-en")
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        database = f"sqlite+aiosqlite:///{Path(tmp) / 'screens.db'}"
        upgrade(database)
        server = LiveServer(database, Path(tmp))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
                world = build_world(browser, server.url)
                written = _all(browser, server.url, world, args.out)
                browser.close()
        finally:
            server.stop()
    for path in written:
        print(path)


if __name__ == "__main__":
    main()
