"""Table talk and knowledge in the campaign document: chat messages with their recipients and
the members' read marks, handouts with their readers and image, journal notes and quests
with their readers, and what the heroes know of the bestiary (``known_fact``).

Every row is named by a ref (its position, from 1), as the rest of the document
(:mod:`app.core.transfer`); users, characters and bestiary entries by their refs. An import
names no account: messages keep their author's name, and what a person was given (whispers,
readers, read marks, their own facts) waits in their imported part (``Grants``).
A document without a ``talk`` part (written before it existed) imports with none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from app.core.queries import all_rows
from app.core.transfer import Document, GrantedFact, Grants, IdMaps, Import
from app.encounters.models import BestiaryEntry
from app.events.audience import Audience
from app.events.models import CampaignEvent
from app.knowledge.models import KnownFact
from app.limits import INT_MAX, Int32
from app.media.transfer import ImageDoc, image_document, image_row
from app.talk.models import (
    ChatMessage,
    ChatRead,
    ChatRecipient,
    Handout,
    HandoutImage,
    HandoutReader,
    JournalNote,
    JournalReader,
)


class _Doc(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MessageDoc(_Doc):
    ref: Int32
    seq: int = Field(ge=0, le=INT_MAX)
    author: Int32 | None
    author_name: str = Field(max_length=32)
    kind: str = Field(pattern="^(ooc|ic|emote|roll)$")
    text: str
    speaker: str | None = Field(max_length=100)
    character: Int32 | None
    visibility: str = Field(pattern="^(public|self|listed)$")
    to_gm: bool
    roll: dict[str, object] | None
    created_at: datetime
    edited_at: datetime | None
    deleted_at: datetime | None
    recipients: list[Int32]


class ReadDoc(_Doc):
    user: Int32
    last_seq: int = Field(ge=0, le=INT_MAX)


class HandoutDoc(_Doc):
    ref: Int32
    title: str = Field(min_length=1, max_length=200)
    body: str
    shown_to_all: bool
    shown_seq: int = Field(ge=0, le=INT_MAX)
    created_at: datetime
    readers: list[Int32]
    image: ImageDoc | None


class NoteDoc(_Doc):
    ref: Int32
    author: Int32 | None
    author_name: str = Field(max_length=32)
    title: str = Field(min_length=1, max_length=200)
    body: str
    sharing: str = Field(pattern="^(private|group|listed)$")
    quest: str | None = Field(pattern="^(open|done|failed)$")
    created_at: datetime
    updated_at: datetime
    readers: list[Int32]


class FactDoc(_Doc):
    ref: Int32
    entry: Int32
    fact: str = Field(min_length=1, max_length=80)
    user: Int32 | None
    text: str | None
    pending: bool
    seq: int = Field(ge=0, le=INT_MAX)
    created_at: datetime


class TalkDoc(_Doc):
    messages: list[MessageDoc] = Field(default_factory=list)
    reads: list[ReadDoc] = Field(default_factory=list)
    handouts: list[HandoutDoc] = Field(default_factory=list)
    notes: list[NoteDoc] = Field(default_factory=list)
    facts: list[FactDoc] = Field(default_factory=list)


class _Rows:
    """The campaign's talk rows, loaded once for the export."""

    def __init__(self) -> None:
        self.messages: list[ChatMessage] = []
        self.recipients: dict[int, list[int]] = {}
        self.reads: list[ChatRead] = []
        self.handouts: list[Handout] = []
        self.handout_readers: dict[int, list[int]] = {}
        self.images: dict[int, HandoutImage] = {}
        self.notes: list[JournalNote] = []
        self.note_readers: dict[int, list[int]] = {}
        self.facts: list[KnownFact] = []

    def number(self, maps: IdMaps) -> None:
        number(self, maps)

    async def write(self, maps: IdMaps) -> dict[str, object]:
        return {"talk": export(self, maps)}

    def user_ids(self) -> set[int]:
        ids = {m.author_id for m in self.messages} | {n.author_id for n in self.notes}
        ids |= {r.user_id for r in self.reads} | {f.user_id for f in self.facts}
        for group in (self.recipients, self.handout_readers, self.note_readers):
            ids |= {u for users in group.values() for u in users}
        return {i for i in ids if i is not None}


