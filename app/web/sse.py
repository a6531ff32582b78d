"""A lean server-sent-events response: two tasks per open stream instead of five.

``sse_starlette.EventSourceResponse`` runs every stream in an anyio task group of four tasks
(the frames, the pings, the client's disconnect, the server's shutdown), each with its own
cancel scope, a lock, an event per stream and a cancel scope per send: about 28 KiB of heap
per idle stream, more than half of what a stream costs (``bench/idle_memory.py``). Here the
request's own task sends the frames, and one watcher task per stream waits for the client's
disconnect, sends a ping comment after every quiet ``ping`` seconds, and is told when the
server shuts down (one poller per event loop for every stream, as sse-starlette does: its
``AppStatus.should_exit``, or uvicorn's own flag).

Behaviour kept from sse-starlette: ``HEAD`` answers the headers and an empty body without
starting the stream; a send that takes longer than ``send_timeout`` (a stalled client) ends
the stream; ending a stream for any reason closes the frames' generator, so its ``finally``
runs (the broker subscription is closed).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from typing import Any

from sse_starlette.sse import AppStatus
from starlette.responses import StreamingResponse
from starlette.types import Message, Receive, Scope, Send

#: Seconds between two looks of the shutdown poller.
SHUTDOWN_POLL_SECONDS = 0.5
PING = b": ping\r\n\r\n"


class _Ended(Exception):
    """The stream ends: the client went away, a send timed out, or the server stops."""


#: Encoded response headers by the headers given (streams use one or two sets).
_RAW_HEADERS: dict[tuple[tuple[str, str], ...], tuple[tuple[bytes, bytes], ...]] = {}
_RAW_HEADERS_KEEP = 16


class LiveStream(StreamingResponse):
    """``text/event-stream`` of already encoded SSE frames."""

    media_type = "text/event-stream"

    def __init__(
        self,
        frames: AsyncGenerator[bytes, None],
        *,
        ping: float,
        send_timeout: float,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        sse_headers = {"Cache-Control": "no-store", **(headers or {})}
        sse_headers |= {"Connection": "keep-alive", "X-Accel-Buffering": "no"}
        super().__init__(frames, headers=sse_headers, media_type=self.media_type)
        self.frames = frames
        self.ping = ping
        self.send_timeout = send_timeout
        self._streaming: asyncio.Task[Any] | None = None
        self._ending = False
        self._complete = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("method", "GET").upper() == "HEAD":
            await self._send(send, self._start())
            await self._send(send, {"type": "http.response.body", "body": b""})
            return
        if DEFERRED in scope:
            # Streamed by :func:`serve_deferred`, once the frames that led here have returned.
            scope[DEFERRED] = self
            return
        await self.stream(receive, send)

    def _start(self, extra: tuple[tuple[bytes, bytes], ...] = ()) -> Message:
        headers = self.raw_headers
        if extra:
            names = {k for k, _ in headers}
            headers = [*headers, *(h for h in extra if h[0] not in names)]
        return {"type": "http.response.start", "status": self.status_code, "headers": headers}

    async def stream(
        self, receive: Receive, send: Send, extra: tuple[tuple[bytes, bytes], ...] = ()
    ) -> None:
        """Send the response and then every frame, until the stream ends (``extra``: headers
        added unless the response has them, as a middleware it no longer passes would)."""
        start = self._start(extra)
        self._streaming = asyncio.current_task()
        watcher = asyncio.ensure_future(self._watch(receive, send))
        _open(self)
        try:
            await self._send(send, start)
            async for frame in self.frames:
                await self._send(send, _body(frame))
            self._complete = True  # no ping after the last message
            await self._send(send, {"type": "http.response.body", "body": b""})
        except asyncio.CancelledError:
            if not self._ending or self._uncancel() > 0:
                raise  # cancelled from outside (the server's task), not by the watcher
        except _Ended:
            pass  # the watcher ended the stream (client gone, send timeout): nothing to report
        finally:
            _close(self)
            watcher.cancel()
            with contextlib.suppress(Exception):
                await self.frames.aclose()

    def init_headers(self, headers: Mapping[str, str] | None = None) -> None:
        """Starlette's encoded headers, built once per set of headers and shared by every
        stream: each stream gets its own list (middlewares append to it) of shared tuples."""
        key = tuple((headers or {}).items())
        shared = _RAW_HEADERS.get(key)
        if shared is None:
            super().init_headers(headers)
            shared = tuple(self.raw_headers)
            if len(_RAW_HEADERS) < _RAW_HEADERS_KEEP:
                _RAW_HEADERS[key] = shared
        self.raw_headers = list(shared)

    def end(self) -> None:
        """End the stream from outside its task (the watcher, the shutdown poller)."""
        if not self._ending and self._streaming is not None:
            self._ending = True
            self._streaming.cancel()

    def _uncancel(self) -> int:
        assert self._streaming is not None
        return self._streaming.uncancel()

    async def _send(self, send: Send, message: Message) -> None:
        try:
            async with asyncio.timeout(self.send_timeout):
                await send(message)
        except TimeoutError:
            raise _Ended from None

    async def _watch(self, receive: Receive, send: Send) -> None:
        """Wait for the client's disconnect; ping after every quiet ``ping`` seconds."""
        try:
            while True:
                try:
                    async with asyncio.timeout(self.ping):
                        message = await receive()
                except TimeoutError:
                    if self._complete:
                        return
                    await self._send(send, _body(PING))
                    continue
                if message["type"] == "http.disconnect":
                    break
        except Exception:
            # A send to a gone client fails in many ways (OSError, the server's own
            # disconnect error, a closed transport): each one ends the stream.
            pass
        self.end()


