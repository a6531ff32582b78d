"""The GM estimates an encounter's risk on the prep page, on a phone, and runs it again
after a change (issue 18)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.browser.flows import create_campaign, invite_link, join, register
from tests.browser.test_accessibility import violations
from tests.browser.test_combat import _add_character

PHONE = {"width": 390, "height": 844}
SHOT = bool(os.environ.get("FORE_SHOT"))
PERCENT = re.compile(r"^\d+,\d %")


def _add_goblin(gm: Page, count: str) -> None:
    gm.locator("#add-entry").select_option(label="Goblin")
    gm.locator("#add-count").fill(count)
    gm.locator("#add-entry").locator("xpath=ancestor::form").locator("button").click()


@pytest.mark.browser
def test_gm_estimates_the_risk_and_runs_it_again(
    open_page: Callable[..., Page], database_url: str
) -> None:
    gm, player = open_page(viewport=PHONE), open_page()
    register(gm, "sl")
    user = register(player, "alrik")
    campaign_id = int(create_campaign(gm, "Risiko", "hh").rsplit("/", 1)[1])
    join(player, invite_link(gm))
    _add_character(database_url, campaign_id, user, "Alrik", 12)
    gm.goto(f"/campaigns/{campaign_id}/bestiary")
    gm.locator("form[action$='/bestiary/samples'] button").click()
    gm.goto(f"/campaigns/{campaign_id}/encounters")
    gm.locator("#new-enc-name").fill("Hohlweg")
    gm.locator("#encounter-form button[type=submit]").click()
    expect(gm).to_have_url(re.compile(r"/encounters/\d+$"))
    gm.locator("#add-char").select_option(label="Alrik")
    gm.locator("#add-char").locator("xpath=ancestor::form").locator("button").click()
    expect(gm.locator(".prepare")).to_contain_text("Alrik")
    _add_goblin(gm, "1")
    expect(gm.locator(".prepare")).to_contain_text("Goblin 1")

    gm.locator("#risk-trials").fill("500")
    gm.locator("#risk-seed").fill("7")
    gm.evaluate("window.samePage = true")
    gm.locator("#risk-button").click()
    risk = gm.locator("#risk")
    expect(risk.locator("[data-risk=any_down]")).to_have_text(PERCENT)
    for key in ("any_dead", "wipe"):
        expect(risk.locator(f"[data-risk={key}]")).to_contain_text("±")
    expect(risk.locator("[data-risk=rounds]")).to_contain_text("im Mittel")
    expect(risk.locator("[data-risk-pid]")).to_have_count(2)
    expect(risk).to_contain_text("500 simulierte Kämpfe")
    first = risk.locator("[data-risk=any_down]").inner_text()
    # HTMX swapped the region: the page was not reloaded and the form keeps its seed.
    expect(gm.locator("#risk-seed")).to_have_value("7")
    expect(gm.locator("#risk-trials")).to_have_value("500")
    assert gm.evaluate("window.samePage === true")
    gm.screenshot(path="/tmp/fore/risk-phone.png", full_page=True) if SHOT else None
    width = gm.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], width
    assert not violations(gm)  # axe-core: no critical or serious problem with the results

    # Three more goblins: the GM runs it again and the danger grows.
    _add_goblin(gm, "3")
    expect(gm.locator(".prepare")).to_contain_text("Goblin 4")
    gm.locator("#risk-seed").fill("7")
    gm.locator("#risk-button").click()
    expect(risk.locator("[data-risk-pid]")).to_have_count(5)
    again = risk.locator("[data-risk=any_down]")
    expect(again).not_to_have_text(first)
    assert float(again.inner_text().split()[0].replace(",", ".")) > float(
        first.split()[0].replace(",", ".")
    )
    # Players never see the form.
    player.goto(gm.url)
    expect(player.locator("#risk-button")).to_have_count(0)
