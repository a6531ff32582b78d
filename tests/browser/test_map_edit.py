"""The GM's scene editor in the browser, on the board the GM sees (issues 15 and 28): with
«Bearbeiten» pressed the GM draws on ``#map-board`` itself — on a 390 px phone (finger) and
at 1280 px (mouse): a wall dragged and a door tapped, saved, and a player's page gets the
wall live; walls saved from the text form, and a bad entry answered at its field; a wall by
keyboard; a stale save shows the current walls; terrain painted and an edit undone; the fog
painted with the brush and undone; a live push while the drawing is unsaved keeps it; start
cells painted for the placement; the grid previewed on the board's background; axe finds
nothing critical or serious with the editor on. With ``TAFELRUNDE_SHOTS`` set to a folder
(``docs/screenshots``), the drag test saves ``board-edit-phone.png`` and
``board-edit-desktop.png`` there."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from playwright.sync_api import (
    Browser,
    BrowserContext,
    FilePayload,
    Locator,
    Page,
    Position,
    expect,
)

from tests.browser.test_accessibility import violations
from tests.browser.test_layout import PHONE
from tests.browser.world import account, ok

pytestmark = pytest.mark.browser

CELL = 48  # px per cell on the board at the default zoom (static/js/map.js)
SAVE = "Wände speichern"


def _gm(browser: Browser, base_url: str, phone: bool) -> BrowserContext:
    desk = account(browser, base_url, "baumeister")
    if not phone:
        return desk
    state = desk.storage_state()
    desk.close()
    return browser.new_context(
        base_url=base_url, viewport=PHONE, has_touch=True, is_mobile=True, storage_state=state
    )


def _campaign(gm: BrowserContext) -> dict[str, Any]:
    created: dict[str, Any] = ok(
        gm.request.post("/api/v1/campaigns", data={"name": "Bau", "system": "hh"})
    )
    return created


def _scene(gm: BrowserContext, created: dict[str, Any] | None = None,
           **extra: Any) -> tuple[str, str]:  # fmt: skip
    created = created or _campaign(gm)
    scenes = f"/api/v1/campaigns/{created['id']}/scenes"
    fog = extra.pop("fog", False)
    body = {"name": "Keller", "cols": 8, "rows": 5, "shown": True, **extra}
    scene = ok(gm.request.post(scenes, data=body))
    if fog:
        ok(gm.request.patch(f"{scenes}/{scene['id']}", data={"fog": True}))
    return f"{scenes}/{scene['id']}", f"/campaigns/{created['id']}/scenes/{scene['id']}"


def _edit(page: Page) -> Locator:
    """Press «Bearbeiten» on the board's toolbar: the editor's tools appear next to the
    board; answers the board's SVG, which the editor now draws on."""
    toggle = page.locator("#map-region [data-map-edit]")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#map-edit-tools")).to_be_visible()
    board = page.locator("#map-board .map-svg")
    expect(board.locator(".map-edit-layer")).to_have_count(1)
    return board


def _layer(page: Page) -> Locator:
    return page.locator("#map-board .map-svg .map-edit-layer")


def _status(page: Page, name: str) -> None:
    expect(page.locator("#map-edit-status")).to_have_text(
        page.locator("#map-edit").get_attribute(name) or ""
    )


def _save(page: Page) -> None:
    page.locator("#map-edit-tools").get_by_role("button", name=SAVE).click()


def _hit(svg: Locator, phone: bool, x: float, y: float) -> None:
    """Tap (phone) or click (desktop) the board at grid point (x, y)."""
    position: Position = {"x": x * CELL, "y": y * CELL}
    if phone:
        svg.tap(position=position)
    else:
        svg.click(position=position)


def _drag(page: Page, svg: Locator, phone: bool, start: tuple[float, float],
          end: tuple[float, float]) -> None:  # fmt: skip
    """Drag over the board from grid point ``start`` to ``end``: a finger (CDP touch events)
    on the phone, the mouse on the desktop, in small steps as a hand would (touches outside
    the viewport are dropped: the board is scrolled into view first)."""
    svg.scroll_into_view_if_needed()
    box = svg.bounding_box()
    assert box is not None
    points = [
        (box["x"] + (start[0] + (end[0] - start[0]) * i / 8) * CELL,
         box["y"] + (start[1] + (end[1] - start[1]) * i / 8) * CELL)
        for i in range(9)
    ]  # fmt: skip
    if not phone:
        page.mouse.move(*points[0])
        page.mouse.down()
        for x, y in points[1:]:
            page.mouse.move(x, y)
        page.mouse.up()
        return
    cdp = page.context.new_cdp_session(page)
    for kind, (x, y) in [("touchStart", points[0])] + [("touchMove", p) for p in points[1:]]:
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def _edges(api: dict[str, Any]) -> tuple[list[list[int]], list[tuple[list[int], bool]]]:
    return sorted(api["walls"]), [(d["segment"], d["open"]) for d in api["doors"]]


