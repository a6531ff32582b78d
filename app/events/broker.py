"""Wakes live streams when their campaign's log grows.

The log in the database is the truth. A notification names the new event's ``seq`` and
usually carries the event as committed; it is appended to the campaign's shared tail only
when it is the very next ``seq`` of a tail known to be complete, and anything else (a gap,
a notification without the event, a reconnect) sends the streams back to the database. In
one process the :class:`Broker` is enough. With PostgreSQL a :class:`PostgresListener` feeds
it the ``NOTIFY`` of every app process, reconnecting when the connection drops and then
waking every stream so nothing committed meanwhile is missed. Once per poll interval the
process's :class:`app.events.warden.StreamWarden` compares every followed campaign's last
``seq`` in the database with where its streams stand, a backstop for any notification that
never arrives.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from typing import TypeVar

import psycopg

from app.core.background import cancel_and_wait
from app.core.viewer import Viewer
from app.events.models import CampaignEvent
from app.events.service import NOTIFY_CHANNEL, event_from_note, note_head

log = logging.getLogger(__name__)

K = TypeVar("K", int, str)

#: The LISTEN connection's first retry after it drops; doubled per failure, up to 10 s.
FIRST_RETRY_SECONDS = 0.5


class Subscription:
    """One stream's doorbell. A plain future per wait instead of ``asyncio.wait_for``, which
    would start a task per wait: with hundreds of streams every roll wakes them all.

    It also says who the stream is for (``viewer``, kept current by the process's warden)
    and where in the log it stands (``after``), so that one sweep can look after all streams.
    """

    __slots__ = (
        "_broker",
        "_rung",
        "_waiter",
        "after",
        "campaign_id",
        "ended",
        "evicted",
        "token_hash",
        "viewer",
    )

    def __init__(
        self,
        broker: Broker,
        campaign_id: int,
        token_hash: str | None = None,
        viewer: Viewer | None = None,
        after: int = 0,
    ) -> None:
        self._broker = broker
        self.campaign_id = campaign_id
        #: The login session the stream belongs to; when it ends, so does the stream.
        self.token_hash = token_hash
        #: Who the stream is for, with their current role (``None``: not known yet).
        self.viewer = viewer
        #: The last ``seq`` the stream has read (delivered or skipped as not for the viewer).
        self.after = after
        self.ended = False
        #: Closed to make room: its user or credential opened more streams than allowed.
        self.evicted = False
        self._rung = False
        self._waiter: asyncio.Future[bool] | None = None

    def end(self) -> None:
        """The stream's login session ended: wake it to finish."""
        self.ended = True
        self.wake()

    def evict(self) -> None:
        """Too many streams of the same user or credential: this, the oldest, finishes."""
        self.evicted = True
        self.end()

    def wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(True)
        else:
            self._rung = True

    async def wait(self, timeout: float | None = None) -> bool:
        """Wait for news; ``False`` when the timeout passed without any. Without a timeout
        (a live stream: the warden rings when the log moved on unannounced) no timer is
        kept per waiting stream."""
        if self._rung:
            self._rung = False
            return True
        loop = asyncio.get_running_loop()
        waiter = self._waiter = loop.create_future()
        timer = None if timeout is None else loop.call_later(timeout, _expire, waiter)
        try:
            rung: bool = await waiter
            return rung
        finally:
            if timer is not None:
                timer.cancel()
            self._waiter = None
            self._rung = False

    def close(self) -> None:
        self._broker._remove(self)


def _expire(waiter: asyncio.Future[bool]) -> None:
    if not waiter.done():
        waiter.set_result(False)


class StreamQuota:
    """At most ``per_user`` open streams of one user and ``per_credential`` of one login
    session in this process (``None``: no cap). Opening one more evicts the oldest open one:
    a forgotten tab makes room for the new one, and a client that opens streams in a loop
    holds no more than the cap."""

    def __init__(
        self,
        per_user: int | None = None,
        per_credential: int | None = None,
        per_api_token: int | None = None,
    ) -> None:
        self.per_user = per_user
        self.per_credential = per_credential
        #: The cap of a credential that is a personal API token (a script, not a person).
        self.per_api_token = per_api_token
        #: Open streams by user id and by token hash, oldest first.
        self._by_user: dict[int, dict[Subscription, None]] = {}
        self._by_credential: dict[str, dict[Subscription, None]] = {}
        #: The token hashes of open streams that are personal API tokens.
        self._api_tokens: set[str] = set()

    def note_api_token(self, token_hash: str) -> None:
        """The streams of this credential are a script's: :attr:`per_api_token` applies."""
        self._api_tokens.add(token_hash)

    def _credential_cap(self, token_hash: str) -> int | None:
        if token_hash in self._api_tokens and self.per_api_token is not None:
            return self.per_api_token
        return self.per_credential

    def admit(self, sub: Subscription) -> None:
        if sub.viewer is not None and self.per_user is not None:
            _admit(self._by_user, sub.viewer.user_id, sub, self.per_user)
        if sub.token_hash is not None and (cap := self._credential_cap(sub.token_hash)):
            _admit(self._by_credential, sub.token_hash, sub, cap)

    def release(self, sub: Subscription) -> None:
        if sub.viewer is not None:
            _release(self._by_user, sub.viewer.user_id, sub)
        if sub.token_hash is not None:
            _release(self._by_credential, sub.token_hash, sub)
            if sub.token_hash not in self._by_credential:
                self._api_tokens.discard(sub.token_hash)


def _admit(table: dict[K, dict[Subscription, None]], key: K, sub: Subscription, cap: int) -> None:
    streams = table.setdefault(key, {})
    streams[sub] = None
    running = [s for s in streams if not s.ended]
    for oldest in running[: max(0, len(running) - cap)]:
        oldest.evict()


def _release(table: dict[K, dict[Subscription, None]], key: K, sub: Subscription) -> None:
    streams = table.get(key)
    if streams is not None:
        streams.pop(sub, None)
        if not streams:
            del table[key]


class RecentLog:
    """The tail of one campaign's log as last read from the database, shared by its streams.

    ``events`` hold consecutive sequence numbers ``first .. last``. ``generation`` counts the
    notifications (and backstop polls) for the campaign; ``fresh`` is the generation as of
    which the tail was read completely, so while ``fresh == generation`` nothing newer has
    been announced and streams may serve themselves from memory. Reads are done by one
    stream at a time (``lock``), so N streams of a campaign cost one query per wake-up.
    """

    #: Events kept per campaign; streams further behind read the database themselves.
    KEEP = 512

    def __init__(self) -> None:
        self.events: list[CampaignEvent] = []
        self.first = 0
        self.last = -1
        self.generation = 0
        self.fresh = -1
        self.lock = asyncio.Lock()

    @property
    def started(self) -> bool:
        return self.last >= 0

    def covers(self, after: int) -> bool:
        """Whether the tail holds everything after ``after`` that it has read."""
        return self.started and after >= self.first - 1

    def start(self, after: int) -> None:
        self.events, self.first, self.last = [], after + 1, after

    def extend(self, events: Sequence[CampaignEvent]) -> None:
        for event in events:
            if event.seq == self.last + 1:  # keep it gap-free whatever the read returned
                self.events.append(event)
                self.last = event.seq
        if len(self.events) > self.KEEP:
            drop = len(self.events) - self.KEEP
            del self.events[:drop]
            self.first += drop

    def offer(self, event: CampaignEvent) -> bool:
        """Append an announced event if it is the next one of a tail known complete; else
        ``False``, and the caller must send the streams back to the database."""
        if self.started and self.fresh == self.generation and event.seq == self.last + 1:
            self.extend([event])
            return True
        return False

    def after(self, after: int, limit: int) -> list[CampaignEvent]:
        start = max(0, after + 1 - self.first)
        return self.events[start : start + limit]


class Broker:
    #: Login sessions remembered as ended, newest last: a stream whose request was let in
    #: just before its session ended subscribes already ended (ended sessions never return).
    ENDED_KEEP = 4096

    def __init__(self, quota: StreamQuota | None = None) -> None:
        self.quota = quota or StreamQuota()
        self._subs: dict[int, set[Subscription]] = defaultdict(set)
        self._by_session: dict[str, set[Subscription]] = defaultdict(set)
        self._seen: dict[int, int] = {}
        self._logs: dict[int, RecentLog] = {}
        self._ended: dict[str, None] = {}

    def subscribe(
        self,
        campaign_id: int,
        token_hash: str | None = None,
        viewer: Viewer | None = None,
        after: int = 0,
        counted: bool = True,
    ) -> Subscription:
        """A subscription; ``counted``: held open, so it counts against the stream caps (a
        catch-up that ends by itself does not)."""
        sub = Subscription(self, campaign_id, token_hash, viewer, after)
        self._subs[campaign_id].add(sub)
        if token_hash is not None:
            self._by_session[token_hash].add(sub)
            sub.ended = token_hash in self._ended
        if not sub.ended and counted:
            self.quota.admit(sub)
        return sub

    def end_sessions(self, token_hashes: Sequence[str]) -> None:
        """These login sessions ended: their streams finish now, whatever campaign, and so
        does any stream of theirs that subscribes later (a request let in just before)."""
        for token_hash in token_hashes:
            self._ended[token_hash] = None
            for sub in list(self._by_session.get(token_hash, ())):
                sub.end()
        while len(self._ended) > self.ENDED_KEEP:
            del self._ended[next(iter(self._ended))]

    def _remove(self, sub: Subscription) -> None:
        self.quota.release(sub)
        if sub.token_hash is not None:
            mine = self._by_session.get(sub.token_hash)
            if mine is not None:
                mine.discard(sub)
                if not mine:
                    del self._by_session[sub.token_hash]
        subs = self._subs.get(sub.campaign_id)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                # Nothing is kept for a campaign nobody follows (ids may even come again:
                # SQLite reuses them after a delete).
                del self._subs[sub.campaign_id]
                self._logs.pop(sub.campaign_id, None)
                self._seen.pop(sub.campaign_id, None)

    def recent(self, campaign_id: int) -> RecentLog:
        """The shared tail of a campaign with live streams."""
        log_ = self._logs.get(campaign_id)
        if log_ is None:
            log_ = self._logs[campaign_id] = RecentLog()
        return log_

    def invalidate(self, campaign_id: int) -> None:
        """Something may have been committed: the next read goes to the database."""
        log_ = self._logs.get(campaign_id)
        if log_ is not None:
            log_.generation += 1

    def publish(self, campaign_id: int, seq: int, event: CampaignEvent | None = None) -> None:
        """Wake the campaign's streams, once per sequence number however often it arrives.

        ``event`` (the committed event ``seq``, when the notification carried it) extends a
        complete tail in memory, so the streams need not read the database for it.
        """
        if self._seen.get(campaign_id, 0) >= seq:
            return
        self._seen[campaign_id] = seq
        log_ = self._logs.get(campaign_id)
        if log_ is not None and not (event is not None and log_.offer(event)):
            log_.generation += 1
        for sub in list(self._subs.get(campaign_id, ())):
            sub.wake()

    def wants(self, campaign_id: int, seq: int) -> bool:
        """Whether an announcement of ``seq`` would wake anyone: a stream follows the campaign
        and the seq is news. The process that wrote an event has published it at its commit
        already, before its own NOTIFY comes back."""
        return campaign_id in self._subs and self._seen.get(campaign_id, 0) < seq

    def catch_up(self, last_seqs: Mapping[int, int]) -> int:
        """The backstop: ``last_seqs`` are campaigns' last ``seq`` as read from the database.
        Streams that stand before it (a notification was lost) are woken, and the tail of
        their campaign, if it ends before it, is read again. Returns how many were woken."""
        woken = 0
        for campaign_id, last_seq in last_seqs.items():
            behind = [s for s in self._subs.get(campaign_id, ()) if s.after < last_seq]
            if not behind:
                continue
            log_ = self._logs.get(campaign_id)
            if log_ is not None and log_.last < last_seq:
                log_.generation += 1
            for sub in behind:
                sub.wake()
            woken += len(behind)
        return woken

    def subscriptions(self) -> Iterator[Subscription]:
        """Every open subscription of this process."""
        for subs in self._subs.values():
            yield from subs

    @property
    def campaign_ids(self) -> list[int]:
        """The campaigns with open subscriptions."""
        return list(self._subs)

    def wake_all(self) -> None:
        for campaign_id in list(self._logs):
            self.invalidate(campaign_id)
        for subs in list(self._subs.values()):
            for sub in list(subs):
                sub.wake()

    @property
    def subscriber_count(self) -> int:
        return sum(len(s) for s in self._subs.values())


class PostgresListener:
    """A supervised ``LISTEN`` connection feeding a :class:`Broker`: new events, and, on
    ``sessions_channel`` (each payload a session's token hash), login sessions that ended.

    The default :class:`app.events.transport.Transport`; with ``events=False`` (another
    transport carries the events) it listens for ended sessions only."""

    def __init__(
        self,
        conninfo: str,
        broker: Broker,
        sessions_channel: str | None = None,
        events: bool = True,
    ) -> None:
        self._conninfo = conninfo
        self._broker = broker
        self._sessions_channel = sessions_channel
        self._events = events
        self._task: asyncio.Task[None] | None = None
        self.connected = asyncio.Event()

    def start(self) -> None:
        self._task = asyncio.create_task(self._supervise(), name="pg-listener")

    async def stop(self) -> None:
        await cancel_and_wait(self._task)

    def announce(self, events: Sequence[CampaignEvent]) -> None:
        """Nothing to do: the append's ``NOTIFY`` went out with the commit."""

    async def _supervise(self) -> None:
        delay = FIRST_RETRY_SECONDS
        while True:
            try:
                await self._listen()
            except asyncio.CancelledError:
                raise
            except Exception:
                if self.connected.is_set():
                    delay = FIRST_RETRY_SECONDS  # it was up: a new outage starts over
                log.warning("LISTEN connection lost; reconnecting in %.1fs", delay, exc_info=True)
            self.connected.clear()
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10.0)

    async def _listen(self) -> None:
        async with await psycopg.AsyncConnection.connect(self._conninfo, autocommit=True) as conn:
            if self._events:
                await conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
            if self._sessions_channel:
                await conn.execute(f"LISTEN {self._sessions_channel}")
            self.connected.set()
            # Anything committed while we were away: let every stream re-read its log.
            self._broker.wake_all()
            async for note in conn.notifies():
                if note.channel == self._sessions_channel:
                    self._broker.end_sessions([note.payload])
                    continue
                try:
                    if not self._broker.wants(*note_head(note.payload)):
                        continue  # written here (published at commit) or followed by nobody
                    campaign_id, seq, event = event_from_note(note.payload)
                except (ValueError, KeyError, TypeError):
                    log.warning("unreadable notification %.80r", note.payload)
                    continue
                self._broker.publish(campaign_id, seq, event)


def libpq_conninfo(sqlalchemy_url: str) -> str:
    """``postgresql+asyncpg://u@h/db`` (any driver) → ``postgresql://u@h/db`` for a raw
    connection (psycopg's, asyncpg's)."""
    _scheme, sep, rest = sqlalchemy_url.partition("://")
    return "postgresql://" + rest if sep else sqlalchemy_url