async def _given_to(
    session: AsyncSession,
    key: InstrumentedAttribute[int],
    user_id: InstrumentedAttribute[int],
    ids: list[int],
) -> dict[int, list[int]]:
    """The members each row of ``ids`` is given to (a whisper's recipients, a handout's or a
    note's readers), in the order of their ids."""
    given: dict[int, list[int]] = {}
    for row_id, uid in await session.execute(
        select(key, user_id).where(key.in_(ids)).order_by(user_id)
    ):
        given.setdefault(row_id, []).append(uid)
    return given


async def load(session: AsyncSession, campaign_id: int, exporter_id: int) -> _Rows:
    """The rows to export. Private journal notes are their author's alone (not even the
    GMs read them): only the exporter's own go into the document."""
    rows = _Rows()

    rows.messages = await all_rows(
        session,
        select(ChatMessage).where(ChatMessage.campaign_id == campaign_id).order_by(ChatMessage.id),
    )
    rows.recipients = await _given_to(
        session, ChatRecipient.message_id, ChatRecipient.user_id, [m.id for m in rows.messages]
    )
    rows.reads = await all_rows(
        session,
        select(ChatRead).where(ChatRead.campaign_id == campaign_id).order_by(ChatRead.user_id),
    )
    rows.handouts = await all_rows(
        session, select(Handout).where(Handout.campaign_id == campaign_id).order_by(Handout.id)
    )
    ids = [h.id for h in rows.handouts]
    rows.handout_readers = await _given_to(
        session, HandoutReader.handout_id, HandoutReader.user_id, ids
    )
    images = await all_rows(session, select(HandoutImage).where(HandoutImage.handout_id.in_(ids)))
    rows.images = {i.handout_id: i for i in images}
    rows.notes = await all_rows(
        session,
        select(JournalNote)
        .where(
            JournalNote.campaign_id == campaign_id,
            (JournalNote.sharing != "private") | (JournalNote.author_id == exporter_id),
        )
        .order_by(JournalNote.id),
    )
    rows.note_readers = await _given_to(
        session, JournalReader.note_id, JournalReader.user_id, [n.id for n in rows.notes]
    )
    rows.facts = await all_rows(
        session,
        select(KnownFact).where(KnownFact.campaign_id == campaign_id).order_by(KnownFact.id),
    )
    return rows


def number(rows: _Rows, maps: IdMaps) -> None:
    """Refs for the talk rows (before the log is renumbered: its payloads name them)."""
    for kind, ids in (
        ("message", [m.id for m in rows.messages]),
        ("handout", [h.id for h in rows.handouts]),
        ("note", [n.id for n in rows.notes]),
        ("fact", [f.id for f in rows.facts]),
    ):
        maps.by_kind[kind] = {old: ref for ref, old in enumerate(ids, start=1)}


def _users(maps: IdMaps, ids: list[int]) -> list[int]:
    return [r for r in (maps.id("user", i) for i in ids) if r is not None]