def _no_sideways_scroll(page: Page) -> None:
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]


@pytest.mark.parametrize("phone", [True, False], ids=["phone", "desktop"])
def test_gm_drags_a_wall_and_taps_a_door_on_the_board_and_the_player_sees_the_wall_live(
    browser: Browser, base_url: str, phone: bool
) -> None:
    gm = _gm(browser, base_url, phone)
    created = _campaign(gm)
    player = account(browser, base_url, "zuschauer")
    ok(player.request.post("/api/v1/campaigns/join", data={"invite_code": created["invite_code"]}))
    api, url = _scene(gm, created)
    watching = player.new_page()
    watching.goto(url)
    expect(watching.locator("#live-status")).to_have_text("Live")
    expect(watching.locator("[data-map-edit]")).to_have_count(0)  # the GM's alone
    page = gm.new_page()
    page.goto(url)
    expect(page.locator("#live-status")).to_have_text("Live")
    expect(page.locator(".map-edit-viewport")).to_have_count(0)  # no second copy of the map
    board = _edit(page)
    box = board.bounding_box()
    assert box is not None and box["width"] == 8 * CELL  # an edge's target: 48 px ≥ 44 px
    layer = _layer(page)
    # A drag from near grid point (2, 1) to near (2, 3): a straight wall of two unit edges.
    _drag(page, board, phone, (2.1, 0.9), (2.2, 3.2))
    expect(layer.locator("line.map-wall")).to_have_count(2)
    # A tap near the middle of a cell's left side in door mode: a closed door on that edge.
    page.locator("#map-edit-tools").get_by_role("button", name="(D)").click()
    _hit(board, phone, 1.0, 3.4)  # the door x = 1 between rows 3 and 4
    expect(layer.locator("line.map-door")).to_have_count(1)
    expect(page.locator("#edit-segments")).to_have_value("2,1,2,2\n2,2,2,3")
    expect(page.locator("#edit-doors")).to_have_value("1,3,1,4")
    _save(page)
    _status(page, "data-saved")
    assert _edges(ok(gm.request.get(api))) == ([[2, 1, 2, 3]], [([1, 3, 1, 4], False)])
    # The player's board gets the wall and the door live (one joined segment).
    expect(watching.locator("#map-board line.map-wall")).to_have_count(1)
    expect(watching.locator("#map-board line.map-door")).to_have_count(1)
    if phone:
        _no_sideways_scroll(page)
    # After a reload the board shows them; editing stays on in this tab.
    page.reload()
    expect(page.locator("#map-board .map-svg > line.map-wall")).to_have_count(1)
    expect(_layer(page).locator("line.map-wall")).to_have_count(2)
    expect(_layer(page).locator("line.map-door")).to_have_count(1)
    page.locator("#map-region [data-map-edit]").click()  # off: the board is the board again
    expect(_layer(page)).to_have_count(0)
    expect(page.locator("#map-edit-tools")).to_be_hidden()
    for context in (gm, player):
        context.close()


