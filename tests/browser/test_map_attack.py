"""Attacks from the map (issue 15): the GM links the fight and so places its figures; a
player on a 390 px phone taps a goblin's token on the combat page, and the attack form's
target is set, the distance shown and the goblin on the line (living cover, which the
server applies itself on a linked scene) outlined. Then he moves
through a waypoint by tapping, and the GM moves a goblin through one by keyboard."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.test_map import account_on_phone, at, token, until_turn
from tests.browser.world import account, ok

pytestmark = pytest.mark.browser


@dataclass
class Setup:
    gm: BrowserContext
    bob: BrowserContext
    encounter_api: str
    scene_api: str
    scene_url: str
    pids: dict[str, int]


def tap_cell(page: Page, x: int, y: int) -> None:
    box = page.locator("#map-board .map-svg").bounding_box()
    assert box is not None
    page.touchscreen.tap(
        box["x"] + (x + 0.5) * box["width"] / 10, box["y"] + (y + 0.5) * box["height"] / 6
    )


@pytest.fixture
def setup(browser: Browser, base_url: str) -> Iterator[Setup]:
    gm, bob = account(browser, base_url, "zielsl"), account_on_phone(browser, base_url)
    created = ok(gm.request.post("/api/v1/campaigns", data={"name": "Zielrunde", "system": "hh"}))
    base = f"/api/v1/campaigns/{created['id']}"
    ok(bob.request.post("/api/v1/campaigns/join", data={"invite_code": created["invite_code"]}))
    brida = ok(bob.request.post(f"{base}/characters", data={"name": "Brida"}))["id"]
    goblin = next(
        e for e in ok(gm.request.post(f"{base}/bestiary/samples")) if e["name"] == "Goblin"
    )
    api = (
        f"{base}/encounters/{ok(gm.request.post(f'{base}/encounters', data={'name': 'Hof'}))['id']}"
    )
    ok(gm.request.post(f"{api}/participants", data={"character_id": brida}))
    ok(gm.request.post(f"{api}/participants", data={"entry_id": goblin["id"], "count": 2}))
    ok(gm.request.post(f"{api}/actions/start", data={}))
    pids = {p["name"]: int(p["pid"]) for p in ok(gm.request.get(api))["participants"]}
    scene = ok(
        gm.request.post(
            f"{base}/scenes", data={"name": "Hof", "cols": 10, "rows": 6, "shown": True}
        )
    )
    scene_api = f"{base}/scenes/{scene['id']}"
    url = f"/campaigns/{created['id']}/scenes/{scene['id']}"
    yield Setup(gm, bob, api, scene_api, url, pids)
    for context in (gm, bob):
        context.close()


def test_a_player_taps_a_goblin_and_the_attack_form_is_filled(setup: Setup) -> None:
    s = setup
    # The GM links the fight and places everyone with it: Brida west, the goblins east.
    gm = s.gm.new_page()
    gm.goto(s.scene_url)
    gm.get_by_label("Kampf auf dieser Szene").select_option(label="Hof")
    expect(gm.get_by_label("Seine Figuren auf freie Felder stellen")).to_be_checked()
    gm.get_by_role("button", name="Kampf verknüpfen").click()
    expect(gm.locator("#map-board .map-token")).to_have_count(3)
    tokens = {t["participant_id"]: t for t in ok(s.gm.request.get(s.scene_api))["tokens"]}
    assert tokens[s.pids["Brida"]]["x"] == 0
    assert {tokens[s.pids[n]]["x"] for n in ("Goblin 1", "Goblin 2")} == {9}
    # The GM moves Goblin 2 onto the line between Brida and Goblin 1.
    brida = tokens[s.pids["Brida"]]
    row = brida["y"]
    for name, x in (("Goblin 1", 8), ("Goblin 2", 4)):
        move = {"to": [x, row], "override": True}
        ok(s.gm.request.post(f"{s.scene_api}/tokens/{tokens[s.pids[name]]['id']}/move", data=move))
    until_turn(s.gm.request, s.encounter_api, "Brida")

    bob = s.bob.new_page()
    bob.goto(s.encounter_api.replace("/api/v1", ""))
    # The board first (issue 28): the attack form waits in the closed actions sheet, and the
    # tap on the goblin opens it.
    expect(bob.locator("#action-sheet")).to_be_attached()
    expect(bob.locator("#attack-target")).to_be_hidden()
    target = tokens[s.pids["Goblin 1"]]["id"]
    token(bob, target).tap()
    expect(bob.locator("#attack-target")).to_be_visible()
    expect(bob.locator("#attack-target")).to_have_value(str(s.pids["Goblin 1"]))
    # On a linked scene the server decides the cover (issue 27): the player's form has no
    # cover fields, the note gives the distance, the covering goblin is outlined.
    expect(bob.locator("#attack-cover")).to_have_count(0)
    expect(bob.get_by_text("Entfernung und Deckung ergeben sich aus dem Plan.")).to_be_visible()
    note = bob.locator("#map-aim")
    expect(note).to_contain_text("Entfernung 8 Schritt")
    covering = token(bob, tokens[s.pids["Goblin 2"]]["id"])
    expect(covering).to_have_class(re.compile(r"(^| )map-covering( |$)"))
    width = bob.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, width

    # Bob moves Brida through a waypoint: Wegpunkte, his token, (1, 1), (2, 2), go.
    brida_id = brida["id"]
    bob.get_by_role("button", name="Wegpunkte").click()
    token(bob, brida_id).tap()
    tap_cell(bob, 1, row - 1)
    tap_cell(bob, 2, row)
    expect(bob.locator("#map-route .map-route-point")).to_have_count(2)
    bob.get_by_role("button", name="Über die Wegpunkte ziehen").click()
    at(bob, brida_id, 2, row)
    at(gm, brida_id, 2, row)
    steps = ok(s.gm.request.get(s.scene_api))
    assert next(t for t in steps["tokens"] if t["id"] == brida_id)["x"] == 2

    # The GM, by keyboard: Goblin 1 from the list, a waypoint with Space, Enter goes.
    goblin = tokens[s.pids["Goblin 1"]]["id"]
    gm.locator(f'#map-list .map-pick[data-token="{goblin}"]').click()
    viewport = gm.locator(".map-viewport")
    expect(viewport).to_be_focused()
    gm.keyboard.press("ArrowDown")
    gm.keyboard.press("Space")
    expect(gm.locator("#map-route .map-route-point")).to_have_count(1)
    gm.keyboard.press("ArrowRight")
    gm.keyboard.press("Enter")
    at(gm, goblin, 9, row + 1)
    at(bob, goblin, 9, row + 1)
