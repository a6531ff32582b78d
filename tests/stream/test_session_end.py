"""A live stream ends within 2 s of its login session, even while the campaign is busy
(issue 20, M1). Against a real uvicorn process; the GM rolls all the while."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from app.events.broker import Broker
from tests.conftest import PASSWORD, LiveServer
from tests.stream.sse import Message, account, messages, take, unique

#: How long a stream may outlive its session.
GRACE = 2.0


async def _second_session(server: LiveServer, username: str) -> httpx.AsyncClient:
    client = httpx.AsyncClient(base_url=server.url, timeout=10)
    r = await client.post("/api/v1/auth/login", json={"username": username, "password": PASSWORD})
    assert r.status_code == 200, r.text
    client.cookies.clear()
    client.headers["Authorization"] = f"Bearer {r.json()['token']}"
    return client


async def _roll(client: httpx.AsyncClient, cid: int, label: str) -> int:
    r = await client.post(
        f"/api/v1/campaigns/{cid}/rolls", json={"expression": "2W10", "label": label}
    )
    assert r.status_code == 201, r.text
    return int(r.json()["event_id"])


async def _keep_rolling(client: httpx.AsyncClient, cid: int) -> None:
    """A busy campaign: a roll every 100 ms until cancelled."""
    n = 0
    while True:
        n += 1
        await _roll(client, cid, f"Wurf {n}")
        await asyncio.sleep(0.1)


async def _rest(stream: AsyncIterator[Message]) -> list[Message]:
    return [message async for message in stream]


async def _ends_within(streams: list[AsyncIterator[Message]], seconds: float) -> list[Message]:
    """Everything the streams still send until they close; fails unless all close in time."""
    results = await asyncio.wait_for(asyncio.gather(*(_rest(s) for s in streams)), seconds)
    return [m for batch in results for m in batch]


async def test_logout_ends_that_sessions_streams_within_two_seconds(
    live_server: LiveServer,
) -> None:
    name = unique("player")
    gm = await account(live_server.url, unique("gm"))
    player = await account(live_server.url, name)
    r = await gm.post("/api/v1/campaigns", json={"name": "Abmelden", "system": "hh"})
    cid, code = r.json()["id"], r.json()["invite_code"]
    assert (await player.post("/api/v1/campaigns/join", json={"invite_code": code})).is_success
    other = await _second_session(live_server, name)
    busy = asyncio.create_task(_keep_rolling(gm, cid))
    try:
        async with (
            player.stream("GET", f"/api/v1/campaigns/{cid}/events") as api,
            player.stream("GET", f"/campaigns/{cid}/live") as html,
            other.stream("GET", f"/api/v1/campaigns/{cid}/events") as kept,
        ):
            ended, going_on = [messages(api), messages(html)], messages(kept)
            for stream in (*ended, going_on):
                await take(stream, 1)
            r = await player.post("/api/v1/auth/logout")
            assert r.status_code == 204, r.text
            after_logout = await _roll(gm, cid, "nach dem Abmelden")
            late = await _ends_within(ended, GRACE)
            assert all(m.id is None or m.id < after_logout for m in late), late
            # The same user's other session is not affected.
            assert any(m.id and m.id > after_logout for m in await take(going_on, 20))
    finally:
        busy.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await busy
    assert (await player.get(f"/api/v1/campaigns/{cid}/events")).status_code == 401
    for client in (gm, player, other):
        await client.aclose()


async def test_logout_everywhere_ends_every_stream_of_the_user(live_server: LiveServer) -> None:
    name = unique("player")
    gm = await account(live_server.url, unique("gm"))
    player = await account(live_server.url, name)
    r = await gm.post("/api/v1/campaigns", json={"name": "Überall", "system": "hh"})
    cid, code = r.json()["id"], r.json()["invite_code"]
    assert (await player.post("/api/v1/campaigns/join", json={"invite_code": code})).is_success
    other = await _second_session(live_server, name)
    busy = asyncio.create_task(_keep_rolling(gm, cid))
    try:
        async with (
            player.stream("GET", f"/api/v1/campaigns/{cid}/events") as first,
            other.stream("GET", f"/campaigns/{cid}/live") as second,
        ):
            streams = [messages(first), messages(second)]
            for stream in streams:
                await take(stream, 1)
            r = await other.post("/api/v1/auth/logout-everywhere")
            assert r.status_code == 204, r.text
            after_logout = await _roll(gm, cid, "nach dem Abmelden")
            late = await _ends_within(streams, GRACE)
            assert all(m.id is None or m.id < after_logout for m in late), late
    finally:
        busy.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await busy
    for client in (gm, player, other):
        await client.aclose()


async def test_the_broker_ends_only_the_streams_of_the_ended_session() -> None:
    broker = Broker()
    mine = [broker.subscribe(1, "a"), broker.subscribe(2, "a")]
    other, anonymous = broker.subscribe(1, "b"), broker.subscribe(1)
    broker.end_sessions(["a"])
    assert all(s.ended for s in mine) and not other.ended and not anonymous.ended
    assert await mine[0].wait(5) is True  # woken at once, not after the poll interval
    for sub in (*mine, other, anonymous):
        sub.close()
    assert broker.subscriber_count == 0
    broker.end_sessions(["a", "b"])  # nothing left to end: no error


@pytest.mark.skipif(
    not os.environ.get("TAFELRUNDE_TEST_DATABASE_URL", "").startswith("postgresql"),
    reason="LISTEN/NOTIFY between processes needs PostgreSQL",
)
async def test_logout_on_one_process_ends_the_stream_on_another(
    live_server: LiveServer, database_url: str, data_dir: Path
) -> None:
    second = LiveServer(database_url, data_dir)
    name = unique("player")
    gm = await account(live_server.url, unique("gm"))
    player = await account(live_server.url, name)
    try:
        r = await gm.post("/api/v1/campaigns", json={"name": "Zwei", "system": "hh"})
        cid, code = r.json()["id"], r.json()["invite_code"]
        assert (await player.post("/api/v1/campaigns/join", json={"invite_code": code})).is_success
        async with (
            httpx.AsyncClient(
                base_url=second.url, headers={"Authorization": player.headers["Authorization"]}
            ) as remote,
            remote.stream("GET", f"/api/v1/campaigns/{cid}/events") as response,
        ):
            stream = messages(response)
            await _roll(gm, cid, "vorher")
            await take(stream, 1)
            assert (await player.post("/api/v1/auth/logout")).status_code == 204
            await _ends_within([stream], GRACE)
    finally:
        second.stop()
        for client in (gm, player):
            await client.aclose()