def export(rows: _Rows, maps: IdMaps) -> dict[str, object]:
    return {
        "messages": [
            {
                "ref": maps.id("message", m.id), "seq": m.seq,
                "author": maps.id("user", m.author_id), "author_name": m.author_name,
                "kind": m.kind, "text": m.text, "speaker": m.speaker,
                "character": maps.id("character", m.character_id),
                "visibility": m.visibility, "to_gm": m.to_gm, "roll": m.roll,
                "created_at": m.created_at.isoformat(),
                "edited_at": m.edited_at.isoformat() if m.edited_at else None,
                "deleted_at": m.deleted_at.isoformat() if m.deleted_at else None,
                "recipients": _users(maps, rows.recipients.get(m.id, [])),
            }
            for m in rows.messages
        ],
        "reads": [
            {"user": maps.id("user", r.user_id), "last_seq": r.last_seq}
            for r in rows.reads
            if maps.id("user", r.user_id) is not None
        ],
        "handouts": [_handout(h, rows, maps) for h in rows.handouts],
        "notes": [
            {
                "ref": maps.id("note", n.id), "author": maps.id("user", n.author_id),
                "author_name": n.author_name, "title": n.title, "body": n.body,
                "sharing": n.sharing, "quest": n.quest,
                "created_at": n.created_at.isoformat(), "updated_at": n.updated_at.isoformat(),
                "readers": _users(maps, rows.note_readers.get(n.id, [])),
            }
            for n in rows.notes
        ],
        "facts": [
            {
                "ref": maps.id("fact", f.id), "entry": maps.id("bestiary", f.entry_id),
                "fact": f.fact, "user": maps.id("user", f.user_id), "text": f.text,
                "pending": f.pending, "seq": f.seq, "created_at": f.created_at.isoformat(),
            }
            for f in rows.facts
        ],
    }  # fmt: skip


def _handout(h: Handout, rows: _Rows, maps: IdMaps) -> dict[str, object]:
    image = rows.images.get(h.id)
    return {
        "ref": maps.id("handout", h.id),
        "title": h.title,
        "body": h.body,
        "shown_to_all": h.shown_to_all,
        "shown_seq": h.shown_seq,
        "created_at": h.created_at.isoformat(),
        "readers": _users(maps, rows.handout_readers.get(h.id, [])),
        "image": image_document(image),
    }


async def _add(
    session: AsyncSession, rows: list[Any], maps: IdMaps, kind: str, refs: list[int]
) -> None:
    session.add_all(rows)
    await session.flush()
    maps.by_kind[kind] |= {ref: row.id for ref, row in zip(refs, rows, strict=True)}


def _grants(people: dict[int, Grants], ref: int) -> Grants:
    return people.setdefault(
        ref, {"messages": [], "handouts": [], "notes": [], "read": None, "facts": []}
    )


def _give(
    people: dict[int, Grants],
    kind: Literal["messages", "handouts", "notes"],
    rows: Sequence[ChatMessage | Handout | JournalNote],
    readers: list[list[int]],
) -> None:
    """Each new row to the people its document gave it to (a whisper's recipients, a
    handout's or a note's readers), under ``kind`` of their grants."""
    for row, refs in zip(rows, readers, strict=True):
        for ref in set(refs):
            _grants(people, ref)[kind].append(row.id)


async def import_talk(
    session: AsyncSession, campaign_id: int, doc: TalkDoc, maps: IdMaps, authors: dict[int, int]
) -> dict[int, Grants]:
    """The talk rows of ``doc`` for the new campaign (before the log: its payloads name them).
    Messages keep their author's name only (no account); journal notes are their author's
    by ``authors`` (user ref → the importer, for the document's GM), else the name only.
    What the document gave each person comes back by user ref, for their part."""
    people: dict[int, Grants] = {}
    messages = [
        ChatMessage(
            campaign_id=campaign_id, seq=m.seq, author_id=None, author_name=m.author_name,
            kind=m.kind, text=m.text, speaker=m.speaker,
            character_id=maps.id("character", m.character), visibility=m.visibility,
            to_gm=m.to_gm, roll=m.roll, created_at=m.created_at, edited_at=m.edited_at,
            deleted_at=m.deleted_at,
        )
        for m in doc.messages
    ]  # fmt: skip
    await _add(session, messages, maps, "message", [m.ref for m in doc.messages])
    _give(people, "messages", messages, [m.recipients for m in doc.messages])
    for r in doc.reads:
        _grants(people, r.user)["read"] = r.last_seq
    await _import_handouts(session, campaign_id, doc.handouts, maps, people)
    await _import_notes(session, campaign_id, doc.notes, maps, authors, people)
    shared = [f for f in doc.facts if maps.id("bestiary", f.entry) is not None]
    facts = [
        KnownFact(
            campaign_id=campaign_id, entry_id=maps.id("bestiary", f.entry), fact=f.fact,
            user_id=None, text=f.text, pending=f.pending, seq=f.seq, created_at=f.created_at,
        )
        for f in shared
        if f.user is None
    ]  # fmt: skip
    await _add(session, facts, maps, "fact", [f.ref for f in shared if f.user is None])
    for f in shared:
        if f.user is not None:
            _grants(people, f.user)["facts"].append(
                {"entry_id": maps.id("bestiary", f.entry), "fact": f.fact, "text": f.text,
                 "pending": f.pending, "seq": f.seq, "created_at": f.created_at.isoformat()}
            )  # fmt: skip
    return people


