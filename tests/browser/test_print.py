"""The browser's own print of a sheet (issue 30): the print stylesheet leaves out the
navigation, the buttons and the action forms, keeps the sheet's values, and the page links
the server's PDF, which opens as one."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.world import account, ok

pytestmark = pytest.mark.browser


def test_printing_a_sheet_shows_no_navigation(browser: Browser, base_url: str) -> None:
    context = account(browser, base_url, "druckerin")
    api = context.request
    campaign = ok(api.post("/api/v1/campaigns", data={"name": "Druck", "system": "ds4"}))
    hero = ok(api.post(f"/api/v1/campaigns/{campaign['id']}/characters", data={"name": "Alrik"}))
    page = context.new_page()
    page.goto(f"/campaigns/{campaign['id']}/characters/{hero['id']}")
    link = page.get_by_role("link", name="Drucken / PDF")
    expect(link).to_be_visible()
    href = link.get_attribute("href") or ""
    expect(page.locator("header.top nav")).to_be_visible()
    page.emulate_media(media="print")
    for hidden in ("header.top", "header.top nav", ".print-link", "#starter-form"):
        expect(page.locator(hidden).first).to_be_hidden()
    # The buttons are still in the page, only not printed.
    buttons = page.locator("button").all()
    assert buttons and not any(b.is_visible() for b in buttons)
    expect(page.locator("h1")).to_have_text("Alrik")
    expect(page.locator("#sheet-form input:not([type=hidden])").first).to_be_visible()
    expect(page.locator(".new-item")).to_be_hidden()
    pdf = api.get(href)
    assert pdf.status == 200 and pdf.headers["content-type"] == "application/pdf"
    assert pdf.body()[:5] == b"%PDF-"
    context.close()
