"""The battle map at a table (issue 15): a GM and two players, one of them on a 390 px phone.

The GM builds the scene through the JSON API (image, walls, fog, the fight's tokens); the
players move in the browser — one drags, one taps token then cell — and every screen shows
each move live; a move over the allowance is refused and the token stays; walking past the
goblin offers a Blockadeangriff; the hidden goblin and the chest behind the fog are in no
player's page until revealed; the ruler is seen by all; the GM moves by keyboard; on the
combat page a player picks the attack's target on the map."""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from PIL import Image
from playwright.sync_api import APIRequestContext, Browser, BrowserContext, Page, expect

from tests.browser.flows import wait_live
from tests.browser.test_layout import PHONE
from tests.browser.world import account, ok

pytestmark = pytest.mark.browser


@dataclass
class Table:
    gm: BrowserContext
    alice: BrowserContext
    bob: BrowserContext
    campaign_id: int
    encounter_api: str
    scene_api: str
    scene_url: str
    tokens: dict[str, int]


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (600, 400), (90, 140, 60)).save(out, format="PNG")
    return out.getvalue()


def _participant(gm: APIRequestContext, api: str, body: dict[str, Any]) -> None:
    ok(gm.post(f"{api}/participants", data=body))


def _build(gm: APIRequestContext, players: list[APIRequestContext]) -> tuple[int, str, list[int]]:
    created = ok(gm.post("/api/v1/campaigns", data={"name": "Kartenrunde", "system": "hh"}))
    cid = int(created["id"])
    base = f"/api/v1/campaigns/{cid}"
    characters = []
    for player, name in zip(players, ("Alrik", "Brida"), strict=True):
        ok(player.post("/api/v1/campaigns/join", data={"invite_code": created["invite_code"]}))
        characters.append(int(ok(player.post(f"{base}/characters", data={"name": name}))["id"]))
    goblin = next(e for e in ok(gm.post(f"{base}/bestiary/samples")) if e["name"] == "Goblin")
    api = f"{base}/encounters/{ok(gm.post(f'{base}/encounters', data={'name': 'Gang'}))['id']}"
    for character in characters:
        _participant(gm, api, {"character_id": character})
    _participant(gm, api, {"entry_id": goblin["id"]})
    _participant(gm, api, {"entry_id": goblin["id"], "hidden": True})
    ok(gm.post(f"{api}/actions/start", data={}))
    return cid, api, characters


@pytest.fixture
def table(browser: Browser, base_url: str) -> Iterator[Table]:
    gm, alice = account(browser, base_url, "kartensl"), account(browser, base_url, "alice")
    bob = account_on_phone(browser, base_url)
    cid, api, _characters = _build(gm.request, [alice.request, bob.request])
    view = ok(gm.request.get(api))
    named = ("Alrik", "Brida", "Goblin 2")
    pids = {p["name"] if p["name"] in named else "Goblin": p["pid"] for p in view["participants"]}
    scenes = f"/api/v1/campaigns/{cid}/scenes"
    linked = {
        "name": "Gewölbe", "cols": 12, "rows": 8, "encounter_id": int(api.rsplit("/", 1)[1]),
        "shown": True,
    }  # fmt: skip
    scene = ok(gm.request.post(scenes, data=linked))
    scene_api = f"{scenes}/{scene['id']}"
    ok(gm.request.put(f"{scene_api}/background",
                      multipart={"file": {"name": "k.png", "mimeType": "image/png",
                                          "buffer": _png()}}))  # fmt: skip
    corridor = [[3, 1, 8, 1], [3, 2, 8, 2], [9, 0, 9, 8]]
    ok(gm.request.put(f"{scene_api}/walls", data={"segments": corridor}))
    tokens = {}
    for name, x, y in (("Alrik", 1, 1), ("Brida", 1, 5), ("Goblin", 6, 2), ("Goblin 2", 7, 6)):
        body = {"x": x, "y": y, "participant_id": int(pids[name])}
        tokens[name] = ok(gm.request.post(f"{scene_api}/tokens", data=body))["id"]
    chest: dict[str, object] = {"x": 10, "y": 1, "label": "Truhe"}
    tokens["Truhe"] = ok(gm.request.post(f"{scene_api}/tokens", data=chest))["id"]
    ok(gm.request.patch(scene_api, data={"fog": True}))
    revealed = [[x, y] for x in range(9) for y in range(8)]
    ok(gm.request.post(f"{scene_api}/fog", data={"reveal": revealed}))
    url = f"/campaigns/{cid}/scenes/{scene['id']}"
    yield Table(gm, alice, bob, cid, api, scene_api, url, tokens)
    for context in (gm, alice, bob):
        context.close()


def account_on_phone(browser: Browser, base_url: str) -> BrowserContext:
    """A fresh player on a 390 × 844 touch screen."""
    desk = account(browser, base_url, "bob")
    state = desk.storage_state()
    desk.close()
    return browser.new_context(
        base_url=base_url, viewport=PHONE, has_touch=True, is_mobile=True, storage_state=state
    )


def token(page: Page, tid: int) -> Any:
    return page.locator(f'#map-board .map-token[data-token="{tid}"]')


def at(page: Page, tid: int, x: int, y: int) -> None:
    expect(token(page, tid)).to_have_attribute("data-x", str(x))
    expect(token(page, tid)).to_have_attribute("data-y", str(y))


