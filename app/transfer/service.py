"""Export a whole campaign as one JSON document, and import such a document as a new campaign.

The document (format ``tafelrunde-campaign``, version 1; docs/transfer.md) holds the campaign
and its settings, the people it names (by user name, with their role), characters, items
(carried and the library), the bestiary, encounters with their participants and combat state,
the whole event log, table talk, battle maps, game sessions and the fair-play rule, and
names what it leaves out (``not_exported``). Rows are named by refs, not database ids (see
:mod:`app.transfer.refs`).

An import creates a new campaign whose GM and only member is the importer. No name in the
document is matched to an account: authors in the log and the chat stay names, the
document's GM's part (sheets, own notes) is the importer's, and everyone else becomes an
imported part (:mod:`app.transfer.parts`) the GM hands over by a takeover link. The log is
imported as it is (same seqs, types, payloads and times): the import appends no event.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import date, datetime
from typing import Any, TypedDict, TypeVar

from babel.dates import format_skeleton
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app import limits
from app.accounts.models import User
from app.campaigns.models import Campaign, Invite, Membership
from app.campaigns.permissions import Action, authorize
from app.campaigns.settings import validate_settings
from app.characters.models import Character, Item
from app.core.systems import RuleSystem
from app.core.viewer import Role
from app.db import utcnow
from app.encounters import undo
from app.encounters.models import BestiaryEntry, Encounter, Participant
from app.encounters.state import StateError, read_state
from app.errors import AppError, ValidationFailed
from app.events.audience import Audience, chosen
from app.events.models import CampaignEvent
from app.events.payload import EVENT_TYPES, EventPayload
from app.i18n import N_, _, get_locale
from app.limits import INT_MAX, Int32
from app.transfer import fairplay, parts, talk
from app.transfer import maps as scenes
from app.transfer.maps import SceneDoc
from app.transfer.refs import IdMaps, remap
from app.transfer.talk import TalkDoc

FORMAT = "tafelrunde-campaign"
VERSION = 1
#: The largest import document accepted, in bytes (see docs/security.md, "Campaign export").
MAX_IMPORT_BYTES = 16 * 1024 * 1024
#: The deepest nesting an import document may have (arrays and objects; an export of ours
#: stays far below it). Deeper documents are refused before any recursive work on them.
DOCUMENT_DEPTH_MAX = 32


#: A campaign's name, at most (``CampaignDoc.name``, the settings form).
NAME_MAX = 100


class TooLarge(AppError):
    status_code = 413


def check_size(size: int) -> None:
    if size > MAX_IMPORT_BYTES:
        raise TooLarge(
            _("A campaign document may have at most %(mib)d MiB.", mib=MAX_IMPORT_BYTES >> 20)
        )


def read_document(body: bytes) -> CampaignDocument:
    """Parse and check a document (CPU work: the routes run it in a worker thread)."""
    check_size(len(body))
    try:
        raw = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise ValidationFailed({"document": _("This is not a JSON document.")}) from None
    except RecursionError:
        raise _too_deep() from None
    if _depth_exceeds(raw, DOCUMENT_DEPTH_MAX):
        raise _too_deep()
    return parse_document(raw)


def _too_deep() -> ValidationFailed:
    return ValidationFailed(
        {
            "document": _(
                "The document is nested more than %(max)d levels deep.", max=DOCUMENT_DEPTH_MAX
            )
        }
    )


def _depth_exceeds(value: object, limit: int) -> bool:
    """Whether ``value`` nests arrays and objects more than ``limit`` levels deep (walked
    without recursion, so any depth json accepted is measured safely)."""
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            if depth >= limit:
                return True
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children)
    return False


class _Doc(BaseModel):
    model_config = ConfigDict(extra="forbid")


class UserDoc(_Doc):
    ref: Int32
    username: str = Field(min_length=1, max_length=32)
    role: Role | None


class CampaignDoc(_Doc):
    name: str = Field(min_length=1, max_length=100)
    system: RuleSystem
    settings: dict[str, Any]


class CharacterDoc(_Doc):
    ref: Int32
    owner: Int32 | None
    name: str = Field(min_length=1, max_length=100)
    kind: str = Field(pattern="^(pc|npc)$")
    hidden_from_players: bool
    archived_at: datetime | None
    data: dict[str, Any]


class ItemDoc(_Doc):
    ref: Int32
    character: Int32 | None
    in_library: bool
    name: str = Field(min_length=1, max_length=100)
    description: str
    quantity: Int32
    price: Int32 | None
    fields: dict[str, Any]
    slot: str | None = Field(max_length=20)
    equipped: bool
    container: str | None = Field(max_length=20)


class BestiaryDoc(_Doc):
    ref: Int32
    system: RuleSystem
    name: str = Field(min_length=1, max_length=100)
    data: dict[str, Any]
    sample: bool


class ParticipantDoc(_Doc):
    ref: Int32
    character: Int32 | None
    bestiary_entry: Int32 | None
    name: str = Field(min_length=1, max_length=100)
    side: str = Field(max_length=12)
    hidden: bool
    stats: dict[str, Any]
    position: Int32


class EncounterDoc(_Doc):
    ref: Int32
    name: str = Field(min_length=1, max_length=100)
    notes: str
    status: str = Field(pattern="^(prepared|running|ended)$")
    settings: dict[str, Any]
    state: dict[str, Any]
    history: list[Any]
    participants: list[ParticipantDoc]


class EventDoc(_Doc):
    seq: int = Field(ge=1, le=INT_MAX)
    type: str
    actor: Int32 | None
    visibility: str
    audience: Int32 | None
    payload: dict[str, Any]
    created_at: datetime
    #: The event's fair-play record as stored (original ids: the dice were derived from them).
    fairplay: dict[str, Any] | None = None


class NotExportedDoc(_Doc):
    table: str = Field(max_length=64)
    reason: str = Field(max_length=500)


class CampaignDocument(_Doc):
    format: str = Field(pattern=f"^{FORMAT}$")
    version: int = Field(ge=VERSION, le=VERSION)
    campaign: CampaignDoc
    users: list[UserDoc]
    characters: list[CharacterDoc]
    items: list[ItemDoc]
    bestiary: list[BestiaryDoc]
    encounters: list[EncounterDoc]
    events: list[EventDoc]
    talk: TalkDoc = Field(default_factory=TalkDoc)
    scenes: list[SceneDoc] = Field(default_factory=list, max_length=limits.SCENES_PER_CAMPAIGN)
    game_sessions: list[dict[str, Any]] = Field(
        default_factory=list, max_length=limits.SESSIONS_PER_CAMPAIGN
    )
    fairplay_rule: dict[str, Any] | None = None
    #: What the export leaves out and why (informative; an import ignores it).
    not_exported: list[NotExportedDoc] = Field(default_factory=list, max_length=100)


#: Every table with a ``campaign_id``: where the document carries its rows …
EXPORTED_TABLES = {
    "campaign_event": "events",
    "character": "characters",
    "item": "items",
    "bestiary_entry": "bestiary",
    "encounter": "encounters",
    "chat_message": "talk.messages",
    "chat_read": "talk.reads",
    "handout": "talk.handouts",
    "journal_note": "talk.notes",
    "known_fact": "talk.facts",
    "map_scene": "scenes",
    "game_session": "game_sessions",
    "fairplay_rule": "fairplay_rule",
}
#: … or why it does not (the document lists these as ``not_exported``).
NOT_EXPORTED = {
    "membership": N_(
        "Members are accounts of this server. An import makes the importer its only member; "
        "everyone else the file names becomes an imported part the GM can hand over."
    ),
    "invite": N_("Invite codes are secrets of this server; the copy gets a fresh invite."),
    "imported_part": N_(
        "Imported parts not yet handed over travel as the people they stand for (users); "
        "every import makes its parts anew from those."
    ),
    "session_client_seed": N_(
        "Client seeds belong to members; every die's seed travels in its event's fair-play record."
    ),
    # Tables of branches merged alongside (listed ahead, so that the merge keeps the
    # completeness test green; harmless where a table does not exist yet).
    "api_token": N_("API tokens are credentials of this server's accounts."),
    "webhook": N_("Webhook addresses and secrets are credentials; set them up again."),
    "journal_note (private)": N_(
        "Players' private journal notes are theirs alone; only the exporter's own travel."
    ),
}


T = TypeVar("T")


async def _rows(session: AsyncSession, model: type[T], *where: Any, order: Any) -> list[T]:
    return list((await session.scalars(select(model).where(*where).order_by(order))).all())


def _number(maps: IdMaps, kind: str, ids: Sequence[int]) -> None:
    maps.by_kind[kind] = {old: ref for ref, old in enumerate(ids, start=1)}


async def _users(
    session: AsyncSession,
    campaign_id: int,
    characters: list[Character],
    events: list[Any],
    extra: set[int],
) -> list[tuple[int, str, str | None]]:
    """(id, name, role or None) of every member and every user the sheets or the log name."""
    roles = dict(
        (
            await session.execute(
                select(Membership.user_id, Membership.role).where(
                    Membership.campaign_id == campaign_id
                )
            )
        ).all()
    )
    named = {c.owner_id for c in characters} | {e.actor_id for e in events}
    named |= {_only_reader(e) for e in events} | extra
    ids = sorted(set(roles) | {i for i in named if i is not None})
    names = dict(
        (await session.execute(select(User.id, User.username).where(User.id.in_(ids)))).all()
    )
    return [(i, names[i], roles.get(i)) for i in ids if i in names]


async def export_campaign(session: AsyncSession, user: User, campaign_id: int) -> dict[str, Any]:
    campaign, _viewer = await authorize(
        session, campaign_id, user.id, user.username, Action.export_campaign
    )
    characters = await _rows(
        session, Character, Character.campaign_id == campaign_id, order=Character.id
    )
    items = await _rows(session, Item, Item.campaign_id == campaign_id, order=Item.id)
    bestiary = await _rows(
        session, BestiaryEntry, BestiaryEntry.campaign_id == campaign_id, order=BestiaryEntry.id
    )
    encounters = await _rows(
        session, Encounter, Encounter.campaign_id == campaign_id, order=Encounter.id
    )
    participants = await _rows(
        session,
        Participant,
        Participant.encounter_id.in_([e.id for e in encounters]),
        order=Participant.id,
    )
    histories = await undo.entries(session, [e.id for e in encounters])
    events = await _rows(
        session, CampaignEvent, CampaignEvent.campaign_id == campaign_id, order=CampaignEvent.seq
    )
    talk_rows = await talk.load(session, campaign_id, user.id)
    users = await _users(session, campaign_id, characters, events, talk_rows.user_ids())
    maps = IdMaps()
    _number(maps, "user", [u[0] for u in users])
    _number(maps, "character", [c.id for c in characters])
    _number(maps, "item", [i.id for i in items])
    _number(maps, "bestiary", [b.id for b in bestiary])
    _number(maps, "encounter", [e.id for e in encounters])
    _number(maps, "participant", [p.id for p in participants])
    talk.number(talk_rows, maps)
    scene_rows = await scenes.load(session, campaign_id)
    scenes.number(scene_rows, maps)
    # The log is the unbounded part: renumbered in a worker thread, off the event loop.
    event_docs = await asyncio.to_thread(lambda: [_event_doc(e, maps) for e in events])
    document = {
        "format": FORMAT,
        "version": VERSION,
        "campaign": {
            "name": campaign.name,
            "system": campaign.system,
            "settings": campaign.settings,
        },
        "users": [
            {"ref": maps.id("user", i), "username": name, "role": role} for i, name, role in users
        ],
        "characters": [_character_doc(c, maps) for c in characters],
        "items": [_item_doc(i, maps) for i in items],
        "bestiary": [
            {"ref": maps.id("bestiary", b.id), "system": b.system, "name": b.name}
            | {"data": b.data, "sample": b.sample}
            for b in bestiary
        ],
        "encounters": [_encounter_doc(e, histories[e.id], participants, maps) for e in encounters],
        "events": event_docs,
        "talk": talk.export(talk_rows, maps),
        "scenes": scenes.export(scene_rows, maps),
        **await fairplay.export(session, campaign_id, events),
        "not_exported": [
            {"table": table, "reason": _(reason)} for table, reason in NOT_EXPORTED.items()
        ],
    }
    await parts.export_parts(session, campaign_id, document, maps)
    return document


class CharacterExport(TypedDict):
    """A character as the document holds it (read back as :class:`CharacterDoc`); its
    ``data`` is JSON with the ids renumbered, like the other documents' JSON parts."""

    ref: int | None
    owner: int | None
    name: str
    kind: str
    hidden_from_players: bool
    archived_at: str | None
    data: object