def test_the_text_form_saves_what_it_shows_or_says_what_is_wrong_at_the_field(
    browser: Browser, base_url: str
) -> None:
    gm = _gm(browser, base_url, phone=False)
    api, url = _scene(gm)
    page = gm.new_page()
    page.goto(url)
    _edit(page)
    page.locator("#map-edit summary").click()
    segments = page.locator("#edit-segments")
    segments.fill("0,1,3,1\n5,0,5,2")
    page.locator("#edit-difficult").fill("6,4")
    # The drawing follows the text as it is typed.
    expect(_layer(page).locator("line.map-wall")).to_have_count(5)
    expect(_layer(page).locator("rect.map-difficult")).to_have_count(1)
    page.locator("#map-walls-form").get_by_role("button", name=SAVE).click()
    _status(page, "data-saved")
    scene = ok(gm.request.get(api))
    assert sorted(scene["walls"]) == [[0, 1, 3, 1], [5, 0, 5, 2]]
    assert scene["difficult"] == [[6, 4]]
    # An entry that does not parse: the server answers at the field, the text kept as typed
    # (with what was drawn since), and nothing is stored.
    segments.fill("0,1,3,1\n5,0,5,2\n1,2,3")
    board = page.locator("#map-board .map-svg")
    _hit(board, False, 7.0, 0.5)  # a wall drawn meanwhile goes into the text too
    expect(segments).to_have_value("0,1,1,1\n1,1,2,1\n2,1,3,1\n5,0,5,1\n5,1,5,2\n7,0,7,1\n1,2,3")
    page.locator("#map-walls-form").get_by_role("button", name=SAVE).click()
    error = page.locator("#segments-error")
    expect(error).to_contain_text("1,2,3")
    expect(page.locator("#edit-segments")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#edit-segments")).to_have_value(
        "0,1,1,1\n1,1,2,1\n2,1,3,1\n5,0,5,1\n5,1,5,2\n7,0,7,1\n1,2,3"
    )
    assert sorted(ok(gm.request.get(api))["walls"]) == [[0, 1, 3, 1], [5, 0, 5, 2]]
    # Off the grid: the same, at the field.
    page.locator("#edit-segments").fill("0,0,0,9")
    page.locator("#map-walls-form").get_by_role("button", name=SAVE).click()
    expect(page.locator("#segments-error")).to_be_visible()
    expect(page.locator("#edit-segments")).to_have_value("0,0,0,9")
    gm.close()


def test_keyboard_draws_a_wall_and_a_stale_save_shows_the_current_walls(
    browser: Browser, base_url: str
) -> None:
    gm = _gm(browser, base_url, phone=False)
    api, url = _scene(gm)
    page = gm.new_page()
    page.goto(url)
    _edit(page)
    expect(page.locator("#map-edit-help")).to_be_visible()
    viewport = page.locator("#map-region .map-viewport")
    expect(viewport).to_have_attribute("role", "application")
    viewport.focus()
    for key in ("ArrowRight", "ArrowRight", "ArrowDown", "Shift+ArrowRight"):
        page.keyboard.press(key)
    expect(_layer(page).locator("line.map-wall")).to_have_count(1)
    page.keyboard.press("t")  # terrain mode: Space marks the cursor's cell
    page.keyboard.press("Space")
    page.locator("#map-edit-tools").get_by_role("button", name=SAVE).focus()
    page.keyboard.press("Enter")
    _status(page, "data-saved")
    scene = ok(gm.request.get(api))
    assert scene["walls"] == [[3, 1, 3, 2]] and scene["difficult"] == [[2, 1]]
    # No token moved by the keys meanwhile, and map.js's cursor stayed away.
    expect(page.locator("#map-cursor")).to_have_attribute("visibility", "hidden")
    # Someone else saves meanwhile: this page's save is refused and shows theirs.
    ok(
        gm.request.put(
            f"{api}/walls", data={"segments": [[0, 0, 0, 5]], "version": scene["version"]}
        )
    )
    viewport.focus()
    page.keyboard.press("w")
    page.keyboard.press("Shift+ArrowUp")
    _save(page)
    _status(page, "data-stale")
    expect(_layer(page).locator("line.map-wall")).to_have_count(5)  # theirs, as unit edges
    assert ok(gm.request.get(api))["walls"] == [[0, 0, 0, 5]]
    gm.close()


@pytest.mark.parametrize("phone", [True, False], ids=["phone", "desktop"])
def test_the_scene_page_with_the_editor_on_has_no_serious_violation(
    browser: Browser, base_url: str, phone: bool
) -> None:
    gm = _gm(browser, base_url, phone)
    _api, url = _scene(gm, fog=True)
    page: Page = gm.new_page()
    page.goto(url)
    _edit(page)
    page.locator("#map-edit summary").click()
    expect(page.locator("#edit-segments")).to_be_visible()
    if phone:
        _no_sideways_scroll(page)
    assert violations(page) == []
    gm.close()


