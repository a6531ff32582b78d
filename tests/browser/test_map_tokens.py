"""Tokens you can tell apart (issue 28): a GM at 1280 px and a player on a 390 px phone see
the two Goblins of a fight as «1» and «2», the sides in rings of different colour and dash,
the figure whose turn it is highlighted on both screens, Alrik's portrait in his disc, and
the token list naming side, number and status — the player the Goblin's status word only,
never its LP.

With ``TAFELRUNDE_SHOTS`` set to a folder (``docs/screenshots``), the test saves the board
as ``board-desktop.png`` (the GM's) and ``board-phone.png`` (the player's) there."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from PIL import Image, ImageDraw
from playwright.sync_api import APIRequestContext, Browser, FilePayload, Locator, Page, expect

from tests.browser.test_map import account_on_phone
from tests.browser.world import account, ok

pytestmark = pytest.mark.browser


def _fight_on_a_scene(gm: APIRequestContext, player: APIRequestContext) -> str:
    """A running H&H fight — the player's Alrik against two Goblins, the second hurt — on a
    shown scene with every figure placed; the scene page's path."""
    created = ok(gm.post("/api/v1/campaigns", data={"name": "Markenrunde", "system": "hh"}))
    base = f"/api/v1/campaigns/{created['id']}"
    ok(player.post("/api/v1/campaigns/join", data={"invite_code": created["invite_code"]}))
    alrik = ok(player.post(f"{base}/characters", data={"name": "Alrik"}))["id"]
    goblin = next(e for e in ok(gm.post(f"{base}/bestiary/samples")) if e["name"] == "Goblin")
    api = f"{base}/encounters/{ok(gm.post(f'{base}/encounters', data={'name': 'Pass'}))['id']}"
    ok(gm.post(f"{api}/participants", data={"character_id": alrik}))
    ok(gm.post(f"{api}/participants", data={"entry_id": goblin["id"], "count": 2}))
    view = ok(gm.post(f"{api}/actions/start", data={}))
    hurt = next(p["pid"] for p in view["participants"] if p["name"] == "Goblin 2")
    ok(gm.post(f"{api}/actions/adjust", data={"participant": hurt, "delta": -3, "reason": "Pfeil"}))
    linked = {
        "name": "Pass", "cols": 7, "rows": 4, "encounter_id": int(api.rsplit("/", 1)[1]),
        "shown": True, "place": True,
    }  # fmt: skip
    scene = ok(gm.post(f"{base}/scenes", data=linked))
    scene_api = f"{base}/scenes/{scene['id']}"
    hero = next(t for t in ok(gm.get(scene_api))["tokens"] if t["label"] == "Alrik")
    face: FilePayload = {"name": "alrik.png", "mimeType": "image/png", "buffer": _face()}
    ok(gm.put(f"{scene_api}/tokens/{hero['id']}/portrait", multipart={"file": face}))
    return f"/campaigns/{created['id']}/scenes/{scene['id']}"


def _face() -> bytes:
    """A small portrait: a face-coloured disc on green."""
    picture = Image.new("RGB", (64, 64), (60, 120, 60))
    ImageDraw.Draw(picture).ellipse((14, 8, 50, 56), fill=(230, 190, 150))
    out = io.BytesIO()
    picture.save(out, format="PNG")
    return out.getvalue()


def _item(page: Page, number: str) -> Locator:
    """The token list's entry of the Goblin with this number."""
    tid = page.locator(f'#map-board .map-token[data-number="{number}"]').get_attribute("data-token")
    return page.locator(f"#map-item-{tid}")


def _goblins_apart(page: Page) -> str:
    """The checks on one screen; the id of the token highlighted as active."""
    board = page.locator("#map-board")
    goblins = board.locator('.map-token[data-side="gegner"]')
    expect(goblins).to_have_count(2)
    for number in ("1", "2"):
        one = board.locator(f'.map-token[data-side="gegner"][data-number="{number}"]')
        expect(one.locator(".map-token-number-text")).to_have_text(number)
        expect(one.locator(".map-token-label")).to_have_text("Go")
    hero = board.locator('.map-token[data-side="abenteurer"] .map-token-disc')
    foe = board.locator('.map-token[data-side="gegner"] .map-token-disc').first
    look = "e => getComputedStyle(e).stroke + ' ' + getComputedStyle(e).strokeDasharray"
    assert hero.evaluate(look) != foe.evaluate(look)
    active = board.locator(".map-token.map-active")
    expect(active).to_have_count(1)
    expect(active.locator(".map-active-halo")).to_have_count(1)
    expect(_item(page, "2")).to_contain_text("Goblin 2 (Gegner)")
    expect(page.locator("#map-list .map-active-word")).to_have_count(1)
    return str(active.get_attribute("data-token"))


def _shot(page: Page, name: str) -> None:
    folder = os.environ.get("TAFELRUNDE_SHOTS")
    if folder:
        page.locator("#map-region .map-viewport").screenshot(path=str(Path(folder) / name))


def test_tokens_are_told_apart_by_side_and_number(browser: Browser, base_url: str) -> None:
    gm = account(browser, base_url, "markensl")
    player = account_on_phone(browser, base_url)
    path = _fight_on_a_scene(gm.request, player.request)
    desk, phone = gm.new_page(), player.new_page()
    desk.goto(path)
    phone.goto(path)
    assert _goblins_apart(desk) == _goblins_apart(phone)

    expect(_item(desk, "2").locator(".map-status")).to_contain_text(" LP")
    expect(_item(phone, "2").locator(".map-status")).not_to_contain_text("LP")
    expect(_item(phone, "2").locator(".map-status")).not_to_be_empty()
    expect(phone.locator('.map-token[data-side="gegner"] .map-hp')).to_have_count(0)
    for page in (desk, phone):  # Alrik's portrait, loaded into the disc
        portrait = page.locator('.map-token[data-side="abenteurer"] image.map-token-portrait')
        expect(portrait).to_have_count(1)
        status = page.request.get(str(portrait.get_attribute("href"))).status
        assert status == 200
    expect(phone.locator('.map-token[data-side="abenteurer"] .map-hp')).to_have_count(1)
    expect(desk.locator('.map-token[data-side="gegner"] .map-hp')).to_have_count(2)
    _shot(desk, "board-desktop.png")
    _shot(phone, "board-phone.png")
    gm.close()
    player.close()
