"""The campaign document carries the battle map: scenes with their background image, walls,
doors, difficult terrain, fog, the linked encounter and the tokens (their participants and
characters renumbered). Runs on SQLite and PostgreSQL (``TAFELRUNDE_TEST_DATABASE_URL``)."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from tests.api.test_maps import base, get, new_scene, png
from tests.api.test_maps_tactics import hh_fight
from tests.conftest import ClientFactory
from tests.transfer.test_campaign_transfer import _export, take_over, without_people


def _same(scene: dict[str, Any]) -> dict[str, Any]:
    """A scene as a viewer gets it, without the ids that differ between the copies."""
    drop = {"id", "version", "background_url", "encounter_id"}
    ids = {"id", "participant_id", "character_id", "portrait_url"}
    out = {k: v for k, v in scene.items() if k not in drop}
    out["tokens"] = sorted(
        (
            {k: v for k, v in t.items() if k not in ids}
            | {"figure": t["participant_id"] is not None, "hero": t["character_id"] is not None}
            | {"portrait": t["portrait_url"] is not None}
            for t in scene["tokens"]
        ),
        key=lambda t: (t["label"], t["x"], t["y"]),
    )
    return out


async def _scenes(client: httpx.AsyncClient, campaign_id: int) -> list[dict[str, Any]]:
    listing = await get(client, base(campaign_id))
    return [await get(client, f"{base(campaign_id)}/{s['id']}") for s in listing["scenes"]]


async def test_scenes_tokens_and_background_survive_a_round_trip(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await hh_fight(make_client, app, "mt")
    gm, player = fight.gm, fight.players[0]
    scene = await new_scene(gm, fight.campaign_id, 8, 6, encounter_id=fight.encounter_id)
    url = f"{base(fight.campaign_id)}/{scene['id']}"
    image = png((120, 90))
    r = await gm.put(f"{url}/background", files={"file": ("k.png", image, "image/png")})
    assert r.status_code == 200, r.text
    r = await gm.patch(url, json={"grid_x": 4, "grid_y": 2, "cell_px": 15})
    assert r.status_code == 200, r.text
    r = await gm.put(
        f"{url}/walls",
        json={"segments": [[3, 0, 3, 4]], "doors": [{"segment": [3, 4, 3, 5], "open": True},
              {"segment": [5, 2, 6, 2]}], "difficult": [[1, 1], [6, 5]]},
    )  # fmt: skip
    assert r.status_code == 200, r.text
    r = await gm.post(f"{url}/place", json={"areas": {"gegner": [[6, 1]]}})
    assert r.status_code == 200 and len(r.json()["tokens"]) == 4
    alrik = fight.characters["Alrik"]
    box = {"x": 2, "y": 5, "label": "Kiste", "character_id": alrik, "colour": "#aa3300"}
    r = await gm.post(f"{url}/tokens", json=box)
    assert r.status_code == 201, r.text
    free = r.json()["id"]
    assert (await gm.post(f"{url}/tokens/{free}/move", json={"to": [1, 5]})).status_code == 200
    face = png((40, 40))
    r = await gm.put(f"{url}/tokens/{free}/portrait", files={"file": ("f.png", face, "image/png")})
    assert r.status_code == 200 and r.json()["portrait_url"], r.text
    r = await gm.patch(f"{url}/tokens/{free}", json={"light": 2})  # a lantern (issue 27)
    assert r.status_code == 200 and r.json()["light"] == 2, r.text
    r = await gm.patch(url, json={"fog": True})
    assert r.status_code == 200
    r = await gm.post(f"{url}/fog", json={"reveal": [[0, y] for y in range(6)] + [[1, 5]]})
    assert r.status_code == 200
    # A second, empty scene without an image, with each player's line of sight.
    second = await new_scene(gm, fight.campaign_id, 3, 3)
    r = await gm.patch(
        f"{base(fight.campaign_id)}/{second['id']}",
        json={"line_of_sight": True, "sight_radius": 4, "dark": True},
    )
    assert r.status_code == 200, r.text
    r = await gm.post(
        f"{base(fight.campaign_id)}/{second['id']}/lights", json={"x": 1, "y": 2, "radius": 3}
    )
    assert r.status_code == 201, r.text

    first = await _export(gm, fight.campaign_id)
    assert [s["name"] for s in first["scenes"]] == ["Gewölbe", "Gewölbe"]
    assert first["scenes"][0]["background"]["mime"] == "image/png"
    assert (first["scenes"][1]["line_of_sight"], first["scenes"][1]["sight_radius"]) == (True, 4)
    assert (first["scenes"][1]["dark"], first["scenes"][1]["lights"]) == (True, [[1, 2, 3]])
    assert [t["light"] for t in first["scenes"][0]["tokens"] if t["label"] == "Kiste"] == [2]
    r = await gm.post("/api/v1/campaigns/import", json=first)
    assert r.status_code == 201, r.text
    new = r.json()["id"]
    # export → import → export loses nothing (but the people: the copy names no account)
    assert without_people(await _export(gm, new)) == without_people(first)

    await take_over(gm, player, new, "Alrik")
    for client in (gm, player):  # each viewer sees the copy as the original
        before, after = await _scenes(client, fight.campaign_id), await _scenes(client, new)
        assert [_same(s) for s in after] == [_same(s) for s in before]
    copy = (await _scenes(gm, new))[0]
    assert copy["id"] != scene["id"] and copy["background"] is not None
    # The links point into the copy: its encounter, its participants, its character.
    encounter = await get(gm, f"/api/v1/campaigns/{new}/encounters/{copy['encounter_id']}")
    pids = {int(p["pid"]) for p in encounter["participants"]}
    figures = {t["participant_id"] for t in copy["tokens"] if t["participant_id"]}
    assert len(figures) == 4 and figures <= pids
    characters = (await gm.get(f"/api/v1/campaigns/{new}/characters")).json()
    assert {t["character_id"] for t in copy["tokens"] if t["label"] == "Kiste"} == {
        next(c["id"] for c in characters if c["name"] == "Alrik")
    }
    # The image: the same bytes, served from the copy.
    served = await gm.get(copy["background_url"])
    original = await gm.get((await get(gm, url))["background_url"])
    assert served.status_code == 200 and served.content == original.content
    assert served.headers["etag"] == original.headers["etag"]
    # The Kiste's portrait too.
    box_copy = next(t for t in copy["tokens"] if t["label"] == "Kiste")
    box_first = next(t for t in (await get(gm, url))["tokens"] if t["label"] == "Kiste")
    served, original = (
        await gm.get(box_copy["portrait_url"]),
        await gm.get(box_first["portrait_url"]),
    )
    assert served.status_code == 200 and served.content == original.content
    assert served.headers["etag"] == original.headers["etag"]
    # The copy's log names the copy's scene and token (a token move in the event stream).
    moves = [e for e in first["events"] if e["type"] == "token_moved"]
    assert moves and moves[0]["payload"]["scene_id"] == 1
    # The player may move their figure in the copy as in the original (the same fight).
    mine = next(t for t in copy["tokens"] if t["label"] == "Alrik")
    r = await gm.post(f"{base(new)}/{copy['id']}/tokens/{mine['id']}/move",
                      json={"to": [mine["x"], mine["y"] - 1]})  # fmt: skip
    assert r.status_code == 200, r.text


async def test_a_scene_off_its_grid_is_refused(make_client: ClientFactory, app: FastAPI) -> None:
    fight = await hh_fight(make_client, app, "mb")
    await new_scene(fight.gm, fight.campaign_id, 4, 4)
    doc = await _export(fight.gm, fight.campaign_id)
    doc["scenes"][0]["walls"] = [["v", 9, 0]]
    r = await fight.gm.post("/api/v1/campaigns/import", json=doc)
    assert r.status_code == 422 and "scenes.0" in str(r.json()["errors"])
    doc["scenes"][0]["walls"] = []
    doc["scenes"][0]["tokens"] = [{"ref": 1, "participant": None, "character": None,
        "label": "X", "colour": "#000000", "size": 2, "hidden": False, "x": 3, "y": 0,
        "moved": 0, "moved_turn": ""}]  # fmt: skip
    r = await fight.gm.post("/api/v1/campaigns/import", json=doc)
    assert r.status_code == 422
