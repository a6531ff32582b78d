"""The scene editor without JavaScript (walls, doors, terrain, grid alignment, start areas
as form fields) and the stale-version answer of ``PUT …/walls`` the editor relies on."""

from __future__ import annotations

from fastapi import FastAPI

from tests.api.helpers import Table, make_table
from tests.api.test_maps import base, get, new_scene
from tests.api.test_maps_tactics import _pids, _tokens, hh_fight
from tests.conftest import ClientFactory


async def test_wall_form_saves_refuses_at_the_field_and_detects_stale(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t: Table = await make_table(make_client, app)
    scene = await new_scene(t.gm, t.campaign_id, cols=6, rows=4)
    url = f"{base(t.campaign_id)}/{scene['id']}"
    page = f"/campaigns/{t.campaign_id}/scenes/{scene['id']}"
    shown = await t.gm.get(page)
    assert 'name="segments"' in shown.text and "map_edit.js" in shown.text
    assert 'name="segments"' not in (await t.player.get(page)).text
    version = (await get(t.gm, url))["version"]
    good = await t.gm.post(
        f"{page}/walls",
        data={"segments": "1,0,1,2\n2 3 4 3", "doors": "3,0,3,1,1; 0,1,1,1",
              "difficult": "5,3", "version": str(version)},
    )  # fmt: skip
    assert good.status_code == 303, good.text
    after = await get(t.gm, url)
    assert sorted(after["walls"]) == [[1, 0, 1, 2], [2, 3, 4, 3]]
    assert {(tuple(d["segment"]), d["open"]) for d in after["doors"]} == {
        ((3, 0, 3, 1), True), ((0, 1, 1, 1), False),
    }  # fmt: skip
    assert after["difficult"] == [[5, 3]]
    # The page shows them again in the form.
    assert "1,0,1,2" in (await t.gm.get(page)).text
    for field, data in (
        ("segments", {"segments": "1,0,1,9"}),  # off the grid
        ("segments", {"segments": "1,0,2,1"}),  # diagonal
        ("segments", {"segments": "eins, zwei"}),  # not numbers
        ("doors", {"doors": "3,0,3,1,7"}),
        ("difficult", {"difficult": "6,0"}),
    ):
        bad = await t.gm.post(f"{page}/walls", data={"version": str(after["version"]), **data})
        assert bad.status_code == 422, (field, bad.text)
        assert f'id="{field}-error"' in bad.text and 'aria-invalid="true"' in bad.text
        assert data[field] in bad.text  # the text typed is kept
        assert await get(t.gm, url) == after  # nothing changed
    stale = await t.gm.post(f"{page}/walls", data={"segments": "", "version": str(version)})
    assert stale.status_code == 409 and 'id="version-error"' in stale.text
    assert "1,0,1,2" in stale.text  # the form shows the walls as they are now
    assert await get(t.gm, url) == after
    # A player may not edit (the service's permission).
    refused = await t.player.post(f"{page}/walls", data={"segments": ""})
    assert refused.status_code == 403
    assert await get(t.gm, url) == after


async def test_put_walls_stale_answers_the_fresh_scene(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t: Table = await make_table(make_client, app)
    scene = await new_scene(t.gm, t.campaign_id, cols=6, rows=4)
    url = f"{base(t.campaign_id)}/{scene['id']}"
    first = await t.gm.put(f"{url}/walls", json={"segments": [[1, 0, 1, 1]], "version": 1})
    assert first.status_code == 200
    stale = await t.gm.put(f"{url}/walls", json={"segments": [], "version": 1})
    assert stale.status_code == 409
    assert stale.json()["scene"]["walls"] == [[1, 0, 1, 1]]
    assert stale.json()["scene"]["version"] == first.json()["version"]


async def test_grid_form_and_start_areas(make_client: ClientFactory, app: FastAPI) -> None:
    t: Table = await make_table(make_client, app)
    scene = await new_scene(t.gm, t.campaign_id, cols=6, rows=4)
    url = f"{base(t.campaign_id)}/{scene['id']}"
    page = f"/campaigns/{t.campaign_id}/scenes/{scene['id']}"
    ok = await t.gm.post(f"{page}/grid", data={"grid_x": "7", "grid_y": "-3", "cell_px": "64"})
    assert ok.status_code == 303
    assert (await get(t.gm, url))["grid"] == {"x": 7, "y": -3, "cell_px": 64}
    bad = await t.gm.post(f"{page}/grid", data={"grid_x": "0", "grid_y": "0", "cell_px": "2"})
    assert bad.status_code == 422 and 'id="cell_px-error"' in bad.text
    assert (await get(t.gm, url))["grid"]["cell_px"] == 64
    stale = await t.gm.post(f"{page}/grid", data={"cell_px": "30", "version": "1"})
    assert stale.status_code == 409


async def test_place_form_uses_the_start_areas(make_client: ClientFactory, app: FastAPI) -> None:
    fight = await hh_fight(make_client, app, "ed")
    gm = fight.gm
    pids = await _pids(fight)
    scene = await new_scene(gm, fight.campaign_id, 8, 5, encounter_id=fight.encounter_id)
    url = f"{base(fight.campaign_id)}/{scene['id']}"
    page = f"/campaigns/{fight.campaign_id}/scenes/{scene['id']}"
    assert 'name="area_gegner"' in (await gm.get(page)).text
    bad = await gm.post(f"{page}/place", data={"area_gegner": "9,9"})
    assert bad.status_code == 422 and 'id="areas-error"' in bad.text and "9,9" in bad.text
    assert (await get(gm, url))["tokens"] == []
    ok = await gm.post(
        f"{page}/place", data={"area_abenteurer": "3,1", "area_gegner": "6,4\n7,4\n5,4"}
    )
    assert ok.status_code == 303, ok.text
    placed = _tokens(await get(gm, url))
    assert placed[pids["Alrik"]] == (3, 1)
    goblins = {xy for pid, xy in placed.items() if pid != pids["Alrik"]}
    assert goblins == {(6, 4), (7, 4), (5, 4)}
