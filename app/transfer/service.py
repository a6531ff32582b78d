"""Export a whole campaign as one JSON document, and import such a document as a new campaign.

The document (format ``tafelrunde-campaign``, version 1; docs/transfer.md) holds the campaign
and its settings, the people it names (by user name, with their role), characters, items
(carried and the library), the bestiary, encounters with their participants and combat state,
the whole event log, table talk, battle maps, game sessions and the fair-play rule, and
names what it leaves out (``not_exported``). Rows are named by refs, not database ids (see
:mod:`app.core.transfer`). Each package writes and reads its own tables
(``app/<package>/transfer.py``, a :class:`app.core.transfer.TransferPart` each, registered
by ``app.wiring``); this module writes the frame around them: format, campaign, users and
what the document leaves out.

An import creates a new campaign whose GM and only member is the importer. No name in the
document is matched to an account: authors in the log and the chat stay names, the
document's GM's part (sheets, own notes) is the importer's, and everyone else becomes an
imported part (:mod:`app.transfer.parts`) the GM hands over by a takeover link. The log is
imported as it is (same seqs, types, payloads and times): the import appends no event.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from datetime import date
from typing import TypedDict

from babel.dates import format_skeleton
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.accounts.models import User
from app.campaigns.models import Campaign, Invite, Membership
from app.campaigns.permissions import Action, authorize
from app.campaigns.settings import validate_settings
from app.core.systems import RuleSystem
from app.core.transfer import Document, IdMaps, Import, TransferPart
from app.core.viewer import Role
from app.db import utcnow
from app.errors import AppError, ValidationFailed
from app.i18n import N_, _, get_locale
from app.limits import Int32
from app.transfer import parts

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


def read_document(body: bytes) -> Document:
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
    settings: dict[str, object]


class NotExportedDoc(_Doc):
    table: str = Field(max_length=64)
    reason: str = Field(max_length=500)


class FrameDoc(_Doc):
    """The document's own fields; each part's go between ``users`` and ``not_exported``."""

    format: str = Field(pattern=f"^{FORMAT}$")
    version: int = Field(ge=VERSION, le=VERSION)
    campaign: CampaignDoc
    users: list[UserDoc]
    #: What the export leaves out and why (informative; an import ignores it).
    not_exported: list[NotExportedDoc] = Field(default_factory=list, max_length=100)


#: The packages' parts of the document, in its order, and in the order an import writes
#: them (a part after those whose rows its JSON names); :func:`register` (``app.wiring``).
PARTS: list[TransferPart] = []
IMPORT_ORDER: list[TransferPart] = []
_MODEL: list[type[BaseModel]] = []


def register(parts_in_order: Sequence[TransferPart], import_order: Sequence[TransferPart]) -> None:
    """The parts of the document (each once; ``import_order`` the same parts)."""
    assert sorted(map(id, parts_in_order)) == sorted(map(id, import_order))
    PARTS[:] = parts_in_order
    IMPORT_ORDER[:] = import_order
    EXPORTED_TABLES.clear()
    for part in parts_in_order:
        EXPORTED_TABLES.update(part.tables)
    _MODEL.clear()


def document_model() -> type[BaseModel]:
    """The whole document's checks: the frame's fields with every part's in between."""
    if not _MODEL:
        frame = FrameDoc.model_fields
        fields = {name: (f.annotation, f) for name, f in frame.items() if name != "not_exported"}
        for part in PARTS:
            fields |= {name: (f.annotation, f) for name, f in part.model.model_fields.items()}
        end = frame["not_exported"]
        fields["not_exported"] = (end.annotation, end)
        _MODEL.append(
            create_model(  # type: ignore[call-overload]
                "CampaignDocument", __config__=ConfigDict(extra="forbid"), **fields
            )
        )
    return _MODEL[0]


#: Every table with a ``campaign_id``: where the document carries its rows (the parts'
#: ``tables``, by :func:`register`) …
EXPORTED_TABLES: dict[str, str] = {}
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


async def _users(
    session: AsyncSession, campaign_id: int, named: set[int]
) -> list[tuple[int, str, str | None]]:
    """(id, name, role or None) of every member and every user the parts' rows name."""
    roles = dict(
        (
            await session.execute(
                select(Membership.user_id, Membership.role).where(
                    Membership.campaign_id == campaign_id
                )
            )
        ).all()
    )
    ids = sorted(set(roles) | named)
    names = dict(
        (await session.execute(select(User.id, User.username).where(User.id.in_(ids)))).all()
    )
    return [(i, names[i], roles.get(i)) for i in ids if i in names]


