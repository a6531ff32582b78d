"""A player brings their Pathbuilder hero along: imports the file on the characters page,
reads what was converted and left out, and plays a Strike with the imported longsword."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import APIRequestContext, Browser, expect

from tests.browser.flows import wait_live
from tests.browser.world import _campaign, account, ok

pytestmark = pytest.mark.browser
FILE = Path(__file__).parents[1] / "imports" / "fixtures" / "pathbuilder_valeros.json"


def _turn_of(gm: APIRequestContext, api: str, name: str) -> None:
    """The GM ends turns until ``name`` acts."""
    for _ in range(6):
        view = ok(gm.get(api))
        current = view["turn"]["name"] if view.get("turn") else None
        if current == name:
            return
        ok(gm.post(f"{api}/actions/next", data={}))
    raise AssertionError(f"{name} never got a turn")


def test_an_imported_pathbuilder_hero_strikes(browser: Browser, base_url: str) -> None:
    gm_context = account(browser, base_url, "sl")
    player_context = account(browser, base_url, "held")
    gm, player = gm_context.request, player_context.request
    campaign_id = _campaign(gm, player, "pf2e")

    page = player_context.new_page()
    page.goto(f"/campaigns/{campaign_id}/characters")
    page.locator("#import-file").set_input_files(str(FILE))
    page.locator("#import-character button[type=submit]").click()
    expect(page.locator("h1")).to_contain_text("Valeros wurde importiert")
    expect(page.locator("#import-skipped")).to_contain_text("Talente")
    expect(page.locator("#import-converted")).to_contain_text("+4")
    page.locator("#imported-sheet").click()
    expect(page.locator("main")).to_contain_text("+1 Striking Longsword")
    character_id = int(page.url.rsplit("/", 1)[1])

    base = f"/api/v1/campaigns/{campaign_id}"
    goblin = next(
        e for e in ok(gm.post(f"{base}/bestiary/samples")) if e["name"] == "Goblin-Krieger"
    )
    encounter = ok(gm.post(f"{base}/encounters", data={"name": "Am Waldrand"}))
    api = f"{base}/encounters/{encounter['id']}"
    ok(gm.post(f"{api}/participants", data={"character_id": character_id}))
    ok(gm.post(f"{api}/participants", data={"entry_id": goblin["id"]}))
    ok(gm.post(f"{api}/actions/start", data={}))
    _turn_of(gm, api, "Valeros")

    page.goto(api.removeprefix("/api/v1"))
    wait_live(page)
    expect(page.locator("#attack-button")).to_be_visible()
    longsword = page.locator("#attack-strike option", has_text="Longsword")
    # The Strike's bonus from the sheet: Stufe 3 + expert 4 + Stärke 4 + potency 1.
    expect(longsword).to_contain_text("+12, 2W8")
    page.locator("#attack-strike").select_option(value=longsword.get_attribute("value"))
    expect(page.locator("#attack-target option")).to_contain_text(["Goblin-Krieger"])
    page.locator("#attack-target").select_option(index=0)
    page.locator("#attack-button").click()
    log = page.locator("#combat-log")
    expect(log).to_contain_text("Valeros")
    expect(log).to_contain_text("Longsword")
    gm_context.close()
    player_context.close()
