"""Append to and read from the campaign event log, and decide who sees which entry."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Integer,
    String,
    and_,
    bindparam,
    column,
    insert,
    or_,
    select,
    table,
    text,
    true,
    update,
)
from sqlalchemy.ext.asyncio import AsyncSession

from app import limits
from app.core.viewer import Viewer
from app.db import in_chunks, utcnow
from app.events import fairplay
from app.events.models import CampaignEvent
from app.events.types import EventPayload, Roll

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

#: ``listed``: the actor, the users in the payload's ``to`` and the GMs (a whisper, a handout
#: shown to chosen players).
VISIBILITIES = ("public", "gm", "self", "listed")
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


class FairPlayOpened(Exception):
    """A fair-play session opened between a use case's look at the campaign and its event:
    dice rolled for it without the session's roller must not go into the log."""

    def __init__(self, campaign_id: int) -> None:
        super().__init__(f"a fair-play session opened in campaign {campaign_id}")
        self.campaign_id = campaign_id


@dataclass(frozen=True, slots=True)
class Party:
    """A character an event's payload may name: the key of its id and every key that says
    who it is (the name, and texts built from the name)."""

    id_key: str
    keys: tuple[str, ...]


#: The characters an event may name, and where. ``character_id`` is what the event is
#: about; the others it names in passing (the receiver of a moved item, its giver).
SUBJECT = Party("character_id", ("character_id", "character_name"))
PARTIES = (
    SUBJECT,
    Party("to_character_id", ("to_character_id", "to_character_name")),
    Party("from_character_id", ("from_character_id", "from_character_name")),
)
#: Payload key: the ``id_key`` of each party named in passing that is hidden from players.
WITHHELD_KEY = "withheld_parties"
#: Payload key: the form every non-GM gets instead of the event, ``{"type": …, fields…}``
#: (a token moving out of the players' sight reaches them as ``token_removed``).
PLAYER_FORM_KEY = "player_form"
#: Payload key: forms per non-GM user, ``{"<user id>": form | None}`` — before visibility
#: and :data:`PLAYER_FORM_KEY`: a listed user gets that form, ``None``: not the event at all
#: (per-player line of sight on the battle map: each player sees their own figures' view).
PLAYER_FORMS_KEY = "player_forms"
#: The payload keys that are the event's forms, not its content.
FORM_KEYS = frozenset({PLAYER_FORM_KEY, PLAYER_FORMS_KEY})


def hide_parties(
    payload: dict[str, Any], visibility: str, hidden_characters: Collection[int]
) -> str:
    """Make an event no more visible than everything it names; returns the visibility.

    An event about a hidden character is for the GMs only. One that names a hidden
    character in passing stays visible, but :func:`project` leaves out that party's keys
    for everyone else (``WITHHELD_KEY`` lists them).
    """
    if not hidden_characters:
        return visibility
    if payload.get(SUBJECT.id_key) in hidden_characters:
        return "gm"
    withheld = [p.id_key for p in PARTIES[1:] if payload.get(p.id_key) in hidden_characters]
    if withheld:
        payload[WITHHELD_KEY] = withheld
    return visibility


