"""Per-player line of sight over the real event stream (a live server): the goblin behind
the wall is never in a player's stream; it arrives as ``token_added`` when their own token
comes round the corner, never in the other player's stream."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx

from tests.conftest import LiveServer
from tests.stream.sse import Message, account, messages, nothing_within, take, unique


async def _token(gm: httpx.AsyncClient, url: str, body: dict[str, object]) -> int:
    r = await gm.post(f"{url}/tokens", json=body)
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


async def _until_two_tokens(stream: AsyncIterator[Message]) -> list[Message]:
    """The replayed messages up to the second ``token_added``."""
    out: list[Message] = []
    while sum(m.event == "token_added" for m in out) < 2:
        out += await take(stream, 1)
    return out


async def test_the_stream_sends_each_player_only_their_own_sight(
    live_server: LiveServer,
) -> None:
    gm = await account(live_server.url, unique("gm"))
    anna = await account(live_server.url, unique("anna"))
    bert = await account(live_server.url, unique("bert"))
    r = await gm.post("/api/v1/campaigns", json={"name": "Sicht", "system": "hh"})
    cid, code = r.json()["id"], r.json()["invite_code"]
    chars = {}
    for who, client in (("anna", anna), ("bert", bert)):
        assert (
            await client.post("/api/v1/campaigns/join", json={"invite_code": code})
        ).status_code == 200
        r = await client.post(f"/api/v1/campaigns/{cid}/characters", json={"name": who.title()})
        assert r.status_code == 201, r.text
        chars[who] = r.json()["id"]
    r = await gm.post(
        f"/api/v1/campaigns/{cid}/scenes", json={"name": "H", "cols": 10, "rows": 5, "shown": True}
    )
    url = f"/api/v1/campaigns/{cid}/scenes/{r.json()['id']}"
    await gm.put(f"{url}/walls", json={"segments": [[5, 0, 5, 4]]})
    r = await gm.patch(url, json={"line_of_sight": True})
    assert r.status_code == 200, r.text
    mine = await _token(gm, url, {"x": 1, "y": 1, "character_id": chars["anna"]})
    await _token(gm, url, {"x": 1, "y": 3, "character_id": chars["bert"]})
    canary = unique("GOBLIN")
    goblin = await _token(gm, url, {"x": 8, "y": 1, "label": canary})
    after = 0
    async with (
        anna.stream("GET", f"/api/v1/campaigns/{cid}/events?after={after}") as a_response,
        bert.stream("GET", f"/api/v1/campaigns/{cid}/events?after={after}") as b_response,
    ):
        a_stream, b_stream = messages(a_response), messages(b_response)
        # The replay: Anna's and Bert's tokens, nothing of the goblin added after them (the
        # next message each gets is the move below).
        for stream in (a_stream, b_stream):
            old = await _until_two_tokens(stream)
            assert canary not in "".join(m.data for m in old)
        r = await anna.post(f"{url}/tokens/{mine}/move", json={"to": [6, 4]})
        assert r.status_code == 200, r.text
        moved, added = await take(a_stream, 2)
        assert moved.event == "token_moved" and moved.json()["sight"] is True
        assert added.event == "token_added" and added.json()["token"]["label"] == canary
        assert added.json()["token"]["id"] == goblin and "hidden" not in added.json()["token"]
        (b_moved,) = await take(b_stream, 1)
        assert b_moved.event == "token_moved" and b_moved.json()["token_id"] == mine
        r = await anna.post(f"{url}/tokens/{mine}/move", json={"to": [1, 1]})
        assert r.status_code == 200, r.text
        _moved, removed = await take(a_stream, 2)
        assert removed.event == "token_removed" and removed.json()["token_id"] == goblin
        (b_moved,) = await take(b_stream, 1)
        assert b_moved.event == "token_moved" and canary not in b_moved.data
        await nothing_within(b_stream, 0.5)
