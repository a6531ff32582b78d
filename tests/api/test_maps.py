"""The battle map over the JSON API: scenes, background, walls, fog, tokens, moves, distance,
and what each viewer receives of it (the answer and the projected events)."""

from __future__ import annotations

import io
import struct
import zlib
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from PIL import Image
from sqlalchemy import select

from app.core.viewer import Role, Viewer
from app.events.models import CampaignEvent
from app.events.stream import projected
from app.maps.present import scenes_now
from tests.api.helpers import Table, make_table
from tests.conftest import ClientFactory
from tests.encounters.helpers import Fight, add_character, make_fight, script

ALRIK = {"lp": 20, "rs": 1, "initiative": 30, "angriff": 12, "verteidigung": 11,
         "unbeugsamkeit": 10, "willenskraft": 9, "schaden_w": 10, "schaden_bonus": 1, "gp": 2,
         "glueck": 8, "bewegung": 4}  # fmt: skip


@pytest.fixture
async def table(make_client: ClientFactory, app: FastAPI) -> Table:
    return await make_table(make_client, app)


def base(campaign_id: int) -> str:
    return f"/api/v1/campaigns/{campaign_id}/scenes"


async def new_scene(
    client: httpx.AsyncClient, campaign_id: int, cols: int = 10, rows: int = 8, **extra: Any
) -> dict[str, Any]:
    r = await client.post(
        base(campaign_id),
        json={"name": "Gewölbe", "cols": cols, "rows": rows, "shown": True, **extra},
    )
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


async def get(client: httpx.AsyncClient, url: str, status: int = 200) -> dict[str, Any]:
    r = await client.get(url)
    assert r.status_code == status, r.text
    return r.json()  # type: ignore[no-any-return]


async def events_for(
    app: FastAPI, campaign_id: int, viewer: Viewer, after: int = 0
) -> list[dict[str, Any]]:
    """The map events ``viewer`` receives (as the stream would send them), oldest first."""
    async with app.state.ctx.sessionmaker() as session:
        rows = (
            await session.scalars(
                select(CampaignEvent)
                .where(CampaignEvent.campaign_id == campaign_id, CampaignEvent.seq > after)
                .order_by(CampaignEvent.seq)
            )
        ).all()
    kinds = ("scene_", "token_", "fog_", "light_")
    shown = await projected(app.state.ctx, campaign_id, viewer, rows, scenes_now)
    return [e.data() for e in shown if e.type.startswith(kinds)]


def gm_viewer(t: Table) -> Viewer:
    return Viewer(t.ids["gm"], "gm_user", Role.gm)


def player_viewer(t: Table) -> Viewer:
    return Viewer(t.ids["player"], "player_user", Role.player)


def png(size: tuple[int, int] = (60, 40)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (10, 120, 30)).save(out, format="PNG")
    return out.getvalue()