#: Scope key: present while :func:`serve_deferred` runs the request; a ``GET`` answered with
#: a :class:`LiveStream` puts the stream there instead of streaming inside the route.
DEFERRED = "tafelrunde.live_stream"

ASGICall = Callable[[Scope, Receive, Send], Awaitable[None]]


async def serve_deferred(
    app: ASGICall,
    scope: Scope,
    receive: Receive,
    send: Send,
    headers: tuple[tuple[bytes, bytes], ...] = (),
) -> None:
    """Run ``app`` for one HTTP request; a live stream it answers with is streamed here, after
    ``app`` (its middlewares, routing, FastAPI's dependency solving and exit stacks) has
    returned: an idle stream then holds only its own frames, not the request's (issue 29).

    ``headers``: what the middlewares passed by add to a response's start (security headers).
    What the request added to ``scope`` is dropped before streaming (FastAPI keeps its exit
    stacks there), what the server put there stays.
    """
    known = len(scope)
    scope[DEFERRED] = None
    await app(scope, receive, send)
    stream = scope.pop(DEFERRED, None)
    if isinstance(stream, LiveStream):
        for key in list(scope)[known:]:
            del scope[key]
        await stream.stream(receive, send, headers)


def _body(chunk: bytes) -> Message:
    return {"type": "http.response.body", "body": chunk, "more_body": True}


#: The open streams by event loop (one in a server; tests run one loop after another), and
#: each loop's shutdown poller while it has any.
_LIVE: dict[asyncio.AbstractEventLoop, set[LiveStream]] = {}
_POLLERS: dict[asyncio.AbstractEventLoop, asyncio.Task[None]] = {}


def _open(stream: LiveStream) -> None:
    """Count ``stream`` among the running loop's open streams, with a poller watching them."""
    loop = asyncio.get_running_loop()
    streams = _LIVE.get(loop)
    if streams is None:
        streams = _LIVE[loop] = set()
    streams.add(stream)
    poller = _POLLERS.get(loop)
    if poller is None or poller.done():
        _POLLERS[loop] = loop.create_task(_poll_shutdown(loop, streams))


def _close(stream: LiveStream) -> None:
    _LIVE.get(asyncio.get_running_loop(), set()).discard(stream)


def _server_exiting() -> bool:
    """sse-starlette's flag (it patches uvicorn's signal handler) or uvicorn's own."""
    if AppStatus.should_exit:
        return True
    server: Any = getattr(signal.getsignal(signal.SIGTERM), "__self__", None)
    return bool(getattr(server, "should_exit", False))


async def _poll_shutdown(loop: asyncio.AbstractEventLoop, streams: set[LiveStream]) -> None:
    """Ends every open stream of ``loop`` once the server shuts down; ends itself when none
    is open (the next stream starts another)."""
    try:
        while streams:
            if _server_exiting():
                for stream in list(streams):
                    stream.end()
                return
            await asyncio.sleep(SHUTDOWN_POLL_SECONDS)
    finally:
        _POLLERS.pop(loop, None)
        _LIVE.pop(loop, None)
