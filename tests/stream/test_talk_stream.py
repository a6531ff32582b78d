"""Whispers over the live streams of a real server: the chat page's stream and the JSON
event stream, live and replayed with ``Last-Event-ID``, reach only the whisper's readers."""

from __future__ import annotations

import httpx

from tests.conftest import LiveServer
from tests.stream.sse import account, messages, nothing_within, take, unique


async def _table(
    server: LiveServer,
) -> tuple[int, httpx.AsyncClient, httpx.AsyncClient, httpx.AsyncClient]:
    gm = await account(server.url, unique("gm"))
    alice = await account(server.url, unique("alice"))
    bob = await account(server.url, unique("bob"))
    r = await gm.post("/api/v1/campaigns", json={"name": "Flüstern", "system": "hh"})
    cid, code = r.json()["id"], r.json()["invite_code"]
    for player in (alice, bob):
        r = await player.post("/api/v1/campaigns/join", json={"invite_code": code})
        assert r.status_code == 200
    return cid, gm, alice, bob


async def test_a_whisper_reaches_gm_and_recipient_but_not_a_third_member(
    live_server: LiveServer,
) -> None:
    cid, gm, alice, bob = await _table(live_server)
    api = f"/api/v1/campaigns/{cid}"
    secret = unique("GEFLUESTERT")
    start = "?after=3"  # after campaign_created and the two joins
    async with (
        gm.stream("GET", f"/campaigns/{cid}/chat/live{start}") as gm_live,
        bob.stream("GET", f"/campaigns/{cid}/chat/live{start}") as bob_live,
        bob.stream("GET", f"{api}/events{start}") as bob_json,
    ):
        gm_stream, bob_stream, bob_events = (
            messages(gm_live),
            messages(bob_live),
            messages(bob_json),
        )
        r = await alice.post(f"{api}/messages", json={"text": secret, "to": "gm"})
        assert r.status_code == 201, r.text
        whisper_seq = r.json()["seq"]
        r = await alice.post(f"{api}/messages", json={"text": "Hallo alle"})
        public_seq = r.json()["seq"]
        got = await take(gm_stream, 2)
        assert [m.id for m in got] == [whisper_seq, public_seq]
        assert secret in got[0].data and "Hallo alle" in got[1].data
        (only,) = await take(bob_stream, 1)
        assert only.id == public_seq and secret not in only.data
        (event,) = await take(bob_events, 1)
        assert event.event == "chat_message" and event.json()["text"] == "Hallo alle"
        await nothing_within(bob_stream, 0.5)
    # Replayed after a reconnect with Last-Event-ID: the same, nothing more.
    headers = {"Last-Event-ID": "3"}
    async with (
        bob.stream("GET", f"/campaigns/{cid}/chat/live", headers=headers) as replay,
        bob.stream("GET", f"{api}/events", headers=headers) as replay_json,
        alice.stream("GET", f"/campaigns/{cid}/chat/live", headers=headers) as sender,
    ):
        (again,) = await take(messages(replay), 1)
        assert again.id == public_seq and secret not in again.data
        (json_again,) = await take(messages(replay_json), 1)
        assert json_again.id == public_seq and secret not in json_again.data
        mine = await take(messages(sender), 2)
        assert secret in mine[0].data
    # The page itself neither.
    page = await bob.get(f"/campaigns/{cid}/chat")
    assert secret not in page.text and "Hallo alle" in page.text