class ItemExport(TypedDict):
    """An item as the document holds it (read back as :class:`ItemDoc`)."""

    ref: int | None
    character: int | None
    in_library: bool
    name: str
    description: str
    quantity: int
    price: int | None
    fields: object
    slot: str | None
    equipped: bool
    container: str | None


class ParticipantExport(TypedDict):
    """A participant as the document holds it (read back as :class:`ParticipantDoc`)."""

    ref: int | None
    character: int | None
    bestiary_entry: int | None
    name: str
    side: str
    hidden: bool
    stats: object
    position: int


class EncounterExport(TypedDict):
    """An encounter as the document holds it (read back as :class:`EncounterDoc`)."""

    ref: int | None
    name: str
    notes: str
    status: str
    settings: Mapping[str, object]
    state: object
    history: object
    participants: list[ParticipantExport]


class EventExport(TypedDict):
    """A log event as the document holds it (read back as :class:`EventDoc`)."""

    seq: int
    type: str
    actor: int | None
    visibility: str
    audience: int | None
    payload: object
    created_at: str
    fairplay: Mapping[str, object] | None


def _character_doc(c: Character, maps: IdMaps) -> CharacterExport:
    return {
        "ref": maps.id("character", c.id),
        "owner": maps.id("user", c.owner_id),
        "name": c.name,
        "kind": c.kind,
        "hidden_from_players": c.hidden_from_players,
        "archived_at": c.archived_at.isoformat() if c.archived_at else None,
        "data": remap(c.data, maps, pids=False),
    }


