"""Delivery: each process follows the log for the webhooks that are due, one process per hook.

A hook is due when its campaign's log has moved past its cursor and its back-off has passed.
A process claims it with a lease (one conditional UPDATE, so two processes never post the
same hook's messages side by side), reads the events after the cursor, builds the messages
as an observer sees them and posts them in order, moving the cursor after each answer that
is a success: at least once, in order. No transaction is open while it waits for the
receiver, and nothing here runs inside a request. A failure waits 5 s, then twice as long
each time up to an hour; Discord's 429 (``retry_after``) and any ``Retry-After`` are obeyed.
"""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import httpx
from sqlalchemy import Integer, column, or_, select, table, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.background import Ticker
from app.db import utcnow
from app.events.service import events_after
from app.i18n import set_locale
from app.webhooks import guard
from app.webhooks.messages import Message, discord_body, json_body, messages, signature
from app.webhooks.models import Webhook

log = logging.getLogger(__name__)

#: Events read per claim and pass.
BATCH = 50
#: How long a claim holds; a process that dies with a claim frees the hook after this.
LEASE = timedelta(seconds=60)
FIRST_WAIT = 5.0
LONGEST_WAIT = 3600.0
SEND_TIMEOUT = 10.0
_CAMPAIGN = table("campaign", column("id", Integer), column("last_seq", Integer))


@dataclass(frozen=True, slots=True)
class Outcome:
    """The receiver's answer to one post: its status (0: none), and how long to wait before
    the next attempt when it asked for a pause or failed."""

    status: int
    error: str | None = None
    wait: float | None = None

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


def _wait_asked(response: httpx.Response) -> float | None:
    """Seconds a 429 asks for: Discord's ``retry_after`` in the body, else ``Retry-After``."""
    with contextlib.suppress(ValueError, TypeError, AttributeError):
        return float(json.loads(response.content)["retry_after"])
    with contextlib.suppress(ValueError, TypeError):
        return float(response.headers.get("retry-after", ""))
    return None


async def post(
    client: httpx.AsyncClient, hook: Webhook, message: Message, *, allow_private: bool
) -> Outcome:
    """Post one message to the hook's receiver, at an address checked just now."""
    try:
        target = guard.parse(hook.url, allow_private=allow_private)
        address = await guard.resolve(target, allow_private=allow_private)
    except guard.Refused as exc:
        return Outcome(0, exc.message)
    headers = {"Host": target.host_header, "Content-Type": "application/json"}
    if target.kind == "discord":
        body = discord_body(message)
    else:
        body = json_body(hook.campaign_id, message)
        stamp = int(time.time())
        headers["X-Tafelrunde-Timestamp"] = str(stamp)
        headers["X-Tafelrunde-Signature"] = signature(hook.secret, stamp, body)
    extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
    try:
        response = await client.post(
            target.url_at(address), content=body, headers=headers, extensions=extensions
        )
    except httpx.HTTPError as exc:
        return Outcome(0, type(exc).__name__)
    if response.status_code == 429:
        return Outcome(429, "429", _wait_asked(response) or FIRST_WAIT)
    if 300 <= response.status_code < 400:
        return Outcome(response.status_code, "redirect (not followed)")
    if response.is_error:
        return Outcome(response.status_code, f"HTTP {response.status_code}")
    return Outcome(response.status_code)


def backoff(failures: int) -> float:
    """The wait after the ``failures``-th failure in a row."""
    return float(min(LONGEST_WAIT, FIRST_WAIT * 2 ** max(0, failures - 1)))


