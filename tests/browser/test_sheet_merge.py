"""Concurrent edits of one sheet in two browser contexts: different fields both survive, the
same field shows both values and the user chooses; LP 24 with LP max 24 works in any order."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.world import _campaign, _character, account, ok

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}


def _change(page: Page, name: str, value: str) -> int:
    field = page.locator(f'#sheet-form [name="{name}"]')
    with page.expect_response(
        lambda r: r.request.method == "POST" and re.search(r"/characters/\d+$", r.url) is not None
    ) as info:
        if field.input_value() == value:
            field.dispatch_event("change")  # posted as it is
        else:
            field.fill(value)
            field.blur()  # a real change: the browser sends it when the field loses focus
    return info.value.status


def test_two_contexts_edit_one_sheet(browser: Browser, base_url: str) -> None:
    gm, player = account(browser, base_url, "sl"), account(browser, base_url, "held")
    campaign_id = _campaign(gm.request, player.request, "hh")
    character_id = _character(player.request, campaign_id, "Alrik")
    sheet = f"/campaigns/{campaign_id}/characters/{character_id}"
    api = f"/api/v1/campaigns/{campaign_id}/characters/{character_id}"
    # The player's phone without scripts: a form that stays as it was loaded.
    phone_context = browser.new_context(
        base_url=base_url, storage_state=player.storage_state(), java_script_enabled=False,
        viewport=PHONE,  # type: ignore[arg-type]
    )  # fmt: skip
    phone = phone_context.new_page()
    phone.goto(sheet)
    desktop = gm.new_page()
    desktop.goto(sheet)
    lp = desktop.locator('#sheet-form [name="lp"]').input_value()

    # The GM lowers LP (saved on change); the phone, loaded before, sets XP: both survive.
    assert _change(desktop, "lp", str(int(lp) - 3)) == 200
    phone.locator('#sheet-form [name="xp"]').fill("120")
    phone.locator("#sheet-form button.save").click()
    data = ok(gm.request.get(api))["data"]
    assert data["lp"] == int(lp) - 3 and data["xp"] == 120
    # The GM's sheet follows live: the phone's XP arrives before the GM types on.
    expect(desktop.locator('#sheet-form [name="xp"]')).to_have_value("120")

    # Both change LP: the phone is shown both values and keeps its own.
    assert _change(desktop, "lp", str(int(lp) - 5)) == 200
    phone.goto(sheet)
    assert _change(desktop, "lp", str(int(lp) - 6)) == 200
    phone.locator('#sheet-form [name="lp"]').fill(str(int(lp) - 1))
    phone.locator("#sheet-form button.save").click()
    conflict = phone.locator(".field-conflict")
    expect(conflict).to_contain_text(f"„{int(lp) - 6}“")
    expect(conflict).to_contain_text(f"„{int(lp) - 1}“")
    expect(phone.locator('#sheet-form [name="lp"]')).to_have_value(str(int(lp) - 1))
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    phone.locator("#sheet-form button.save").click()
    expect(phone.locator(".field-conflict")).to_have_count(0)
    assert ok(gm.request.get(api))["data"]["lp"] == int(lp) - 1
    phone_context.close()

    # With scripts, in any order: LP 24 first is refused, LP max 24 then saves both and the
    # message goes away.
    page = player.new_page()
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    page.goto(sheet)
    assert _change(page, "lp_max", "20") == 200
    assert _change(page, "lp", "24") == 422
    expect(page.locator('#sheet-form [name="lp"]')).to_have_attribute("aria-invalid", "true")
    assert _change(page, "lp_max", "24") == 200
    expect(page.locator("#sheet-form .error")).to_have_count(0)
    expect(page.locator('#sheet-form [name="lp"]')).to_have_value("24")
    data = ok(player.request.get(api))["data"]
    assert data["lp"] == 24 and data["lp_max"] == 24
    gm.close()
    player.close()