def _item_doc(i: Item, maps: IdMaps) -> ItemExport:
    return {
        "ref": maps.id("item", i.id),
        "character": maps.id("character", i.character_id),
        "in_library": i.in_library,
        "name": i.name,
        "description": i.description,
        "quantity": i.quantity,
        "price": i.price,
        "fields": remap(i.fields, maps, pids=False),
        "slot": i.slot,
        "equipped": i.equipped,
        "container": i.container,
    }


def _encounter_doc(
    e: Encounter, history: list[undo.Entry], participants: list[Participant], maps: IdMaps
) -> EncounterExport:
    """An encounter with its participants and its undo steps (``history``, oldest first)."""
    return {
        "ref": maps.id("encounter", e.id),
        "name": e.name,
        "notes": e.notes,
        "status": e.status,
        "settings": e.settings,
        "state": remap(e.state, maps, pids=True),
        "history": remap(history, maps, pids=True),
        "participants": [
            {
                "ref": maps.id("participant", p.id),
                "character": maps.id("character", p.character_id),
                "bestiary_entry": maps.id("bestiary", p.bestiary_entry_id),
                "name": p.name,
                "side": p.side,
                "hidden": p.hidden,
                "stats": remap(p.stats, maps, pids=True),
                "position": p.position,
            }
            for p in participants
            if p.encounter_id == e.id
        ],
    }


