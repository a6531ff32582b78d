"""Sight that reveals, in the browser (GM and player on 390 px phones): fog and line of
sight on, the player's board shows their hero and what it sees; the goblin out of sight is
not in their DOM at all; after the hero walks on, the cells it saw stay explored — dimmed,
without the chest that stands there. The GM looks at the board as the player gets it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.flows import wait_live
from tests.browser.test_layout import PHONE
from tests.browser.world import account, ok

pytestmark = pytest.mark.browser


@dataclass
class Cellar:
    gm: BrowserContext
    player: BrowserContext
    url: str
    tokens: dict[str, int]


def _phone(browser: Browser, base_url: str, name: str) -> BrowserContext:
    desk = account(browser, base_url, name)
    state = desk.storage_state()
    desk.close()
    return browser.new_context(
        base_url=base_url, viewport=PHONE, has_touch=True, is_mobile=True, storage_state=state
    )


@pytest.fixture
def cellar(browser: Browser, base_url: str) -> Iterator[Cellar]:
    gm, player = _phone(browser, base_url, "kellersl"), _phone(browser, base_url, "kellerin")
    created = ok(gm.request.post("/api/v1/campaigns", data={"name": "Keller", "system": "hh"}))
    base = f"/api/v1/campaigns/{created['id']}"
    ok(player.request.post("/api/v1/campaigns/join", data={"invite_code": created["invite_code"]}))
    scene = ok(
        gm.request.post(
            f"{base}/scenes", data={"name": "Keller", "cols": 8, "rows": 4, "shown": True}
        )
    )
    api = f"{base}/scenes/{scene['id']}"
    hero = ok(player.request.post(f"{base}/characters", data={"name": "Alrike"}))["id"]
    tokens = {
        "Alrike": ok(gm.request.post(f"{api}/tokens", data={"x": 1, "y": 1, "character_id": hero}))[
            "id"
        ]
    }
    for label, cell in (("Kiste", (0, 3)), ("Goblin", (7, 2))):
        body = {"x": cell[0], "y": cell[1], "label": label}
        tokens[label] = ok(gm.request.post(f"{api}/tokens", data=body))["id"]
    ok(gm.request.patch(api, data={"fog": True, "line_of_sight": True, "sight_radius": 2}))
    yield Cellar(gm, player, f"/campaigns/{created['id']}/scenes/{scene['id']}", tokens)
    for context in (gm, player):
        context.close()


def _token(page: Page, tid: int) -> str:
    return f'#map-board .map-token[data-token="{tid}"]'


def test_the_player_sees_their_hero_what_it_sees_and_the_explored_cells(cellar: Cellar) -> None:
    c = cellar
    gm, player = c.gm.new_page(), c.player.new_page()
    for page in (gm, player):
        page.goto(c.url)
        wait_live(page)
    hero, chest, goblin = c.tokens["Alrike"], c.tokens["Kiste"], c.tokens["Goblin"]
    expect(player.locator(_token(player, hero))).to_be_visible()
    expect(player.locator(_token(player, chest))).to_have_count(1)
    expect(player.locator(_token(player, goblin))).to_have_count(0)
    assert "Goblin" not in player.content()
    # Cells never seen are fog; none explored yet (all it knows, it sees).
    expect(player.locator("#map-board rect.map-explored")).to_have_count(0)
    expect(player.locator('#map-board rect.map-fog[x="7"][y="2"]')).to_have_count(1)
    # The hero walks three cells east by keyboard.
    player.locator(f'#map-list .map-pick[data-token="{hero}"]').click()
    for key in ["ArrowRight"] * 3 + ["Enter"]:
        player.keyboard.press(key)
    expect(player.locator(_token(player, hero))).to_have_attribute("data-x", "4")
    # The chest's cell stays explored (dimmed), the chest is gone from the DOM.
    explored = player.locator('#map-board rect.map-explored[x="0"][y="3"]')
    expect(explored).to_have_count(1)
    expect(player.locator(_token(player, chest))).to_have_count(0)
    assert "Kiste" not in player.content() and "Goblin" not in player.content()
    fill = explored.evaluate("e => getComputedStyle(e).fill")
    assert fill.startswith("rgba(") and not fill.endswith(", 0)"), fill
    # The GM sees everything; «view as» shows the player's board.
    expect(gm.locator(_token(gm, goblin))).to_have_count(1)
    expect(gm.locator(_token(gm, chest))).to_have_count(1)
    gm.locator("#view-as").select_option(index=0)
    gm.locator(".map-view-as-form button").click()
    expect(gm.locator(".map-view-as")).to_be_visible()
    expect(gm.locator(_token(gm, hero))).to_have_attribute("data-x", "4")
    expect(gm.locator(_token(gm, goblin))).to_have_count(0)
    expect(gm.locator(_token(gm, chest))).to_have_count(0)
    expect(gm.locator('#map-board rect.map-explored[x="0"][y="3"]')).to_have_count(1)