def export_grants(
    talk: Mapping[str, list[dict[str, object]]], maps: IdMaps, ref: int, given: Grants
) -> None:
    """What an imported part was given, written into the exported ``talk`` (its parts: lists
    of rows) for the part's user ``ref`` (the inverse of :func:`import_talk`'s collecting)."""
    if not given:
        return
    for part, kind, ids in (
        ("messages", "message", given["messages"]),
        ("handouts", "handout", given["handouts"]),
        ("notes", "note", given["notes"]),
    ):
        refs = {maps.id(kind, i) for i in ids}
        for row in talk[part]:
            if row["ref"] in refs:
                listed = row["recipients" if part == "messages" else "readers"]
                assert isinstance(listed, list)
                listed.append(ref)
    if given["read"] is not None:
        talk["reads"].append({"user": ref, "last_seq": given["read"]})
    for fact in given["facts"]:
        entry = maps.id("bestiary", fact["entry_id"])
        if entry is not None:
            talk["facts"].append(
                {"ref": len(talk["facts"]) + 1, "entry": entry, "fact": fact["fact"],
                 "user": ref, "text": fact["text"], "pending": fact["pending"],
                 "seq": fact["seq"], "created_at": fact["created_at"]}
            )  # fmt: skip


async def grant(session: AsyncSession, campaign_id: int, user_id: int, given: Grants) -> None:
    """Give ``user_id`` what a person of the document was given (see ``Grants``): of the
    rows still there, what they do not have yet (one person may take over several parts)."""
    for link, key, owner, ids in (
        (ChatRecipient, ChatRecipient.message_id, ChatMessage, given["messages"]),
        (HandoutReader, HandoutReader.handout_id, Handout, given["handouts"]),
        (JournalReader, JournalReader.note_id, JournalNote, given["notes"]),
    ):
        for row_id in await _not_linked(session, campaign_id, user_id, link, key, owner, ids):
            session.add(link(**{key.key: row_id, "user_id": user_id}))
    await _hear_whispers(session, campaign_id, user_id, given["messages"])
    if given["read"] is not None:
        mark = await session.get(ChatRead, (campaign_id, user_id))
        if mark is None:
            session.add(ChatRead(campaign_id=campaign_id, user_id=user_id, last_seq=given["read"]))
        else:
            mark.last_seq = max(mark.last_seq, given["read"])
    await _grant_facts(session, campaign_id, user_id, given["facts"])
    await session.flush()


async def _hear_whispers(
    session: AsyncSession, campaign_id: int, user_id: int, message_ids: list[int]
) -> None:
    """The whispers the part received reach its new holder: the chat reads a message through
    its event's audience, so ``user_id`` joins the readers of each one's ``chat_message``."""
    if not message_ids:
        return
    seqs = select(ChatMessage.seq).where(
        ChatMessage.id.in_(message_ids), ChatMessage.campaign_id == campaign_id
    )
    events = await session.scalars(
        select(CampaignEvent).where(
            CampaignEvent.campaign_id == campaign_id,
            CampaignEvent.seq.in_(seqs),
            CampaignEvent.type == "chat_message",
        )
    )
    for event in events:
        event.audience = Audience.from_json(event.audience).read_by(user_id).to_json()


async def _not_linked(
    session: AsyncSession,
    campaign_id: int,
    user_id: int,
    link: Any,
    key: Any,
    owner: Any,
    ids: list[int],
) -> list[int]:
    """Those of ``ids`` whose ``owner`` rows the campaign still has and ``user_id`` has no
    ``link`` to yet."""
    if not ids:
        return []
    there = await session.scalars(
        select(owner.id).where(owner.id.in_(ids), owner.campaign_id == campaign_id)
    )
    linked = await session.scalars(select(key).where(key.in_(ids), link.user_id == user_id))
    return sorted(set(there.all()) - set(linked.all()))