async def append_event(
    session: AsyncSession,
    campaign_id: int,
    event: EventPayload,
    *,
    actor_id: int | None,
    visibility: str = "public",
    audience_user_id: int | None = None,
    hidden_characters: Collection[int] = (),
    player_form: dict[str, Any] | None = None,
    player_forms: dict[str, dict[str, Any] | None] | None = None,
    outside_fairplay: bool = False,
) -> CampaignEvent:
    """Add an event in the caller's transaction with the campaign's next gap-free ``seq``.

    The type and the ``subject`` come from the payload's class (``app.events.types``).
    ``hidden_characters``: the characters the payload names (see :data:`PARTIES`) that are
    hidden from players; the event is then no more visible than they are
    (:func:`hide_parties`). ``player_form``: what every non-GM gets instead
    (:data:`PLAYER_FORM_KEY`).

    The UPDATE takes the campaign row's lock until commit, so sequence numbers become
    visible in order and never skip. On PostgreSQL a NOTIFY rings the other processes at
    commit; it carries the event itself when small enough (see :func:`note_of`).

    ``outside_fairplay``: the caller rolled its dice without taking the log lock first, as
    outside a fair-play session; if one has opened meanwhile, :class:`FairPlayOpened` is
    raised and nothing is written (the caller rolls again with the session's roller).
    """
    if visibility not in VISIBILITIES:
        raise ValueError(f"unknown visibility {visibility!r}")
    data = event.to_json()
    if player_form is not None:
        data[PLAYER_FORM_KEY] = player_form
    if player_forms:
        data[PLAYER_FORMS_KEY] = player_forms
    if hidden_characters:
        visibility = hide_parties(data, visibility, hidden_characters)
    if visibility not in event.VISIBILITIES:
        raise ValueError(f"{event.TYPE!r} events are never {visibility!r}")
    now = utcnow()
    payload_json = json.dumps(data)
    row: dict[str, Any] = {
        "campaign_id": campaign_id,
        "type": event.TYPE,
        "subject": event.subject,
        "actor_id": actor_id,
        "visibility": visibility,
        "audience_user_id": audience_user_id,
        # What the log holds: plain JSON (whose non-string keys JSON turns into strings).
        "payload": json.loads(payload_json),
        "created_at": now,
    }
    added: tuple[int, int] | None = None
    if session.bind is not None and session.bind.dialect.name == "postgresql":
        added = await _append_postgres(
            session, campaign_id, event.TYPE, event.subject, payload_json, actor_id,
            visibility, audience_user_id, now,
        )  # fmt: skip
    if added is None:
        # SQLite, or an open fair-play session (which the one-statement path leaves alone).
        added = await _append_locked(session, row, outside_fairplay)
    event_id, seq = added
    fairplay.note_next_seq(session, campaign_id, seq + 1)
    # The returned object is not tracked by the session: the log is append-only.
    logged = CampaignEvent(id=event_id, seq=seq, **row)
    session.info.setdefault(PENDING_KEY, []).append(logged)
    return logged


async def lock_log(session: AsyncSession, campaign_id: int) -> tuple[int, int | None]:
    """Take the campaign's log lock until commit: the next ``seq`` and the open fair-play
    session (for a roller that must know the ``seq`` of the event its faces go to)."""
    last, session_id = (
        await session.execute(
            update(_CAMPAIGN_SEQ)
            .where(_CAMPAIGN_SEQ.c.id == campaign_id)
            .values(last_seq=_CAMPAIGN_SEQ.c.last_seq)
            .returning(_CAMPAIGN_SEQ.c.last_seq, _CAMPAIGN_SEQ.c.fairplay_session_id)
        )
    ).one()
    fairplay.note_next_seq(session, campaign_id, int(last) + 1)
    return int(last) + 1, session_id


async def _append_locked(
    session: AsyncSession, row: dict[str, Any], outside_fairplay: bool
) -> tuple[int, int]:
    """The next ``seq`` (the UPDATE holds the campaign's lock until commit), then the row;
    in a fair-play session with its ``fairplay`` record and the chain moved on."""
    campaign_id = row["campaign_id"]
    c = _CAMPAIGN_SEQ.c
    next_seq = update(_CAMPAIGN_SEQ).where(c.id == campaign_id)
    if outside_fairplay:
        next_seq = next_seq.where(c.fairplay_session_id.is_(None))
    taken = (
        await session.execute(
            next_seq.values(last_seq=c.last_seq + 1).returning(
                c.last_seq, c.fairplay_session_id, c.fairplay_chain
            )
        )
    ).one_or_none()
    if taken is None:
        raise FairPlayOpened(campaign_id)
    seq, session_id, chain = taken
    if session_id is not None:
        row["fairplay"] = fairplay.record(
            session, campaign_id, session_id, seq, row["actor_id"], row["payload"], chain
        )
        await session.execute(
            update(_CAMPAIGN_SEQ)
            .where(c.id == campaign_id)
            .values(fairplay_chain=row["fairplay"]["chain"])
        )
    event_id = (
        await session.execute(
            insert(CampaignEvent).values(seq=seq, **row).returning(CampaignEvent.id)
        )
    ).scalar_one()
    bind = session.bind
    postgres = bind is not None and bind.dialect.name == "postgresql"
    if session_id is not None and postgres and _notify_channel(session):
        # Id-only: the listeners read the chained event from the log.
        await session.execute(
            text("SELECT pg_notify(:channel, :note)"),
            {"channel": NOTIFY_CHANNEL, "note": f"{campaign_id}:{seq}:{event_id}"},
        )
    return int(event_id), int(seq)


