"""Follow a campaign's log for one viewer: replay what they missed, then continue live.

Streams take events from their campaign's shared tail, which holds consecutive ``seq``
only: a notification's event joins it only as the very next ``seq`` of a complete tail,
anything else makes the next stream read the log. So a lost notification only delays
delivery until the next wake-up or poll, and a reconnect that names the last seen ``seq``
gets every later event exactly once.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app import limits
from app.config import Settings
from app.core.viewer import Viewer
from app.db import is_database_unavailable
from app.events import events as log_events
from app.events.audience import Present
from app.events.broker import Broker
from app.events.models import CampaignEvent
from app.events.service import VisibleEvent, events_after, project, scenes_of
from app.events.warden import StreamWarden

#: Events that may change who the viewer is in the campaign.
MEMBERSHIP_EVENTS = frozenset(
    {
        log_events.MemberRemoved.TYPE,
        log_events.MemberRoleChanged.TYPE,
        log_events.GmTransferred.TYPE,
    }
)
BATCH = limits.REPLAY_BATCH
#: Seconds between a stream's attempts to read the log while the database is away.
DATABASE_RETRY_SECONDS = 1.0

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Outgoing:
    seq: int
    event: str
    data: str

    @cached_property
    def encoded(self) -> bytes:
        """The message as an SSE frame: ``id``, ``event`` and one ``data`` line per line.
        Built once: viewers who share a render (``app.web.regions``) share the frame too."""
        if "\n" in self.data or "\r" in self.data:
            data = "\r\n".join(f"data: {line}" for line in self.data.splitlines())
        else:
            data = f"data: {self.data}"
        return f"id: {self.seq}\r\nevent: {self.event}\r\n{data}\r\n\r\n".encode()

    def frame(self) -> bytes:
        return self.encoded


@dataclass(frozen=True)
class Farewell(Outgoing):
    """The last message of a stream the server closes to make room (too many streams of its
    user or credential): says why, and tells the browser's ``EventSource`` (SSE ``retry``,
    milliseconds) to wait before it reconnects instead of reconnecting at once."""

    retry_seconds: int = limits.STREAM_RETRY_SECONDS

    @classmethod
    def too_many_streams(cls, after: int) -> Farewell:
        data = json.dumps({"reason": "too_many_streams", "retry_seconds": cls.retry_seconds})
        return cls(after, "stream-closed", data)

    def frame(self) -> bytes:
        return f"retry: {self.retry_seconds * 1000}\r\n".encode() + self.encoded


#: Turns a batch of events into messages for one viewer. It gets the sessionmaker rather
#: than a session so that a render with nothing to look up (JSON, or events that do not
#: concern its page) costs no session at all.
Render = Callable[
    [async_sessionmaker[AsyncSession], Viewer, Sequence[VisibleEvent]],
    Awaitable[list[Outgoing]],
]


#: The scenes as they are now, as the viewer sees them (``app.events.audience.Present``),
#: for the map events of a batch (campaign, viewer, scene ids, the batch's last event):
#: given by the caller, which knows the battle map. It gets the sessionmaker, as a
#: :data:`Render` does: the streams of a campaign share one load of a batch's scenes, and
#: the others need no session at all.
Look = Callable[
    [async_sessionmaker[AsyncSession], int, Viewer, frozenset[int], CampaignEvent],
    Awaitable[Present],
]


async def projected(
    ctx: StreamContext,
    campaign_id: int,
    viewer: Viewer,
    events: Sequence[CampaignEvent],
    look: Look | None,
) -> list[VisibleEvent]:
    """The events as ``viewer`` may see them, map events against their scenes as they are."""
    scenes = frozenset() if viewer.is_gm or look is None else scenes_of(events)
    if not scenes or look is None:
        return project(events, viewer)
    present = await look(ctx.read_sessions, campaign_id, viewer, scenes, events[-1])
    return project(events, viewer, present)


#: Who the viewer is now (their current role), or ``None`` once they may no longer follow
#: (they left the campaign, or their session ended). Given by the caller, which knows
#: memberships and sessions; the stream only asks.
Recheck = Callable[[AsyncSession, Viewer], Awaitable[Viewer | None]]


class StreamContext(Protocol):
    """What a stream needs of the running app (``app.web.context.AppContext`` has it)."""

    @property
    def settings(self) -> Settings: ...

    @property
    def read_sessions(self) -> async_sessionmaker[AsyncSession]:
        """Sessions that only read (``app.db.create_read_sessionmaker``): a stream writes
        nothing."""

    @property
    def broker(self) -> Broker: ...

    @property
    def warden(self) -> StreamWarden: ...


async def read_after(
    ctx: StreamContext, campaign_id: int, after: int
) -> tuple[Sequence[CampaignEvent], bool]:
    """Up to ``BATCH`` events after ``after``, and whether more may be waiting already.

    Streams of one campaign share its recent tail (:class:`app.events.broker.RecentLog`):
    the first stream to wake after a notification reads the new events from the database
    once, the others take them from memory. A stream further behind than the tail reads
    the database on its own.
    """
    recent = ctx.broker.recent(campaign_id)
    fresh = recent.started and recent.fresh == recent.generation
    if fresh and recent.first - 1 <= after <= recent.last:
        # The tail is complete and covers ``after``: served from memory without the lock
        # (nothing is awaited, so nothing changes the tail meanwhile). With 10,000 streams
        # woken by one roll, each would otherwise queue for the lock one after another.
        tail = recent.after(after, BATCH)
        return tail, bool(tail) and tail[-1].seq < recent.last
    if recent.started and not recent.covers(after):
        async with ctx.read_sessions() as session:
            events = await events_after(session, campaign_id, after, BATCH)
        return events, len(events) == BATCH
    async with recent.lock:
        if not recent.started:
            recent.start(after)
        if recent.fresh != recent.generation or after > recent.last:
            generation = recent.generation
            async with ctx.read_sessions() as session:
                read = await events_after(session, campaign_id, recent.last, BATCH)
            recent.extend(read)
            if len(read) < BATCH:
                recent.fresh = generation
        events = recent.after(after, BATCH)
        more = recent.fresh != recent.generation or (bool(events) and events[-1].seq < recent.last)
    return events, more


async def _read_waiting_for_database(
    ctx: StreamContext, campaign_id: int, after: int
) -> tuple[Sequence[CampaignEvent], bool]:
    """:func:`read_after`, tried again every second while the database is away (a restart):
    the stream stays open, its pings keep the connection alive meanwhile."""
    while True:
        try:
            return await read_after(ctx, campaign_id, after)
        except DBAPIError as exc:
            if not is_database_unavailable(exc):
                raise
            log.warning("stream waits for the database: %s", exc.orig)
            await asyncio.sleep(DATABASE_RETRY_SECONDS)


async def follow(
    ctx: StreamContext,
    campaign_id: int,
    viewer: Viewer,
    after: int,
    render: Render,
    recheck: Recheck,
    session_hash: str | None = None,
    look: Look | None = None,
    once: bool = False,
) -> AsyncIterator[Outgoing]:
    """Yield everything after ``after`` that ``viewer`` may see, then new events as they come
    (``once``: stop when caught up, with a ``caught-up`` message naming the last ``seq`` read,
    for a browser tab that learns of new events through another tab's feed).

    Ends when the viewer leaves the campaign or their session ends: at once when the
    session (``session_hash``, its token hash) is ended by a logout in any process (the
    broker ends the subscription) or a membership event is read, and in any case at the
    process's next sweep (:class:`app.events.warden.StreamWarden`, every poll interval),
    which also hands the stream its viewer's current role.
    """
    # A logout that committed after the request was let in, but before the stream
    # subscribed, ends it at once: the broker remembers ended sessions. A membership change
    # meanwhile is in the log after ``after``, which the first read rechecks.
    # A stream that ends when caught up (``once``) is not counted against the stream caps.
    subscription = ctx.broker.subscribe(campaign_id, session_hash, viewer, after, not once)
    events: Sequence[CampaignEvent]
    shown: Sequence[VisibleEvent] = ()
    outgoing: Sequence[Outgoing] = ()
    item: Outgoing | None = None
    try:
        ctx.warden.watch()
        while not subscription.ended:
            events, more = await _read_waiting_for_database(ctx, campaign_id, after)
            if events:
                if any(e.type in MEMBERSHIP_EVENTS for e in events):
                    async with ctx.read_sessions() as session:
                        current = await recheck(session, subscription.viewer or viewer)
                    if current is None:
                        return
                    subscription.viewer = current
                viewer = subscription.viewer or viewer
                shown = await projected(ctx, campaign_id, viewer, events, look)
                outgoing = await render(ctx.read_sessions, viewer, shown)
                for item in outgoing:
                    if subscription.ended:
                        break
                    yield item
                    after = item.seq
                else:
                    after = subscription.after = events[-1].seq
            if not more and once:
                yield Outgoing(after, "caught-up", str(after))
                return
            if not more and not subscription.ended:
                # An idle stream keeps nothing of its last batch (its own projected events,
                # audiences and frames: ~1 KiB per event, issue 29) while it waits.
                events = shown = outgoing = ()
                item = None
                await subscription.wait()
        if subscription.evicted:
            yield Farewell.too_many_streams(after)
    finally:
        subscription.close()
