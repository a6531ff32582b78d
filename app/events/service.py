"""Append to and read from the campaign event log, and decide who sees which entry."""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any, NotRequired, TypedDict
from weakref import WeakKeyDictionary

import orjson
from sqlalchemy import (
    ColumnElement,
    Integer,
    Select,
    String,
    Table,
    TextClause,
    Update,
    bindparam,
    column,
    insert,
    select,
    table,
    text,
    update,
)
from sqlalchemy import event as sa_event
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from app import limits
from app.core.remembered import remembered
from app.core.viewer import Viewer
from app.db import in_chunks, json_text, json_value, utcnow
from app.errors import Conflict
from app.events import fairplay
from app.events.audience import (
    Audience,
    Form,
    FormData,
    Present,
    form_data,
    form_for,
    public,
    sql_reader,
    visible_sql,
    withheld_keys,
)
from app.events.models import CampaignEvent, logged_event
from app.events.payload import EventPayload
from app.i18n import _

NOTIFY_CHANNEL = "tafelrunde_events"
#: Key in ``AsyncSession.info`` listing the events to announce after commit.
PENDING_KEY = "pending_events"
#: Key in ``AsyncSession.info`` (set by the app's sessionmaker): another transport announces
#: the committed events (``app.events.jetstream``), so the append sends no ``NOTIFY``, whose
#: lock would serialize every commit of the cluster.
NOTIFY_OFF_KEY = "events_notify_off"
#: A notification carries the whole event when it fits well below PostgreSQL's 8,000-byte
#: limit; a larger one carries only the ids and the streams read the log.
NOTE_MAX = 7000

#: The log's sequence counter lives on the campaign row, whose lock keeps ``seq`` gap-free;
#: the log names just the two columns it needs instead of importing the campaigns package,
#: which sits above it (as ``_APPEND_POSTGRES`` names the table in SQL).
_CAMPAIGN_SEQ = table(
    "campaign",
    column("id", Integer),
    column("last_seq", Integer),
    column("fairplay_session_id", Integer),
    column("fairplay_chain", String),
)


class FairPlayOpened(Conflict):
    """A fair-play session opened between a use case's look at the campaign and its event:
    dice rolled for it without the session's roller must not go into the log. A use case
    that cannot roll again answers 409 (nothing is written)."""

    def __init__(self, campaign_id: int) -> None:
        super().__init__(_("A fair-play session has just begun. Please try that again."))
        self.campaign_id = campaign_id


#: ``session.info``: the campaigns this transaction assumes no fair-play session in
#: (:func:`assume_no_fairplay`).
_OUTSIDE_FAIRPLAY_KEY = "events_assume_no_fairplay"


def assume_no_fairplay(session: AsyncSession, campaign_id: int) -> None:
    """This transaction decides as outside fair play (rolls its dice with the server's
    roller, lets a GM override pass unmarked) without taking the log lock first, because
    the campaign row it read showed no fair-play session: its first event is refused
    (:class:`FairPlayOpened`) should one have opened since. Once that event is in, the
    transaction holds the log lock and no session can open."""
    session.info.setdefault(_OUTSIDE_FAIRPLAY_KEY, set()).add(campaign_id)


def _outside_fairplay(session: AsyncSession, campaign_id: int, said: bool) -> bool:
    return said or campaign_id in session.info.get(_OUTSIDE_FAIRPLAY_KEY, ())


def _forget_outside_fairplay(session: Session, *_args: object) -> None:
    session.info.pop(_OUTSIDE_FAIRPLAY_KEY, None)


for _end in ("after_commit", "after_rollback"):
    sa_event.listen(Session, _end, _forget_outside_fairplay)


class _Row(TypedDict):
    """The columns :func:`append_event` writes (``id`` and ``seq`` come with the INSERT);
    ``fairplay`` only in a fair-play session."""

    campaign_id: int
    type: str
    subject: str | None
    actor_id: int | None
    audience: dict[str, object]
    payload: dict[str, object]
    created_at: datetime
    fairplay: NotRequired[fairplay.FairplayRecord]


