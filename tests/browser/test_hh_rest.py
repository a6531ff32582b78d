"""A Kurze Rast from the H&H sheet on a phone: the sheet shows what came back and the last
rest at once; a third one that day is refused at the rest buttons."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.world import account, ok

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}


def test_kurze_rast_from_the_sheet(browser: Browser, base_url: str) -> None:
    context = account(browser, base_url, "rastende")
    api = context.request
    campaign = ok(api.post("/api/v1/campaigns", data={"name": "Rast", "system": "hh"}))
    base = f"/api/v1/campaigns/{campaign['id']}/characters"
    hero = ok(api.post(base, data={"name": "Alrik"}))
    changes = {"wp": 2, "conditions": ["angeschlagen"]}
    ok(api.patch(f"{base}/{hero['id']}", data={"changes": changes, "version": hero["version"]}))
    page = context.new_page()
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    page.goto(f"/campaigns/{campaign['id']}/characters/{hero['id']}")
    rests = page.locator(".rests")
    # Each rest's fields stand in a group named after it (both rests ask for the hours).
    short = rests.get_by_role("group", name="Kurze Rast")
    expect(short.get_by_label("Stunden nach dem Ende der letzten Rast")).to_be_visible()
    expect(
        rests.get_by_role("group", name="Lange Rast").get_by_label("Geeigneter Lagerplatz")
    ).to_be_visible()
    for hours, shown in (("", "Tag 1, 08:00 – Tag 1, 08:30"), ("", "Tag 1, 10:30 – Tag 1, 11:00")):
        rests.locator("#rest-kurz-hours").fill(hours)
        rests.get_by_role("button", name="Kurze Rast").click()
        expect(page.locator("body")).to_contain_text(shown)
    rests.locator("#rest-kurz-hours").fill("3")
    rests.get_by_role("button", name="Kurze Rast").click()
    expect(page.locator("#rest-error")).to_contain_text("Höchstens 2 Kurze Rasten am Tag")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    context.close()