def test_start_cells_painted_are_where_the_fight_is_placed_and_the_grid_previews(
    browser: Browser, base_url: str
) -> None:
    gm = _gm(browser, base_url, phone=False)
    created = _campaign(gm)
    base = f"/api/v1/campaigns/{created['id']}"
    goblin = next(
        e for e in ok(gm.request.post(f"{base}/bestiary/samples")) if e["name"] == "Goblin"
    )
    encounter = ok(gm.request.post(f"{base}/encounters", data={"name": "Keller"}))["id"]
    body = {"entry_id": goblin["id"], "count": 2}
    ok(gm.request.post(f"{base}/encounters/{encounter}/participants", data=body))
    api, url = _scene(gm, created, encounter_id=encounter)
    picture: FilePayload = {"name": "k.png", "mimeType": "image/png", "buffer": _png()}
    ok(gm.request.put(f"{api}/background", multipart={"file": picture}))
    page = gm.new_page()
    page.goto(url)
    # The grid's alignment: the board's background moves under the grid as the fields change.
    image = page.locator("#map-board image.map-background")
    page.locator("#grid-cell").fill("100")
    page.locator("#grid-x").fill("50")
    expect(image).to_have_attribute("width", "4")  # 400 px at 100 px per cell
    expect(image).to_have_attribute("x", "-0.5")
    page.locator("#map-grid-form").get_by_role("button").click()
    page.wait_for_url(f"**{url}")
    assert ok(gm.request.get(api))["grid"] == {"x": 50, "y": 0, "cell_px": 100}
    # Start cells for the Gegner, painted by tapping cells on the board; the placement
    # uses them.
    board = _edit(page)
    page.locator("#map-edit-tools").get_by_role("button", name="(2)").click()
    _hit(board, False, 2.5, 3.5)
    _hit(board, False, 3.5, 3.5)
    expect(_layer(page).locator("rect.map-start-gegner")).to_have_count(2)
    page.get_by_role("button", name="Figuren des Kampfes aufstellen").click()
    page.wait_for_url(f"**{url}")
    cells = sorted((t["x"], t["y"]) for t in ok(gm.request.get(api))["tokens"])
    assert cells == [(2, 3), (3, 3)]
    gm.close()


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (400, 250), (90, 140, 60)).save(out, format="PNG")
    return out.getvalue()


@pytest.mark.parametrize("phone", [True, False], ids=["phone", "desktop"])
def test_gm_drags_a_straight_wall_paints_terrain_and_undoes_an_edit(
    browser: Browser, base_url: str, phone: bool
) -> None:
    gm = _gm(browser, base_url, phone)
    api, url = _scene(gm)
    page = gm.new_page()
    page.goto(url)
    board = _edit(page)
    layer = _layer(page)
    # A drag from near grid point (1, 1) to near (1, 4), a little off the line: one straight
    # wall of three unit edges along x = 1; neither the page nor the board scrolls meanwhile.
    board.scroll_into_view_if_needed()
    scrolled = page.evaluate("window.scrollY")
    _drag(page, board, phone, (1.1, 0.9), (1.3, 4.2))
    expect(layer.locator("line.map-wall")).to_have_count(3)
    assert page.evaluate("window.scrollY") == scrolled
    assert page.locator("#map-region .map-viewport").evaluate("e => e.scrollTop") == 0
    # Terrain: a drag over three cells of row 2 paints them; undo takes the painting back,
    # and the wall stays.
    tools = page.locator("#map-edit-tools")
    tools.get_by_role("button", name="(T)").click()
    _drag(page, board, phone, (3.5, 2.5), (5.5, 2.5))
    expect(layer.locator("rect.map-difficult")).to_have_count(3)
    undo = tools.get_by_role("button", name="(Ctrl+Z)")
    undo.click()
    expect(layer.locator("rect.map-difficult")).to_have_count(0)
    expect(layer.locator("line.map-wall")).to_have_count(3)
    _drag(page, board, phone, (3.5, 2.5), (5.5, 2.5))
    _save(page)
    _status(page, "data-saved")
    scene = ok(gm.request.get(api))
    assert scene["walls"] == [[1, 1, 1, 4]]
    assert sorted(scene["difficult"]) == [[3, 2], [4, 2], [5, 2]]
    expect(undo).to_be_disabled()  # a save starts a new history
    if phone:
        _no_sideways_scroll(page)
    folder = os.environ.get("TAFELRUNDE_SHOTS")
    if folder:  # the board with the editor on, as the GM sees it
        page.locator("#map-region").scroll_into_view_if_needed()
        name = f"board-edit-{'phone' if phone else 'desktop'}.png"
        page.screenshot(path=str(Path(folder) / name))
    gm.close()


