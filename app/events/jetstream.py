"""Live delivery between processes and hosts through NATS JetStream.

Every process publishes the events it committed, after the commit, to the subject
``tafelrunde.campaign.<id>`` of one stream (:data:`STREAM`), the message id being
``<campaign>:<seq>`` (JetStream drops a second copy within its duplicate window). Every
process reads the stream through its own consumer and hands each event to its
:class:`app.events.broker.Broker` exactly like a ``NOTIFY``: the broker wakes the streams
once per ``seq``, and the streams send by ``seq`` from the log.

Nothing is lost or sent twice when NATS restarts or a process dies: the log is the truth.
After a reconnect the consumer starts again after the last stream sequence it saw and every
stream of the process re-reads its log; an event whose announcement never made it (its
process died between commit and publish, NATS was down) reaches the streams through the
warden's sweep within ``TAFELRUNDE_STREAM_POLL_SECONDS``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Sequence

import nats
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription as NatsSubscription
from nats.errors import Error as NatsError
from nats.js import JetStreamContext, api
from nats.js.errors import BadRequestError

from app.core.background import cancel_and_wait
from app.events.broker import FIRST_RETRY_SECONDS, Broker
from app.events.models import CampaignEvent
from app.events.service import event_from_note, note_head, note_of

log = logging.getLogger(__name__)

#: The one stream holding every campaign's announcements (the log stays the truth: an
#: hour is plenty for a consumer to catch up after a reconnect).
STREAM = "TAFELRUNDE"
SUBJECT_PREFIX = "tafelrunde.campaign."
MAX_AGE_SECONDS = 3600.0
#: A consumer left behind by a process that died is removed by the server after this long.
CONSUMER_IDLE_SECONDS = 60.0


def subject_of(campaign_id: int) -> str:
    return f"{SUBJECT_PREFIX}{campaign_id}"


def message_of(event: CampaignEvent) -> bytes:
    """The ``NOTIFY`` payload for the event (``app.events.service.event_from_note`` reads
    both); a fair-play event goes id-only, its chained record is read from the log."""
    head = f"{event.campaign_id}:{event.seq}:{event.id}"
    if event.fairplay is not None:
        return head.encode()
    tail = note_of(
        event.type,
        event.actor_id,
        json.dumps(event.audience),
        json.dumps(event.payload),
        event.created_at,
        event.subject,
    )
    return (head + tail).encode()


class JetStream:
    """The NATS JetStream :class:`app.events.transport.Transport` of one process."""

    def __init__(self, url: str, broker: Broker) -> None:
        self._url = url
        self._broker = broker
        self._nc: Client | None = None
        self._sub: NatsSubscription | None = None
        self._task: asyncio.Task[None] | None = None
        #: The last stream sequence this process's consumer delivered (0: none yet).
        self._stream_seq = 0
        self._stopping = False

    def start(self) -> None:
        self._task = asyncio.create_task(self._connect(), name="jetstream")

    async def stop(self) -> None:
        self._stopping = True
        await cancel_and_wait(self._task)
        if self._nc is not None:
            with contextlib.suppress(NatsError, OSError, TimeoutError):
                await self._nc.close()

    def announce(self, events: Sequence[CampaignEvent]) -> None:
        nc = self._nc
        if nc is None or not events:
            return  # never connected yet: the sweep catches the others up
        for event in events:
            msg_id = f"{event.campaign_id}:{event.seq}"
            publish = nc.publish(
                subject_of(event.campaign_id), message_of(event), headers={"Nats-Msg-Id": msg_id}
            )
            # A plain publish only queues the message (also while reconnecting): no round trip
            # in the request; the stream stores it as it would a JetStream publish.
            task = asyncio.ensure_future(publish)
            task.add_done_callback(_log_failure)

    async def _connect(self) -> None:
        """Connect, retrying until it works; from then on the client reconnects itself."""
        delay = FIRST_RETRY_SECONDS
        while True:
            try:
                nc = await nats.connect(
                    self._url,
                    max_reconnect_attempts=-1,
                    reconnect_time_wait=FIRST_RETRY_SECONDS,
                    disconnected_cb=self._disconnected,
                    reconnected_cb=self._reconnected,
                    error_cb=self._error,
                )
                self._nc = nc
                await self._subscribe()
                return
            except (NatsError, OSError, TimeoutError):
                log.warning("NATS at %s not reachable; retrying in %.1fs", self._url, delay)
                if self._nc is not None:
                    with contextlib.suppress(NatsError, OSError, TimeoutError):
                        await self._nc.close()
                    self._nc = None
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10.0)

    async def _subscribe(self) -> None:
        """A consumer of the whole stream for this process, starting after the last
        sequence it saw (new messages only the first time); then every stream re-reads its
        log for whatever was committed while it was not subscribed."""
        assert self._nc is not None
        js = self._nc.jetstream()
        info = await _ensure_stream(js)
        if info.state.last_seq < self._stream_seq:
            self._stream_seq = 0  # the stream was made anew: its sequence started over
        if self._sub is not None:
            with contextlib.suppress(NatsError, OSError, TimeoutError):
                await self._sub.unsubscribe()
        config = api.ConsumerConfig(
            ack_policy=api.AckPolicy.NONE,
            inactive_threshold=CONSUMER_IDLE_SECONDS,
            deliver_policy=api.DeliverPolicy.NEW,
        )
        if self._stream_seq:
            config.deliver_policy = api.DeliverPolicy.BY_START_SEQUENCE
            config.opt_start_seq = self._stream_seq + 1
        self._sub = await js.subscribe(SUBJECT_PREFIX + "*", cb=self._deliver, config=config)
        self._broker.wake_all()

    async def _deliver(self, msg: Msg) -> None:
        with contextlib.suppress(NatsError, ValueError):
            self._stream_seq = max(self._stream_seq, msg.metadata.sequence.stream)
        note = msg.data.decode()
        try:
            if not self._broker.wants(*note_head(note)):
                return  # written here (published at commit) or followed by nobody
            campaign_id, seq, event = event_from_note(note)
        except (ValueError, KeyError, TypeError):
            log.warning("unreadable announcement %.80r", note)
            return
        self._broker.publish(campaign_id, seq, event)

    async def _disconnected(self) -> None:
        if not self._stopping:
            log.warning("NATS connection lost; the streams follow the log until it is back")

    async def _reconnected(self) -> None:
        """The server may have restarted and forgotten our consumer: make a new one (in a
        task of its own: the client awaits this inside its reconnect)."""
        if self._task is not None and not self._task.done():
            self._task.cancel()  # an earlier reconnect's, still trying
        self._task = asyncio.create_task(self._resubscribe(), name="jetstream-resubscribe")

    async def _resubscribe(self) -> None:
        """Until it works: a restarted server may take a moment before JetStream answers."""
        delay = FIRST_RETRY_SECONDS
        while True:
            try:
                await self._subscribe()
                return
            except (TimeoutError, NatsError, OSError):
                log.warning("NATS consumer not restored yet; the sweep keeps the streams going")
                self._broker.wake_all()
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10.0)

    async def _error(self, exc: Exception) -> None:
        log.debug("NATS: %s", exc)


async def _ensure_stream(js: JetStreamContext) -> api.StreamInfo:
    config = api.StreamConfig(
        name=STREAM,
        subjects=[SUBJECT_PREFIX + "*"],
        storage=api.StorageType.FILE,
        max_age=MAX_AGE_SECONDS,
    )
    try:
        return await js.add_stream(config)
    except BadRequestError:
        return await js.update_stream(config)  # made by an older version with other settings


def _log_failure(task: asyncio.Future[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.debug("announcement not published: %s", task.exception())
