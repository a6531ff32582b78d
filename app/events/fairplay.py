"""The hash chain of a fair-play session's events, and the draws that wait for their event.

Every event appended while a fair-play session is open carries ``fairplay``:
``{version, session_id, user_id, client_seed, draws, salt, digest, chain}``
(``docs/fairplay.md``), with ``digest`` the HMAC-SHA256 of the payload's canonical JSON keyed
with the event's own random ``salt`` (format version 2: a digest that hides its payload;
version 1, before it, hashed the payload unsalted) and ``chain`` the SHA-256 of the previous
link and the digest (hex strings; the first link starts from the commitment). The salt goes
out only with the payload (:func:`shown`). The
derivation of the faces is ``app.sessions.dice``; this module only records them: a roller
adds its draws to the :class:`PendingDraws` of the next ``seq``, and the event appended with
that ``seq`` lists them.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NotRequired, TypedDict

from sqlalchemy.ext.asyncio import AsyncSession

#: ``AsyncSession.info`` keys: campaign id → the next ``seq`` (known while this transaction
#: holds the campaign's lock), → the draws waiting for it, and the campaigns whose events
#: in this transaction are GM overrides (marked in their ``fairplay``).
NEXT_SEQ_KEY = "fairplay_next_seq"
DRAWS_KEY = "fairplay_draws"
OVERRIDE_KEY = "fairplay_overrides"
#: The format of the records written now (``docs/fairplay.md``, "Format versions").
VERSION = 2
#: Bytes of random salt per event: a digest cannot be guessed by enumerating payloads.
SALT_BYTES = 16


def canonical(payload: object) -> bytes:
    """The one JSON form every verifier hashes."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def digest(payload: object, salt_hex: str) -> str:
    """``HMAC-SHA256(key = the salt's bytes, message = the canonical payload)`` (version 2)."""
    return hmac.new(bytes.fromhex(salt_hex), canonical(payload), hashlib.sha256).hexdigest()


def shown(record: dict[str, object], with_payload: bool) -> dict[str, object]:
    """The record as sent to a viewer: the draws and the salt only to one who gets the
    payload as stored; without it digest and chain link alone (the salt would let them
    test guesses of the payload against the digest)."""
    if with_payload:
        return record
    return {k: v for k, v in record.items() if k != "salt"} | {"draws": None}


def link(previous: str, digest_hex: str) -> str:
    """``chain_i = SHA-256(chain_{i-1} + digest_i)`` over the hex strings."""
    return hashlib.sha256((previous + digest_hex).encode()).hexdigest()


@dataclass(slots=True)
class PendingDraws:
    """The faces drawn for the event that will get ``seq``, by whose request, in order."""

    seq: int
    user_id: int
    client_seed: str
    draws: list[list[int]] = field(default_factory=list)


def next_seq(session: AsyncSession, campaign_id: int) -> int | None:
    """The ``seq`` the next event of the campaign gets, if this transaction holds its lock."""
    known: dict[int, int] = session.info.get(NEXT_SEQ_KEY, {})
    return known.get(campaign_id)


def note_next_seq(session: AsyncSession, campaign_id: int, seq: int) -> None:
    session.info.setdefault(NEXT_SEQ_KEY, {})[campaign_id] = seq


def pending_draws(session: AsyncSession, campaign_id: int) -> PendingDraws | None:
    pending: dict[int, PendingDraws] = session.info.get(DRAWS_KEY, {})
    return pending.get(campaign_id)


def set_pending(session: AsyncSession, campaign_id: int, draws: PendingDraws) -> None:
    session.info.setdefault(DRAWS_KEY, {})[campaign_id] = draws


def mark_override(session: AsyncSession, campaign_id: int) -> None:
    """The campaign's events in this transaction are a GM override (the table rule marks)."""
    session.info.setdefault(OVERRIDE_KEY, set()).add(campaign_id)


class FairplayRecord(TypedDict):
    """An event's ``fairplay`` as :func:`record` writes it (format version 2): whose dice
    with which client seed, the faces drawn, the salt, the payload's digest and the chain's
    link; ``override`` on a GM's override of the table rule."""

    version: int
    session_id: int
    user_id: int | None
    client_seed: str | None
    draws: list[list[int]]
    salt: str
    digest: str
    chain: str
    override: NotRequired[bool]


def record(
    session: AsyncSession,
    campaign_id: int,
    session_id: int,
    seq: int,
    actor_id: int | None,
    payload: Mapping[str, object],
    previous: str,
) -> FairplayRecord:
    """The ``fairplay`` of the event appended with ``seq``: the draws waiting for it (taken),
    a fresh salt, its digest and its chain link."""
    waiting: dict[int, PendingDraws] = session.info.get(DRAWS_KEY, {})
    drawn = waiting.get(campaign_id)
    if drawn is not None and drawn.seq == seq:
        del waiting[campaign_id]
    else:
        drawn = None
    salt = secrets.token_hex(SALT_BYTES)
    d = digest(payload, salt)
    out: FairplayRecord = {
        "version": VERSION,
        "session_id": session_id,
        "user_id": drawn.user_id if drawn else actor_id,
        "client_seed": drawn.client_seed if drawn else None,
        "draws": drawn.draws if drawn else [],
        "salt": salt,
        "digest": d,
        "chain": link(previous, d),
    }
    if campaign_id in session.info.get(OVERRIDE_KEY, ()):
        out["override"] = True
    return out