@dataclass(frozen=True, slots=True)
class Stamp:
    """A row written just before its event that takes its place in the log from it: its
    ``column`` is set to the event's ``seq`` by the append itself (a chat message's order),
    in the same statement where the database allows it."""

    table: Table
    column: str
    row_id: int


async def append_event(
    session: AsyncSession,
    campaign_id: int,
    event: EventPayload,
    *,
    actor_id: int | None,
    audience: Audience | None = None,
    outside_fairplay: bool = False,
    stamp: Stamp | None = None,
    at: datetime | None = None,
) -> CampaignEvent:
    """Add an event in the caller's transaction with the campaign's next gap-free ``seq``.

    The type and the ``subject`` come from the payload's class (``app/<package>/events.py``);
    ``audience`` (public if none): who sees what form of it (``app.events.audience``). The
    actor reads a ``listed`` event; a hidden roll reaches the others as a stub.

    The UPDATE takes the campaign row's lock until commit, so sequence numbers become
    visible in order and never skip. On PostgreSQL a NOTIFY rings the other processes at
    commit; it carries the event itself when small enough (see :func:`note_of`).

    ``outside_fairplay``: the caller rolled its dice without taking the log lock first, as
    outside a fair-play session; if one has opened meanwhile, :class:`FairPlayOpened` is
    raised and nothing is written (the caller rolls again with the session's roller).

    ``stamp``: a row to set to the new ``seq`` (:class:`Stamp`). ``at``: the event's time
    (now if none), where a row written with it shows the same (a chat message).
    """
    outside_fairplay = _outside_fairplay(session, campaign_id, outside_fairplay)
    row, payload_json, audience_json = _prepared(
        campaign_id, event, actor_id, audience, at or utcnow()
    )
    added: tuple[int, int] | None = None
    if session.bind is not None and session.bind.dialect.name == "postgresql":
        added = await _append_postgres(
            session, campaign_id, event.TYPE, event.subject, payload_json, actor_id,
            audience_json, row["created_at"], stamp,
        )  # fmt: skip
    if added is None:
        # SQLite, or an open fair-play session (which the one-statement path leaves alone).
        added = await _append_locked(session, row, outside_fairplay)
        if stamp is not None:
            await session.execute(_stamp_alone(stamp.table, stamp.column), {
                "stamp_id": stamp.row_id, "seq": added[1]})  # fmt: skip
    event_id, seq = added
    fairplay.note_next_seq(session, campaign_id, seq + 1)
    # The returned object is not tracked by the session: the log is append-only.
    logged = logged_event(id=event_id, seq=seq, **row)
    session.info.setdefault(PENDING_KEY, []).append(logged)
    return logged


def _prepared(
    campaign_id: int,
    event: EventPayload,
    actor_id: int | None,
    audience: Audience | None,
    now: datetime,
) -> tuple[_Row, str, str]:
    """The row of an event (without ``seq``), its payload and its audience as JSON text."""
    audience = (audience or public()).read_by(actor_id)
    if event.STUB_WHEN_HIDDEN:
        audience = audience.stubbed()
    if audience.visibility not in event.VISIBILITIES:
        raise ValueError(f"{event.TYPE!r} events are never {audience.visibility!r}")
    payload_json = json_text(event.to_json())
    audience_json = json_text(audience.to_json())
    row: _Row = {
        "campaign_id": campaign_id,
        "type": event.TYPE,
        "subject": event.subject,
        "actor_id": actor_id,
        # What the log holds: plain JSON (whose non-string keys JSON turns into strings, and
        # pairs lists), the same values in the event published in this process as read back.
        "audience": json_value(audience_json),
        "payload": json_value(payload_json),
        "created_at": now,
    }
    return row, payload_json, audience_json


_EVENTS = CampaignEvent.__table__
assert isinstance(_EVENTS, Table)
_INSERT_MANY = insert(_EVENTS).returning(_EVENTS.c.id, _EVENTS.c.seq)


