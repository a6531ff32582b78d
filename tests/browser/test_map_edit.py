"""The GM's scene editor in the browser (issue 15), on a 390 px phone (taps) and at 1280 px
(clicks): two walls and a door drawn by tapping edges, saved, there after a reload (in the
editor and on the board); a wall drawn by keyboard; a stale save says so and shows the
current walls; axe finds nothing critical or serious with the editor open."""

from __future__ import annotations

import io
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

CELL = 64  # px per cell in the editor at the default zoom (static/js/map_edit.js)


def _gm(browser: Browser, base_url: str, phone: bool) -> BrowserContext:
    desk = account(browser, base_url, "baumeister")
    if not phone:
        return desk
    state = desk.storage_state()
    desk.close()
    return browser.new_context(
        base_url=base_url, viewport=PHONE, has_touch=True, is_mobile=True, storage_state=state
    )


def _scene(gm: BrowserContext) -> tuple[str, str]:
    created = ok(gm.request.post("/api/v1/campaigns", data={"name": "Bau", "system": "hh"}))
    scenes = f"/api/v1/campaigns/{created['id']}/scenes"
    scene = ok(
        gm.request.post(scenes, data={"name": "Keller", "cols": 8, "rows": 5, "shown": True})
    )
    return f"{scenes}/{scene['id']}", f"/campaigns/{created['id']}/scenes/{scene['id']}"


def _hit(svg: Locator, phone: bool, x: float, y: float) -> None:
    """Tap (phone) or click (desktop) the editor at grid point (x, y)."""
    position: Position = {"x": x * CELL, "y": y * CELL}
    if phone:
        svg.tap(position=position)
    else:
        svg.click(position=position)


def _edges(api: dict[str, Any]) -> tuple[list[list[int]], list[tuple[list[int], bool]]]:
    return sorted(api["walls"]), [(d["segment"], d["open"]) for d in api["doors"]]


@pytest.mark.parametrize("phone", [True, False], ids=["phone", "desktop"])
def test_gm_draws_walls_and_a_door_saves_and_finds_them_after_a_reload(
    browser: Browser, base_url: str, phone: bool
) -> None:
    gm = _gm(browser, base_url, phone)
    api, url = _scene(gm)
    page = gm.new_page()
    page.goto(url)
    editor = page.locator("#map-edit")
    svg = editor.locator(".map-edit-svg")
    expect(svg).to_be_visible()
    box = svg.bounding_box()
    assert box is not None and box["width"] == 8 * CELL  # an edge's target: 64 px ≥ 44 px
    # Near the middle of a cell's left side → that vertical edge; of its top → horizontal.
    _hit(svg, phone, 2.1, 1.5)  # the wall x = 2 between rows 1 and 2
    _hit(svg, phone, 3.5, 2.1)  # the wall y = 2 between columns 3 and 4
    editor.get_by_role("button", name="(D)").click()
    _hit(svg, phone, 1.0, 3.4)  # a closed door x = 1 between rows 3 and 4
    expect(svg.locator("line.map-wall")).to_have_count(2)
    editor.get_by_role("button", name="Wände speichern").click()
    status = editor.locator("#map-edit-status")
    expect(status).to_have_text(editor.get_attribute("data-saved") or "")
    assert _edges(ok(gm.request.get(api))) == (
        [[2, 1, 2, 2], [3, 2, 4, 2]], [([1, 3, 1, 4], False)],
    )  # fmt: skip
    page.reload()
    expect(svg.locator("line.map-wall")).to_have_count(2)
    expect(svg.locator("line.map-door")).to_have_count(1)
    expect(page.locator("#map-board line.map-wall")).to_have_count(2)
    if phone:
        assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    gm.close()


def test_keyboard_draws_a_wall_and_a_stale_save_shows_the_current_walls(
    browser: Browser, base_url: str
) -> None:
    gm = _gm(browser, base_url, phone=False)
    api, url = _scene(gm)
    page = gm.new_page()
    page.goto(url)
    editor = page.locator("#map-edit")
    expect(editor.locator("#map-edit-help")).to_be_visible()
    viewport = editor.locator(".map-edit-viewport")
    viewport.focus()
    for key in ("ArrowRight", "ArrowRight", "ArrowDown", "Shift+ArrowRight"):
        page.keyboard.press(key)
    expect(editor.locator("line.map-wall")).to_have_count(1)
    page.keyboard.press("t")  # terrain mode: Space marks the cursor's cell
    page.keyboard.press("Space")
    editor.get_by_role("button", name="Wände speichern").focus()
    page.keyboard.press("Enter")
    expect(editor.locator("#map-edit-status")).to_have_text(
        editor.get_attribute("data-saved") or ""
    )
    scene = ok(gm.request.get(api))
    assert scene["walls"] == [[3, 1, 3, 2]] and scene["difficult"] == [[2, 1]]
    # Someone else saves meanwhile: this page's save is refused and shows theirs.
    ok(
        gm.request.put(
            f"{api}/walls", data={"segments": [[0, 0, 0, 5]], "version": scene["version"]}
        )
    )
    viewport.focus()
    page.keyboard.press("w")
    page.keyboard.press("Shift+ArrowUp")
    editor.get_by_role("button", name="Wände speichern").click()
    expect(editor.locator("#map-edit-status")).to_have_text(
        editor.get_attribute("data-stale") or ""
    )
    expect(editor.locator("line.map-wall")).to_have_count(5)  # theirs, as unit edges
    assert ok(gm.request.get(api))["walls"] == [[0, 0, 0, 5]]
    gm.close()


