"""Light (issue 27, docs/map.md «Light»): in a dark scene a player gets the tokens on lit
cells only (and their own); a light lights what a line from it reaches within its radius,
walls stop it; a token carries its light with it. Only GMs set the light; bad input is a
422 at its field."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI

from app import limits
from tests.api.helpers import Table, make_table
from tests.api.test_maps import _last_seq, base, events_for, get, player_viewer
from tests.api.test_maps_sight import _character
from tests.conftest import ClientFactory

#: A 12 × 6 cellar: a wall on line x = 6 from top to bottom; Anna's hero at (1, 1), a
#: goblin in the same room at (4, 1), an orc beyond the wall at (8, 1).
WALL = [6, 0, 6, 6]


@dataclass
class Cellar:
    t: Table
    url: str
    ids: dict[str, int]


def labels(scene: dict[str, Any]) -> set[str]:
    return {tk["label"] for tk in scene["tokens"]}


async def cellar(make_client: ClientFactory, app: FastAPI) -> Cellar:
    t = await make_table(make_client, app)
    r = await t.gm.post(
        base(t.campaign_id), json={"name": "Keller", "cols": 12, "rows": 6, "shown": True}
    )
    url = f"{base(t.campaign_id)}/{r.json()['id']}"
    assert (await t.gm.put(f"{url}/walls", json={"segments": [WALL]})).status_code == 200
    hero = await _character(app, t.campaign_id, t.ids["player"], "Anna")
    ids: dict[str, int] = {}
    r = await t.gm.post(f"{url}/tokens", json={"x": 1, "y": 1, "character_id": hero})
    ids["Anna"] = r.json()["id"]
    for label, (x, y) in (("Goblin", (4, 1)), ("Ork", (8, 1))):
        r = await t.gm.post(f"{url}/tokens", json={"x": x, "y": y, "label": label})
        assert r.status_code == 201, r.text
        ids[label] = r.json()["id"]
    return Cellar(t, url, ids)


async def test_a_goblin_in_the_dark_is_sent_once_a_torch_lights_it(
    make_client: ClientFactory, app: FastAPI
) -> None:
    c = await cellar(make_client, app)
    gm, anna = c.t.gm, c.t.player
    assert labels(await get(anna, c.url)) == {"Anna", "Goblin", "Ork"}  # not dark: all
    seq = await _last_seq(app, c.t.campaign_id)
    r = await gm.patch(c.url, json={"dark": True})
    assert r.status_code == 200 and r.json()["dark"] is True
    # Dark, no light: her own token only; the goblin is not in her answer at all.
    seen = await get(anna, c.url)
    assert labels(seen) == {"Anna"} and "Goblin" not in str(seen) and "Ork" not in str(seen)
    assert seen["visible"] == [[1, 1]] and seen["lights"] is None and seen["lit"] is None
    assert "light" not in seen["tokens"][0]
    got = await events_for(app, c.t.campaign_id, player_viewer(c.t), seq)
    assert ("light_changed", "dark") in [(e["type"], e.get("change")) for e in got]
    assert {e["token_id"] for e in got if e["type"] == "token_removed"} == {
        c.ids["Goblin"],
        c.ids["Ork"],
    }
    # The GM gives Anna's hero a torch (radius 4): the goblin is lit, the orc behind the
    # wall is not (the wall stops the light, and it is too far).
    seq = await _last_seq(app, c.t.campaign_id)
    r = await gm.patch(f"{c.url}/tokens/{c.ids['Anna']}", json={"light": 4})
    assert r.status_code == 200 and r.json()["light"] == 4, r.text
    seen = await get(anna, c.url)
    assert labels(seen) == {"Anna", "Goblin"} and "Ork" not in str(seen)
    added = [e for e in await events_for(app, c.t.campaign_id, player_viewer(c.t), seq)
             if e["type"] == "token_added"]  # fmt: skip
    assert [e["token"]["label"] for e in added] == ["Goblin"]
    assert "hidden" not in added[0]["token"] and "light" not in added[0]["token"]
    # The GM sees everything, and where the light falls.
    mine = await get(gm, c.url)
    assert labels(mine) == {"Anna", "Goblin", "Ork"}
    lit = {tuple(x) for x in mine["lit"]}
    assert (4, 1) in lit and (5, 1) in lit and (6, 1) not in lit and (8, 1) not in lit
    # Hero walks out of reach: the goblin is no longer sent.
    r = await anna.post(f"{c.url}/tokens/{c.ids['Anna']}/move", json={"to": [0, 5]})
    assert r.status_code == 200, r.text
    assert labels(await get(anna, c.url)) == {"Anna"}


async def test_a_light_on_a_cell_stops_at_walls_and_can_be_taken_away(
    make_client: ClientFactory, app: FastAPI
) -> None:
    c = await cellar(make_client, app)
    gm, anna = c.t.gm, c.t.player
    assert (await gm.patch(c.url, json={"dark": True})).status_code == 200
    # A brazier beside the wall, on Anna's side: radius 5 would reach the orc, the wall
    # stops it.
    seq = await _last_seq(app, c.t.campaign_id)
    r = await gm.post(f"{c.url}/lights", json={"x": 5, "y": 1, "radius": 5})
    assert r.status_code == 201, r.text
    assert r.json()["lights"] == [{"x": 5, "y": 1, "radius": 5}]
    assert labels(await get(anna, c.url)) == {"Anna", "Goblin"}
    events = await events_for(app, c.t.campaign_id, player_viewer(c.t), seq)
    light = [e for e in events if e["type"] == "light_changed"]
    assert light and light[0]["light"] is None  # where the light stands is the GMs'
    # A lamp beyond the wall lights the orc.
    r = await gm.post(f"{c.url}/lights", json={"x": 9, "y": 1, "radius": 1})
    assert r.status_code == 201
    assert labels(await get(anna, c.url)) == {"Anna", "Goblin", "Ork"}
    # A light placed again on its cell takes the new radius (no second light there).
    r = await gm.post(f"{c.url}/lights", json={"x": 9, "y": 1, "radius": 2})
    assert [lt for lt in r.json()["lights"] if lt["x"] == 9] == [{"x": 9, "y": 1, "radius": 2}]
    r = await gm.delete(f"{c.url}/lights/9/1")
    assert r.status_code == 200 and len(r.json()["lights"]) == 1
    assert labels(await get(anna, c.url)) == {"Anna", "Goblin"}
    # Light again: darkness no longer counts, the lights stay for the next time.
    r = await gm.patch(c.url, json={"dark": False})
    assert r.status_code == 200 and r.json()["lit"] is None and len(r.json()["lights"]) == 1
    assert labels(await get(anna, c.url)) == {"Anna", "Goblin", "Ork"}


async def test_dark_with_line_of_sight_sees_what_is_in_sight_and_lit(
    make_client: ClientFactory, app: FastAPI
) -> None:
    c = await cellar(make_client, app)
    gm, anna = c.t.gm, c.t.player
    r = await gm.patch(c.url, json={"dark": True, "line_of_sight": True})
    assert r.status_code == 200
    # A lamp beyond the wall lights the orc, but Anna's hero does not see through the wall.
    assert (await gm.post(f"{c.url}/lights", json={"x": 8, "y": 2, "radius": 2})).status_code == 201
    seen = await get(anna, c.url)
    assert labels(seen) == {"Anna"}
    # With her torch, the goblin in sight and lit.
    await gm.patch(f"{c.url}/tokens/{c.ids['Anna']}", json={"light": 3})
    seen = await get(anna, c.url)
    assert labels(seen) == {"Anna", "Goblin"}
    assert {tuple(x) for x in seen["visible"]} <= {(x, y) for x in range(6) for y in range(6)}


async def test_only_gms_set_the_light_and_bad_input_is_refused_at_its_field(
    make_client: ClientFactory, app: FastAPI
) -> None:
    c = await cellar(make_client, app)
    gm, anna = c.t.gm, c.t.player
    for client, status in ((anna, 403), (c.t.observer, 403), (c.t.outsider, 404)):
        assert (await client.patch(c.url, json={"dark": True})).status_code == status
        light = {"x": 1, "y": 1, "radius": 3}
        assert (await client.post(f"{c.url}/lights", json=light)).status_code == status
        assert (await client.delete(f"{c.url}/lights/1/1")).status_code == status
        r = await client.patch(f"{c.url}/tokens/{c.ids['Anna']}", json={"light": 3})
        assert r.status_code == status
    assert (await get(gm, c.url))["dark"] is False
    bad = [
        ({"x": 12, "y": 1, "radius": 3}, "x"),
        ({"x": 1, "y": -1, "radius": 3}, "y"),
        ({"x": 1, "y": 1, "radius": 0}, "radius"),
        ({"x": 1, "y": 1, "radius": limits.LIGHT_RADIUS_MAX + 1}, "radius"),
    ]
    for body, field in bad:
        r = await gm.post(f"{c.url}/lights", json=body)
        assert r.status_code == 422 and field in r.json()["errors"], (body, r.text)
    r = await gm.delete(f"{c.url}/lights/3/3")
    assert r.status_code == 422 and "x" in r.json()["errors"]
    for radius in (-1, limits.LIGHT_RADIUS_MAX + 1):
        r = await gm.patch(f"{c.url}/tokens/{c.ids['Anna']}", json={"light": radius})
        assert r.status_code == 422 and "light" in r.json()["errors"]
    # The limit on lights per scene.
    cells = [(x, y) for y in range(6) for x in range(12)][: limits.LIGHTS_PER_SCENE]
    for x, y in cells:
        r = await gm.post(f"{c.url}/lights", json={"x": x, "y": y, "radius": 1})
        assert r.status_code == 201, r.text
    r = await gm.post(f"{c.url}/lights", json={"x": 11, "y": 5, "radius": 1})
    assert r.status_code == 422 and "x" in r.json()["errors"]
    assert len((await get(gm, c.url))["lights"]) == limits.LIGHTS_PER_SCENE


async def test_the_forms_without_javascript(make_client: ClientFactory, app: FastAPI) -> None:
    c = await cellar(make_client, app)
    gm, anna = c.t.gm, c.t.player
    page = c.url.replace("/api/v1", "")
    r = await gm.post(f"{page}/fog", data={"action": "dark_on"})
    assert r.status_code in (200, 303), r.text
    assert (await get(gm, c.url))["dark"] is True
    r = await gm.post(f"{page}/lights", data={"x": "2", "y": "1", "radius": "99"})
    assert r.status_code == 422
    assert 'id="light_radius-error" role="alert">Zwischen 1 und 30 Feldern.' in r.text
    r = await gm.post(f"{page}/lights", data={"x": "2", "y": "1", "radius": "3"})
    assert r.status_code in (200, 303)
    assert labels(await get(anna, c.url)) == {"Anna", "Goblin"}
    r = await gm.get(page)
    assert "Spalte 2, Zeile 1, Radius 3" in r.text and 'class="map-light"' in r.text
    r = await gm.post(f"{page}/lights/remove", data={"cell": "3,3"})
    assert r.status_code == 422
    assert 'id="light_cell-error" role="alert">Auf diesem Feld steht kein Licht.' in r.text
    r = await gm.post(f"{page}/lights/remove", data={"cell": "2,1"})
    assert r.status_code in (200, 303)
    assert labels(await get(anna, c.url)) == {"Anna"}
    r = await gm.post(f"{page}/token-light", data={"token_id": str(c.ids["Anna"]), "radius": "-2"})
    assert r.status_code == 422
    assert 'id="token_light-error" role="alert">Zwischen 0 und 30 Feldern.' in r.text
    r = await gm.post(f"{page}/token-light", data={"token_id": str(c.ids["Anna"]), "radius": "4"})
    assert r.status_code in (200, 303)
    assert labels(await get(anna, c.url)) == {"Anna", "Goblin"}
    # The player's page: the goblin is drawn, the orc is in no element, unlit cells dark.
    r = await anna.get(page)
    assert "Goblin" in r.text and "Ork" not in r.text and "map-dark" in r.text
    assert "map-light" not in r.text
    r = await anna.post(f"{page}/lights", data={"x": "2", "y": "1", "radius": "3"})
    assert r.status_code == 403