#: The document's payload keys for what the log keeps in the event's audience: the parties
#: withheld from players and the form players get instead of a map event.
WITHHELD_KEY = "withheld_parties"
PLAYER_FORM_KEY = "player_form"


def _only_reader(e: CampaignEvent) -> int | None:
    """The one user a ``self`` event is for (the document's ``audience``)."""
    readers = Audience.from_json(e.audience).readers
    return next(iter(readers)) if e.visibility == "self" and readers else None


def _event_doc(e: CampaignEvent, maps: IdMaps) -> EventExport:
    heard = Audience.from_json(e.audience)
    payload = dict(e.payload)
    if heard.withheld:
        payload[WITHHELD_KEY] = list(heard.withheld)
    if heard.party_form is not None:
        payload[PLAYER_FORM_KEY] = dict(heard.party_form)
    return {
        "seq": e.seq,
        "type": e.type,
        "actor": maps.id("user", e.actor_id),
        "visibility": e.visibility,
        "audience": maps.id("user", _only_reader(e)),
        "payload": remap(payload, maps, pids=e.type == "combat"),
        "created_at": e.created_at.isoformat(),
        "fairplay": e.fairplay,
    }


def encode_document(document: dict[str, Any]) -> bytes:
    """The document as compact UTF-8 JSON (CPU work: the routes run it in a worker thread)."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()


def parse_document(raw: object) -> CampaignDocument:
    """The document checked field by field (422 naming the first wrong fields)."""
    try:
        doc = CampaignDocument.model_validate(raw)
    except ValidationError as exc:
        raise ValidationFailed(
            {
                ".".join(str(p) for p in err["loc"]) or "document": err["msg"]
                for err in exc.errors()[:10]
            }
        ) from None
    _check_events(doc.events)
    fairplay.check(doc.game_sessions, doc.fairplay_rule)
    return doc


def _check_events(events: list[EventDoc]) -> None:
    seqs = [e.seq for e in events]
    if seqs != sorted(set(seqs)):
        raise ValidationFailed({"events": _("The log's seqs must be distinct and ascending.")})
    for n, event in enumerate(events):
        cls = EVENT_TYPES.get(event.type)
        if cls is None or event.visibility not in cls.VISIBILITIES:
            raise ValidationFailed({f"events.{n}": _("Unknown event type or visibility.")})
        try:
            cls.from_json(event.payload)
            _check_player_form(event.payload.get(PLAYER_FORM_KEY))
        except TypeError:
            raise ValidationFailed(
                {f"events.{n}.payload": _("Not a payload of this type.")}
            ) from None


def _check_player_form(form: object) -> None:
    """A map event's player form (``PLAYER_FORM_KEY``) is itself a payload of a known type."""
    if form is None:
        return
    if not isinstance(form, dict) or form.get("type") not in EVENT_TYPES:
        raise TypeError("not a player form")
    EVENT_TYPES[form["type"]].from_json({"actor_name": "", **form})


