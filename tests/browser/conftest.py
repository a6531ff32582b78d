"""Playwright against Debian's Chromium and the session's live uvicorn server.

These tests run only with ``--browser-tests`` (see ``tests/conftest.py``). When they are asked
for, a missing browser is an error, never a skip: CI must not pass by not testing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, expect

from tests.browser.proxy import FlakyProxy
from tests.conftest import LiveServer

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
DESKTOP: ViewportSize = {"width": 1280, "height": 800}

# Every wait is an ``expect``; a live push must arrive well within this.
expect.set_options(timeout=10_000)

OpenPage = Callable[..., Page]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Browser tests last: sync Playwright leaves its event loop marked as running in the
    main thread for the rest of the session, and ``asyncio.run`` (async tests, migrations)
    refuses to start under it."""
    items.sort(key=lambda item: "browser" in item.keywords)


@pytest.fixture(scope="session")
def browser_type_launch_args(
    browser_type_launch_args: dict[str, Any], live_server: LiveServer
) -> dict[str, Any]:
    # ``live_server`` first: the database is migrated with ``asyncio.run`` before Playwright
    # starts its loop.
    if not CHROMIUM.exists():
        pytest.fail(
            f"--browser-tests needs Chromium at {CHROMIUM} (apt-get install chromium)",
            pytrace=False,
        )
    return {**browser_type_launch_args, "executable_path": str(CHROMIUM), "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def base_url(live_server: LiveServer) -> str:
    return live_server.url


@pytest.fixture
def open_page(base_url: str, browser: Browser) -> Iterator[OpenPage]:
    """Pages in separate browser contexts (own cookies: one per person at the table)."""
    contexts: list[BrowserContext] = []

    def factory(viewport: ViewportSize | None = None, url: str | None = None) -> Page:
        context = browser.new_context(base_url=url or base_url, viewport=viewport or DESKTOP)
        contexts.append(context)
        return context.new_page()

    yield factory
    for context in contexts:
        context.close()


@pytest.fixture
def flaky_proxy(live_server: LiveServer) -> Iterator[FlakyProxy]:
    """The live server behind a connection the test can cut and restore."""
    proxy = FlakyProxy(live_server.port)
    yield proxy
    proxy.close()