async def _grant_facts(
    session: AsyncSession, campaign_id: int, user_id: int, facts: list[GrantedFact]
) -> None:
    if not facts:
        return
    entries = set(
        (
            await session.scalars(
                select(BestiaryEntry.id).where(BestiaryEntry.campaign_id == campaign_id)
            )
        ).all()
    )
    known = set(
        (
            await session.execute(
                select(KnownFact.entry_id, KnownFact.fact).where(
                    KnownFact.campaign_id == campaign_id, KnownFact.user_id == user_id
                )
            )
        ).all()
    )
    session.add_all(
        KnownFact(
            campaign_id=campaign_id, entry_id=f["entry_id"], fact=f["fact"], user_id=user_id,
            text=f["text"], pending=f["pending"], seq=f["seq"],
            created_at=datetime.fromisoformat(f["created_at"]),
        )
        for f in facts
        if f["entry_id"] in entries and (f["entry_id"], f["fact"]) not in known
    )  # fmt: skip


async def _import_handouts(
    session: AsyncSession,
    campaign_id: int,
    docs: list[HandoutDoc],
    maps: IdMaps,
    people: dict[int, Grants],
) -> None:
    rows = [
        Handout(
            campaign_id=campaign_id, title=h.title, body=h.body, shown_to_all=h.shown_to_all,
            shown_seq=h.shown_seq, created_at=h.created_at,
        )
        for h in docs
    ]  # fmt: skip
    await _add(session, rows, maps, "handout", [h.ref for h in docs])
    _give(people, "handouts", rows, [h.readers for h in docs])
    for row, h in zip(rows, docs, strict=True):
        if h.image is not None:
            session.add(image_row(HandoutImage, h.image, handout_id=row.id))


async def _import_notes(
    session: AsyncSession,
    campaign_id: int,
    docs: list[NoteDoc],
    maps: IdMaps,
    authors: dict[int, int],
    people: dict[int, Grants],
) -> None:
    rows = [
        JournalNote(
            campaign_id=campaign_id,
            author_id=None if n.author is None else authors.get(n.author),
            author_name=n.author_name, title=n.title, body=n.body, sharing=n.sharing,
            quest=n.quest, created_at=n.created_at, updated_at=n.updated_at,
        )
        for n in docs
    ]  # fmt: skip
    await _add(session, rows, maps, "note", [n.ref for n in docs])
    _give(people, "notes", rows, [n.readers for n in docs])
    await session.flush()


class TalkPartDoc(_Doc):
    """The document's fields of this part (a document written before it: none)."""

    talk: TalkDoc = Field(default_factory=TalkDoc)


class TalkPart:
    """Table talk and knowledge (before the log on import: its payloads name the rows)."""

    tables: Mapping[str, str] = {
        "chat_message": "talk.messages",
        "chat_read": "talk.reads",
        "handout": "talk.handouts",
        "journal_note": "talk.notes",
        "known_fact": "talk.facts",
    }
    model = TalkPartDoc

    async def load(self, session: AsyncSession, campaign_id: int, exporter_id: int) -> _Rows:
        return await load(session, campaign_id, exporter_id)

    def check(self, document: Document) -> None:
        """Nothing beyond the document model's own validation of this part."""

    async def import_(self, into: Import) -> None:
        """The talk rows; what the document's GM was given is the importer's at once, what
        everyone else was given waits in their part (``into.given``)."""
        gm = into.gm_ref
        doc = into.document.part(TalkPartDoc).talk
        authors = {} if gm is None else {gm: into.importer_id}
        given = await import_talk(into.session, into.campaign_id, doc, into.maps, authors)
        if gm is not None and gm in given:
            await grant(into.session, into.campaign_id, into.importer_id, given[gm])
        into.given.update(given)


PART = TalkPart()