def png_bomb(width: int = 60_000, height: int = 60_000) -> bytes:
    """A tiny PNG whose header declares a huge picture (the pixels are never there)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00" * 1000)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")
    )


# --- scenes ---------------------------------------------------------------------------------


async def test_scene_crud_roles_and_bad_input(table: Table, app: FastAPI) -> None:
    t, url = table, base(table.campaign_id)
    scene = await new_scene(t.gm, t.campaign_id)
    assert {k: scene[k] for k in ("name", "cols", "rows")} == {
        "name": "Gewölbe", "cols": 10, "rows": 8,
    }  # fmt: skip
    assert set(scene) >= {"id", "name", "cols", "rows", "version"}
    sid = scene["id"]
    for body, field in (
        ({"name": "A", "cols": 0, "rows": 5}, "cols"),
        ({"name": "A", "cols": 5, "rows": 101}, "rows"),
        ({"name": " ", "cols": 5, "rows": 5}, "name"),
        ({"name": "A", "cols": 5, "rows": 5, "encounter_id": 999}, "encounter_id"),
    ):
        r = await t.gm.post(url, json=body)
        assert r.status_code == 422, body
        assert field in r.json()["errors"], r.text
    r = await t.player.post(url, json={"name": "A", "cols": 5, "rows": 5})
    assert r.status_code == 403
    assert (await t.outsider.get(f"{url}/{sid}")).status_code == 404
    assert (await t.anonymous.get(url)).status_code == 401
    listed = await get(t.observer, url)
    assert [s["id"] for s in listed["scenes"]] == [sid]
    shown = await get(t.player, f"{url}/{sid}")
    assert set(shown) >= {
        "id", "name", "cols", "rows", "version", "background_url", "walls", "doors",
        "tokens", "revealed",
    }  # fmt: skip
    assert shown["unit"] == "Schritt" and shown["background_url"] is None
    r = await t.gm.patch(f"{url}/{sid}", json={"name": "Krypta", "version": scene["version"]})
    assert r.status_code == 200 and r.json()["name"] == "Krypta"
    stale = await t.gm.patch(f"{url}/{sid}", json={"name": "Alt", "version": scene["version"]})
    assert stale.status_code == 409
    assert (await t.player.patch(f"{url}/{sid}", json={"name": "X"})).status_code == 403
    assert (await t.player.delete(f"{url}/{sid}")).status_code == 403
    changes = [e["change"] for e in await events_for(app, t.campaign_id, player_viewer(t))]
    assert changes == ["created", "changed"]
    assert (await t.gm.delete(f"{url}/{sid}")).status_code == 204
    assert (await t.gm.get(f"{url}/{sid}")).status_code == 404
    # Once it is gone, a replay brings players nothing of it but that it went.
    changes = [e["change"] for e in await events_for(app, t.campaign_id, player_viewer(t))]
    assert changes == ["deleted"]


async def test_walls_doors_terrain_and_walls_outside_the_grid(table: Table) -> None:
    t = table
    sid = (await new_scene(t.gm, t.campaign_id, 6, 4))["id"]
    url = f"{base(t.campaign_id)}/{sid}"
    r = await t.gm.put(
        f"{url}/walls",
        json={
            "segments": [[3, 0, 3, 2], [3, 2, 3, 4], [0, 2, 2, 2]],
            "doors": [{"segment": [4, 1, 5, 1], "open": False}],
            "difficult": [[1, 1], [1, 1]],
        },
    )
    assert r.status_code == 200, r.text
    scene = r.json()
    assert sorted(scene["walls"]) == [[0, 2, 2, 2], [3, 0, 3, 4]]  # joined into runs
    assert scene["doors"] == [{"segment": [4, 1, 5, 1], "open": False}]
    assert scene["difficult"] == [[1, 1]]
    for segments, field in (
        ([[0, 0, 7, 0]], "segments"),  # beyond the 6 columns
        ([[0, -1, 0, 2]], "segments"),
        ([[0, 0, 2, 2]], "segments"),  # diagonal
        ([[1, 1, 1, 1]], "segments"),  # no length
    ):
        r = await t.gm.put(f"{url}/walls", json={"segments": segments})
        assert r.status_code == 422, segments
        assert field in r.json()["errors"]
    r = await t.gm.put(f"{url}/walls", json={"segments": [], "difficult": [[6, 0]]})
    assert r.status_code == 422 and "difficult" in r.json()["errors"]
    r = await t.gm.put(f"{url}/walls", json={"segments": [[0, 0, 1]]})
    assert r.status_code == 422
    assert (await t.player.put(f"{url}/walls", json={"segments": []})).status_code == 403
    unchanged = await get(t.gm, url)
    assert sorted(unchanged["walls"]) == [[0, 2, 2, 2], [3, 0, 3, 4]]
    assert unchanged["version"] == scene["version"]


async def test_background_upload_serving_and_bad_files(table: Table) -> None:
    t = table
    sid = (await new_scene(t.gm, t.campaign_id))["id"]
    url = f"{base(t.campaign_id)}/{sid}/background"
    r = await t.gm.put(url, files={"file": ("karte.png", png(), "image/png")})
    assert r.status_code == 200, r.text
    first = r.json()["background_url"]
    assert first and first.startswith(url)
    r = await t.player.get(first)
    assert r.status_code == 200 and r.headers["content-type"] == "image/png"
    assert "max-age" in r.headers["cache-control"]
    again = await t.player.get(first, headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304
    assert Image.open(io.BytesIO(r.content)).size == (60, 40)
    assert (await t.outsider.get(url)).status_code == 404
    bad = [
        (b"not an image at all", 422),
        (png_bomb(), 422),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * (50 * 1_048_576), 413),
    ]
    for raw, status in bad:
        r = await t.gm.put(url, files={"file": ("x.png", raw, "image/png")})
        assert r.status_code == status, (status, r.text[:200])
        if status == 422:
            assert "file" in r.json()["errors"]
    r = await t.player.put(url, files={"file": ("karte.png", png(), "image/png")})
    assert r.status_code == 403
    assert (await get(t.gm, f"{base(t.campaign_id)}/{sid}"))["background_url"] == first


# --- fog and who sees which token -----------------------------------------------------------


async def test_fog_hidden_tokens_and_projected_events(table: Table, app: FastAPI) -> None:
    t = table
    sid = (await new_scene(t.gm, t.campaign_id, 8, 4))["id"]
    url = f"{base(t.campaign_id)}/{sid}"
    await t.gm.put(f"{url}/walls", json={"segments": [[4, 0, 4, 4]]})
    r = await t.gm.patch(url, json={"fog": True})
    assert r.status_code == 200
    r = await t.gm.post(f"{url}/fog", json={"reveal": [[x, y] for x in range(4) for y in range(4)]})
    assert r.status_code == 200, r.text
    seq0 = await _last_seq(app, t.campaign_id)

    async def token(x: int, y: int, label: str, hidden: bool = False) -> int:
        r = await t.gm.post(
            f"{url}/tokens", json={"x": x, "y": y, "label": label, "hidden": hidden}
        )
        assert r.status_code == 201, r.text
        return int(r.json()["id"])

    scout = await token(1, 1, "Späherin")
    lurker = await token(6, 1, "Lauerer")  # behind the fog
    spy = await token(2, 2, "Spion", hidden=True)
    seen = await get(t.player, url)
    assert [tk["label"] for tk in seen["tokens"]] == ["Späherin"]
    assert "Lauerer" not in str(seen) and "Spion" not in str(seen)
    assert seen["walls"] == [[4, 0, 4, 4]]  # next to revealed cells
    assert len((await get(t.gm, url))["tokens"]) == 3
    player_events = await events_for(app, t.campaign_id, player_viewer(t), seq0)
    assert [(e["type"], e["token"]["label"]) for e in player_events] == [
        ("token_added", "Späherin")
    ]
    assert "Lauerer" not in str(player_events) and "Spion" not in str(player_events)
    # The scout walks into the fog: players get token_removed, the GM token_moved.
    seq1 = await _last_seq(app, t.campaign_id)
    r = await t.gm.post(f"{url}/tokens/{scout}/move", json={"to": [5, 3], "override": True})
    assert r.status_code == 200, r.text
    mine = await events_for(app, t.campaign_id, player_viewer(t), seq1)
    assert [(e["type"], e["token_id"]) for e in mine] == [("token_removed", scout)]
    assert "x" not in mine[0]
    gms = await events_for(app, t.campaign_id, gm_viewer(t), seq1)
    assert [(e["type"], e["x"], e["y"], e["override"]) for e in gms] == [
        ("token_moved", 5, 3, True)
    ]
    # Revealing the lurker's cell shows it on the next fetch; a fog event tells everyone.
    seq2 = await _last_seq(app, t.campaign_id)
    r = await t.gm.post(f"{url}/fog", json={"reveal": [[6, 1]]})
    assert r.status_code == 200
    assert [tk["label"] for tk in (await get(t.player, url))["tokens"]] == ["Lauerer"]
    fog = await events_for(app, t.campaign_id, player_viewer(t), seq2)
    assert [(e["type"], e.get("revealed")) for e in fog] == [
        ("fog_changed", [[6, 1]]),
        ("token_added", None),  # the lurker comes into view (docs/map.md)
    ]
    assert fog[1]["token"]["label"] == "Lauerer" and "hidden" not in fog[1]["token"]
    # Unhiding the spy: players get it as token_added; hiding it again as token_removed.
    seq3 = await _last_seq(app, t.campaign_id)
    r = await t.gm.patch(f"{url}/tokens/{spy}", json={"hidden": False})
    assert r.status_code == 200, r.text
    mine = await events_for(app, t.campaign_id, player_viewer(t), seq3)
    assert [(e["type"], e["token"]["label"]) for e in mine] == [("token_added", "Spion")]
    await t.gm.patch(f"{url}/tokens/{spy}", json={"hidden": True})
    await t.gm.delete(f"{url}/tokens/{lurker}")
    # Read now, the spy's appearance is not replayed (it is hidden again); removals are.
    mine = await events_for(app, t.campaign_id, player_viewer(t), seq3)
    assert [e["type"] for e in mine] == ["token_removed", "token_removed"]
    assert "Spion" not in str(mine)
    gms = await events_for(app, t.campaign_id, gm_viewer(t), seq3)
    assert [e["type"] for e in gms] == ["token_changed", "token_changed", "token_removed"]
    bad = await t.gm.post(f"{url}/fog", json={"reveal": [[8, 0]]})
    assert bad.status_code == 422 and "reveal" in bad.json()["errors"]
    assert (await t.player.post(f"{url}/fog", json={"reveal": [[7, 0]]})).status_code == 403


async def _last_seq(app: FastAPI, campaign_id: int) -> int:
    async with app.state.ctx.sessionmaker() as session:
        from sqlalchemy import func

        found = await session.scalar(
            select(func.max(CampaignEvent.seq)).where(CampaignEvent.campaign_id == campaign_id)
        )
    return int(found or 0)


async def test_tokens_bad_input_changes_nothing(table: Table) -> None:
    t = table
    sid = (await new_scene(t.gm, t.campaign_id, 5, 5))["id"]
    url = f"{base(t.campaign_id)}/{sid}/tokens"
    for body, field in (
        ({"x": 5, "y": 0}, "x"),
        ({"x": -1, "y": 0}, "x"),
        ({"x": 4, "y": 4, "size": 2}, "x"),
        ({"x": 0, "y": 0, "size": 0}, "size"),
        ({"x": 0, "y": 0, "colour": "red"}, "colour"),
        ({"x": 0, "y": 0, "participant_id": 77}, "participant_id"),
        ({"x": 0, "y": 0, "character_id": 77}, "character_id"),
    ):
        r = await t.gm.post(url, json={"label": "T", **body})
        assert r.status_code == 422, body
        assert field in r.json()["errors"], (body, r.text)
    assert (await t.player.post(url, json={"x": 0, "y": 0, "label": "T"})).status_code == 403
    r = await t.gm.post(url, json={"x": 0, "y": 0, "label": "Fass", "colour": "#AA0000"})
    tid = r.json()["id"]
    assert r.json()["colour"] == "#aa0000"
    for to in ([5, 0], [0, -1], [9, 9]):
        r = await t.gm.post(f"{url}/{tid}/move", json={"to": to})
        assert r.status_code == 422 and "to" in r.json()["errors"], to
    r = await t.gm.post(f"{url}/{tid}/move", json={"to": [2, 2], "path": [[0, 0], [9, 9]]})
    assert r.status_code == 422 and "path" in r.json()["errors"]
    r = await t.gm.post(f"{url}/{tid}/move", json={"to": [2, 2], "path": [[0, 0], [2, 2]]})
    assert r.status_code == 422 and "path" in r.json()["errors"]  # steps do not join up
    scene = await get(t.gm, f"{base(t.campaign_id)}/{sid}")
    assert [(tk["x"], tk["y"]) for tk in scene["tokens"]] == [(0, 0)]
    r = await t.player.post(f"{url}/{tid}/move", json={"to": [1, 1]})
    assert r.status_code == 422 and r.json()["errors"]["to"]  # not the player's token
    assert (await t.player.delete(f"{url}/{tid}")).status_code == 403


# --- moves in a fight (H&H) -----------------------------------------------------------------


async def hh_scene(make_client: ClientFactory, app: FastAPI) -> tuple[Fight, str, dict[str, int]]:
    """A running H&H fight (Alrik, the player's, acts first; a Goblin) on a 12 × 6 scene."""
    fight = await make_fight(make_client, app, "hh", players=1, prefix="map")
    gm = fight.gm
    await add_character(app, fight, "p0", "Alrik", ALRIK, "hh")
    r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/bestiary/samples")
    goblin = next(e for e in r.json() if e["name"] == "Goblin")
    r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/encounters", json={"name": "Gang"})
    fight.encounter_id = r.json()["id"]
    r = await gm.post(
        f"{fight.base}/participants", json={"character_id": fight.characters["Alrik"]}
    )
    assert r.status_code == 201, r.text
    await gm.post(f"{fight.base}/participants", json={"entry_id": goblin["id"]})
    script(app)
    view = await fight.act(gm, "start")
    pids = {p["name"].split()[0]: int(p["pid"]) for p in view["participants"]}
    scene = await new_scene(gm, fight.campaign_id, 12, 6, encounter_id=fight.encounter_id)
    url = f"{base(fight.campaign_id)}/{scene['id']}"
    tokens = {}
    for name, x, y in (("Alrik", 0, 2), ("Goblin", 3, 1)):
        r = await gm.post(f"{url}/tokens", json={"x": x, "y": y, "participant_id": pids[name]})
        assert r.status_code == 201, r.text
        assert r.json()["label"].startswith(name)
        tokens[name] = r.json()["id"]
    tokens.update({f"pid:{k}": v for k, v in pids.items()})
    return fight, url, tokens


async def test_hh_move_allowance_turn_walls_override_and_blockade(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, url, ids = await hh_scene(make_client, app)
    gm, player = fight.gm, fight.players[0]
    alrik, goblin = ids["Alrik"], ids["Goblin"]
    view = await fight.view(gm)
    assert str(view["turn"]["pid"]) == str(ids["pid:Alrik"]), view["turn"]
    move = f"{url}/tokens/{alrik}/move"
    # Bewegung 4: five cells is too far, and the token stays.
    r = await player.post(move, json={"to": [0, 5], "path": [[0, 2], [0, 3], [0, 4], [0, 5]]})
    assert r.status_code == 200, r.text
    assert r.json() == {
        "x": 0, "y": 5, "cost": 3, "allowance": 4, "stopped_at": None, "reactions": [],
        "blocked": False, "message": None, "actions": None,
    }  # fmt: skip
    r = await player.post(move, json={"to": [2, 5]})
    assert r.status_code == 422 and "1" in r.json()["errors"]["to"], r.text
    r = await player.post(move, json={"to": [1, 5]})
    assert r.status_code == 200 and r.json()["cost"] == 1
    # A player may not override, nor move the goblin.
    assert (await player.post(move, json={"to": [0, 0], "override": True})).status_code == 403
    r = await player.post(f"{url}/tokens/{goblin}/move", json={"to": [4, 1]})
    assert r.status_code == 422 and "to" in r.json()["errors"]
    # The GM places Alrik anywhere, logged as an override.
    r = await gm.post(move, json={"to": [0, 1], "override": True})
    assert r.status_code == 200 and (r.json()["x"], r.json()["y"]) == (0, 1)
    # Next turn (the goblin's): not Alrik's turn for the player.
    for _step in range(6):
        await fight.act(gm, "next")
        if str((await fight.view(gm))["turn"]["pid"]) != str(ids["pid:Alrik"]):
            break
    assert str((await fight.view(gm))["turn"]["pid"]) == str(ids["pid:Goblin"])
    r = await player.post(move, json={"to": [1, 1]})
    assert r.status_code == 422 and "Zug" in r.json()["errors"]["to"], r.text
    # A wall blocks; walking past the goblin in its Gefährdungsbereich stops there.
    await gm.put(f"{url}/walls", json={"segments": [[1, 0, 1, 1]]})
    r = await gm.post(move, json={"to": [1, 0], "path": [[0, 1], [0, 0], [1, 0]]})
    assert r.status_code == 422 and "path" in r.json()["errors"], r.text
    await gm.put(f"{url}/walls", json={"segments": []})
    r = await gm.post(f"{url}/tokens/{goblin}/move", json={"to": [3, 1], "override": True})
    await gm.post(move, json={"to": [1, 2], "override": True})
    r = await gm.post(move, json={"to": [5, 2], "path": [[1, 2], [2, 2], [3, 2], [4, 2], [5, 2]]})
    assert r.status_code == 200, r.text
    body = r.json()
    assert [(x["participant_id"], x["kind"]) for x in body["reactions"]] == [
        (ids["pid:Goblin"], "blockade")
    ]
    assert body["stopped_at"] == [body["x"], body["y"]]
    assert body["stopped_at"] in ([3, 2], [4, 2])


async def test_distance_per_system(make_client: ClientFactory, app: FastAPI) -> None:
    for system, expected in (("hh", (4.0, "Schritt")), ("pf2e", (7.5, "m")), ("ds4", (5.0, "m"))):
        fight = await make_fight(make_client, app, system, players=0, prefix=f"d{system}")
        sid = (await new_scene(fight.gm, fight.campaign_id))["id"]
        url = f"{base(fight.campaign_id)}/{sid}/distance"
        r = await fight.gm.get(url, params={"from": "0,0", "to": "4,2"})
        assert r.status_code == 200, r.text
        assert (r.json()["distance"], r.json()["unit"]) == expected, system
        for params in ({"from": "0,0", "to": "40,0"}, {"from": "a,b", "to": "1,1"}):
            bad = await fight.gm.get(url, params=params)
            assert bad.status_code == 422, params


# --- pages ----------------------------------------------------------------------------------


async def test_scene_pages_show_only_what_the_viewer_may_see(table: Table) -> None:
    t = table
    r = await t.gm.post(
        f"/campaigns/{t.campaign_id}/scenes", data={"name": "Höhle", "cols": "6", "rows": "4"}
    )
    assert r.status_code == 303, r.text
    page_url = r.headers["location"]
    sid = int(page_url.rsplit("/", 1)[1])
    url = f"{base(t.campaign_id)}/{sid}"
    await t.gm.post(f"{url}/tokens", json={"x": 0, "y": 0, "label": "Heldin"})
    await t.gm.post(f"{url}/tokens", json={"x": 5, "y": 3, "label": "Schatten", "hidden": True})
    gm_page = await t.gm.get(page_url)
    assert gm_page.status_code == 200
    assert "Heldin" in gm_page.text and "Schatten" in gm_page.text
    # Prepared in private: the players get nothing of it until the GM shows it.
    assert "Den Spielern zeigen" in gm_page.text
    assert (await t.player.get(page_url)).status_code == 404
    assert "Höhle" not in (await t.player.get(f"/campaigns/{t.campaign_id}/scenes")).text
    shown = await t.gm.post(f"{page_url}/fog", data={"action": "show"})
    assert shown.status_code == 303
    assert "Vor den Spielern verbergen" in (await t.gm.get(page_url)).text
    player_page = await t.player.get(page_url)
    assert player_page.status_code == 200
    assert "Heldin" in player_page.text and "Schatten" not in player_page.text
    assert "map.js" in player_page.text
    listing = await t.player.get(f"/campaigns/{t.campaign_id}/scenes")
    assert "Höhle" in listing.text
    bad = await t.gm.post(
        f"/campaigns/{t.campaign_id}/scenes", data={"name": "X", "cols": "0", "rows": "4"}
    )
    assert bad.status_code == 422 and "cols-error" in bad.text
    # Without JavaScript: the GM moves by form; a refused move answers at the field.
    tid = (await get(t.gm, url))["tokens"][0]["id"]
    moved = await t.gm.post(f"{page_url}/move", data={"token_id": tid, "x": "2", "y": "2"})
    assert moved.status_code == 303
    assert next((tk["x"], tk["y"]) for tk in (await get(t.gm, url))["tokens"]) == (1, 1)
    refused = await t.gm.post(f"{page_url}/move", data={"token_id": tid, "x": "9", "y": "1"})
    assert refused.status_code == 422 and "to-error" in refused.text
    fog = await t.gm.post(f"{page_url}/fog", data={"action": "on"})
    assert fog.status_code == 303
    assert "Heldin" not in (await t.player.get(page_url)).text
    up = await t.gm.post(f"{page_url}/background", files={"file": ("k.png", png(), "image/png")})
    assert up.status_code == 303
    assert (await get(t.gm, url))["background_url"]
    junk = await t.gm.post(f"{page_url}/background", files={"file": ("k.png", b"xx", "image/png")})
    assert junk.status_code == 422 and "file-error" in junk.text


async def test_ruler_and_ping_bad_input(table: Table, app: FastAPI) -> None:
    t = table
    sid = (await new_scene(t.gm, t.campaign_id, 5, 5))["id"]
    url = f"{base(t.campaign_id)}/{sid}/pointer"
    seq = await _last_seq(app, t.campaign_id)
    for body, field in (
        ({"kind": "laser", "cells": [[0, 0]]}, "kind"),
        ({"kind": "ping", "cells": [[0, 0], [1, 1]]}, "cells"),
        ({"kind": "ruler", "cells": [[0, 0]]}, "cells"),
        ({"kind": "ruler", "cells": [[0, 0], [5, 0]]}, "cells"),
        ({"kind": "ruler", "cells": [[0, i % 5] for i in range(21)]}, "cells"),
    ):
        r = await t.player.post(url, json=body)
        assert r.status_code == 422 and field in r.json()["errors"], body
    assert await _last_seq(app, t.campaign_id) == seq  # nothing written
    r = await t.player.post(url, json={"kind": "ruler", "cells": [[0, 0], [3, 1], [3, 4]]})
    assert r.status_code == 200 and r.json()["distance"] == 6.0
    assert (await t.observer.post(url, json={"kind": "clear"})).status_code == 403