@pytest.mark.parametrize("phone", [True, False], ids=["phone", "desktop"])
def test_the_scene_page_with_the_editor_open_has_no_serious_violation(
    browser: Browser, base_url: str, phone: bool
) -> None:
    gm = _gm(browser, base_url, phone)
    _api, url = _scene(gm)
    page: Page = gm.new_page()
    page.goto(url)
    expect(page.locator(".map-edit-svg")).to_be_visible()
    page.locator("#map-edit summary").click()
    expect(page.locator("#edit-segments")).to_be_visible()
    assert violations(page) == []
    gm.close()


def test_start_cells_painted_are_where_the_fight_is_placed_and_the_grid_previews(
    browser: Browser, base_url: str
) -> None:
    gm = _gm(browser, base_url, phone=False)
    created = ok(gm.request.post("/api/v1/campaigns", data={"name": "Bau", "system": "hh"}))
    base = f"/api/v1/campaigns/{created['id']}"
    goblin = next(
        e for e in ok(gm.request.post(f"{base}/bestiary/samples")) if e["name"] == "Goblin"
    )
    encounter = ok(gm.request.post(f"{base}/encounters", data={"name": "Keller"}))["id"]
    body = {"entry_id": goblin["id"], "count": 2}
    ok(gm.request.post(f"{base}/encounters/{encounter}/participants", data=body))
    linked = {"name": "Keller", "cols": 8, "rows": 5, "encounter_id": encounter, "shown": True}
    scene = ok(gm.request.post(f"{base}/scenes", data=linked))
    api = f"{base}/scenes/{scene['id']}"
    picture: FilePayload = {"name": "k.png", "mimeType": "image/png", "buffer": _png()}
    ok(gm.request.put(f"{api}/background", multipart={"file": picture}))
    page = gm.new_page()
    page.goto(f"/campaigns/{created['id']}/scenes/{scene['id']}")
    editor = page.locator("#map-edit")
    svg = editor.locator(".map-edit-svg")
    # The grid's alignment: the background moves under the grid as the fields change.
    image = svg.locator("image")
    expect(image).to_have_attribute("width", "8")  # 400 px at 50 px per cell
    page.locator("#grid-cell").fill("100")
    page.locator("#grid-x").fill("50")
    expect(image).to_have_attribute("width", "4")
    expect(image).to_have_attribute("x", "-0.5")
    page.locator("#map-grid-form").get_by_role("button").click()
    page.wait_for_url(f"**/scenes/{scene['id']}")
    assert ok(gm.request.get(api))["grid"] == {"x": 50, "y": 0, "cell_px": 100}
    # Start cells for the Gegner, painted by tapping cells; the placement uses them.
    editor.get_by_role("button", name="(2)").click()
    _hit(svg, False, 2.5, 3.5)
    _hit(svg, False, 3.5, 3.5)
    expect(svg.locator("rect.map-start-gegner")).to_have_count(2)
    page.get_by_role("button", name="Figuren des Kampfes aufstellen").click()
    page.wait_for_url(f"**/scenes/{scene['id']}")
    cells = sorted((t["x"], t["y"]) for t in ok(gm.request.get(api))["tokens"])
    assert cells == [(2, 3), (3, 3)]
    gm.close()


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (400, 250), (90, 140, 60)).save(out, format="PNG")
    return out.getvalue()


def _drag(page: Page, svg: Locator, phone: bool, start: tuple[float, float],
          end: tuple[float, float]) -> None:  # fmt: skip
    """Drag over the editor from grid point ``start`` to ``end``: a finger (CDP touch events)
    on the phone, the mouse on the desktop, in small steps as a hand would (touches outside
    the viewport are dropped: the editor is scrolled into view first)."""
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


@pytest.mark.parametrize("phone", [True, False], ids=["phone", "desktop"])
def test_gm_drags_a_straight_wall_paints_terrain_and_undoes_an_edit(
    browser: Browser, base_url: str, phone: bool
) -> None:
    gm = _gm(browser, base_url, phone)
    api, url = _scene(gm)
    page = gm.new_page()
    page.goto(url)
    editor = page.locator("#map-edit")
    svg = editor.locator(".map-edit-svg")
    # A drag from near grid point (1, 1) to near (1, 4), a little off the line: one straight
    # wall of three unit edges along x = 1; the page does not scroll meanwhile.
    svg.scroll_into_view_if_needed()
    scrolled = page.evaluate("window.scrollY")
    _drag(page, svg, phone, (1.1, 0.9), (1.3, 4.2))
    expect(svg.locator("line.map-wall")).to_have_count(3)
    assert page.evaluate("window.scrollY") == scrolled
    # Terrain: a drag over three cells of row 2 paints them; undo takes the painting back,
    # and a second undo the wall.
    editor.get_by_role("button", name="(T)").click()
    _drag(page, svg, phone, (3.5, 2.5), (5.5, 2.5))
    expect(svg.locator("rect.map-difficult")).to_have_count(3)
    undo = editor.get_by_role("button", name="(Ctrl+Z)")
    undo.click()
    expect(svg.locator("rect.map-difficult")).to_have_count(0)
    expect(svg.locator("line.map-wall")).to_have_count(3)
    _drag(page, svg, phone, (3.5, 2.5), (5.5, 2.5))
    editor.get_by_role("button", name="Wände speichern").click()
    expect(editor.locator("#map-edit-status")).to_have_text(
        editor.get_attribute("data-saved") or ""
    )
    scene = ok(gm.request.get(api))
    assert scene["walls"] == [[1, 1, 1, 4]] or sorted(scene["walls"]) == [
        [1, 1, 1, 2], [1, 2, 1, 3], [1, 3, 1, 4],
    ]  # fmt: skip
    assert sorted(scene["difficult"]) == [[3, 2], [4, 2], [5, 2]]
    expect(undo).to_be_disabled()  # a save starts a new history
    gm.close()
