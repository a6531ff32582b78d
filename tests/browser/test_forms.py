"""Forms that keep work: the bestiary form with rows (no JSON), one more row, an error that
keeps every value and says what is wrong at the field; on a phone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.flows import create_campaign, register

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}


def _no_sideways(page: Page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_bestiary_round_trip_with_an_error(open_page: object) -> None:
    page: Page = open_page(PHONE)  # type: ignore[operator]
    register(page, "sl")
    campaign = create_campaign(page, "Nordmark")
    page.goto(f"{campaign}/bestiary")
    form = page.locator("#nb-form")
    expect(form).not_to_contain_text("JSON")
    form.locator("#nb-name").fill("Eisschrat")
    form.locator("#nb-lp").fill("zwanzig")
    form.locator("#nb-resistenzen-0-type").fill("Kälte")
    form.locator("#nb-resistenzen-0-kind").select_option("immune")
    form.locator("#nb-zauber-0-name").fill("Frosthauch")
    form.locator("#nb-zauber-0-schaden_w").select_option("6")
    # One more spell row: nothing saved, everything typed is still there.
    form.locator("#nb-zauber").get_by_role("button", name="Eine Zeile mehr").click()
    form = page.locator("#nb-form")
    expect(form.locator("#nb-zauber-1-name")).to_have_value("")
    expect(form.locator("#nb-zauber-0-name")).to_have_value("Frosthauch")
    expect(form.locator("#nb-lp")).to_have_value("zwanzig")
    form.locator("#nb-zauber-1-name").fill("Eissplitter")
    form.locator("#nb-zauber-1-range").fill("viel")
    _no_sideways(page)
    form.get_by_role("button", name="Anlegen").click()
    # Refused: each message at its field, in words; every value kept.
    form = page.locator("#nb-form")
    expect(form.locator("#nb-lp-error")).to_contain_text("Zahl")
    expect(form.locator("#nb-lp")).to_have_attribute("aria-describedby", "nb-lp-error")
    expect(form.locator("#nb-zauber-1-error")).to_be_visible()
    expect(page.locator("main")).not_to_contain_text("JSON")
    expect(form.locator("#nb-name")).to_have_value("Eisschrat")
    expect(form.locator("#nb-resistenzen-0-type")).to_have_value("Kälte")
    expect(form.locator("#nb-resistenzen-0-kind")).to_have_value("immune")
    expect(form.locator("#nb-zauber-0-schaden_w")).to_have_value("6")
    expect(form.locator("#nb-zauber-1-range")).to_have_value("viel")
    _no_sideways(page)
    # Fixed: saved, and the entry's own form shows its rows.
    form.locator("#nb-lp").fill("30")
    form.locator("#nb-zauber-1-range").fill("5")
    form.get_by_role("button", name="Anlegen").click()
    expect(page).to_have_url(re.compile(r"/bestiary$"))
    entry = page.locator("details", has_text="Eisschrat")
    entry.locator("summary").click()
    expect(entry.locator("input[name=zauber-1-name]")).to_have_value("Eissplitter")
    expect(entry.locator("input[name=lp]")).to_have_value("30")
    # Enter in a field saves (the form's first submit button), it never just adds a row.
    form = page.locator("#nb-form")
    form.locator("#nb-name").fill("Frostwolf")
    form.locator("#nb-name").press("Enter")
    expect(page).to_have_url(re.compile(r"/bestiary$"))
    expect(page.locator("details", has_text="Frostwolf")).to_have_count(1)
