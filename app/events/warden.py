"""One sweep per process over every open live stream, instead of a timer and two queries
per stream.

Once per ``stream_poll_seconds`` the :class:`StreamWarden` asks the caller's ``audit`` who
each stream's viewer is now (memberships and login sessions of all streams at once: one
statement each per 500 campaigns or sessions), ends the streams whose viewer left the
campaign or logged out and hands the others their current role; then it reads the last
``seq`` of every followed campaign in one statement and wakes only the streams that stand
before it: the backstop for a notification that never arrived. With 2,000 streams that is
3 statements per interval, where every stream used to run 2 and re-read its log.

The sweep starts with the first stream of an event loop and ends when no stream is left.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence

from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.background import Ticker
from app.core.viewer import Viewer
from app.db import is_database_unavailable
from app.events.broker import Broker, Subscription
from app.events.service import last_seqs

log = logging.getLogger(__name__)

#: Who each stream's viewer is now (their current role), ``None`` for those that may no
#: longer follow; in the order of the subscriptions given. Given by the caller, which knows
#: memberships and sessions (``app.web.stream_audit``).
Audit = Callable[[AsyncSession, Sequence[Subscription]], Awaitable[list[Viewer | None]]]


class StreamWarden(Ticker):
    task_name = "stream-warden"
    failure = "stream sweep failed"

    def __init__(
        self,
        broker: Broker,
        sessionmaker: async_sessionmaker[AsyncSession],
        audit: Audit,
        interval: float,
    ) -> None:
        super().__init__(interval)
        self._broker = broker
        self._sessionmaker = sessionmaker
        self._audit = audit

    def watch(self) -> None:
        """A stream opened: make sure this event loop's sweep runs."""
        self.start()

    def going(self) -> bool:
        """The sweep ends with the last stream; the next stream starts another."""
        return bool(self._broker.subscriber_count)

    async def tick(self) -> None:
        await self.sweep()

    async def sweep(self) -> None:
        """Check every open stream once: viewer, session and the log's last ``seq``."""
        subs = [s for s in self._broker.subscriptions() if s.viewer is not None and not s.ended]
        if not subs:
            return
        seen = [s.viewer for s in subs]
        try:
            async with self._sessionmaker() as session:
                verdicts = await self._audit(session, subs)
                last = await last_seqs(session, {s.campaign_id for s in subs})
        except DBAPIError as exc:
            if not is_database_unavailable(exc):
                raise
            # Nobody can log out meanwhile; the streams' reads wait for the database.
            log.warning("stream sweep waits for the database: %s", exc.orig)
            return
        for sub, before, now in zip(subs, seen, verdicts, strict=True):
            if sub.viewer is not before:
                continue  # the stream looked itself meanwhile (a membership event): newer
            if now is None:
                sub.end()
            else:
                sub.viewer = now
        self._broker.catch_up(last)