class UserExport(TypedDict):
    """A person the document names (read back as :class:`UserDoc`)."""

    ref: int | None
    username: str
    role: str | None


async def export_campaign(session: AsyncSession, user: User, campaign_id: int) -> dict[str, object]:
    campaign, _viewer = await authorize(
        session, campaign_id, user.id, user.username, Action.export_campaign
    )
    loaded = [await part.load(session, campaign_id, user.id) for part in PARTS]
    named: set[int] = set()
    for rows in loaded:
        named |= rows.user_ids()
    users = await _users(session, campaign_id, named)
    maps = IdMaps()
    maps.number("user", [u[0] for u in users])
    for rows in loaded:
        rows.number(maps)
    people: list[UserExport] = [
        {"ref": maps.id("user", i), "username": name, "role": role} for i, name, role in users
    ]
    document: dict[str, object] = {
        "format": FORMAT,
        "version": VERSION,
        "campaign": {
            "name": campaign.name,
            "system": campaign.system,
            "settings": campaign.settings,
        },
        "users": people,
    }
    for rows in loaded:
        document |= await rows.write(maps)
    document["not_exported"] = [
        {"table": table, "reason": _(reason)} for table, reason in NOT_EXPORTED.items()
    ]
    await parts.export_parts(session, campaign_id, document, maps)
    return document


def encode_document(document: dict[str, object]) -> bytes:
    """The document as compact UTF-8 JSON (CPU work: the routes run it in a worker thread)."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()


def parse_document(raw: object) -> Document:
    """The document checked field by field (422 naming the first wrong fields), then by
    each part's own checks."""
    try:
        doc = Document(document_model().model_validate(raw))
    except ValidationError as exc:
        raise ValidationFailed(
            {
                ".".join(str(p) for p in err["loc"]) or "document": err["msg"]
                for err in exc.errors()[:10]
            }
        ) from None
    for part in PARTS:
        part.check(doc)
    return doc


async def import_campaign(session: AsyncSession, user: User, doc: Document) -> Campaign:
    """A new campaign from ``doc``, owned by ``user`` (see the module's docstring)."""
    frame = doc.part(FrameDoc)
    known, errors = validate_settings(frame.campaign.system, frame.campaign.settings)
    if errors:
        raise ValidationFailed({f"campaign.settings.{k}": v for k, v in errors.items()})
    # The options as stored (absent ones keep meaning "the default"), unknown keys dropped.
    settings = {k: v for k, v in frame.campaign.settings.items() if k in known}
    campaign = Campaign(
        name=copy_name(frame.campaign.name, utcnow().date()),
        system=frame.campaign.system,
        settings=settings,
    )
    session.add(campaign)
    await session.flush()
    session.add(Membership(campaign_id=campaign.id, user_id=user.id, role=Role.gm))
    session.add(Invite(campaign_id=campaign.id, code=secrets.token_urlsafe(9), role=Role.player))
    gm = _gm_ref(frame.users)
    into = Import(session, campaign.id, frame.campaign.system, user.id, gm, doc)
    for part in IMPORT_ORDER:
        await part.import_(into)
    # The parts of the people the document names: the GM's part is the importer's (the
    # talk part gave it), everyone else's waits for whoever takes it over.
    await parts.import_parts(session, campaign.id, frame.users, into.owned, into.given, gm)
    campaign.last_seq = into.last_seq
    await session.flush()
    return campaign


def copy_name(name: str, day: date) -> str:
    """The copy's name: the original's with the day of the import (in the importer's
    locale), e.g. «Runde (Kopie vom 03.12.)», shortened to fit the name's limit."""
    suffix = " " + _("(copy of %(day)s)", day=format_skeleton("ddMM", day, locale=get_locale()))
    return name[: NAME_MAX - len(suffix)].rstrip() + suffix


def _gm_ref(users: list[UserDoc]) -> int | None:
    """The ref of the document's GM, whose part the importer takes (the GM's sheets and own
    journal notes); None for a document without one."""
    return next((u.ref for u in users if u.role is Role.gm), None)
