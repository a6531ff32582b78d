"""Remember the answer of a creating request under its idempotency key, or replay it.

A creating request that carries a key (the ``Idempotency-Key`` header, or the hidden
``idempotency_key`` field of a form) runs its use case, then stores its answer under
``(user, key)`` with an insert that does nothing on conflict, in the same transaction as
what it created: a rollback forgets both. An insert that meets the key finds the first
request's answer instead; the request then rolls its own work back and answers with that
(:func:`remember`). On PostgreSQL that insert waits for a concurrent request holding the
same key until it commits or rolls back, so two requests in flight never both create; on
SQLite every write transaction is serialized anyway. A request whose use case failed asks
whether the key already answered (:func:`stored_answer`): a repeat after its first
request succeeded may well fail itself (the turn has passed, the name is taken).

Until 2026-12-07 the key was claimed before the use case ran, a statement more on every
creating request: a repeat is rare, and costs its use case's work now, rolled back.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast

from sqlalchemy import Table, bindparam, delete, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import KEEPS_READS
from app.errors import Conflict, ValidationFailed
from app.i18n import _
from app.idempotency.models import IdempotentRequest

#: How long a key is remembered. Expired keys are swept out by each process every
#: ``SWEEP_EVERY`` (:class:`app.idempotency.sweeper.KeySweeper`); one used again before
#: that is forgotten by the request that meets it (:func:`remember`).
KEY_TTL = timedelta(hours=24)
SWEEP_EVERY = timedelta(minutes=10)
MAX_KEY_LENGTH = 100
FIELD = "idempotency_key"
#: Response headers never replayed: recomputed by the server, or not the caller's to repeat.
_UNREPLAYED_HEADERS = frozenset({"content-length", "set-cookie", "date", "server"})

# The statements, built once: every creating request with a key runs one of them, and
# building one anew costs more than running it (parameters named apart from the columns).
# The writes keep the reads the request made so far (the sign-in's campaign and role,
# app.db.read_memo): no row of theirs changes.
_REQUESTS = cast(Table, IdempotentRequest.__table__)
_KEEPS_READS = {KEEPS_READS: True}
_THIS_KEY = (_REQUESTS.c.user_id == bindparam("of_user")) & (_REQUESTS.c.key == bindparam("of_key"))
_SWEEP = delete(_REQUESTS).where(_REQUESTS.c.created_at < bindparam("before"))
_FORGET_EXPIRED = (
    delete(_REQUESTS)
    .where(_THIS_KEY, _REQUESTS.c.created_at < bindparam("before"))
    .execution_options(**_KEEPS_READS)
)
_REMEMBER_POSTGRES = (
    pg_insert(_REQUESTS)
    .on_conflict_do_nothing()
    .returning(_REQUESTS.c.key)
    .execution_options(**_KEEPS_READS)
)
_REMEMBER_SQLITE = (
    sqlite_insert(_REQUESTS)
    .on_conflict_do_nothing()
    .returning(_REQUESTS.c.key)
    .execution_options(**_KEEPS_READS)
)
_FIRST = select(IdempotentRequest).where(_THIS_KEY).execution_options(populate_existing=True)


@dataclass(frozen=True, slots=True)
class StoredAnswer:
    status: int
    headers: list[tuple[str, str]]
    body: bytes


def check_key(key: str) -> str:
    """A key is 1 to 100 printable ASCII characters (a UUID fits)."""
    if not key or len(key) > MAX_KEY_LENGTH or not all(" " < c <= "~" for c in key):
        raise ValidationFailed(
            {FIELD: _("An idempotency key is 1 to 100 printable ASCII characters.")}
        )
    return key


def fingerprint(method: str, target: str, body_digest: str) -> str:
    """SHA-256 over method, path with query, and a digest of the body."""
    return hashlib.sha256(f"{method}\n{target}\n{body_digest}".encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Answer:
    """What a request answered, to remember under its key."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes


async def remember(
    session: AsyncSession, user_id: int, key: str, print_: str, now: datetime, answer: Answer
) -> StoredAnswer | None:
    """Store ``answer`` under ``key``, in the request's transaction (``None``), or — when
    the key's first request answered already — that answer, for this request to roll its
    own work back and replay.

    Same key with another request → 422. A first request older than ``KEY_TTL`` that the
    sweep has not removed yet is forgotten here, and the answer stored in its place, as
    when the first request's row went meanwhile (once: a request that loses twice is told
    to wait).
    """
    postgres = session.get_bind().dialect.name == "postgresql"
    kept = [(k, v) for k, v in answer.headers if k.lower() not in _UNREPLAYED_HEADERS]
    row = {
        "user_id": user_id, "key": key, "fingerprint": print_, "created_at": now,
        "status": answer.status, "headers": json.dumps(kept), "body": answer.body,
    }  # fmt: skip
    this_key = {"of_user": user_id, "of_key": key}
    for _attempt in range(2):
        stored = await session.execute(_REMEMBER_POSTGRES if postgres else _REMEMBER_SQLITE, row)
        if stored.first() is not None:
            return None
        first = (await session.execute(_FIRST, this_key)).scalar_one_or_none()
        if first is None:
            continue  # swept meanwhile
        if first.created_at >= now - KEY_TTL:
            return _answer_of(first, print_)
        await session.execute(_FORGET_EXPIRED, {**this_key, "before": now - KEY_TTL})
    raise Conflict(_("The first request with this idempotency key is still running."))


async def stored_answer(
    session: AsyncSession, user_id: int, key: str, print_: str, now: datetime
) -> StoredAnswer | None:
    """The answer of the key's first request, if it answered within ``KEY_TTL`` (same key
    with another request → 422); for a request whose own use case failed."""
    first = (
        await session.execute(_FIRST, {"of_user": user_id, "of_key": key})
    ).scalar_one_or_none()
    if first is None or first.created_at < now - KEY_TTL:
        return None
    return _answer_of(first, print_)


def _answer_of(first: IdempotentRequest, print_: str) -> StoredAnswer:
    """The stored answer of the key's first request, if this request is the same."""
    if first.fingerprint != print_:
        raise ValidationFailed(
            {FIELD: _("This idempotency key was already used for a different request.")}
        )
    if first.status is None or first.body is None or first.headers is None:
        # A row of a first request that claimed its key before 2026-12-07 and still runs.
        raise Conflict(_("The first request with this idempotency key is still running."))
    headers = [(str(k), str(v)) for k, v in json.loads(first.headers)]
    return StoredAnswer(first.status, headers, first.body)


async def sweep(session: AsyncSession, now: datetime) -> int:
    """Remove every key older than ``KEY_TTL``, of all users; returns how many."""
    done = await session.execute(_SWEEP, {"before": now - KEY_TTL})
    return int(getattr(done, "rowcount", 0))
