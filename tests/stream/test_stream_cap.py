"""Live streams are capped per user and per credential (issue 25, N12: 300 were accepted
from one player). One more closes the oldest with a ``stream-closed`` event and an SSE
``retry`` hint, so the browser's EventSource comes back later instead of at once."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx

from app import limits
from tests.conftest import PASSWORD, LiveServer
from tests.stream.sse import account, unique

Frame = list[str]


async def frames(response: httpx.Response) -> AsyncIterator[Frame]:
    """The stream's messages as their raw lines (``retry`` included), pings left out."""
    lines: Frame = []
    async for line in response.aiter_lines():
        if line:
            lines.append(line)
            continue
        if any(not part.startswith(":") for part in lines):
            yield lines
        lines = []


class Streams:
    """Streams opened one after another, each read up to its first message (so it is
    subscribed before the next one opens)."""

    def __init__(self) -> None:
        self.stack = contextlib.AsyncExitStack()
        self.open: list[AsyncIterator[Frame]] = []

    async def add(self, client: httpx.AsyncClient, url: str) -> AsyncIterator[Frame]:
        response = await self.stack.enter_async_context(client.stream("GET", url))
        assert response.status_code == 200, url
        stream = frames(response)
        await asyncio.wait_for(anext(stream), 10)
        self.open.append(stream)
        return stream


async def rest(stream: AsyncIterator[Frame], seconds: float = 10) -> list[Frame]:
    """Everything the stream still sends until it closes; fails unless it closes in time."""

    async def collect() -> list[Frame]:
        return [frame async for frame in stream]

    return await asyncio.wait_for(collect(), seconds)


def assert_closed_for_too_many(remaining: list[Frame]) -> None:
    last = remaining[-1]
    assert f"retry: {limits.STREAM_RETRY_SECONDS * 1000}" in last, remaining
    assert "event: stream-closed" in last, remaining
    data = json.loads(next(line for line in last if line.startswith("data:"))[5:])
    assert data["reason"] == "too_many_streams", data


async def still_open(stream: AsyncIterator[Frame]) -> None:
    """The stream delivers the next roll (it was not closed)."""
    frame = await asyncio.wait_for(anext(stream), 10)
    assert "event: stream-closed" not in frame, frame


async def table(url: str) -> tuple[httpx.AsyncClient, httpx.AsyncClient, int, str]:
    gm = await account(url, unique("gm"))
    name = unique("player")
    player = await account(url, name)
    r = await gm.post("/api/v1/campaigns", json={"name": "Viele Tabs", "system": "hh"})
    cid, code = r.json()["id"], r.json()["invite_code"]
    assert (await player.post("/api/v1/campaigns/join", json={"invite_code": code})).is_success
    return gm, player, cid, name


async def second_session(url: str, name: str) -> httpx.AsyncClient:
    client = httpx.AsyncClient(base_url=url, timeout=10)
    r = await client.post("/api/v1/auth/login", json={"username": name, "password": PASSWORD})
    client.headers["Authorization"] = f"Bearer {r.json()['token']}"
    client.cookies.clear()
    return client


async def test_the_21st_stream_of_a_player_closes_the_oldest_with_a_retry_hint(
    live_server: LiveServer,
) -> None:
    gm, player, cid, _name = await table(live_server.url)
    streams = Streams()
    async with streams.stack:
        first = await streams.add(player, f"/api/v1/campaigns/{cid}/events")
        for n in range(19):
            kind = f"/api/v1/campaigns/{cid}/events" if n % 2 else f"/campaigns/{cid}/live"
            await streams.add(player, kind)
        # 20 open: nothing closed yet.
        r = await gm.post(f"/api/v1/campaigns/{cid}/rolls", json={"expression": "1W6"})
        assert r.status_code == 201, r.text
        await still_open(first)
        await streams.add(player, f"/api/v1/campaigns/{cid}/events")
        assert_closed_for_too_many(await rest(first))
        r = await gm.post(f"/api/v1/campaigns/{cid}/rolls", json={"expression": "2W6"})
        assert r.status_code == 201, r.text
        for stream in streams.open[1:]:
            await still_open(stream)
    for client in (gm, player):
        await client.aclose()


async def test_caps_per_user_and_per_credential_are_settings(
    database_url: str, data_dir: Path
) -> None:
    server = LiveServer(
        database_url,
        data_dir,
        {"TAFELRUNDE_STREAMS_PER_USER": "3", "TAFELRUNDE_STREAMS_PER_CREDENTIAL": "2"},
    )
    try:
        gm, player, cid, name = await table(server.url)
        other = await second_session(server.url, name)
        api = f"/api/v1/campaigns/{cid}/events"
        streams = Streams()
        async with streams.stack:
            # The GM's credential: the third of its streams closes the first.
            gm_first = await streams.add(gm, api)
            gm_second = await streams.add(gm, f"/campaigns/{cid}/live")
            await streams.add(gm, api)
            assert_closed_for_too_many(await rest(gm_first))
            # The player: two sessions, two streams each would be 4 > 3 per user.
            player_first = await streams.add(player, api)
            await streams.add(player, api)
            await streams.add(other, api)
            await streams.add(other, api)
            assert_closed_for_too_many(await rest(player_first))
            r = await gm.post(f"/api/v1/campaigns/{cid}/rolls", json={"expression": "1W6"})
            assert r.status_code == 201, r.text
            await still_open(gm_second)
            for stream in streams.open[-3:]:
                await still_open(stream)
        for client in (gm, player, other):
            await client.aclose()
    finally:
        server.stop()


async def test_a_personal_api_token_holds_five_streams(live_server: LiveServer) -> None:
    gm, _player, cid, _name = await table(live_server.url)
    r = await gm.post("/api/v1/auth/tokens", json={"name": "Bot", "scope": "read"})
    assert r.status_code == 201, r.text
    script = httpx.AsyncClient(
        base_url=live_server.url,
        timeout=10,
        headers={"Authorization": f"Bearer {r.json()['token']}"},
    )
    api = f"/api/v1/campaigns/{cid}/events"
    streams = Streams()
    async with streams.stack:
        first = await streams.add(script, api)
        for _ in range(4):
            await streams.add(script, api)
        r = await gm.post(f"/api/v1/campaigns/{cid}/rolls", json={"expression": "1W6"})
        assert r.status_code == 201, r.text
        await still_open(first)
        await streams.add(script, api)
        assert_closed_for_too_many(await rest(first))
    for client in (gm, script):
        await client.aclose()