async def append_events(
    session: AsyncSession,
    campaign_id: int,
    events: Sequence[tuple[EventPayload, Audience | None]],
    *,
    actor_id: int | None,
    outside_fairplay: bool = False,
) -> list[CampaignEvent]:
    """:func:`append_event` for each ``(event, audience)`` in order, in one statement or two.

    The log gets the same rows as from that many single appends — consecutive ``seq`` s in
    this order, each event's type, subject, audience and payload as :func:`append_event`
    writes them, and on PostgreSQL one NOTIFY per event as ever, in ``seq`` order. On
    PostgreSQL one statement takes the campaign's lock and all the ``seq`` s, writes the rows
    and sends the NOTIFYs (:data:`_APPEND_MANY_POSTGRES`); elsewhere one UPDATE, then one
    INSERT for all rows. While a fair-play session is open each event needs its own link of
    the chain: they are appended one by one then.
    """
    outside_fairplay = _outside_fairplay(session, campaign_id, outside_fairplay)
    if len(events) < 2:
        return await _one_by_one(session, campaign_id, events, actor_id, outside_fairplay)
    prepared = [_prepared(campaign_id, e, actor_id, a, utcnow()) for e, a in events]
    if session.bind is not None and session.bind.dialect.name == "postgresql":
        added = await _append_many_postgres(session, campaign_id, actor_id, prepared)
    else:
        added = await _append_many(session, campaign_id, prepared)
    if added is None:
        # A fair-play session is open: nothing written, the chained path (or FairPlayOpened).
        return await _one_by_one(session, campaign_id, events, actor_id, outside_fairplay)
    ids = dict(added)
    first = min(ids)
    logged = [
        logged_event(id=ids[first + i], seq=first + i, **row)
        for i, (row, _, _) in enumerate(prepared)
    ]
    fairplay.note_next_seq(session, campaign_id, first + len(prepared))
    session.info.setdefault(PENDING_KEY, []).extend(logged)
    return logged


#: :func:`append_events` on PostgreSQL: the seqs, the rows and their NOTIFYs in one round
#: trip, one text whatever the number of events. The rows come as one JSON array (the
#: driver parses the statement once, not a multi-row INSERT of a new length each time, and
#: escapes nothing: each event's JSON goes in as it was written). The NOTIFYs are sent in
#: ``seq`` order: the select list is evaluated in the order of the ORDER BY.
_APPEND_MANY_POSTGRES = text(
    """
    WITH next AS (
        UPDATE campaign SET last_seq = last_seq + CAST(:n AS INTEGER)
        WHERE id = CAST(:campaign_id AS INTEGER) AND fairplay_session_id IS NULL
        RETURNING last_seq
    ), rows AS (
        SELECT CAST(next.last_seq - CAST(:n AS INTEGER) + u.i AS INTEGER) AS seq, u.type,
               u.subject, u.audience, u.payload, u.created_at, u.note
        FROM next, json_to_recordset(CAST(:rows AS JSON)) AS u(
            i INTEGER, type VARCHAR, subject VARCHAR, audience JSON, payload JSON,
            created_at TIMESTAMPTZ, note TEXT
        )
    ), added AS (
        INSERT INTO campaign_event
            (campaign_id, seq, type, subject, actor_id, audience, payload, created_at)
        SELECT CAST(:campaign_id AS INTEGER), rows.seq, rows.type, rows.subject,
               CAST(:actor_id AS INTEGER), rows.audience, rows.payload, rows.created_at
        FROM rows
        RETURNING id, seq
    )
    SELECT added.id, added.seq,
           CASE WHEN CAST(:channel AS TEXT) <> '' THEN
               pg_notify(:channel, CAST(:campaign_id AS TEXT) || ':' || added.seq || ':'
                         || added.id || rows.note)
           END
    FROM added JOIN rows ON rows.seq = added.seq
    ORDER BY added.seq
    """
)


async def _append_many_postgres(
    session: AsyncSession,
    campaign_id: int,
    actor_id: int | None,
    prepared: Sequence[tuple[_Row, str, str]],
) -> list[tuple[int, int]] | None:
    """The ``(seq, id)`` of each event appended, ``None`` (nothing written, no lock taken)
    while a fair-play session is open. No NOTIFY when another transport announces the
    events (:data:`NOTIFY_OFF_KEY`)."""
    channel = _notify_channel(session)
    rows = [
        {
            "i": i,
            "type": row["type"],
            "subject": row["subject"],
            "audience": orjson.Fragment(audience),
            "payload": orjson.Fragment(payload),
            "created_at": row["created_at"].isoformat(),
            "note": channel
            and note_of(
                row["type"], actor_id, audience, payload, row["created_at"], row["subject"]
            ),
        }
        for i, (row, payload, audience) in enumerate(prepared, start=1)
    ]
    result = await session.execute(
        _APPEND_MANY_POSTGRES,
        {
            "n": len(prepared),
            "campaign_id": campaign_id,
            "actor_id": actor_id,
            "rows": orjson.dumps(rows).decode(),
            "channel": channel,
        },
    )
    added = [(int(seq), int(event_id)) for event_id, seq, _ in result]
    return added or None