def test_gm_paints_the_fog_with_a_brush_and_undoes_it(browser: Browser, base_url: str) -> None:
    gm = _gm(browser, base_url, phone=False)
    api, url = _scene(gm, fog=True)
    page = gm.new_page()
    page.goto(url)
    board = _edit(page)
    expect(page.locator("#map-board rect.map-fog")).to_have_count(40)
    page.locator("#map-edit-tools").get_by_role("button", name="(F)").click()
    # Starting on a fogged cell reveals: a drag over four cells of row 1, saved at once.
    _drag(page, board, False, (1.5, 1.5), (4.5, 1.5))
    expect(page.locator("#map-board rect.map-fog")).to_have_count(36)
    assert sorted(ok(gm.request.get(api))["revealed"]) == [[1, 1], [2, 1], [3, 1], [4, 1]]
    # Starting on a revealed cell hides again; a tap is one cell.
    _hit(board, False, 2.5, 1.5)
    expect(page.locator("#map-board rect.map-fog")).to_have_count(37)
    # Undo: the tap, then the stroke (each the opposite request).
    page.locator("#map-region .map-viewport").focus()
    page.keyboard.press("Control+z")
    expect(page.locator("#map-board rect.map-fog")).to_have_count(36)
    page.keyboard.press("Control+z")
    expect(page.locator("#map-board rect.map-fog")).to_have_count(40)
    assert ok(gm.request.get(api))["revealed"] == []
    gm.close()


def test_a_live_push_keeps_the_unsaved_drawing(browser: Browser, base_url: str) -> None:
    gm = _gm(browser, base_url, phone=False)
    created = _campaign(gm)
    player = account(browser, base_url, "held")
    ok(player.request.post("/api/v1/campaigns/join", data={"invite_code": created["invite_code"]}))
    character = ok(
        player.request.post(f"/api/v1/campaigns/{created['id']}/characters", data={"name": "Alrik"})
    )
    api, url = _scene(gm, created, fog=True)
    ok(gm.request.post(f"{api}/fog", data={"reveal": [[x, y] for x in range(8) for y in range(5)]}))
    hero = ok(gm.request.post(f"{api}/tokens",
                              data={"x": 0, "y": 4, "character_id": character["id"]}))  # fmt: skip
    page = gm.new_page()
    page.goto(url)
    expect(page.locator("#live-status")).to_have_text("Live")
    board = _edit(page)
    layer = _layer(page)
    _drag(page, board, False, (3.1, 0.1), (3.1, 3.0))  # three unit edges along x = 3
    expect(layer.locator("line.map-wall")).to_have_count(3)
    # The player moves their token (a move), the GM places a chest (the whole board is
    # pushed again) and hides a cell (the scene's version moves): the drawing stays.
    ok(player.request.post(f"{api}/tokens/{hero['id']}/move", data={"to": [1, 4]}))
    expect(page.locator(f'#map-board .map-token[data-token="{hero["id"]}"]')).to_have_attribute(
        "data-x", "1"
    )
    chest = ok(gm.request.post(f"{api}/tokens", data={"x": 6, "y": 0, "label": "Truhe"}))
    expect(page.locator("#map-board .map-token")).to_have_count(2)
    ok(gm.request.post(f"{api}/fog", data={"hide": [[7, 4]]}))
    expect(page.locator("#map-board rect.map-fog")).to_have_count(1)
    expect(layer).to_have_count(1)
    expect(layer.locator("line.map-wall")).to_have_count(3)
    # The token drag of map.js stays off while editing: a drag from the chest draws a wall.
    _drag(page, board, False, (6.6, 0.4), (6.6, 2.4))
    expect(layer.locator("line.map-wall")).to_have_count(5)
    expect(page.locator(f'#map-board .map-token[data-token="{chest["id"]}"]')).to_have_attribute(
        "data-x", "6"
    )
    # Saved with the new version: the walls did not change meanwhile, so the save goes through.
    _save(page)
    _status(page, "data-saved")
    scene = ok(gm.request.get(api))
    assert sorted(scene["walls"]) == [[3, 0, 3, 3], [7, 0, 7, 2]]
    assert [(t["x"], t["y"]) for t in scene["tokens"] if t["id"] == chest["id"]] == [(6, 0)]
    for context in (gm, player):
        context.close()
