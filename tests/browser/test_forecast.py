"""The attack form shows the odds before the roll and follows the player's choices live."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.browser.flows import create_campaign, invite_link, join, register, wait_live
from tests.browser.test_combat import _add_character


@pytest.mark.browser
def test_forecast_follows_target_and_modifier(
    open_page: Callable[..., Page], database_url: str
) -> None:
    gm, player = open_page(), open_page()
    register(gm, "sl")
    user = register(player, "alrik")
    campaign_id = int(create_campaign(gm, "Chancen", "hh").rsplit("/", 1)[1])
    join(player, invite_link(gm))
    _add_character(database_url, campaign_id, user, "Alrik", 30)
    _add_character(database_url, campaign_id, user, "Brida", 1)
    gm.goto(f"/campaigns/{campaign_id}/bestiary")
    gm.locator("form[action$='/bestiary/samples'] button").click()
    gm.goto(f"/campaigns/{campaign_id}/encounters")
    gm.locator("#new-enc-name").fill("Am Pass")
    gm.locator("#encounter-form button[type=submit]").click()
    expect(gm).to_have_url(re.compile(r"/encounters/\d+$"))
    for name in ("Alrik", "Brida"):
        gm.locator("#add-char").select_option(label=name)
        gm.locator("#add-char").locator("xpath=ancestor::form").locator("button").click()
        expect(gm.locator(".prepare")).to_contain_text(name)
    gm.locator("#add-entry").select_option(label="Goblin")
    gm.locator("#add-entry").locator("xpath=ancestor::form").locator("button").click()
    expect(gm.locator(".prepare")).to_contain_text("Goblin 1")
    gm.locator("#start-combat").click()
    expect(gm.locator("#turn")).to_have_attribute("data-round", "1")

    player.goto(gm.url)
    wait_live(player)
    forecast = player.locator("#forecast")
    # Against the goblin the player may not know its values: only the attack roll's chance.
    player.locator("#attack-target").select_option(label="Goblin 1")
    expect(forecast.locator("[data-odds=attack]")).to_have_text(re.compile(r"\d+\s%"))
    expect(forecast.locator("[data-odds=hit]")).to_have_count(0)
    expect(forecast).to_contain_text("RS")
    # Against a party member (an open sheet) the whole chain shows.
    player.locator("#attack-target").select_option(label="Brida")
    hit = forecast.locator("[data-odds=hit]")
    expect(hit).to_have_text(re.compile(r"\d+\s%"))
    before = hit.inner_text()
    # A harsher modifier lowers the chance, without a roll.
    player.locator("#attack-mod").fill("-8")
    expect(hit).not_to_have_text(before)
    assert int(hit.inner_text().split()[0]) < int(before.split()[0])
    expect(player.locator("#combat-log > li")).to_have_count(gm.locator("#combat-log > li").count())

    # «Chancen zeigen» shows the odds in their place: the attack and «Zug beenden» stay.
    forecast.evaluate("el => el.replaceChildren()")
    with player.expect_response(lambda r: r.url.endswith("/forecast")):
        player.get_by_role("button", name="Chancen zeigen").click()
    expect(player.locator(".htmx-request, .htmx-swapping, .htmx-settling")).to_have_count(0)
    expect(player.locator("#forecast [data-odds=hit]")).to_have_text(re.compile(r"\d+\s%"))
    expect(player.locator("#attack-button")).to_be_visible()
    expect(player.get_by_role("button", name="Zug beenden")).to_be_visible()