async def _append_many(
    session: AsyncSession, campaign_id: int, prepared: Sequence[tuple[_Row, str, str]]
) -> list[tuple[int, int]] | None:
    """:func:`append_events` elsewhere (SQLite): one UPDATE takes the lock and the seqs, one
    INSERT writes the rows (no NOTIFY). ``None`` as :func:`_append_many_postgres`."""
    taken = await session.execute(_TAKE_SEQS, {"of_campaign": campaign_id, "n": len(prepared)})
    last = taken.scalar_one_or_none()
    if last is None:
        return None
    first = int(last) - len(prepared) + 1
    # One statement built once, many parameter sets: sent as multi-row INSERTs
    # ("insertmanyvalues"), whose RETURNING promises no order: matched by seq.
    added = await session.execute(
        _INSERT_MANY, [{"seq": first + i, **row} for i, (row, _, _) in enumerate(prepared)]
    )
    return [(int(seq), int(event_id)) for event_id, seq in added]


async def _one_by_one(
    session: AsyncSession,
    campaign_id: int,
    events: Sequence[tuple[EventPayload, Audience | None]],
    actor_id: int | None,
    outside_fairplay: bool,
) -> list[CampaignEvent]:
    return [
        await append_event(
            session,
            campaign_id,
            event,
            actor_id=actor_id,
            audience=audience,
            outside_fairplay=outside_fairplay,
        )
        for event, audience in events
    ]


#: The appends' statements where the one-statement path does not run (SQLite, a fair-play
#: session), built once: building one per append (its ``values`` carrying the row's JSON)
#: cost more CPU than SQLite's work on it.
_SEQ = _CAMPAIGN_SEQ.c
_OF_CAMPAIGN = _SEQ.id == bindparam("of_campaign")
_NEXT_SEQ = (
    update(_CAMPAIGN_SEQ)
    .where(_OF_CAMPAIGN)
    .values(last_seq=_SEQ.last_seq + 1)
    .returning(_SEQ.last_seq, _SEQ.fairplay_session_id, _SEQ.fairplay_chain)
)
_NEXT_SEQ_OUTSIDE_FAIRPLAY = _NEXT_SEQ.where(_SEQ.fairplay_session_id.is_(None))
_TAKE_SEQS = (
    update(_CAMPAIGN_SEQ)
    .where(_OF_CAMPAIGN, _SEQ.fairplay_session_id.is_(None))
    .values(last_seq=_SEQ.last_seq + bindparam("n"))
    .returning(_SEQ.last_seq)
)
_MOVE_CHAIN = update(_CAMPAIGN_SEQ).where(_OF_CAMPAIGN).values(fairplay_chain=bindparam("chain"))
_INSERT_ONE = insert(_EVENTS).returning(_EVENTS.c.id)
#: :func:`lock_log`'s statement: every combat action runs it, so it is built once.
_LOCK_LOG = (
    update(_CAMPAIGN_SEQ)
    .where(_OF_CAMPAIGN)
    .values(last_seq=_SEQ.last_seq)
    .returning(_SEQ.last_seq, _SEQ.fairplay_session_id)
)


async def lock_log(session: AsyncSession, campaign_id: int) -> tuple[int, int | None]:
    """Take the campaign's log lock until commit: the next ``seq`` and the open fair-play
    session (for a roller that must know the ``seq`` of the event its faces go to)."""
    last, session_id = (await session.execute(_LOCK_LOG, {"of_campaign": campaign_id})).one()
    fairplay.note_next_seq(session, campaign_id, int(last) + 1)
    return int(last) + 1, session_id


