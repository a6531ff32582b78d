"""The sheet's checkboxes in the browser: HTMX saves a tick and an untick, and the plain
form's save leaves a hidden NSC hidden (issue 20, L8)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import OpenPage
from tests.browser.flows import create_campaign, register

pytestmark = pytest.mark.browser


def _toggle(page: Page, checked: bool) -> None:
    box = page.locator("#f-hidden")
    with page.expect_response(
        lambda r: r.request.method == "POST" and re.search(r"/characters/\d+$", r.url) is not None
    ) as info:
        box.set_checked(checked)
    assert info.value.status == 200, info.value.status


def _hidden(page: Page, api: str) -> bool:
    r = page.request.get(api)
    assert r.ok, r.status
    return bool(r.json()["hidden_from_players"])


def test_gm_hides_and_reveals_an_nsc_and_saving_keeps_it(open_page: OpenPage) -> None:
    gm = open_page()
    register(gm, "sl")
    campaign = create_campaign(gm, "Geheimnisse", "hh")
    gm.goto(f"{campaign}/characters")
    gm.locator("#character-name").fill("Der Verräter")
    gm.locator("#character-kind").select_option("npc")
    gm.locator("#create-character input[name=hidden_from_players]").check()
    gm.locator("#create-character button[type=submit]").click()
    expect(gm).to_have_url(re.compile(r"/characters/\d+$"))
    path = "/" + gm.url.split("/", 3)[3]
    api = "/api/v1" + path
    assert _hidden(gm, api)
    _toggle(gm, False)
    assert not _hidden(gm, api)
    _toggle(gm, True)
    assert _hidden(gm, api)
    # The whole form, as without JavaScript: the box is ticked, it stays hidden.
    gm.reload()
    gm.locator("#f-name").fill("Der Spion")
    with gm.expect_navigation():
        gm.locator("#sheet-form").evaluate("form => form.submit()")
    assert _hidden(gm, api)
    assert gm.request.get(api).json()["name"] == "Der Spion"