async def import_campaign(session: AsyncSession, user: User, doc: CampaignDocument) -> Campaign:
    """A new campaign from ``doc``, owned by ``user`` (see the module's docstring)."""
    known, errors = validate_settings(doc.campaign.system, doc.campaign.settings)
    if errors:
        raise ValidationFailed({f"campaign.settings.{k}": v for k, v in errors.items()})
    # The options as stored (absent ones keep meaning "the default"), unknown keys dropped.
    settings = {k: v for k, v in doc.campaign.settings.items() if k in known}
    campaign = Campaign(
        name=copy_name(doc.campaign.name, utcnow().date()),
        system=doc.campaign.system,
        settings=settings,
    )
    session.add(campaign)
    await session.flush()
    session.add(Membership(campaign_id=campaign.id, user_id=user.id, role=Role.gm))
    session.add(Invite(campaign_id=campaign.id, code=secrets.token_urlsafe(9), role=Role.player))
    maps = IdMaps()
    await _import_characters(session, user, campaign.id, doc.characters, maps)
    await _import_items(session, campaign.id, doc.items, maps)
    await _import_bestiary(session, campaign.id, doc.bestiary, maps)
    await _import_encounters(session, campaign.id, doc.encounters, maps)
    await _import_people(session, user, campaign.id, doc, maps)
    await scenes.import_scenes(session, campaign.id, doc.scenes, maps)
    payloads = await asyncio.to_thread(_imported_payloads, doc.events, maps)
    for event, (payload, raw) in zip(doc.events, payloads, strict=True):
        session.add(
            CampaignEvent(
                campaign_id=campaign.id,
                seq=event.seq,
                type=event.type,
                subject=payload.subject,
                actor_id=maps.id("user", event.actor),
                audience=_audience(event, payload, raw, maps).to_json(),
                payload=payload.to_json(),
                created_at=event.created_at,
                fairplay=event.fairplay,
            )
        )
    campaign.last_seq = max((e.seq for e in doc.events), default=0)
    await fairplay.import_(
        session, campaign.id, doc.game_sessions, doc.fairplay_rule, campaign.last_seq
    )
    await session.flush()
    return campaign