async def _append_locked(
    session: AsyncSession, row: _Row, outside_fairplay: bool
) -> tuple[int, int]:
    """The next ``seq`` (the UPDATE holds the campaign's lock until commit), then the row;
    in a fair-play session with its ``fairplay`` record and the chain moved on."""
    campaign_id = row["campaign_id"]
    next_seq = _NEXT_SEQ_OUTSIDE_FAIRPLAY if outside_fairplay else _NEXT_SEQ
    taken = (await session.execute(next_seq, {"of_campaign": campaign_id})).one_or_none()
    if taken is None:
        raise FairPlayOpened(campaign_id)
    seq, session_id, chain = taken
    if session_id is not None:
        row["fairplay"] = fairplay.record(
            session, campaign_id, session_id, seq, row["actor_id"], row["payload"], chain
        )
        await session.execute(
            _MOVE_CHAIN, {"of_campaign": campaign_id, "chain": row["fairplay"]["chain"]}
        )
    event_id = (await session.execute(_INSERT_ONE, {"seq": seq, **row})).scalar_one()
    bind = session.bind
    postgres = bind is not None and bind.dialect.name == "postgresql"
    if session_id is not None and postgres and _notify_channel(session):
        # Id-only: the listeners read the chained event from the log.
        await session.execute(
            text("SELECT pg_notify(:channel, :note)"),
            {"channel": NOTIFY_CHANNEL, "note": f"{campaign_id}:{seq}:{event_id}"},
        )
    return int(event_id), int(seq)


def _append_sql(also: str = "") -> TextClause:
    """The one-statement append; ``also``: more data-modifying WITH clauses after ``added``
    (they run whether or not the SELECT reads them)."""
    return text(
        f"""
    WITH next AS (
        UPDATE campaign SET last_seq = last_seq + 1
        WHERE id = CAST(:campaign_id AS INTEGER) AND fairplay_session_id IS NULL
        RETURNING last_seq
    ), added AS (
        INSERT INTO campaign_event
            (campaign_id, seq, type, subject, actor_id, audience, payload, created_at)
        SELECT CAST(:campaign_id AS INTEGER), next.last_seq, CAST(:type AS VARCHAR),
               CAST(:subject AS VARCHAR),
               CAST(:actor_id AS INTEGER), CAST(:audience AS JSON), CAST(:payload AS JSON),
               CAST(:created_at AS TIMESTAMPTZ)
        FROM next
        RETURNING id, seq
    ){also}
    SELECT added.id, added.seq,
           CASE WHEN CAST(:channel AS TEXT) <> '' THEN
               pg_notify(:channel, CAST(:campaign_id AS TEXT) || ':' || added.seq || ':'
                         || added.id || CAST(:note AS TEXT))
           END
    FROM added
    """
    )


_APPEND_POSTGRES = _append_sql()
_NAME = re.compile(r"[a-z_][a-z0-9_]*")


@lru_cache(maxsize=8)
def _append_postgres_stamping(table: Table, column: str) -> TextClause:
    """:data:`_APPEND_POSTGRES` that also sets ``column`` of the row ``:stamp_id`` of
    ``table`` to the new ``seq``."""
    assert _NAME.fullmatch(table.name) and _NAME.fullmatch(column), (table.name, column)
    return _append_sql(
        f""", stamped AS (
        UPDATE {table.name} SET {column} = added.seq FROM added
        WHERE {table.name}.id = CAST(:stamp_id AS INTEGER)
    )"""
    )


@lru_cache(maxsize=8)
def _stamp_alone(table: Table, column: str) -> Update:
    """The stamp as a statement of its own (SQLite, a fair-play session)."""
    return (
        update(table).where(table.c.id == bindparam("stamp_id")).values({column: bindparam("seq")})
    )