def cell_point(page: Page, x: int, y: int) -> tuple[float, float]:
    box = page.locator("#map-board .map-svg").bounding_box()
    assert box is not None
    cols, rows = 12, 8
    return box["x"] + (x + 0.5) * box["width"] / cols, box["y"] + (y + 0.5) * box["height"] / rows


def drag(page: Page, tid: int, x: int, y: int) -> None:
    box = token(page, tid).bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    tx, ty = cell_point(page, x, y)
    page.mouse.move(tx, ty, steps=5)
    page.mouse.up()


def until_turn(gm: APIRequestContext, api: str, name: str) -> None:
    for _ in range(12):
        view = ok(gm.get(api))
        if view["turn"]["name"] == name:
            return
        ok(gm.post(f"{api}/actions/next", data={}))
    raise AssertionError(f"{name} never got the turn")


def test_a_table_plays_on_the_map(table: Table) -> None:
    t = table
    gm, alice, bob = (c.new_page() for c in (t.gm, t.alice, t.bob))
    for page in (gm, alice, bob):
        page.goto(t.scene_url)
        wait_live(page)
    ids = t.tokens
    # What players may not see was never sent: not in their pages.
    for page in (alice, bob):
        html = page.content()
        assert "Goblin 2" not in html and "Truhe" not in html
        expect(token(page, ids["Goblin"])).to_be_visible()
    assert "Truhe" in gm.content() and "Goblin 2" in gm.content()
    expect(gm.locator("#map-board image")).to_have_count(1)
    # The phone: tokens at least 44 px, the page itself never wider than the screen.
    box = token(bob, ids["Brida"]).bounding_box()
    assert box is not None and box["width"] >= 44 and box["height"] >= 44
    assert bob.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

    # Alice drags her token on her turn; every screen shows it.
    until_turn(t.gm.request, t.encounter_api, "Alrik")
    drag(alice, ids["Alrik"], 3, 1)
    for page in (alice, gm, bob):
        at(page, ids["Alrik"], 3, 1)
    # Too far: refused with the reason, the token stays.
    drag(alice, ids["Alrik"], 8, 7)
    expect(alice.locator("#map-message")).to_contain_text("6")
    at(alice, ids["Alrik"], 3, 1)
    # Down the corridor past the goblin: stopped, and the GM is offered a Blockadeangriff.
    drag(alice, ids["Alrik"], 7, 1)
    expect(gm.locator("#map-reactions")).to_contain_text("Blockadeangriff")
    expect(gm.locator("#map-reactions")).to_contain_text("Goblin")
    at(bob, ids["Alrik"], 7, 1)

    # Bob on the phone: tap his token, then a cell.
    until_turn(t.gm.request, t.encounter_api, "Brida")
    token(bob, ids["Brida"]).tap()
    bx, by = cell_point(bob, 3, 6)
    bob.touchscreen.tap(bx, by)
    for page in (bob, gm, alice):
        at(page, ids["Brida"], 3, 6)

    # The GM moves the goblin by keyboard: pick it in the list, arrows, Enter.
    gm.locator(f'#map-list .map-pick[data-token="{ids["Goblin"]}"]').click()
    gm.keyboard.press("ArrowDown")
    gm.keyboard.press("ArrowRight")
    gm.keyboard.press("Enter")
    for page in (gm, alice, bob):
        at(page, ids["Goblin"], 7, 3)

    # Alice's ruler reaches everyone.
    alice.locator('[data-map-mode="ruler"]').click()
    for x, y in ((0, 0), (0, 4)):
        px, py = cell_point(alice, x, y)
        alice.mouse.click(px, py)
    for page in (gm, bob):
        expect(page.locator("#map-pointer polyline")).to_have_count(1)
        expect(page.locator("#map-pointer-text")).to_contain_text("4 Schritt")

    # The GM lifts the fog from the chest: it appears on the players' screens.
    ok(t.gm.request.post(f"{t.scene_api}/fog", data={"reveal": [[10, 1]]}))
    for page in (alice, bob):
        expect(token(page, ids["Truhe"])).to_be_visible()
        assert "Goblin 2" not in page.content()

    # Attacks from the map: on the combat page Alice picks the goblin on the map as her target.
    expect(alice.locator("#map-list .map-target")).to_have_count(3)  # no attack form here
    expect(alice.locator("#map-list .map-target:visible")).to_have_count(0)
    until_turn(t.gm.request, t.encounter_api, "Alrik")
    goblin = next(
        p["pid"] for p in ok(t.gm.request.get(t.encounter_api))["participants"]
        if p["name"].startswith("Goblin") and p["name"] != "Goblin 2"
    )  # fmt: skip
    alice.goto(t.encounter_api.replace("/api/v1", ""))
    aim = alice.locator(f'#map-list .map-target[data-target="{goblin}"]')
    expect(aim).to_be_visible()
    values = alice.locator("#attack-target option").evaluate_all("os => os.map(o => o.value)")
    alice.locator("#attack-target").select_option(next(v for v in values if v != str(goblin)))
    aim.click()
    expect(alice.locator("#attack-target")).to_have_value(str(goblin))
    expect(alice.locator("#attack-target")).to_be_focused()
