"""A fair-play roll in the live stream: its ``fairplay`` record (faces for those who see the
roll, digest and chain link only in a player's stub of a GM roll), also when the roll was
made on another process (PostgreSQL: the chained event's NOTIFY carries only its ids)."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest

from tests.conftest import LiveServer
from tests.stream.sse import account, messages, take, unique


@pytest.mark.skipif(
    not os.environ.get("TAFELRUNDE_TEST_DATABASE_URL", "").startswith("postgresql"),
    reason="LISTEN/NOTIFY fan-out needs PostgreSQL",
)
async def test_a_fair_roll_reaches_a_stream_on_another_process(
    live_server: LiveServer, database_url: str, data_dir: object
) -> None:
    second = LiveServer(database_url, Path(str(data_dir)))
    try:
        gm = await account(live_server.url, unique("gm"))
        player = await account(live_server.url, unique("player"))
        r = await gm.post("/api/v1/campaigns", json={"name": "Fair", "system": "hh"})
        cid, code = r.json()["id"], r.json()["invite_code"]
        r = await player.post("/api/v1/campaigns/join", json={"invite_code": code})
        assert r.status_code == 200
        api = f"/api/v1/campaigns/{cid}"
        assert (await gm.put(f"{api}/fairplay", json={"enabled": True})).status_code == 200
        r = await gm.post(f"{api}/sessions")
        assert r.status_code == 201
        exported = (await player.get(f"{api}/sessions/{r.json()['id']}/fairplay")).json()
        after = exported["events"][-1]["seq"]
        token = player.headers["Authorization"]
        async with (
            httpx.AsyncClient(
                base_url=second.url, headers={"Authorization": token}, timeout=10
            ) as remote,
            remote.stream("GET", f"{api}/events?after={after}") as response,
        ):
            stream = messages(response)
            r = await gm.post(f"{api}/rolls", json={"expression": "2W10", "visibility": "gm"})
            assert r.status_code == 201
            r = await player.post(f"{api}/rolls", json={"expression": "3W6"})
            assert r.status_code == 201
            stub, rolled = (m.json() for m in await take(stream, 2, timeout=10))
        assert stub["secret"] is True and stub["fairplay"]["draws"] is None
        assert "salt" not in stub["fairplay"]  # the digest cannot be tested against guesses
        assert len(bytes.fromhex(rolled["fairplay"]["salt"])) == 16
        assert len(stub["fairplay"]["chain"]) == 64
        faces = [f for d in rolled["dice"] for f in d["faces"]]
        assert [face for _sides, face in rolled["fairplay"]["draws"]] == faces
        assert rolled["fairplay"]["user_id"] == rolled["actor"]["id"]
    finally:
        second.stop()