async def _append_postgres(
    session: AsyncSession,
    campaign_id: int,
    type_: str,
    subject: str | None,
    payload_json: str,
    actor_id: int | None,
    audience_json: str,
    now: datetime,
    stamp: Stamp | None = None,
) -> tuple[int, int] | None:
    """Seq, insert and NOTIFY in one round trip. The UPDATE still takes the campaign row's
    lock until commit, and the NOTIFY is still delivered at commit (none when another
    transport announces the events: :data:`NOTIFY_OFF_KEY`). ``None`` (nothing written, no
    lock taken) while a fair-play session is open: its events take the chained path."""
    channel = _notify_channel(session)
    statement = _APPEND_POSTGRES
    stamped: dict[str, object] = {}
    if stamp is not None:
        statement = _append_postgres_stamping(stamp.table, stamp.column)
        stamped = {"stamp_id": stamp.row_id}
    row = (
        await session.execute(
            statement,
            {
                **stamped,
                "campaign_id": campaign_id,
                "type": type_,
                "subject": subject,
                "actor_id": actor_id,
                "audience": audience_json,
                "payload": payload_json,
                "created_at": now,
                "channel": channel,
                "note": channel
                and note_of(type_, actor_id, audience_json, payload_json, now, subject),
            },
        )
    ).one_or_none()
    return None if row is None else (int(row[0]), int(row[1]))


def _notify_channel(session: AsyncSession) -> str:
    """The channel the append notifies, ``""`` for none (:data:`NOTIFY_OFF_KEY`)."""
    return "" if session.info.get(NOTIFY_OFF_KEY) else NOTIFY_CHANNEL


def note_of(
    type_: str,
    actor_id: int | None,
    audience_json: str,
    payload_json: str,
    created_at: datetime,
    subject: str | None = None,
) -> str:
    """The tail of a NOTIFY after ``campaign_id:seq:id``: ``:`` and the rest of the event
    as JSON, or nothing when that would not fit (the listener then reads the log)."""
    head = json_text(
        {
            "type": type_,
            "subject": subject,
            "actor_id": actor_id,
            "created_at": created_at.isoformat(),
        }
    )
    # Audience and payload are spliced in as already encoded instead of encoded again.
    rest = f'{head[:-1]},"audience":{audience_json},"payload":{payload_json}}}'
    return ":" + rest if len(rest.encode()) <= NOTE_MAX else ""


def note_head(payload: str) -> tuple[int, int]:
    """The campaign id and the seq a NOTIFY payload names, without reading the event it may
    carry (the listener skips those its process announced already). ``ValueError`` if
    malformed."""
    campaign, _, rest = payload.partition(":")
    seq, _, _rest = rest.partition(":")
    return int(campaign), int(seq)


def event_from_note(payload: str) -> tuple[int, int, CampaignEvent | None]:
    """Parse a NOTIFY payload: the campaign id, the seq and, if it came along, the event.

    Raises ``ValueError`` for anything malformed.
    """
    campaign, _, rest = payload.partition(":")
    seq, _, rest = rest.partition(":")
    event_id, _, note = rest.partition(":")
    campaign_id, seq_no = int(campaign), int(seq)
    if not note:
        return campaign_id, seq_no, None
    data = json_value(note)
    return (
        campaign_id,
        seq_no,
        logged_event(
            id=int(event_id),
            campaign_id=campaign_id,
            seq=seq_no,
            type=data["type"],
            subject=data.get("subject"),
            actor_id=data["actor_id"],
            audience=data["audience"],
            payload=data["payload"],
            created_at=datetime.fromisoformat(data["created_at"]),
        ),
    )


#: Each event's audience as last read (:func:`audience_of`), with the stored JSON it was read
#: from. The streams of a campaign share the event objects of its recent tail, and each
#: projects every event for each of its viewers: read once, not once per viewer.
_AUDIENCES: WeakKeyDictionary[CampaignEvent, tuple[object, Audience]] = WeakKeyDictionary()


def audience_of(event: CampaignEvent) -> Audience:
    """The event's audience. An event whose ``audience`` was given a new value (a message
    marked read, a row loaded again) is read anew: the JSON is kept by identity."""
    stored = event.audience
    found = _AUDIENCES.get(event)
    if found is not None and found[0] is stored:
        return found[1]
    audience = Audience.from_json(stored)
    _AUDIENCES[event] = (stored, audience)
    return audience


def can_see(event: CampaignEvent, viewer: Viewer) -> bool:
    """Whether ``viewer`` gets the event's content (in some form, not as a stub)."""
    visible = project_one(event, viewer)
    return visible is not None and not visible.redacted