class Courier(Ticker):
    """The process's delivery loop (started with the app, stopped with it)."""

    task_name = "webhooks"
    failure = "webhook delivery failed"

    def __init__(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        *,
        allow_private: bool,
        interval: float,
    ) -> None:
        super().__init__(interval)
        self._sessionmaker = sessionmaker
        self.allow_private = allow_private
        self.owner = secrets.token_hex(8)

    async def tick(self) -> None:
        await self.deliver_due()

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(timeout=SEND_TIMEOUT, follow_redirects=False, trust_env=False)

    async def deliver_due(self) -> int:
        """Deliver for every hook that is due and free; returns the number of posts."""
        async with self._sessionmaker() as session:
            due = await _due(session, utcnow())
        if not due:  # an idle tick: no HTTP client (its TLS set-up costs ~50 ms of CPU)
            return 0
        sent = 0
        async with self.client() as client:
            for hook_id in due:
                sent += await self.deliver(client, hook_id)
        return sent

    async def deliver(self, client: httpx.AsyncClient, hook_id: int) -> int:
        if not await self._claim(hook_id):
            return 0
        sent = 0
        try:
            while True:
                hook, batch, last = await self._next(hook_id)
                if hook is None:
                    return sent
                for message in batch:
                    outcome = await post(client, hook, message, allow_private=self.allow_private)
                    await self._record(hook_id, outcome, message.seq if outcome.ok else None)
                    if not outcome.ok:
                        return sent
                    sent += 1
                if last is None:
                    return sent
                await self._advance(hook_id, last)
        finally:
            await self._release(hook_id)

    async def _next(self, hook_id: int) -> tuple[Webhook | None, list[Message], int | None]:
        """The hook, the messages of the next events after its cursor, and the last ``seq``
        read (``None`` when there was nothing new)."""
        async with self._sessionmaker() as session:
            hook = await session.get(Webhook, hook_id)
            if hook is None or hook.lease_owner != self.owner:
                return None, [], None
            events = await events_after(session, hook.campaign_id, hook.cursor_seq, BATCH)
            if not events:
                return hook, [], None
            set_locale(hook.locale)
            batch = await messages(session, hook.campaign_id, hook.events, events)
            session.expunge(hook)
            return hook, batch, events[-1].seq

    async def _claim(self, hook_id: int) -> bool:
        now = utcnow()
        async with self._sessionmaker() as session:
            done = await session.execute(
                update(Webhook)
                .where(
                    Webhook.id == hook_id,
                    # Still due: another process may have tried it and backed off since
                    # this one read its due list (a receiver's 429 wait, a failure's).
                    Webhook.next_attempt_at <= now,
                    or_(Webhook.lease_until.is_(None), Webhook.lease_until < now),
                )
                .values(lease_until=now + LEASE, lease_owner=self.owner)
            )
            await session.commit()
        return bool(getattr(done, "rowcount", 0) == 1)

    async def _release(self, hook_id: int) -> None:
        await self._update(hook_id, lease_until=None, lease_owner=None)

    async def _advance(self, hook_id: int, seq: int) -> None:
        async with self._sessionmaker() as session:
            await session.execute(
                update(Webhook)
                .where(
                    Webhook.id == hook_id,
                    Webhook.lease_owner == self.owner,
                    Webhook.cursor_seq < seq,
                )
                .values(cursor_seq=seq, lease_until=utcnow() + LEASE)
            )
            await session.commit()

    async def _record(self, hook_id: int, outcome: Outcome, delivered: int | None) -> None:
        now = utcnow()
        async with self._sessionmaker() as session:
            hook = await session.get(Webhook, hook_id)
            if hook is None or hook.lease_owner != self.owner:
                return
            record(hook, outcome, now)
            if delivered is not None:
                hook.cursor_seq = max(hook.cursor_seq, delivered)
            await session.commit()

    async def _update(self, hook_id: int, **values: object) -> None:
        async with self._sessionmaker() as session:
            await session.execute(
                update(Webhook)
                .where(Webhook.id == hook_id, Webhook.lease_owner == self.owner)
                .values(**values)
            )
            await session.commit()


def record(hook: Webhook, outcome: Outcome, now: datetime) -> None:
    """Note an attempt on the hook: its status and, on failure, when to try again."""
    hook.last_status = outcome.status
    hook.last_attempt_at = now
    hook.last_error = outcome.error[:200] if outcome.error else None
    if outcome.ok:
        hook.failures = 0
        return
    if outcome.status != 429:
        hook.failures += 1
    wait = outcome.wait if outcome.wait is not None else backoff(hook.failures)
    hook.next_attempt_at = now + timedelta(seconds=wait)


async def _due(session: AsyncSession, now: datetime) -> Sequence[int]:
    query = (
        select(Webhook.id)
        .join(_CAMPAIGN, _CAMPAIGN.c.id == Webhook.campaign_id)
        .where(
            Webhook.cursor_seq < _CAMPAIGN.c.last_seq,
            Webhook.next_attempt_at <= now,
            or_(Webhook.lease_until.is_(None), Webhook.lease_until < now),
        )
        .order_by(Webhook.next_attempt_at)
    )
    return (await session.scalars(query)).all()
