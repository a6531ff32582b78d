"""Light in the browser (issue 27): the GM (desktop) makes the scene dark with the scene
page's button and gives the hero's token a torch with the form; the player (390 px phone,
live) sees the goblin only once the torch lights it — before, it is not in their DOM."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from playwright.sync_api import Browser, BrowserContext, expect

from tests.browser.flows import wait_live
from tests.browser.test_map_sight_reveals import _phone
from tests.browser.world import account, ok

pytestmark = pytest.mark.browser


@dataclass
class Crypt:
    gm: BrowserContext
    player: BrowserContext
    url: str
    tokens: dict[str, int]


@pytest.fixture
def crypt(browser: Browser, base_url: str) -> Iterator[Crypt]:
    gm, player = account(browser, base_url, "gruftsl"), _phone(browser, base_url, "gruftin")
    created = ok(gm.request.post("/api/v1/campaigns", data={"name": "Gruft", "system": "hh"}))
    base = f"/api/v1/campaigns/{created['id']}"
    ok(player.request.post("/api/v1/campaigns/join", data={"invite_code": created["invite_code"]}))
    scene = ok(
        gm.request.post(
            f"{base}/scenes", data={"name": "Gruft", "cols": 8, "rows": 4, "shown": True}
        )
    )
    api = f"{base}/scenes/{scene['id']}"
    hero = ok(player.request.post(f"{base}/characters", data={"name": "Alrike"}))["id"]
    body = {"x": 1, "y": 1, "character_id": hero}
    tokens = {"Alrike": ok(gm.request.post(f"{api}/tokens", data=body))["id"]}
    body = {"x": 4, "y": 1, "label": "Goblin"}
    tokens["Goblin"] = ok(gm.request.post(f"{api}/tokens", data=body))["id"]
    yield Crypt(gm, player, f"/campaigns/{created['id']}/scenes/{scene['id']}", tokens)
    for context in (gm, player):
        context.close()


def test_the_player_sees_the_goblin_once_the_heros_torch_lights_it(crypt: Crypt) -> None:
    c = crypt
    gm, player = c.gm.new_page(), c.player.new_page()
    for page in (gm, player):
        page.goto(c.url)
        wait_live(page)
    goblin = f'#map-board .map-token[data-token="{c.tokens["Goblin"]}"]'
    hero = f'#map-board .map-token[data-token="{c.tokens["Alrike"]}"]'
    expect(player.locator(goblin)).to_have_count(1)  # a light scene: all is seen
    # The GM makes the scene dark: the goblin leaves the player's board and DOM.
    gm.get_by_role("button", name="Dunkel machen").click()
    expect(gm.get_by_role("button", name="Hell machen")).to_be_visible()
    expect(player.locator(goblin)).to_have_count(0)
    expect(player.locator(hero)).to_be_visible()
    assert "Goblin" not in player.content()
    expect(player.locator('#map-board rect.map-explored.map-dark[x="4"][y="1"]')).to_have_count(1)
    # The GM gives the hero a torch (radius 3): the goblin is lit and appears, live.
    gm.locator("#token-light-token").select_option(label="Alrike")
    gm.locator("#token-light-radius").fill("3")
    gm.get_by_role("button", name="Licht der Spielfigur setzen").click()
    expect(gm.locator(f"{hero} circle.map-light-token")).to_have_count(1)
    expect(player.locator(goblin)).to_have_count(1)
    expect(player.locator('#map-board rect.map-explored.map-dark[x="4"][y="1"]')).to_have_count(0)
    expect(player.locator("#map-board circle.map-light")).to_have_count(0)  # the GM's alone
