"""The campaign's feed: the one live connection a browser holds per campaign (docs/ui.md, "One
live connection per campaign").

Without streams it sends one ``seq`` message per batch of events the viewer may see. Given
the page streams of the browser's tabs (``?s=<sse-connect URL>``, up to
:data:`app.limits.FEED_STREAMS`), it carries them: each stream's route is asked, as the
browser would ask it, what it follows (:class:`app.web.streams.StreamSource`: so its own
checks decide, and a stream its viewer may not open is not carried), and each batch of events
is projected once and rendered by every carried stream into one ``batch`` message. The
leading tab hands each tab its parts over a ``BroadcastChannel``; an event then costs one
render per stream in the feed instead of one request per tab and stream (issue 29).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from starlette.types import Message

from app import limits
from app.core.viewer import Viewer
from app.errors import ValidationFailed
from app.events.service import VisibleEvent
from app.events.stream import Outgoing, Render
from app.i18n import _
from app.web.deps import finish_now
from app.web.sse import DEFERRED, LiveStream
from app.web.streams import CampaignLiveStream, CampaignStream, StreamSource

log = logging.getLogger(__name__)

#: What the server put in the feed request's scope that a page stream's request needs too.
_PASSED = ("type", "asgi", "http_version", "scheme", "server", "client", "root_path", "headers")


async def feed_render(
    _sessions: async_sessionmaker[AsyncSession], _viewer: Viewer, events: Sequence[VisibleEvent]
) -> list[Outgoing]:
    """The feed without streams: that something the viewer may see happened, up to which
    ``seq`` (what changed each tab asks its own page's stream)."""
    if not events:
        return []
    last = events[-1].seq
    return [Outgoing(last, "seq", str(last))]


def checked_urls(campaign_id: int, urls: Sequence[str]) -> list[str]:
    """The page streams asked for, each a stream of this campaign (``/campaigns/<id>/…/live``
    with an optional query); anything else is refused with 422 at ``s``."""
    if len(urls) > limits.FEED_STREAMS:
        message = _("At most {count} streams per feed.").format(count=limits.FEED_STREAMS)
        raise ValidationFailed({"s": message})
    page_stream = re.compile(rf"/campaigns/{campaign_id}/(?:[a-z0-9_-]+/)*live(?:\?[\w=&-]*)?")
    for url in urls:
        if len(url) > limits.FEED_STREAM_URL or not page_stream.fullmatch(url):
            raise ValidationFailed({"s": _("Not a live stream of this campaign.")})
    return list(dict.fromkeys(urls))


async def claim(request: Request, campaign_id: int, url: str) -> StreamSource | None:
    """What the page stream at ``url`` follows, asked of its route as the browser would ask
    it (same credentials and language); ``None`` if the route answers anything else."""
    path, _sep, query = url.partition("?")
    scope: dict[str, Any] = {k: request.scope[k] for k in _PASSED if k in request.scope}
    scope |= {"method": "GET", "path": path, "raw_path": path.encode(), "query_string": b""}
    scope |= {"query_string": query.encode(), "state": dict(request.scope.get("state", {}))}
    scope[DEFERRED] = None  # the route's stream is put there, not streamed

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def discard(_message: Message) -> None:
        return None

    try:
        # The app without its own deferred streaming (``app.main.Tafelrunde``).
        await FastAPI.__call__(request.app, scope, receive, discard)
    except Exception:
        log.exception("the feed could not ask %s for its stream", path)
        return None
    stream = scope.get(DEFERRED)
    if isinstance(stream, CampaignLiveStream) and stream.source.campaign_id == campaign_id:
        return stream.source
    return None


def opening_frame(served: Sequence[int]) -> bytes:
    """The feed's first message: which of the streams asked for it carries (by index)."""
    return f"event: streams\r\ndata: {json.dumps({'served': list(served)})}\r\n\r\n".encode()


def carrying(renders: Sequence[tuple[int, Render]], after: int, claimed: Viewer) -> Render:
    """The feed's render when it carries streams: per batch of visible events one ``batch``
    message, ``{"seq", "first", "prev", "parts": [[stream index, seq, event, data], …]}``:
    its last and first visible ``seq``, and ``prev``, the last of the feed's previous batch
    (or where it started). A tab's stream that has read up to ``after`` takes the batch only
    if ``prev <= after < first`` (nothing missed, nothing twice); otherwise it catches up
    with its own short request.

    The streams were claimed for the viewer as they were (``claimed``); once the viewer's role
    changed, their routes must decide again what they may follow: the feed then sends only
    ``reclaim`` (id ``prev``: nothing read) and the leader opens it anew."""
    prev = after

    async def render(
        sessions: async_sessionmaker[AsyncSession], viewer: Viewer, events: Sequence[VisibleEvent]
    ) -> list[Outgoing]:
        nonlocal prev
        if not events:
            return []
        if viewer != claimed:
            return [Outgoing(prev, "reclaim", "")]
        parts: list[tuple[int, int, str, str]] = []
        for index, stream_render in renders:
            for item in await stream_render(sessions, viewer, events):
                parts.append((index, item.seq, item.event, item.data))
        last = events[-1].seq
        batch = {"seq": last, "first": events[0].seq, "prev": prev, "parts": parts}
        prev = last
        return [Outgoing(last, "batch", json.dumps(batch, ensure_ascii=False))]

    return render


async def carrying_feed(
    request: Request, stream: CampaignStream, urls: Sequence[str]
) -> LiveStream:
    """The feed of ``stream``'s viewer carrying the page streams at ``urls`` (checked by
    :func:`checked_urls`) that their routes grant that viewer. The request's own session is
    finished first: each route asked takes a connection of its own."""
    await finish_now(request)
    renders = []
    for index, url in enumerate(urls):
        source = await claim(request, stream.campaign_id, url)
        if source is not None and source.viewer == stream.viewer:
            renders.append((index, source.render))
    opening = opening_frame([index for index, _render in renders])
    return stream(carrying(renders, stream.opener.after, stream.viewer), opening)