def sees_whole(event: CampaignEvent, viewer: Viewer) -> bool:
    """Whether ``viewer`` gets the event as it is stored (nothing left out or replaced)."""
    visible = project_one(event, viewer)
    return visible is not None and visible.kind is Form.whole


def visible_to(viewer: Viewer, *, stubs: bool = False) -> ColumnElement[bool]:
    """The SQL twin of the projection on ``campaign_event`` (``app.events.audience``):
    the events ``viewer`` gets in a form other than nothing (nor a stub, unless ``stubs``)."""
    return visible_sql(CampaignEvent.audience, viewer, stubs=stubs)


def form_name(kind: Form, user_id: int) -> str:
    """The name of a form: its kind, and for an own form whose it is."""
    return f"own:{user_id}" if kind is Form.own else kind.value


@dataclass(frozen=True, slots=True)
class VisibleEvent:
    """An event as one viewer receives it, in the form its audience gives them."""

    event: CampaignEvent
    kind: Form = Form.whole
    #: The user whose own form it is (for a ``Form.own``).
    user_id: int = 0
    #: The event's audience, read once (``None``: read when needed).
    audience: Audience | None = None

    @property
    def heard_by(self) -> Audience:
        return self.audience if self.audience is not None else audience_of(self.event)

    @property
    def redacted(self) -> bool:
        return self.kind is Form.stub

    @property
    def form(self) -> str:
        """Which form this is; viewers who get the same form get the same data."""
        return form_name(self.kind, self.user_id)

    def _replacement(self) -> FormData | None:
        return form_data(self.heard_by, self.kind, self.user_id)

    @property
    def seq(self) -> int:
        return self.event.seq

    @property
    def type(self) -> str:
        replacement = self._replacement()
        return self.event.type if replacement is None else str(replacement["type"])

    @property
    def payload(self) -> dict[str, Any]:
        """The payload this viewer gets (the replacement's fields for a party or own form)."""
        replacement = self._replacement()
        if replacement is not None:
            return {"actor_name": self.event.payload.get("actor_name"), **replacement}
        if self.kind is Form.reduced:
            left_out = withheld_keys(self.heard_by)
            return {k: v for k, v in self.event.payload.items() if k not in left_out}
        return dict(self.event.payload)

    def data(self) -> dict[str, Any]:
        """The JSON object sent over the stream and the API."""
        e = self.event
        base: dict[str, Any] = {
            "seq": e.seq,
            "type": e.type,
            "created_at": e.created_at.isoformat(),
            "actor": {"id": e.actor_id, "username": e.payload.get("actor_name")},
            "visibility": e.visibility,
        }
        if e.fairplay is not None:
            base["fairplay"] = self.fairplay()
        if self.redacted:
            return {**base, "secret": True}
        return {**self.payload, **base, "type": self.type, "secret": False}

    def fairplay(self) -> dict[str, object] | None:
        """The event's fair-play record as this viewer gets it: digest and chain link always,
        the faces and the salt only with the payload (a secret roll's draws are as secret as
        its faces, and its salt would let a guess of the payload be tested)."""
        record = self.event.fairplay
        return None if record is None else fairplay.shown(record, self.kind is Form.whole)


def project_one(
    event: CampaignEvent, viewer: Viewer, present: Present | None = None
) -> VisibleEvent | None:
    """The event as ``viewer`` may see it, ``None``: not at all (``audience.form_for``)."""
    audience = audience_of(event)
    form = form_for(audience, viewer, present, event.type)
    return None if form is Form.nothing else VisibleEvent(event, form, viewer.user_id, audience)


def project(
    events: Sequence[CampaignEvent], viewer: Viewer, present: Present | None = None
) -> list[VisibleEvent]:
    """Each event as ``viewer`` may see it: hidden rolls as bare stubs, never content; a
    hidden character an event names in passing left out for all but the GMs."""
    return [v for e in events if (v := project_one(e, viewer, present)) is not None]


def scenes_of(events: Sequence[CampaignEvent]) -> frozenset[int]:
    """The scenes whose present the projection of these events checks."""
    return frozenset(s for e in events if isinstance(s := e.audience.get("scene"), int))


