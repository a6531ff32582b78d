"""The HTTP side of a live stream: where it resumes, who it is for, and the SSE response.

Every page's stream (campaign, sheet, combat) and the JSON event stream go through here; what
they send is their ``render`` (``app.events.stream.Render``).

In a browser one tab per campaign holds the campaign's feed (``app.web.feed``), which carries
the page streams of every tab of that campaign; a tab whose stream it does not carry (yet)
catches it up with ``?once=1`` (the page's stream, ended when caught up). So a browser holds
one live connection per campaign however many tabs are open (docs/ui.md, "One live
connection").
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Header, Query, Request
from sqlalchemy.ext.asyncio import AsyncSession

from app.accounts.service import session_active, token_hash
from app.accounts.tokens import is_api_token
from app.core.viewer import Viewer
from app.events.stream import Recheck, Render, follow
from app.web.context import AppContext
from app.web.deps import Ctx, CurrentUser, Session, session_token
from app.web.ids import MAX_ROW_ID, PathId
from app.web.members import CurrentViewer
from app.web.sse import LiveStream

#: Seconds of quiet after which a stream sends a ping comment (proxies keep it open).
PING_SECONDS = 15.0


def resume_point(last_event_id: str | None, after: int | None) -> int:
    """Where a (re)connecting stream resumes: the later of ``Last-Event-ID`` and ``?after=``."""
    header = int(last_event_id) if last_event_id and last_event_id.isdigit() else 0
    # Beyond any seq (a 32-bit column): clamped, so the database never sees the number.
    return min(max(header, after or 0), MAX_ROW_ID)


def recheck_for(
    current_viewer: CurrentViewer, campaign_id: int, session_hash: str | None
) -> Recheck:
    """The stream's recheck: still a member (and as what: ``current_viewer``, which is
    ``AppContext.members.current_viewer``), and, for a stream opened with a session token,
    still signed in."""

    async def recheck(session: AsyncSession, viewer: Viewer) -> Viewer | None:
        current = await current_viewer(session, campaign_id, viewer)
        if current is None or session_hash is None:
            return current
        return current if await session_active(session, session_hash) else None

    return recheck


@dataclass(frozen=True, slots=True)
class StreamSource:
    """What a campaign's live stream follows: whose it is and what it sends of each batch."""

    campaign_id: int
    viewer: Viewer
    render: Render


class CampaignLiveStream(LiveStream):
    """A live stream of one campaign that names what it follows (``source``): the feed
    (``app.web.feed``) asks a page's stream route for it and carries that render itself."""

    def __init__(
        self, frames: AsyncGenerator[bytes, None], source: StreamSource, send_timeout: float
    ) -> None:
        super().__init__(frames, ping=PING_SECONDS, send_timeout=send_timeout)
        self.source = source


def event_stream(
    request: Request,
    ctx: AppContext,
    campaign_id: int,
    viewer: Viewer,
    after: int,
    render: Render,
    opening: bytes = b"",
) -> LiveStream:
    """The stream of ``render``'s messages from ``after`` on (``opening``: a frame sent first,
    before any event)."""
    once = request.query_params.get("once") == "1"
    token = session_token(request)
    session_hash = token_hash(token) if token else None
    if token is not None and session_hash is not None and is_api_token(token):
        ctx.broker.quota.note_api_token(session_hash)
    recheck = recheck_for(ctx.members.current_viewer, campaign_id, session_hash)

    async def frames() -> AsyncGenerator[bytes, None]:
        if opening:
            yield opening
        async for item in follow(
            ctx, campaign_id, viewer, after, render, recheck, session_hash, ctx.look, once
        ):
            yield item.frame()

    source = StreamSource(campaign_id, viewer, render)
    return CampaignLiveStream(frames(), source, ctx.settings.stream_send_timeout_seconds)


@dataclass(frozen=True, slots=True)
class StreamOpener:
    """A live stream route's request, app and resume point: what opens its stream once the
    route knows whose it is and what it renders (:data:`LiveStreams`)."""

    request: Request
    ctx: AppContext
    after: int

    def __call__(
        self, campaign_id: int, viewer: Viewer, render: Render, opening: bytes = b""
    ) -> LiveStream:
        return event_stream(
            self.request, self.ctx, campaign_id, viewer, self.after, render, opening
        )


async def stream_opener(
    request: Request,
    ctx: Ctx,
    after: int | None = Query(default=None, ge=0, le=MAX_ROW_ID),
    last_event_id: str | None = Header(default=None),
) -> StreamOpener:
    """Every live stream's parameters: ``?after=`` and the ``Last-Event-ID`` header."""
    return StreamOpener(request, ctx, resume_point(last_event_id, after))


#: A live stream route's parameter: ``?after=`` and ``Last-Event-ID``, bound to the request.
LiveStreams = Annotated[StreamOpener, Depends(stream_opener)]


@dataclass(frozen=True, slots=True)
class CampaignStream:
    """A member's live stream of the campaign in the path, ready to send what ``render``
    makes of the events they may see (:data:`MemberStream`)."""

    campaign_id: int
    viewer: Viewer
    opener: StreamOpener

    def __call__(self, render: Render, opening: bytes = b"") -> LiveStream:
        return self.opener(self.campaign_id, self.viewer, render, opening)


async def member_stream(
    campaign_id: PathId, session: Session, user: CurrentUser, opener: LiveStreams
) -> CampaignStream:
    """The campaign opened for the signed-in member (anyone else: not found)."""
    member_viewer = opener.ctx.members.member_viewer
    viewer = await member_viewer(session, campaign_id, user.id, user.username)
    return CampaignStream(campaign_id, viewer, opener)


#: A campaign-wide live stream route's parameter: the member, the campaign, where to resume.
MemberStream = Annotated[CampaignStream, Depends(member_stream)]
