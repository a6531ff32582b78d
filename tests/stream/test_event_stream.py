"""The campaign event stream against a real uvicorn process: replay, resume, visibility."""

from __future__ import annotations

import os

import httpx
import pytest

from tests.conftest import LiveServer
from tests.stream.sse import Message, account, messages, nothing_within, take, unique


async def _campaign(server: LiveServer) -> tuple[httpx.AsyncClient, httpx.AsyncClient, int]:
    gm = await account(server.url, unique("gm"))
    player = await account(server.url, unique("player"))
    r = await gm.post("/api/v1/campaigns", json={"name": "Stream", "system": "hh"})
    cid, code = r.json()["id"], r.json()["invite_code"]
    assert (
        await player.post("/api/v1/campaigns/join", json={"invite_code": code})
    ).status_code == 200
    return gm, player, cid


async def _roll(client: httpx.AsyncClient, cid: int, label: str, visibility: str = "public") -> int:
    r = await client.post(
        f"/api/v1/campaigns/{cid}/rolls",
        json={"expression": "2W10", "label": label, "visibility": visibility},
    )
    assert r.status_code == 201, r.text
    return int(r.json()["event_id"])


async def test_replay_then_live_then_resume_loses_and_repeats_nothing(
    live_server: LiveServer,
) -> None:
    gm, player, cid = await _campaign(live_server)
    before = [await _roll(gm, cid, f"vorher {i}") for i in range(3)]
    seen: list[int] = []
    async with player.stream("GET", f"/api/v1/campaigns/{cid}/events") as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        stream = messages(response)
        # campaign_created, member_joined and the three rolls, in order.
        replay = await take(stream, 5)
        assert [m.event for m in replay] == ["campaign_created", "member_joined"] + ["roll"] * 3
        assert [m.id for m in replay[2:]] == before
        assert (
            replay[2].json()["label"] == "vorher 0" and replay[2].json()["dice"][0]["sides"] == 10
        )
        seen += [m.id for m in replay if m.id is not None]
        live = await _roll(gm, cid, "live")
        (message,) = await take(stream, 1)
        assert message.id == live and message.json()["seq"] == live
        seen.append(live)
    # Dropped: rolls happen meanwhile; the reconnect names the last id it saw.
    missed = [await _roll(gm, cid, f"verpasst {i}") for i in range(4)]
    headers = {"Last-Event-ID": str(seen[-1])}
    async with player.stream("GET", f"/api/v1/campaigns/{cid}/events", headers=headers) as response:
        stream = messages(response)
        resumed = await take(stream, 4)
        assert [m.id for m in resumed] == missed
        await nothing_within(stream, 0.5)
    all_ids = seen + [m.id for m in resumed]
    assert all_ids == list(range(1, len(all_ids) + 1)), "gap or duplicate in the sequence"
    # ?after= works like the header; the later of the two wins.
    async with player.stream(
        "GET", f"/api/v1/campaigns/{cid}/events?after={missed[1]}", headers={"Last-Event-ID": "1"}
    ) as response:
        assert [m.id for m in await take(messages(response), 2)] == missed[2:]


async def test_gm_only_roll_reaches_players_only_as_a_stub(live_server: LiveServer) -> None:
    gm, player, cid = await _campaign(live_server)
    canary = unique("KANARIENVOGEL")
    async with (
        player.stream("GET", f"/api/v1/campaigns/{cid}/events?after=2") as player_response,
        gm.stream("GET", f"/api/v1/campaigns/{cid}/events?after=2") as gm_response,
    ):
        secret = await _roll(gm, cid, canary, visibility="gm")
        public = await _roll(gm, cid, "offen")
        player_stream = messages(player_response)
        got = await take(player_stream, 2)
        raw = "".join(m.data for m in got)
        assert canary not in raw
        assert got[0].id == secret and got[0].json()["secret"] is True
        assert "total" not in got[0].json() and "label" not in got[0].json()
        assert got[1].json()["label"] == "offen" and got[1].id == public
        gm_got = await take(messages(gm_response), 2)
        assert gm_got[0].json()["label"] == canary and gm_got[0].json()["total"] >= 2


async def test_html_stream_sends_rendered_entries(live_server: LiveServer) -> None:
    gm, player, cid = await _campaign(live_server)
    async with player.stream("GET", f"/campaigns/{cid}/live?after=2") as response:
        assert response.status_code == 200
        stream = messages(response)
        seq = await _roll(gm, cid, "Fragment")
        (message,) = await take(stream, 1)
        assert message.event == "roll" and message.id == seq
        assert f'id="roll-{seq}"' in message.data and "Fragment" in message.data


async def test_removed_member_stream_ends(live_server: LiveServer) -> None:
    gm, player, cid = await _campaign(live_server)
    me = (await player.get(f"/api/v1/campaigns/{cid}")).json()
    player_id = next(m["user_id"] for m in me["members"] if m["role"] == "player")
    async with player.stream("GET", f"/api/v1/campaigns/{cid}/events?after=2") as response:
        stream = messages(response)
        await _roll(gm, cid, "noch da")
        await take(stream, 1)
        r = await gm.post(f"/campaigns/{cid}/members/{player_id}/remove", data={"confirm": "1"})
        assert r.status_code == 303
        remaining: list[Message] = []
        # The stream closes: iteration ends without further roll events.
        async for message in stream:
            remaining.append(message)
        assert all(m.event != "roll" for m in remaining)
    assert (await player.get(f"/api/v1/campaigns/{cid}/events")).status_code == 404


async def test_non_member_and_anonymous_get_no_stream(live_server: LiveServer) -> None:
    _gm, _player, cid = await _campaign(live_server)
    outsider = await account(live_server.url, unique("outsider"))
    assert (await outsider.get(f"/api/v1/campaigns/{cid}/events")).status_code == 404
    async with httpx.AsyncClient(base_url=live_server.url) as anonymous:
        assert (await anonymous.get(f"/api/v1/campaigns/{cid}/events")).status_code == 401


@pytest.mark.skipif(
    not os.environ.get("TAFELRUNDE_TEST_DATABASE_URL", "").startswith("postgresql"),
    reason="LISTEN/NOTIFY fan-out needs PostgreSQL",
)
async def test_roll_on_one_process_reaches_a_stream_on_another(
    live_server: LiveServer, database_url: str, data_dir: object
) -> None:
    from pathlib import Path

    second = LiveServer(database_url, Path(str(data_dir)))
    try:
        gm, player, cid = await _campaign(live_server)
        token = player.headers["Authorization"]
        async with (
            httpx.AsyncClient(
                base_url=second.url, headers={"Authorization": token}, timeout=10
            ) as remote,
            remote.stream("GET", f"/api/v1/campaigns/{cid}/events?after=2") as response,
        ):
            stream = messages(response)
            seq = await _roll(gm, cid, "über Prozesse")
            # Faster than the 5 s poll backstop: the NOTIFY woke the other process.
            (message,) = await take(stream, 1, timeout=2)
            assert message.id == seq and message.json()["label"] == "über Prozesse"
    finally:
        second.stop()
