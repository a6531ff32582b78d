"""L5: /api/docs renders Swagger UI from our own static files, under our own CSP."""

from __future__ import annotations

import pytest
from playwright.sync_api import ConsoleMessage, expect

from tests.browser.conftest import OpenPage

pytestmark = pytest.mark.browser


def test_api_docs_render_the_operations_with_no_csp_violation(open_page: OpenPage) -> None:
    page = open_page()
    console: list[str] = []
    page.on("console", lambda message: console.append(_text(message)))
    outside: list[str] = []
    page.on(
        "request",
        lambda request: (
            None if request.url.startswith("http://127.0.0.1") else outside.append(request.url)
        ),
    )
    page.goto("/api/docs")
    expect(page.locator(".opblock-summary-path", has_text="/api/v1/auth/login")).to_be_visible()
    expect(page.locator(".opblock").first).to_be_visible()
    assert page.locator(".opblock").count() > 20
    page.locator(".opblock-summary", has_text="/api/v1/auth/login").first.click()
    expect(page.get_by_text("Try it out")).to_be_visible()
    assert outside == [], "the docs load nothing from outside the app"
    assert not [line for line in console if "Content Security Policy" in line], console


def _text(message: ConsoleMessage) -> str:
    return f"{message.type}: {message.text}"
