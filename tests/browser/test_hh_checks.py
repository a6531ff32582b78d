"""Beschaffung from the H&H sheet on a phone: a refusal keeps the input with the message at
the price, then the Probe's breakdown and faces come back, the item lands in the Rucksack,
the Lira are paid, and a second open view of the sheet shows it without a reload."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.world import account, ok

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}
#: Glück 20 + Tabelle 4 (8 Lira) = 24: only a 19 or 20 fails (3 %); a failure adds nothing
#: and is tried again, so five tries make the test independent of the server's dice.
TRIES = 5


def test_beschaffung_from_the_sheet_on_a_phone(browser: Browser, base_url: str) -> None:
    context = account(browser, base_url, "beschaffer")
    api = context.request
    campaign = ok(api.post("/api/v1/campaigns", data={"name": "Markt", "system": "hh"}))
    base = f"/api/v1/campaigns/{campaign['id']}/characters"
    hero = ok(api.post(base, data={"name": "Alrik"}))
    changes = {"skills.Glück": 20, "lira": 50}
    ok(api.patch(f"{base}/{hero['id']}", data={"changes": changes, "version": hero["version"]}))
    sheet_url = f"/campaigns/{campaign['id']}/characters/{hero['id']}"
    other = context.new_page()
    other.goto(sheet_url)
    expect(other.locator("#live-status")).to_have_text("Live")
    page = context.new_page()
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    page.goto(sheet_url)
    page.locator("#check-beschaffung summary").click()
    form = page.locator("#check-beschaffung form")
    form.get_by_label("Name eines anderen Gegenstands").fill("Laterne")
    form.get_by_role("button", name="Beschaffung").click()
    expect(page.locator("#check-beschaffung-price-error")).to_contain_text("Preis in Lira")
    expect(page.locator("#check-beschaffung-name")).to_have_value("Laterne")
    for _try in range(TRIES):
        page.locator("#check-beschaffung-price").fill("8")
        page.locator("#check-beschaffung").get_by_role("button", name="Beschaffung").click()
        result = page.locator("#check-beschaffung-result")
        expect(result).to_contain_text("Glück 20 + Tabelle 4 = 24: 2W10: ")
        assert re.search(r"2W10: \d+ \+ \d+ = \d+", result.inner_text())
        if "gefunden" in result.inner_text():
            break
        expect(result).to_contain_text("nicht erhältlich")
    expect(result).to_contain_text("Erfolg: «Laterne» ist im Inventar.")
    expect(result).to_contain_text("−8 Lira")
    row = page.locator("#inventory tr", has_text="Laterne")
    expect(row).to_contain_text("Rucksack")
    expect(page.locator('#sheet-form [name="lira"]')).to_have_value("42")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # The other open view of the sheet: pushed live, no reload.
    expect(other.locator("#inventory tr", has_text="Laterne")).to_be_visible()
    expect(other.locator('#sheet-form [name="lira"]')).to_have_value("42")
    context.close()