_APPEND_POSTGRES = text(
    """
    WITH next AS (
        UPDATE campaign SET last_seq = last_seq + 1
        WHERE id = CAST(:campaign_id AS INTEGER) AND fairplay_session_id IS NULL
        RETURNING last_seq
    ), added AS (
        INSERT INTO campaign_event
            (campaign_id, seq, type, subject, actor_id, visibility, audience_user_id, payload,
             created_at)
        SELECT CAST(:campaign_id AS INTEGER), next.last_seq, CAST(:type AS VARCHAR),
               CAST(:subject AS VARCHAR),
               CAST(:actor_id AS INTEGER), CAST(:visibility AS VARCHAR),
               CAST(:audience_user_id AS INTEGER), CAST(:payload AS JSON),
               CAST(:created_at AS TIMESTAMPTZ)
        FROM next
        RETURNING id, seq
    )
    SELECT added.id, added.seq,
           CASE WHEN CAST(:channel AS TEXT) <> '' THEN
               pg_notify(:channel, CAST(:campaign_id AS TEXT) || ':' || added.seq || ':'
                         || added.id || CAST(:note AS TEXT))
           END
    FROM added
    """
)


async def _append_postgres(
    session: AsyncSession,
    campaign_id: int,
    type_: str,
    subject: str | None,
    payload_json: str,
    actor_id: int | None,
    visibility: str,
    audience_user_id: int | None,
    now: datetime,
) -> tuple[int, int] | None:
    """Seq, insert and NOTIFY in one round trip. The UPDATE still takes the campaign row's
    lock until commit, and the NOTIFY is still delivered at commit (none when another
    transport announces the events: :data:`NOTIFY_OFF_KEY`). ``None`` (nothing written, no
    lock taken) while a fair-play session is open: its events take the chained path."""
    channel = _notify_channel(session)
    row = (
        await session.execute(
            _APPEND_POSTGRES,
            {
                "campaign_id": campaign_id,
                "type": type_,
                "subject": subject,
                "actor_id": actor_id,
                "visibility": visibility,
                "audience_user_id": audience_user_id,
                "payload": payload_json,
                "created_at": now,
                "channel": channel,
                "note": channel
                and note_of(
                    type_, actor_id, visibility, audience_user_id, payload_json, now, subject
                ),
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
    visibility: str,
    audience_user_id: int | None,
    payload_json: str,
    created_at: datetime,
    subject: str | None = None,
) -> str:
    """The tail of a NOTIFY after ``campaign_id:seq:id``: ``:`` and the rest of the event
    as JSON, or nothing when that would not fit (the listener then reads the log)."""
    head = json.dumps(
        {
            "type": type_,
            "subject": subject,
            "actor_id": actor_id,
            "visibility": visibility,
            "audience_user_id": audience_user_id,
            "created_at": created_at.isoformat(),
        }
    )
    # The payload is spliced in as already encoded instead of encoded a second time.
    rest = f'{head[:-1]},"payload":{payload_json}}}'
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
    data = json.loads(note)
    return (
        campaign_id,
        seq_no,
        CampaignEvent(
            id=int(event_id),
            campaign_id=campaign_id,
            seq=seq_no,
            type=data["type"],
            subject=data.get("subject"),
            actor_id=data["actor_id"],
            visibility=data["visibility"],
            audience_user_id=data["audience_user_id"],
            payload=data["payload"],
            created_at=datetime.fromisoformat(data["created_at"]),
        ),
    )


def can_see(event: CampaignEvent, viewer: Viewer) -> bool:
    """Whether ``viewer`` may see this event's content."""
    if event.visibility == "public" or viewer.is_gm:
        return True
    if event.visibility == "listed":
        return event.actor_id == viewer.user_id or viewer.user_id in event.payload.get("to", ())
    return event.visibility == "self" and event.audience_user_id == viewer.user_id


def visible_to(viewer: Viewer) -> ColumnElement[bool]:
    """:func:`can_see` as an SQL condition on ``campaign_event``.

    A ``listed`` event counts here for its actor only (its other readers are in the JSON
    payload); no subject query reads one: chat and handout events have no subject.
    """
    if viewer.is_gm:
        return true()
    return or_(
        CampaignEvent.visibility == "public",
        and_(CampaignEvent.visibility == "self", CampaignEvent.audience_user_id == viewer.user_id),
        and_(CampaignEvent.visibility == "listed", CampaignEvent.actor_id == viewer.user_id),
    )


@dataclass(frozen=True, slots=True)
class VisibleEvent:
    """An event as one viewer receives it: whole, without the hidden parties it names
    (``reduced``), or reduced to the fact that it happened (``redacted``)."""

    event: CampaignEvent
    redacted: bool
    reduced: bool = False
    #: The event's player form (:data:`PLAYER_FORM_KEY`) instead of the event.
    player_form: bool = False
    #: The user whose own form (:data:`PLAYER_FORMS_KEY`) this viewer gets instead.
    user_form: str | None = None

    def _form(self) -> dict[str, Any]:
        if self.user_form is not None:
            found: dict[str, Any] = self.event.payload[PLAYER_FORMS_KEY][self.user_form]
            return found
        party: dict[str, Any] = self.event.payload[PLAYER_FORM_KEY]
        return party

    @property
    def seq(self) -> int:
        return self.event.seq

    @property
    def type(self) -> str:
        if self.player_form:
            return str(self._form()["type"])
        return self.event.type

    @property
    def payload(self) -> dict[str, Any]:
        """The payload this viewer gets (the player form's fields for a player form)."""
        if self.player_form:
            return {"actor_name": self.event.payload.get("actor_name"), **self._form()}
        return {k: v for k, v in self.event.payload.items() if k not in FORM_KEYS}

    @property
    def form(self) -> str:
        """Which form this is; viewers who get the same form get the same data."""
        if self.player_form:
            return "player" if self.user_form is None else f"player:{self.user_form}"
        return "stub" if self.redacted else "reduced" if self.reduced else "whole"

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
        if self.player_form or not FORM_KEYS.isdisjoint(e.payload):
            return {**self.payload, **base, "type": self.type, "secret": False}
        payload = e.payload
        if WITHHELD_KEY in payload:
            left_out = {WITHHELD_KEY}
            if self.reduced:
                for party in PARTIES:
                    if party.id_key in payload[WITHHELD_KEY]:
                        left_out.update(party.keys)
            payload = {k: v for k, v in payload.items() if k not in left_out}
        return {**payload, **base, "secret": False}

    def fairplay(self) -> dict[str, Any] | None:
        """The event's fair-play record as this viewer gets it: digest and chain link always,
        the faces and the salt only with the payload (a secret roll's draws are as secret as
        its faces, and its salt would let a guess of the payload be tested)."""
        record = self.event.fairplay
        return None if record is None else fairplay.shown(record, self.form == "whole")


def _own_form(event: CampaignEvent, viewer: Viewer) -> str | None:
    """The key of the viewer's own form of this event, if it has one for them."""
    forms = event.payload.get(PLAYER_FORMS_KEY)
    if not forms or viewer.is_gm:
        return None
    key = str(viewer.user_id)
    return key if key in forms else None


def project(events: Sequence[CampaignEvent], viewer: Viewer) -> list[VisibleEvent]:
    """Each event as ``viewer`` may see it. Hidden rolls become bare stubs, never content;
    a hidden character an event names in passing is left out for all but the GMs."""
    out: list[VisibleEvent] = []
    for event in events:
        own = _own_form(event, viewer)
        if own is not None:
            if event.payload[PLAYER_FORMS_KEY][own] is not None:
                out.append(VisibleEvent(event, False, False, True, own))
        elif can_see(event, viewer):
            reduced = not viewer.is_gm and WITHHELD_KEY in event.payload
            player_form = not viewer.is_gm and PLAYER_FORM_KEY in event.payload
            out.append(VisibleEvent(event, False, reduced, player_form))
        elif event.type == Roll.TYPE:
            out.append(VisibleEvent(event, redacted=True))
    return out


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


async def events_before(
    session: AsyncSession,
    campaign_id: int,
    before: int | None,
    limit: int,
    types: Sequence[str] | None = None,
) -> Sequence[CampaignEvent]:
    """The newest ``limit`` events older than ``before`` (newest first), for paging back."""
    query = select(CampaignEvent).where(CampaignEvent.campaign_id == campaign_id)
    if before is not None:
        query = query.where(CampaignEvent.seq < before)
    if types:
        query = query.where(CampaignEvent.type.in_(types))
    return (await session.scalars(query.order_by(CampaignEvent.seq.desc()).limit(limit))).all()


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
    query = select(CampaignEvent).where(
        CampaignEvent.campaign_id == campaign_id,
        CampaignEvent.subject == subject,
        CampaignEvent.type.like(type_like),
        visible_to(viewer),
    )
    if before is not None:
        query = query.where(CampaignEvent.seq < before)
    return (await session.scalars(query.order_by(CampaignEvent.seq.desc()).limit(limit))).all()