def copy_name(name: str, day: date) -> str:
    """The copy's name: the original's with the day of the import (in the importer's
    locale), e.g. «Runde (Kopie vom 03.12.)», shortened to fit the name's limit."""
    suffix = " " + _("(copy of %(day)s)", day=format_skeleton("ddMM", day, locale=get_locale()))
    return name[: NAME_MAX - len(suffix)].rstrip() + suffix


async def _import_people(
    session: AsyncSession, importer: User, campaign_id: int, doc: CampaignDocument, maps: IdMaps
) -> None:
    """The talk rows, and the parts of the people the document names: the GM's part is the
    importer's at once, everyone else's waits for whoever takes it over."""
    gm = _gm_ref(doc.users)
    given = await talk.import_talk(
        session, campaign_id, doc.talk, maps, {} if gm is None else {gm: importer.id}
    )
    if gm is not None and gm in given:
        await talk.grant(session, campaign_id, importer.id, given[gm])
    await parts.import_parts(session, campaign_id, doc.users, _owned(doc, maps), given, gm)


def _owned(doc: CampaignDocument, maps: IdMaps) -> dict[int, list[int]]:
    """User ref → the copy's ids of the characters the document gives that user."""
    owned: dict[int, list[int]] = {}
    for c in doc.characters:
        new_id = maps.id("character", c.ref)
        if c.owner is not None and new_id is not None:
            owned.setdefault(c.owner, []).append(new_id)
    return owned


def _audience(
    event: EventDoc, payload: EventPayload, raw: dict[str, Any], maps: IdMaps
) -> Audience:
    """The event's audience from the document: its visibility and user, the parties the
    log withholds from players (``app.events.audience.about`` marks those of hidden
    characters), the form players get instead (a map event: ``PLAYER_FORM_KEY``; ``raw``
    is renumbered already), and a map event's scene and token."""
    to = raw.get("to") if isinstance(raw.get("to"), list) else []
    heard = chosen(event.visibility, maps.id("user", event.audience), to or [])
    withheld = raw.get(WITHHELD_KEY)
    if isinstance(withheld, list) and all(isinstance(k, str) for k in withheld):
        heard = replace(heard, withheld=tuple(withheld))
    form = raw.get(PLAYER_FORM_KEY)
    if isinstance(form, dict):
        cls = EVENT_TYPES[form["type"]]
        typed = cls.from_json({"actor_name": "", **form}).to_json()
        del typed["actor_name"]
        heard = replace(heard, party_form={"type": cls.TYPE, **typed})
    scene_id, token_id = payload.scene_ref()
    heard = replace(heard, scene_id=scene_id, token_id=token_id)
    heard = heard.read_by(maps.id("user", event.actor))
    return heard.stubbed() if payload.STUB_WHEN_HIDDEN else heard


def _imported_payloads(
    events: list[EventDoc], maps: IdMaps
) -> list[tuple[EventPayload, dict[str, Any]]]:
    """The log's payloads renumbered, typed and as renumbered JSON (CPU work, run in a
    worker thread)."""
    out = []
    for e in events:
        raw = remap(e.payload, maps, pids=e.type == "combat")
        out.append((EVENT_TYPES[e.type].from_json(raw), raw))
    return out


def _gm_ref(users: list[UserDoc]) -> int | None:
    """The ref of the document's GM, whose part the importer takes (the GM's sheets and own
    journal notes); None for a document without one."""
    return next((u.ref for u in users if u.role is Role.gm), None)


