"""A player's move hands the board it wrote to the live streams of its process
(``app.maps.batch_boards``): they project the move's batch without loading the scene again,
and each member gets exactly what a board loaded from the database would give them — the
goblin behind the wall comes into the mover's sight, not into the other player's."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from app.core.viewer import Role, Viewer
from app.events.service import VisibleEvent, events_after
from app.events.stream import projected, read_after
from app.maps import batch_boards
from app.maps.present import scenes_now
from tests.api.regions import last_seq
from tests.api.test_shared_render import statements
from tests.conftest import ClientFactory, register


async def _member(make_client: ClientFactory, name: str) -> tuple[httpx.AsyncClient, int]:
    client = make_client()
    body = await register(client, name)
    return client, int(body["user"]["id"])  # type: ignore[index]


async def _token(gm: httpx.AsyncClient, url: str, body: dict[str, object]) -> int:
    r = await gm.post(f"{url}/tokens", json=body)
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def _seen(events: list[VisibleEvent]) -> list[tuple[str, dict[str, object]]]:
    return [(e.type, e.payload) for e in events]


async def test_a_move_hands_its_board_to_the_streams_of_its_process(
    app: FastAPI, make_client: ClientFactory
) -> None:
    (gm, gm_id), (anna, anna_id), (bert, bert_id) = [
        await _member(make_client, name) for name in ("meisterin", "anna", "bert")
    ]
    r = await gm.post("/api/v1/campaigns", json={"name": "Sicht", "system": "hh"})
    cid, code = r.json()["id"], r.json()["invite_code"]
    chars = {}
    for who, client in (("anna", anna), ("bert", bert)):
        r = await client.post("/api/v1/campaigns/join", json={"invite_code": code})
        assert r.status_code == 200, r.text
        r = await client.post(f"/api/v1/campaigns/{cid}/characters", json={"name": who})
        chars[who] = r.json()["id"]
    r = await gm.post(
        f"/api/v1/campaigns/{cid}/scenes", json={"name": "H", "cols": 10, "rows": 5, "shown": True}
    )
    scene_id = r.json()["id"]
    url = f"/api/v1/campaigns/{cid}/scenes/{scene_id}"
    assert (await gm.put(f"{url}/walls", json={"segments": [[5, 0, 5, 4]]})).status_code == 200
    assert (await gm.patch(url, json={"line_of_sight": True})).status_code == 200
    mine = await _token(gm, url, {"x": 1, "y": 1, "character_id": chars["anna"]})
    await _token(gm, url, {"x": 1, "y": 3, "character_id": chars["bert"]})
    goblin = await _token(gm, url, {"x": 8, "y": 1, "label": "Goblin"})
    await _token(gm, url, {"x": 7, "y": 4, "label": "Falle", "hidden": True})
    ctx = app.state.ctx
    start = await last_seq(app, cid)
    await read_after(ctx, cid, start)  # a stream follows the campaign: its tail is read

    r = await anna.post(f"{url}/tokens/{mine}/move", json={"to": [6, 4]})
    assert r.status_code == 200, r.text
    events, _more = await read_after(ctx, cid, start)  # the objects the move published
    members = [
        Viewer(gm_id, "meisterin", Role.gm),
        Viewer(anna_id, "anna", Role.player),
        Viewer(bert_id, "bert", Role.player),
    ]
    with statements(app) as ran:
        kept = [await projected(ctx, cid, v, events, scenes_now) for v in members]
    assert ran == []

    async with ctx.sessionmaker() as session:
        read = list(await events_after(session, cid, start))
    assert [e.seq for e in read] == [e.seq for e in events]
    loaded = [await projected(ctx, cid, v, read, scenes_now) for v in members]
    assert [_seen(k) for k in kept] == [_seen(x) for x in loaded]
    gm_seen, anna_seen, bert_seen = (_seen(k) for k in kept)
    added = [p["token"] for t, p in anna_seen if t == "token_added"]
    assert [t["id"] for t in added] == [goblin]  # type: ignore[index]
    assert [t for t, _p in bert_seen] == ["token_moved"]
    assert gm_seen[0][0] == "token_moved" and len(gm_seen) == len(events)
    assert "Falle" not in str(anna_seen)

    # Only the newest batch's board of a scene is kept (the tail holds hundreds of batches).
    r = await anna.post(f"{url}/tokens/{mine}/move", json={"to": [1, 1]})
    assert r.status_code == 200, r.text
    newer, _more = await read_after(ctx, cid, events[-1].seq)
    assert list(batch_boards.kept(newer[-1])) == [scene_id]
    assert batch_boards.kept(events[-1]) == {}