async def events_after(
    session: AsyncSession, campaign_id: int, after: int, limit: int = limits.REPLAY_BATCH
) -> Sequence[CampaignEvent]:
    return (
        await session.scalars(
            select(CampaignEvent)
            .where(CampaignEvent.campaign_id == campaign_id, CampaignEvent.seq > after)
            .order_by(CampaignEvent.seq)
            .limit(limit)
        )
    ).all()


_LAST_SEQS = select(_CAMPAIGN_SEQ.c.id, _CAMPAIGN_SEQ.c.last_seq).where(
    _CAMPAIGN_SEQ.c.id.in_(bindparam("campaign_ids", expanding=True))
)


async def last_seqs(session: AsyncSession, campaign_ids: Collection[int]) -> dict[int, int]:
    """The last committed ``seq`` of each of these campaigns (one statement per 500)."""
    out: dict[int, int] = {}
    for chunk in in_chunks(campaign_ids):
        rows = await session.execute(_LAST_SEQS, {"campaign_ids": chunk})
        out.update((int(campaign_id), int(seq or 0)) for campaign_id, seq in rows)
    return out


def _events_before_statement(paged: bool, typed: bool) -> Select[CampaignEvent]:
    query = select(CampaignEvent).where(CampaignEvent.campaign_id == bindparam("campaign_id"))
    if paged:
        query = query.where(CampaignEvent.seq < bindparam("before"))
    if typed:
        query = query.where(CampaignEvent.type.in_(bindparam("types", expanding=True)))
    return query.order_by(CampaignEvent.seq.desc()).limit(bindparam("limit"))


#: ``events_before``'s statement, by (paged back, of some types only): built once.
_EVENTS_BEFORE = {
    (paged, typed): _events_before_statement(paged, typed)
    for paged in (False, True)
    for typed in (False, True)
}


async def events_before(
    session: AsyncSession,
    campaign_id: int,
    before: int | None,
    limit: int,
    types: Sequence[str] | None = None,
) -> Sequence[CampaignEvent]:
    """The newest ``limit`` events older than ``before`` (newest first), for paging back."""
    query = _EVENTS_BEFORE[before is not None, bool(types)]
    values = {"campaign_id": campaign_id, "before": before, "types": types, "limit": limit}
    return (await session.scalars(query, values)).all()


async def events_about(
    session: AsyncSession,
    campaign_id: int,
    subject: str,
    viewer: Viewer,
    *,
    type_like: str,
    limit: int,
    before: int | None = None,
) -> Sequence[CampaignEvent]:
    """The newest ``limit`` events about ``subject`` (``character:7``) whose type matches the
    LIKE pattern ``type_like``, that ``viewer`` may see, older than ``before``, newest first.

    Filtered in SQL through ``ix_campaign_event_subject``, so one encounter's log or one
    sheet's history pages back to its first entry however busy the rest of the campaign is.
    """
    query = _about_statement(viewer, older=before is not None)
    values = {
        "campaign_id": campaign_id, "subject": subject, "type_like": type_like,
        "before": before, "limit": limit,
    }  # fmt: skip
    return (await session.scalars(query, values)).all()


#: :func:`events_about`'s statement for each viewer who is no GM (``None``: the GMs, who
#: see every event) and whether it pages back: the viewer's visibility is part of it, so
#: it is built once per viewer (as the chat's pages are); 1,024 kept.
_ABOUT: OrderedDict[tuple[int | None, bool], Select[CampaignEvent]] = OrderedDict()
ABOUT_KEPT = 1024


def _about_statement(viewer: Viewer, *, older: bool) -> Select[CampaignEvent]:
    def build() -> Select[CampaignEvent]:
        query = select(CampaignEvent).where(
            CampaignEvent.campaign_id == bindparam("campaign_id"),
            CampaignEvent.subject == bindparam("subject"),
            CampaignEvent.type.like(bindparam("type_like")),
            visible_to(viewer),
        )
        if older:
            query = query.where(CampaignEvent.seq < bindparam("before"))
        return query.order_by(CampaignEvent.seq.desc()).limit(bindparam("limit"))

    return remembered(_ABOUT, (sql_reader(viewer), older), build, ABOUT_KEPT)
