"""A Gefährte from the H&H sheet on a phone: bound from the hero's sheet, XP shared by
«Band der Erfahrung», its Monsterstufe raised for the Steigerungskosten it shows."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.world import account, ok

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}


def test_a_companion_from_the_sheet_on_a_phone(browser: Browser, base_url: str) -> None:
    context = account(browser, base_url, "beschwoerer")
    api = context.request
    campaign = ok(api.post("/api/v1/campaigns", data={"name": "Geister", "system": "hh"}))
    hero = ok(api.post(f"/api/v1/campaigns/{campaign['id']}/characters", data={"name": "Alrik"}))
    page = context.new_page()
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    hero_url = f"/campaigns/{campaign['id']}/characters/{hero['id']}"
    page.goto(hero_url)
    page.get_by_label("Name eines neuen Gefährten").fill("Irrlicht")
    page.get_by_role("button", name="Gefährten binden").click()
    expect(page.locator("h1")).to_have_text("Irrlicht")
    expect(page.locator("#companion-of")).to_contain_text("Gefährte von Alrik")
    cost = page.locator('.derived-value[data-key="level_up_cost"]')
    expect(cost).to_contain_text("Monsterstufe 2: 1 XP")
    page.get_by_role("button", name="Monsterstufe steigern").click()
    expect(page.locator("#advance-error")).to_contain_text("kostet 1 XP; der Gefährte hat 0")
    page.get_by_role("link", name="Alrik").click()
    page.get_by_label("Gewonnene XP").fill("3")
    page.get_by_label("«Band der Erfahrung»: der Gefährte, der ebenso viele erhält").select_option(
        label="Irrlicht"
    )
    page.get_by_role("button", name="XP gewinnen").click()
    expect(page.locator("#companion-list")).to_contain_text("Irrlicht · Monsterstufe 1 · 3 XP")
    expect(page.locator('#sheet-form [name="xp"]')).to_have_value("3")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.locator("#companion-list").get_by_role("link", name="Irrlicht").click()
    page.get_by_role("button", name="Monsterstufe steigern").click()
    expect(cost).to_contain_text("Monsterstufe 3: 1 XP")
    expect(page.locator('#sheet-form [name="monsterstufe"]')).to_have_value("2")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    context.close()
