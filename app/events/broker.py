"""Wakes live streams when their campaign's log grows.

The log in the database is the truth; a notification only says "look again". In one
process the :class:`Broker` is enough. With PostgreSQL a :class:`PostgresListener` feeds
it the ``NOTIFY`` ids of every app process, reconnecting when the connection drops and then
waking every stream so nothing committed meanwhile is missed. Streams also re-read the log
on a timer, a backstop for any notification that never arrives.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict

import psycopg

from app.events.service import NOTIFY_CHANNEL

log = logging.getLogger(__name__)


class Subscription:
    def __init__(self, broker: Broker, campaign_id: int) -> None:
        self._broker = broker
        self.campaign_id = campaign_id
        self._event = asyncio.Event()

    def wake(self) -> None:
        self._event.set()

    async def wait(self, timeout: float) -> bool:
        """Wait for news; ``False`` when the timeout passed without any."""
        try:
            await asyncio.wait_for(self._event.wait(), timeout)
        except TimeoutError:
            return False
        finally:
            self._event.clear()
        return True

    def close(self) -> None:
        self._broker._remove(self)


class Broker:
    def __init__(self) -> None:
        self._subs: dict[int, set[Subscription]] = defaultdict(set)
        self._seen: dict[int, int] = {}

    def subscribe(self, campaign_id: int) -> Subscription:
        sub = Subscription(self, campaign_id)
        self._subs[campaign_id].add(sub)
        return sub

    def _remove(self, sub: Subscription) -> None:
        subs = self._subs.get(sub.campaign_id)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self._subs[sub.campaign_id]

    def publish(self, campaign_id: int, seq: int) -> None:
        """Wake the campaign's streams, once per sequence number however often it arrives."""
        if self._seen.get(campaign_id, 0) >= seq:
            return
        self._seen[campaign_id] = seq
        for sub in list(self._subs.get(campaign_id, ())):
            sub.wake()

    def wake_all(self) -> None:
        for subs in list(self._subs.values()):
            for sub in list(subs):
                sub.wake()

    @property
    def subscriber_count(self) -> int:
        return sum(len(s) for s in self._subs.values())


class PostgresListener:
    """A supervised ``LISTEN`` connection feeding a :class:`Broker`."""

    def __init__(self, conninfo: str, broker: Broker) -> None:
        self._conninfo = conninfo
        self._broker = broker
        self._task: asyncio.Task[None] | None = None
        self.connected = asyncio.Event()

    def start(self) -> None:
        self._task = asyncio.create_task(self._supervise(), name="pg-listener")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _supervise(self) -> None:
        delay = 0.5
        while True:
            try:
                await self._listen()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("LISTEN connection lost; reconnecting in %.1fs", delay, exc_info=True)
            self.connected.clear()
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10.0)

    async def _listen(self) -> None:
        async with await psycopg.AsyncConnection.connect(self._conninfo, autocommit=True) as conn:
            await conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
            self.connected.set()
            # Anything committed while we were away: let every stream re-read its log.
            self._broker.wake_all()
            async for note in conn.notifies():
                campaign, _, seq = note.payload.partition(":")
                with contextlib.suppress(ValueError):
                    self._broker.publish(int(campaign), int(seq))


def libpq_conninfo(sqlalchemy_url: str) -> str:
    """``postgresql+psycopg://u@h/db`` → ``postgresql://u@h/db`` for a raw psycopg connection."""
    _scheme, sep, rest = sqlalchemy_url.partition("://")
    return "postgresql://" + rest if sep else sqlalchemy_url