async def _import_characters(
    session: AsyncSession, importer: User, campaign_id: int, docs: list[CharacterDoc], maps: IdMaps
) -> None:
    """The sheets; every owned one is the importer's until its part is handed over."""
    system = (await session.get(Campaign, campaign_id)).system  # type: ignore[union-attr]
    rows = [
        Character(
            campaign_id=campaign_id,
            owner_id=None if c.owner is None else importer.id,
            system=system,
            name=c.name,
            kind=c.kind,
            hidden_from_players=c.hidden_from_players,
            archived_at=c.archived_at,
            data=c.data,
        )
        for c in docs
    ]
    await _add_all(session, rows, maps, "character", [c.ref for c in docs])
    for row in rows:
        row.data = remap(row.data, maps, pids=False)


async def _import_items(
    session: AsyncSession, campaign_id: int, docs: list[ItemDoc], maps: IdMaps
) -> None:
    rows = [
        Item(
            campaign_id=campaign_id,
            character_id=maps.id("character", i.character),
            in_library=i.in_library,
            name=i.name,
            description=i.description,
            quantity=i.quantity,
            price=i.price,
            fields=i.fields,
            slot=i.slot,
            equipped=i.equipped,
            container=i.container,
        )
        for i in docs
        if i.in_library or maps.id("character", i.character) is not None
    ]
    kept = [i.ref for i in docs if i.in_library or maps.id("character", i.character) is not None]
    await _add_all(session, rows, maps, "item", kept)


async def _import_bestiary(
    session: AsyncSession, campaign_id: int, docs: list[BestiaryDoc], maps: IdMaps
) -> None:
    rows = [
        BestiaryEntry(
            campaign_id=campaign_id, system=b.system, name=b.name, data=b.data, sample=b.sample
        )
        for b in docs
    ]
    await _add_all(session, rows, maps, "bestiary", [b.ref for b in docs])


async def _import_encounters(
    session: AsyncSession, campaign_id: int, docs: list[EncounterDoc], maps: IdMaps
) -> None:
    rows = [
        Encounter(campaign_id=campaign_id, name=e.name, notes=e.notes, status=e.status)
        for e in docs
    ]
    await _add_all(session, rows, maps, "encounter", [e.ref for e in docs])
    figures = [
        Participant(
            encounter_id=row.id,
            character_id=maps.id("character", p.character),
            bestiary_entry_id=maps.id("bestiary", p.bestiary_entry),
            name=p.name,
            side=p.side,
            hidden=p.hidden,
            stats={},
            position=p.position,
        )
        for row, e in zip(rows, docs, strict=True)
        for p in e.participants
    ]
    await _add_all(
        session, figures, maps, "participant", [p.ref for e in docs for p in e.participants]
    )
    stats = [p.stats for e in docs for p in e.participants]
    for figure, raw in zip(figures, stats, strict=True):
        figure.stats = remap(raw, maps, pids=True)
    for row, e in zip(rows, docs, strict=True):
        row.settings = e.settings
        row.state = _runnable_state(remap(e.state, maps, pids=True))
        history = undo.step_rows(row.id, remap(e.history, maps, pids=True))
        if history is None:
            raise ValidationFailed(
                {"history": _("An undo step needs a combat state and its events' seqs.")}
            )
        session.add_all(history)


def _runnable_state(state: dict[str, Any]) -> dict[str, Any]:
    """An imported fight's state, refused at the field unless it has the shape the server
    runs (an empty one: the fight has not started); else every read of it would fail."""
    try:
        read_state(state)
    except StateError:
        raise ValidationFailed(
            {"encounters": _("An encounter's combat state does not have the shape of one.")}
        ) from None
    return state


async def _add_all(
    session: AsyncSession, rows: Sequence[Any], maps: IdMaps, kind: str, refs: list[int]
) -> None:
    if len(set(refs)) != len(refs):
        raise ValidationFailed({kind: _("Every ref must be distinct.")})
    session.add_all(rows)
    await session.flush()
    maps.by_kind[kind] |= {ref: row.id for ref, row in zip(refs, rows, strict=True)}
