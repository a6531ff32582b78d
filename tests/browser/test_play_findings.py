"""What two evenings of play found in the browser (issue 31, item 14): the attack form on a
phone has each label above its field; "Konto anlegen" shows that it is working."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.flows import unique
from tests.browser.world import _campaign, _character, _running_fight, account
from tests.conftest import PASSWORD

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}


def test_the_attack_forms_labels_sit_above_their_fields_on_a_phone(
    browser: Browser, base_url: str
) -> None:
    gm, player = account(browser, base_url, "sl"), account(browser, base_url, "held")
    campaign_id = _campaign(gm.request, player.request, "hh")
    character_id = _character(player.request, campaign_id, "Alrik")
    api = _running_fight(gm.request, campaign_id, character_id)
    page = gm.new_page()
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    page.goto(api.removeprefix("/api/v1"))
    page.locator(".attack-form details summary").first.click()
    labels = page.locator(".attack-form label[for]")
    checked = 0
    for i in range(labels.count()):
        label = labels.nth(i)
        if not label.is_visible():
            continue
        field = f"#{label.get_attribute('for')}"
        label_box, field_box = label.bounding_box(), page.locator(field).bounding_box()
        assert label_box and field_box, field
        # The field starts below its label and at the same left edge: read top to bottom.
        assert field_box["y"] >= label_box["y"] + label_box["height"] - 1, field
        assert abs(field_box["x"] - label_box["x"]) <= 2, field
        checked += 1
    assert checked >= 3
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    gm.close()
    player.close()


def test_creating_an_account_shows_that_it_is_working(browser: Browser, base_url: str) -> None:
    context = browser.new_context(base_url=base_url, viewport=PHONE)  # type: ignore[arg-type]
    page = context.new_page()
    page.goto("/register")
    page.locator("#username").fill(unique("neu"))
    page.locator("#password").fill(PASSWORD)
    # A slow network: the answer takes a moment.
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 1500, "downloadThroughput": -1, "uploadThroughput": -1},
    )
    button = page.locator("#register-form button[type=submit]")
    expect(button).to_have_text("Konto anlegen")
    button.click()
    expect(button).to_be_disabled()
    expect(button).to_have_text("Konto wird angelegt …")
    expect(page.locator("#register-form")).to_have_attribute("aria-busy", "true")
    page.wait_for_url("**/campaigns", timeout=15_000)
    context.close()
