"""The lean SSE response (``app.web.sse.LiveStream``) on the ASGI contract: frames go out
as they come, a quiet stream pings, and a client that leaves, a client that stops reading
and a server that shuts down each end the stream and close its generator (so a stream's
``finally`` — its broker subscription — always runs). ``HEAD`` never starts the stream."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

from sse_starlette.sse import AppStatus
from starlette.types import Message, Receive, Scope, Send

from app.web.sse import LiveStream, serve_deferred


class Client:
    def __init__(self, *, stall: bool = False) -> None:
        self.messages: list[Message] = []
        self.leave = asyncio.Event()
        self.stall = stall

    async def receive(self) -> Message:
        await self.leave.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: Message) -> None:
        if self.stall and message["type"] == "http.response.body":
            await asyncio.Event().wait()  # a client that never reads again
        self.messages.append(message)

    def body(self) -> bytes:
        return b"".join(m.get("body", b"") for m in self.messages[1:])


def _frames(closed: list[bool], *frames: bytes) -> AsyncGenerator[bytes, None]:
    async def gen() -> AsyncGenerator[bytes, None]:
        try:
            for frame in frames:
                yield frame
            await asyncio.Event().wait()  # then idle, like a live stream
        finally:
            closed.append(True)

    return gen()


def _scope(method: str = "GET") -> dict[str, Any]:
    return {"type": "http", "method": method, "path": "/", "headers": []}


async def test_frames_go_out_then_a_quiet_stream_pings_and_a_leaving_client_ends_it() -> None:
    closed: list[bool] = []
    client = Client()
    stream = LiveStream(_frames(closed, b"id: 1\r\n\r\n"), ping=0.05, send_timeout=1)
    task = asyncio.create_task(stream(_scope(), client.receive, client.send))
    await asyncio.sleep(0.2)
    start = client.messages[0]
    assert start["status"] == 200
    headers = dict(start["headers"])
    assert headers[b"content-type"].startswith(b"text/event-stream")
    assert headers[b"cache-control"] == b"no-store" and headers[b"x-accel-buffering"] == b"no"
    assert client.body().startswith(b"id: 1\r\n\r\n: ping\r\n\r\n")
    client.leave.set()
    await asyncio.wait_for(task, 2)
    assert closed == [True]


async def test_a_client_that_stops_reading_ends_the_stream() -> None:
    closed: list[bool] = []
    client = Client(stall=True)
    stream = LiveStream(_frames(closed, b"id: 1\r\n\r\n"), ping=10, send_timeout=0.1)
    await asyncio.wait_for(stream(_scope(), client.receive, client.send), 2)
    assert closed == [True]


async def test_the_server_shutting_down_ends_every_stream() -> None:
    closed: list[bool] = []
    clients = [Client(), Client()]
    streams = [LiveStream(_frames(closed), ping=10, send_timeout=1) for _ in clients]
    tasks = [
        asyncio.create_task(s(_scope(), c.receive, c.send))
        for s, c in zip(streams, clients, strict=True)
    ]
    await asyncio.sleep(0.05)
    AppStatus.should_exit = True
    try:
        await asyncio.wait_for(asyncio.gather(*tasks), 3)
    finally:
        AppStatus.should_exit = False
    assert closed == [True, True]


async def test_head_answers_the_headers_without_starting_the_stream() -> None:
    started: list[bool] = []

    async def gen() -> AsyncGenerator[bytes, None]:
        started.append(True)
        yield b""

    client = Client()
    await asyncio.wait_for(
        LiveStream(gen(), ping=10, send_timeout=1)(_scope("HEAD"), client.receive, client.send),
        1,
    )
    assert client.messages[0]["status"] == 200 and client.body() == b""
    assert started == []


async def test_streams_share_their_encoded_headers_but_each_has_its_own_list() -> None:
    """Built once for all streams; a middleware that adds a header to one stream's answer
    (``SecurityHeaders`` appends to the list) adds it to no other."""
    closed: list[bool] = []
    first = LiveStream(_frames(closed), ping=10, send_timeout=1, headers={"X-Test": "1"})
    first.raw_headers.append((b"x-only-first", b"1"))
    second = LiveStream(_frames(closed), ping=10, send_timeout=1, headers={"X-Test": "1"})
    assert second.raw_headers == first.raw_headers[:-1]
    assert (b"x-test", b"1") in second.raw_headers
    assert (b"content-type", b"text/event-stream; charset=utf-8") in second.raw_headers
    other = LiveStream(_frames(closed), ping=10, send_timeout=1, headers={"X-Test": "2"})
    assert (b"x-test", b"2") in other.raw_headers and (b"x-test", b"1") not in other.raw_headers


async def test_a_deferred_stream_runs_after_the_request_returned_with_the_added_headers() -> None:
    """``serve_deferred``: the app's frames are gone before the stream starts, what the
    request added to the scope is dropped, the given headers are added unless present."""
    closed: list[bool] = []
    returned: list[bool] = []
    stream = LiveStream(_frames(closed, b"id: 1\r\n\r\n"), ping=10, send_timeout=1)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        scope["added_by_the_request"] = object()
        await stream(scope, receive, send)
        returned.append(True)

    client = Client()
    scope = _scope()
    task = asyncio.create_task(
        serve_deferred(app, scope, client.receive, client.send, ((b"x-extra", b"1"),))
    )
    await asyncio.sleep(0.1)
    assert returned == [True] and "added_by_the_request" not in scope
    assert (b"x-extra", b"1") in client.messages[0]["headers"]
    assert client.body() == b"id: 1\r\n\r\n"
    client.leave.set()
    await asyncio.wait_for(task, 2)
    assert closed == [True]
