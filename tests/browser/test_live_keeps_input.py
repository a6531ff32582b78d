"""Live updates keep what the user typed (docs/ui.md, "How live updates keep state"): typing
quickly into several sheet fields and changing four selects in a row over a slow phone network
saves exactly what was typed and selected, while each field's live check answers in between."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.world import _campaign, _character, account, ok

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}
#: Milliseconds each request waits on the way (a phone on a slow mobile network).
LATENCY_MS = 250


def _slow_network(page: Page) -> None:
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": LATENCY_MS, "downloadThroughput": -1, "uploadThroughput": -1},
    )


def _type_into(page: Page, name: str, text: str) -> None:
    """Click the field, select what is in it and type over it, key by key (no waiting)."""
    page.locator(f'#sheet-form [name="{name}"]').click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.type(text)


def test_quick_typing_and_four_selects_are_saved_as_entered(
    browser: Browser, base_url: str
) -> None:
    gm, player = account(browser, base_url, "sl"), account(browser, base_url, "held")
    campaign_id = _campaign(gm.request, player.request, "ds4")
    character_id = _character(player.request, campaign_id, "Alrik")
    api = f"/api/v1/campaigns/{campaign_id}/characters/{character_id}"
    page = player.new_page()
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    page.goto(f"/campaigns/{campaign_id}/characters/{character_id}")
    expect(page.locator("#live-status")).to_have_attribute("data-state", "online")
    _slow_network(page)

    typed = {
        "ep": "10",
        "lk": "7",
        "attributes.koerper": "8",
        "attributes.agilitaet": "6",
        "attributes.geist": "5",
        "traits.staerke": "3",
        "traits.haerte": "2",
    }
    for name, text in typed.items():
        _type_into(page, name, text)  # clicking the next field sends the one before
    page.locator('#sheet-form [name="traits.bewegung"]').click()
    selected = {"volk": "zwerg", "volk_bonus": "haerte", "klasse": "heiler", "klasse_bonus": "aura"}
    for name, value in selected.items():
        page.locator(f'#sheet-form [name="{name}"]').select_option(value)

    # Every answer is in: nothing queued or running on the form.
    page.wait_for_function(
        "() => !document.querySelector('#sheet-form .htmx-request, #sheet-form.htmx-request')"
        " && !document.querySelector('[hx-post].htmx-request')"
    )
    page.wait_for_timeout(4 * LATENCY_MS)
    page.wait_for_function("() => !document.querySelector('.htmx-request')")
    data = ok(player.request.get(api))["data"]
    saved = {
        "ep": data["ep"],
        "lk": data["lk"],
        **{f"attributes.{k}": v for k, v in data["attributes"].items() if k in ("koerper",
           "agilitaet", "geist")},
        **{f"traits.{k}": v for k, v in data["traits"].items() if k in ("staerke", "haerte")},
    }  # fmt: skip
    assert {k: str(v) for k, v in saved.items()} == typed
    assert {k: data[k] for k in selected} == selected
    # The form shows the same: no answer put an older value back into a field.
    for name, text in {**typed, **selected}.items():
        expect(page.locator(f'#sheet-form [name="{name}"]')).to_have_value(text)
    gm.close()
    player.close()
