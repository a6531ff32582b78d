"""Use cases of character sheets and inventories. Permissions through
``app.campaigns.permissions``; every change is a ``character_*`` event in the same
transaction; NSC sheets hidden from players are never returned to them (404) and their
events are visible to GMs only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.exc import StaleDataError

from app import limits
from app.accounts.models import User
from app.campaigns.models import Campaign, Membership
from app.campaigns.permissions import (
    Action,
    allowed,
    authorize,
    can_edit_character,
    can_roll_for_character,
    can_see_character,
)
from app.characters import catalog, foreign, rolling, sheets
from app.characters import events as character_events
from app.characters.models import Character, CharacterKind, Item
from app.characters.systems.protocol import CharacterCore, ItemDraft
from app.characters.systems.registry import (
    character_system,
    combat_sheet,
    companions,
    inventory,
    rests,
    sheet_checks,
    sheet_rolls,
)
from app.core.imports import Report, within_bounds
from app.core.jsoncopy import copy_json
from app.core.queries import all_rows
from app.core.viewer import Role, Viewer
from app.db import utcnow
from app.errors import Conflict, Forbidden, NotFound, ValidationFailed
from app.events import events as log_events
from app.events import payload
from app.events.audience import VISIBILITIES, about, chosen
from app.events.models import CampaignEvent
from app.events.service import VisibleEvent, append_event, can_see, events_about, project
from app.i18n import _
from app.knowledge import service as knowledge
from app.rules.dice import Roller
from app.sessions import service as game_sessions
from app.sessions.dice import roller_for_read_campaign

EXPORT_FORMAT = "tafelrunde-character"
EXPORT_VERSION = 1
#: ``AsyncSession.info`` key: the browser tab a change came from (its own live view skips it).
ORIGIN_KEY = "origin_tab"


@dataclass(frozen=True, slots=True)
class Opened:
    campaign: Campaign
    viewer: Viewer
    character: Character
    items: list[Item]

    @property
    def can_edit(self) -> bool:
        return can_edit_character(self.viewer, owner_id=self.character.owner_id)

    @property
    def can_roll(self) -> bool:
        return can_roll_for_character(self.viewer, owner_id=self.character.owner_id)


# --- loading --------------------------------------------------------------------------------


async def _items(session: AsyncSession, character_id: int) -> list[Item]:
    return await all_rows(
        session, select(Item).where(Item.character_id == character_id).order_by(Item.id)
    )


async def open_character(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    character_id: int,
    *,
    edit: bool = False,
    to_roll: bool = False,
) -> Opened:
    """Load a sheet for a member who may see it (404 otherwise); ``edit`` demands the right
    to change it, ``to_roll`` the right to roll from it (403 for members who only read)."""
    campaign, viewer = await authorize(session, campaign_id, user.id, user.username, Action.view)
    character = await session.scalar(
        select(Character).where(Character.id == character_id, Character.campaign_id == campaign_id)
    )
    if character is None or not can_see_character(
        viewer, hidden_from_players=character.hidden_from_players
    ):
        raise NotFound(_("Character not found."))
    if edit and not can_edit_character(viewer, owner_id=character.owner_id):
        raise Forbidden(_("Only the owner and the GMs may change this character."))
    if to_roll and not can_roll_for_character(viewer, owner_id=character.owner_id):
        raise Forbidden(_("Only the owner and the GMs may roll for this character."))
    return Opened(campaign, viewer, character, await _items(session, character.id))


async def open_as(
    session: AsyncSession, viewer: Viewer, campaign_id: int, character_id: int
) -> Opened | None:
    """The sheet for a viewer whose membership the caller has checked (live stream);
    ``None`` when it is gone or hidden from them."""
    character = await session.scalar(
        select(Character).where(Character.id == character_id, Character.campaign_id == campaign_id)
    )
    if character is None or not can_see_character(
        viewer, hidden_from_players=character.hidden_from_players
    ):
        return None
    campaign = await session.get(Campaign, campaign_id)
    if campaign is None:
        return None
    return Opened(campaign, viewer, character, await _items(session, character.id))


async def visible_characters(
    session: AsyncSession, viewer: Viewer, campaign_id: int
) -> list[Character]:
    """The campaign's characters the viewer may see, PCs first, by name."""
    query = select(Character).where(Character.campaign_id == campaign_id)
    if not viewer.is_gm:
        query = query.where(Character.hidden_from_players.is_(False))
    return await all_rows(session, query.order_by(Character.kind, Character.name))


async def library_items(session: AsyncSession, campaign_id: int) -> list[Item]:
    """The campaign's item library (every member sees it), by name."""
    items = await session.scalars(
        select(Item)
        .where(Item.campaign_id == campaign_id, Item.in_library.is_(True))
        .order_by(Item.name, Item.id)
    )
    return list(items.all())


async def list_characters(
    session: AsyncSession, user: User, campaign_id: int
) -> tuple[Campaign, Viewer, list[Character]]:
    campaign, viewer = await authorize(session, campaign_id, user.id, user.username, Action.view)
    return campaign, viewer, await visible_characters(session, viewer, campaign_id)


async def owner_names(session: AsyncSession, campaign_id: int) -> dict[int, str]:
    rows = (
        await session.execute(
            select(User.id, User.username)
            .join(Membership, Membership.user_id == User.id)
            .where(Membership.campaign_id == campaign_id)
        )
    ).all()
    return {uid: name for uid, name in rows}


async def player_members(session: AsyncSession, campaign_id: int) -> list[tuple[int, str]]:
    rows = (
        await session.execute(
            select(User.id, User.username, Membership.role)
            .join(Membership, Membership.user_id == User.id)
            .where(Membership.campaign_id == campaign_id)
            .order_by(User.username)
        )
    ).all()
    return [(uid, name) for uid, name, role in rows if role != Role.observer]


def view(opened: Opened) -> sheets.SheetView:
    c = opened.character
    return character_system(c.system).view(c.data, opened.items, opened.campaign.settings)


def normalised_sheet(
    system: CharacterCore, data: Mapping[str, object], kind: str
) -> tuple[dict[str, object], dict[str, str]]:
    """A whole submitted sheet on the system's defaults, and its errors by field."""
    return sheets.normalise_data(system.fields(kind), system.default_data(kind), data)


# --- events ---------------------------------------------------------------------------------


def _about(
    session: AsyncSession, character: Character, user: User
) -> character_events.CharacterRef:
    """The fields every event about ``character`` starts with."""
    origin = session.info.get(ORIGIN_KEY)
    return character_events.about_character(user.username, character.id, character.name, origin)


async def _record(
    session: AsyncSession,
    character: Character,
    user: User,
    event: character_events.CharacterEvent,
    *,
    names: Sequence[Character] = (),
) -> CampaignEvent:
    """Log a change of ``character``; ``names`` are the other characters ``event`` names.
    The event is no more visible than any of them: GM-only while ``character`` is hidden
    from the players, without the others while they are (``app.events.audience.about``)."""
    return await append_event(
        session,
        character.campaign_id,
        event,
        actor_id=user.id,
        audience=about(
            event.to_json(), [c.id for c in (character, *names) if c.hidden_from_players]
        ),
    )


async def _flush(session: AsyncSession) -> None:
    try:
        await session.flush()
    except StaleDataError:
        raise Conflict(
            _("Someone changed this character meanwhile. Here are the current values.")
        ) from None


def _check_version(character: Character, version: int | None) -> None:
    if version is not None and version != character.version:
        raise Conflict(_("Someone changed this character meanwhile. Here are the current values."))


async def _open_at(
    session: AsyncSession, user: User, campaign_id: int, character_id: int, version: int | None
) -> Opened:
    """The character opened for an edit, refused (409) unless it is at ``version``."""
    opened = await open_character(session, user, campaign_id, character_id, edit=True)
    _check_version(opened.character, version)
    return opened


def _write_sheet(character: Character, values: Mapping[str, object]) -> dict[str, list[object]]:
    """The sheet's ``values`` written at once (into a copy of ``data``, so the change is
    seen; the sheet's version moves), with each one's ``[before, after]``."""
    data = copy_json(character.data)
    changes = {k: [data.get(k), v] for k, v in values.items()}
    data.update(values)
    character.data = data
    character.updated_at = utcnow()
    return changes


# --- create / edit --------------------------------------------------------------------------


def _check_name(name: str, key: str = "name") -> str:
    return limits.check_name(name, key)


async def _count(session: AsyncSession, *where: Any) -> int:
    return int(await session.scalar(select(func.count()).select_from(Item).where(*where)) or 0)


async def _check_room_for_character(session: AsyncSession, campaign_id: int) -> None:
    count = await session.scalar(
        select(func.count()).select_from(Character).where(Character.campaign_id == campaign_id)
    )
    limits.check_room(int(count or 0), limits.CHARACTERS_PER_CAMPAIGN, "name")


async def _check_room_for_item(session: AsyncSession, character_id: int, adding: int = 1) -> None:
    """422 (field ``items``) unless ``adding`` more items fit on the sheet."""
    count = await _count(session, Item.character_id == character_id)
    limits.check_room(count + adding - 1, limits.ITEMS_PER_CHARACTER, "items")


async def create_character(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    name: str,
    *,
    kind: str = CharacterKind.pc.value,
    owner_id: int | None = None,
    hidden_from_players: bool = False,
    data: Mapping[str, object] | None = None,
) -> Character:
    """A player creates their own PC; a GM creates for any member or an NSC template."""
    campaign, viewer = await authorize(
        session, campaign_id, user.id, user.username, Action.create_character
    )
    await _check_room_for_character(session, campaign_id)
    errors: dict[str, str] = {}
    try:
        name = _check_name(name)
    except ValidationFailed as exc:
        errors.update(exc.fields)
    if kind not in (CharacterKind.pc.value, CharacterKind.npc.value):
        errors["kind"] = _("Choose PC or NSC.")
    manage = allowed(viewer.role, Action.manage_characters)
    if not manage:
        if kind == CharacterKind.npc.value or hidden_from_players:
            raise Forbidden(_("Only the GMs create NSCs."))
        if owner_id not in (None, user.id):
            raise Forbidden(_("Players create their own characters only."))
        owner_id = user.id
    elif kind == CharacterKind.pc.value and owner_id is None:
        owner_id = user.id
    if owner_id is not None and manage:
        members = dict(await player_members(session, campaign_id))
        if owner_id not in members:
            errors["owner_id"] = _("Choose a member of the campaign.")
    if hidden_from_players and kind != CharacterKind.npc.value:
        errors["hidden_from_players"] = _("Only NSC sheets can be hidden from players.")
    system = character_system(campaign.system)
    sheet = system.default_data(kind)
    if data is not None:
        limits.check_data(data, "data")
        sheet, field_errors = normalised_sheet(system, data, kind)
        errors.update(field_errors)
        given = [s.key for s in system.fields(kind) if sheets.get_value(data, s.key) is not None]
        system.follow_up(system.default_data(kind), sheet, given)
        errors.update(system.cross_check(sheet, []))
    if errors:
        raise ValidationFailed(errors)
    character = Character(
        campaign_id=campaign_id,
        owner_id=owner_id,
        system=campaign.system,
        name=name,
        kind=kind,
        hidden_from_players=hidden_from_players,
        data=sheet,
    )
    session.add(character)
    await session.flush()
    await _record(
        session,
        character,
        user,
        character_events.CharacterCreated(**_about(session, character, user), kind=kind),
    )
    return character


META_FIELDS = ("name", "hidden_from_players", "owner_id")


def _sheet_changes(
    specs: Mapping[str, sheets.FieldSpec], data: dict[str, object], changes: Mapping[str, object]
) -> tuple[list[str], dict[str, str]]:
    """Parse each sheet field into ``data``; the keys that changed and the errors."""
    touched: list[str] = []
    errors: dict[str, str] = {}
    for key, raw in changes.items():
        spec = specs.get(key)
        if spec is None:
            errors[key] = _("Unknown field.")
            continue
        try:
            value = sheets.parse_field(spec, raw)
        except sheets.FieldError as exc:
            errors[key] = exc.message
            continue
        if sheets.get_value(data, key) != value:
            sheets.set_value(data, key, value)
            touched.append(key)
    return touched, errors


def _broken_rules(
    system: CharacterCore,
    specs: Mapping[str, sheets.FieldSpec],
    before: Mapping[str, object],
    after: Mapping[str, object],
    items: Sequence[Item],
    touched: list[str],
) -> dict[str, str]:
    """Cross-field rules this change breaks (not old, untouched problems)."""
    before_cross = system.cross_check(before, items)
    groups = {t.split(".")[0] for t in touched}
    return {
        key if key in specs else touched[0]: message
        for key, message in system.cross_check(after, items).items()
        if key in touched or key not in before_cross or key.split(".")[0] in groups
    }


async def update_fields(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    character_id: int,
    version: int | None,
    changes: Mapping[str, object],
) -> Opened:
    """Change sheet fields (usually one). All are validated first: nothing is half-saved.
    Each changed field becomes one ``character_updated`` event with before → after."""
    opened = await _open_at(session, user, campaign_id, character_id, version)
    character = opened.character
    limits.check_data(changes)
    system = character_system(character.system)
    specs = sheets.by_key(system.fields(character.kind))
    errors: dict[str, str] = {}
    meta: dict[str, object] = {}
    for key in [k for k in changes if k in META_FIELDS]:
        try:
            meta[key] = await _parse_meta(session, opened, key, changes[key])
        except ValidationFailed as exc:
            errors.update(exc.fields)
    data = copy_json(character.data)
    sheet = {k: v for k, v in changes.items() if k not in META_FIELDS}
    touched, sheet_errors = _sheet_changes(specs, data, sheet)
    errors.update(sheet_errors)
    touched += system.follow_up(character.data, data, touched)
    if not errors and touched:
        errors = _broken_rules(system, specs, character.data, data, opened.items, touched)
    if errors:
        raise ValidationFailed(errors)
    await _guard_gm_override(session, opened, user, touched)
    events = [(k, sheets.get_value(character.data, k), sheets.get_value(data, k)) for k in touched]
    if touched:
        character.data = data
    for key, value in meta.items():
        before = getattr(character, key)
        if before != value:
            setattr(character, key, value)
            events.append((key, before, value))
    if not events:
        return opened
    character.updated_at = utcnow()
    await _flush(session)
    for key, before, after in events:
        await _record(
            session,
            character,
            user,
            character_events.CharacterUpdated(
                **_about(session, character, user), field=key, before=before, after=after
            ),
        )
    return opened


async def _guard_gm_override(
    session: AsyncSession, opened: Opened, user: User, touched: Sequence[str]
) -> None:
    """A GM changing what a fight changes (LP, Glück, conditions, …) on a character that is
    not theirs is a GM override, under a fair-play session's table rule (docs/fairplay.md)."""
    character = opened.character
    if not opened.viewer.is_gm or character.owner_id == user.id:
        return
    system = combat_sheet(character.system)
    fought = system.sheet_values(character.data, system.combat_values(character.data, opened.items))
    if fought.keys() & set(touched):
        await game_sessions.guard_override(session, opened.campaign)


async def _parse_meta(session: AsyncSession, opened: Opened, key: str, raw: Any) -> Any:
    if key == "name":
        return _check_name(str(raw))
    if not opened.viewer.is_gm:
        raise ValidationFailed({key: _("Only the GMs change this.")})
    if key == "hidden_from_players":
        value = raw if isinstance(raw, bool) else str(raw).lower() in ("1", "true", "on", "yes")
        if value and opened.character.kind != CharacterKind.npc.value:
            raise ValidationFailed({key: _("Only NSC sheets can be hidden from players.")})
        return value
    if raw in (None, ""):
        return None
    try:
        owner = int(raw)
    except (TypeError, ValueError):
        raise ValidationFailed({key: _("Choose a member of the campaign.")}) from None
    if owner not in dict(await player_members(session, opened.campaign.id)):
        raise ValidationFailed({key: _("Choose a member of the campaign.")})
    return owner


async def set_archived(
    session: AsyncSession, user: User, campaign_id: int, character_id: int, archived: bool
) -> Character:
    opened = await open_character(session, user, campaign_id, character_id, edit=True)
    character = opened.character
    if (character.archived_at is not None) == archived:
        return character
    character.archived_at = utcnow() if archived else None
    await _flush(session)
    change = character_events.CharacterArchived if archived else character_events.CharacterRestored
    await _record(session, character, user, change(**_about(session, character, user)))
    return character


async def take_rest(
    session: AsyncSession,
    roller: Roller,
    user: User,
    campaign_id: int,
    character_id: int,
    version: int | None,
    key: str,
    params: Mapping[str, str] | None = None,
) -> Opened:
    """A rest from the sheet (the system's ``rests``): its changes in one write and one
    ``character_rested`` event (its dice go to that event in a fair-play session); refused
    at ``rest`` with the system's reason. ``params``: the rest form's fields."""
    opened = await _open_at(session, user, campaign_id, character_id, version)
    character = opened.character
    system = rests(character.system)
    labels = dict(system.rests)
    if key not in labels:
        raise ValidationFailed({"rest": _("This rest does not exist in this rule system.")})
    healer = await _healer(session, opened, (params or {}).get("healer_id", ""))
    dice = await roller_for_read_campaign(session, opened.campaign, user.id, roller)
    result = system.rest(
        dice, character.data, opened.items, key, params or {}, opened.campaign.settings, healer
    )
    if isinstance(result, str):
        raise ValidationFailed({"rest": result})
    changes = _write_sheet(character, result.changes)
    await _flush(session)
    event = character_events.CharacterRested(
        **_about(session, character, user), rest=key, label=labels[key], changes=changes,
        detail=result.detail,
    )  # fmt: skip
    await _record(session, character, user, event)
    return opened


async def _healer(
    session: AsyncSession, opened: Opened, healer_id: str
) -> rolling.HelperSheet | None:
    """The sheet of the character who tends this one during a rest (the rest form's
    ``healer_id``; empty: nobody), or refused at the rest."""
    if not healer_id.strip():
        return None
    sheet = await _other_sheet(session, opened, int(healer_id)) if healer_id.isdigit() else None
    if sheet is None:
        raise ValidationFailed({"rest": _("Choose a character of this campaign as the healer.")})
    return sheet


async def _check_item(
    session: AsyncSession, opened: Opened, params: Mapping[str, str]
) -> ItemDraft:
    """The item a guided check is about: ``source`` = ``starter:<key>`` or ``library:<id>``
    (the catalogue), else the ``name`` typed in the form."""
    source = str(params.get("source", "") or "").strip()
    system = inventory(opened.character.system)
    if source.startswith("starter:"):
        found = catalog.find_starter(system.starter_items(), source[len("starter:") :])
        if found is None:
            raise ValidationFailed({"source": _("Choose one of the listed values.")})
        return ItemDraft(found.name, found.quantity, found.price, dict(found.fields))
    if source.startswith("library:"):
        try:
            library_id = int(source[len("library:") :])
        except ValueError:
            raise ValidationFailed({"source": _("Choose one of the listed values.")}) from None
        item = await _library_row(session, opened.campaign.id, library_id)
        if item is None:
            raise ValidationFailed({"source": _("Item not found.")})
        return ItemDraft(item.name, item.quantity, item.price, dict(item.fields), item.description)
    if source:
        raise ValidationFailed({"source": _("Choose one of the listed values.")})
    name = str(params.get("name", "") or "").strip()
    if not name:
        raise ValidationFailed({"name": _("Choose an item or enter its name.")})
    return ItemDraft(name)


def _new_item(opened: Opened, draft: ItemDraft) -> Item:
    """The draft as an item of the sheet, where new items go; refused at ``source`` when it
    does not fit there (H&H: a full Rucksack)."""
    character = opened.character
    name, parsed = _validate_item_input(character.system, draft)
    item = _drafted_item(
        character.campaign_id, draft, name, parsed,
        character_id=character.id, container=_container(character, "default"),
    )  # fmt: skip
    try:
        _check_stow(character, opened.items, item)
    except ValidationFailed as exc:
        raise ValidationFailed({"source": exc.fields["container"]}) from None
    return item


async def sheet_check(
    session: AsyncSession,
    roller: Roller,
    user: User,
    campaign_id: int,
    character_id: int,
    version: int | None,
    key: str,
    params: Mapping[str, str],
) -> tuple[Opened, CampaignEvent]:
    """A guided check from the sheet (the system's ``checks``, H&H: Beschaffung,
    Herstellung): the Probe, the sheet's changes and the item it yields in one write and one
    ``character_checked`` event (its dice go to that event in a fair-play session). Refused
    at the form's fields, with nothing rolled, when it cannot be made."""
    opened = await _open_at(session, user, campaign_id, character_id, version)
    character = opened.character
    system = sheet_checks(character.system)
    labels = dict(system.checks)
    if key not in labels:
        raise ValidationFailed({"check": _("This check does not exist in this rule system.")})
    draft = await _check_item(session, opened, params)
    _new_item(opened, draft)  # refused before any die is rolled
    await _check_room_for_item(session, character.id)
    dice = await roller_for_read_campaign(session, opened.campaign, user.id, roller)
    result = system.check(
        dice, character.data, opened.items, key, params, draft, opened.campaign.settings
    )
    if isinstance(result, dict):
        raise ValidationFailed(result)
    changes = _write_sheet(character, result.changes)  # its version moves with every check
    item = _new_item(opened, result.item) if result.item is not None else None
    if item is not None:
        session.add(item)
    await _flush(session)
    event = character_events.CharacterChecked(
        **_about(session, character, user), check=key, label=labels[key],
        item_name=draft.name, success=result.success, changes=changes,
        item_id=item.id if item else None, quantity=item.quantity if item else 0,
        container=item.container if item else None, detail=result.detail,
    )  # fmt: skip
    return opened, await _record(session, character, user, event)


# --- companions (H&H Gefährten) -------------------------------------------------------------


async def create_companion(
    session: AsyncSession, user: User, campaign_id: int, hero_id: int, name: str
) -> Character:
    """A companion of its own for a hero (``Companions.new_companion``): an NSC sheet
    owned by the hero's owner, linked by ``sheets.COMPANION_KEY``; whoever may edit the hero
    may make one (docs/rules/hh.md, "Gefährten")."""
    opened = await open_character(session, user, campaign_id, hero_id, edit=True)
    hero = opened.character
    data = companions(hero.system).new_companion()
    if data is None:
        raise ValidationFailed({"companion_name": _("This rule system has no Gefährten.")})
    if hero.kind != CharacterKind.pc.value or hero.data.get(sheets.COMPANION_KEY):
        raise ValidationFailed({"companion_name": _("Only a hero has Gefährten.")})
    name = _check_name(name, "companion_name")
    await _check_room_for_character(session, campaign_id)
    companion = Character(
        campaign_id=campaign_id, owner_id=hero.owner_id, system=hero.system, name=name,
        kind=CharacterKind.npc.value, hidden_from_players=False,
        data={**data, sheets.COMPANION_KEY: hero.id},
    )  # fmt: skip
    session.add(companion)
    await session.flush()
    event = character_events.CharacterCreated(
        **_about(session, companion, user), kind=companion.kind
    )
    await _record(session, companion, user, event)
    return companion


async def gain_xp(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    hero_id: int,
    version: int | None,
    amount: int,
    companion_id: int | None,
) -> Opened:
    """XP for the hero, shared with one of its companions («Band der Erfahrung»): both
    sheets change in the same transaction, one ``character_updated`` each."""
    opened = await open_character(session, user, campaign_id, hero_id, edit=True)
    hero = opened.character
    _check_version(hero, version)
    companion = None
    if companion_id is not None:
        companion = await session.scalar(
            select(Character).where(
                Character.id == companion_id, Character.campaign_id == campaign_id
            )
        )
        if companion is None or companion.data.get(sheets.COMPANION_KEY) != hero.id:
            raise ValidationFailed({"companion_id": _("Choose a Gefährte of this hero.")})
    system = companions(hero.system)
    result = system.share_xp(hero.data, companion.data if companion else None, amount)
    if isinstance(result, str):
        raise ValidationFailed({"xp_gain": result})
    await _apply_sheet_changes(session, hero, user, result[0])
    if companion is not None:
        await _apply_sheet_changes(session, companion, user, result[1])
    return opened


async def advance_companion(
    session: AsyncSession, user: User, campaign_id: int, character_id: int, version: int | None
) -> Opened:
    """A companion's next level for its XP (``Companions.raise_companion``): its sheet
    changes in one write and one ``character_advanced`` event."""
    opened = await _open_at(session, user, campaign_id, character_id, version)
    character = opened.character
    result = companions(character.system).raise_companion(character.data)
    if isinstance(result, str):
        raise ValidationFailed({"advance": result})
    changes = {k: pair for k, pair in _write_sheet(character, result).items() if pair[0] != pair[1]}
    await _flush(session)
    event = character_events.CharacterAdvanced(
        **_about(session, character, user), level=sheets.whole(result.get("monsterstufe", 0)),
        xp_cost=sheets.whole(changes.get("xp", [0, 0])[0] or 0) - sheets.whole(result.get("xp", 0)),
        changes=changes,
    )  # fmt: skip
    await _record(session, character, user, event)
    return opened


async def delete_character(
    session: AsyncSession, user: User, campaign_id: int, character_id: int, *, confirm: bool
) -> None:
    opened = await open_character(session, user, campaign_id, character_id, edit=True)
    if not confirm:
        raise ValidationFailed({"confirm": _("Confirm that the character is to be deleted.")})
    character = opened.character
    await _record(
        session,
        character,
        user,
        character_events.CharacterDeleted(**_about(session, character, user)),
    )
    # The items go with it (ON DELETE CASCADE).
    await session.delete(character)
    await _flush(session)


# --- inventory ------------------------------------------------------------------------------


def _check_stow(character: Character, items: Sequence[Item], item: Item) -> None:
    """The item may stay in its container (H&H: the Rucksack has room for it)."""
    problem = inventory(character.system).stow_problem(character.data, items, item)
    if problem is not None:
        raise ValidationFailed({"container": problem})


def _check_equip(character: Character, items: Sequence[Item], item: Item, slot: str) -> None:
    problem = inventory(character.system).equip_problem(character.data, items, item, slot)
    if problem is not None:
        raise ValidationFailed({"slot": problem})


def _container(character: Character, container: str | None) -> str | None:
    """The container asked for (``default``: where the system puts an unequipped item)."""
    if container == "default":
        container = inventory(character.system).default_container(character.data)
    if container not in (None, "", sheets.RUCKSACK):
        raise ValidationFailed({"container": _("Choose one of the listed values.")})
    return container or None


class _ItemRef(character_events.ItemPlace):
    """The fields of a ``character_item_*`` event about the item (see ``SheetItemEvent``):
    what it is, and its place (slot or container)."""

    item_id: int
    item_name: str
    quantity: int
    equipped: bool


def _item_payload(item: Item) -> _ItemRef:
    return {
        "item_id": item.id,
        "item_name": item.name,
        "quantity": item.quantity,
        "slot": item.slot,
        "equipped": item.equipped,
        "container": item.container,
    }


def _validate_item_input(system: str, draft: ItemDraft) -> tuple[str, dict[str, object]]:
    """The draft's checked name and parsed system fields; every problem at its field."""
    errors: dict[str, str] = {}
    name = draft.name
    try:
        name = _check_name(name)
    except ValidationFailed as exc:
        errors.update(exc.fields)
    description_problem = limits.text_problem(draft.description)
    if description_problem:
        errors["description"] = description_problem
    data_problem = limits.data_problem(draft.fields)
    if data_problem:
        key = data_problem[0].split(".", 1)[0]
        errors[f"fields.{key}" if key else "fields"] = data_problem[1]
        raise ValidationFailed(errors)
    if not 1 <= draft.quantity <= 9999:
        errors["quantity"] = _("Between %(min)d and %(max)d.", min=1, max=9999)
    if draft.price is not None and not 0 <= draft.price <= 100_000_000:
        errors["price"] = _("Between %(min)d and %(max)d.", min=0, max=100_000_000)
    specs = inventory(system).item_fields
    parsed, field_errors = catalog.parse_item_fields(specs, draft.fields)
    errors.update(field_errors)
    if errors:
        raise ValidationFailed(errors)
    return name, parsed


async def add_item(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    character_id: int,
    draft: ItemDraft,
    *,
    starter: str = "",
    library_item_id: int | None = None,
    container: str | None = "default",
) -> Item:
    """Put an item on a sheet: new, from the starter list or copied from the library.

    H&H items go into the Rucksack by default, whose capacity is enforced.
    """
    opened = await open_character(session, user, campaign_id, character_id, edit=True)
    character = opened.character
    await _check_room_for_item(session, character.id)
    if starter:
        draft = _starter_draft(character.system, starter)
    elif library_item_id is not None:
        source = await _library_row(session, campaign_id, library_item_id)
        if source is None:
            raise ValidationFailed({"library_item_id": _("Item not found.")})
        draft = _copied_draft(source)
    name, parsed = _validate_item_input(character.system, draft)
    container = _container(character, container)
    if starter:
        stack = next(
            (i for i in opened.items if _same_stack(i, name, parsed, draft.price, container)),
            None,
        )
        if stack is not None:
            return await _add_to_stack(session, user, opened, stack, draft.quantity)
    item = _drafted_item(
        campaign_id, draft, name, parsed, character_id=character.id, container=container
    )
    _check_stow(character, opened.items, item)
    session.add(item)
    await _flush(session)
    await _record(
        session,
        character,
        user,
        character_events.CharacterItemAdded(
            **_about(session, character, user), **_item_payload(item)
        ),
    )
    return item


def _starter_draft(system: str, key: str) -> ItemDraft:
    """A starter item of the system as a new item's values (sample data says so)."""
    found = catalog.find_starter(inventory(system).starter_items(), key)
    if found is None:
        raise ValidationFailed({"starter": _("Choose one of the listed values.")})
    description = _("Sample data, edit as needed.") if found.sample else ""
    return ItemDraft(found.name, found.quantity, found.price, dict(found.fields), description)


def _drafted_item(
    campaign_id: int,
    draft: ItemDraft,
    name: str,
    fields: Mapping[str, object],
    *,
    character_id: int | None = None,
    in_library: bool = False,
    container: str | None = None,
    slot: str | None = None,
) -> Item:
    """A new item as ``draft`` has it, under its checked ``name`` and system ``fields``
    (:func:`_validate_item_input`); equipped exactly when it has a ``slot``."""
    return Item(
        campaign_id=campaign_id, character_id=character_id, in_library=in_library,
        name=name, description=draft.description, quantity=draft.quantity, price=draft.price,
        fields=dict(fields), container=container, slot=slot, equipped=slot is not None,
    )  # fmt: skip


def _copied_draft(item: Item) -> ItemDraft:
    """An item's values, for a copy of it."""
    return ItemDraft(item.name, item.quantity, item.price, dict(item.fields), item.description)


async def _library_row(session: AsyncSession, campaign_id: int, item_id: int) -> Item | None:
    """An item of the campaign's library (``None``: no such item there)."""
    return await session.scalar(
        select(Item).where(
            Item.id == item_id, Item.campaign_id == campaign_id, Item.in_library.is_(True)
        )
    )


def _check_item_version(item: Item, version: int | None) -> None:
    """Refuses an edit made from an older ``version`` of the item."""
    if version is not None and version != item.version:
        raise Conflict(_("Someone changed this item meanwhile. Here are the current values."))


def _item_state(item: Item) -> character_events.ItemState:
    """What an item's update event tells of it before and after."""
    return {
        "name": item.name,
        "quantity": item.quantity,
        "price": item.price,
        "fields": item.fields,
    }


def _apply_edit(item: Item, system: str, draft: ItemDraft, replace_fields: bool) -> None:
    """The draft's values on the item, once they pass the checks."""
    name, parsed = _validate_item_input(system, draft)
    item.name, item.description = name, draft.description
    item.quantity, item.price = draft.quantity, draft.price
    item.fields = _edited_fields(system, item.fields, parsed, replace_fields)


def _edited_fields(
    system: str, current: Mapping[str, object], parsed: Mapping[str, object], replace_fields: bool
) -> dict[str, object]:
    """An edited item's system fields: the parsed ones merged into the item's, or with
    ``replace_fields`` (the HTML form, which sends all of them) replacing the editable ones,
    so that a field left empty is cleared."""
    if replace_fields:
        editable = {f.key for f in inventory(system).item_fields}
        current = {k: v for k, v in current.items() if k not in editable}
    return {**current, **parsed}


def _same_stack(
    item: Item, name: str, fields: Mapping[str, object], price: int | None, container: str | None
) -> bool:
    """A starter item added again joins the same unequipped item in the same place."""
    return (
        not item.equipped
        and item.name == name
        and item.fields == fields
        and item.price == price
        and item.container == container
    )


async def _add_to_stack(
    session: AsyncSession, user: User, opened: Opened, item: Item, quantity: int
) -> Item:
    character = opened.character
    _validate_item_input(
        character.system,
        ItemDraft(item.name, item.quantity + quantity, item.price, description=item.description),
    )
    before = _item_state(item)
    item.quantity += quantity
    problems = inventory(character.system).edit_problems(character.data, opened.items, item)
    if problems:
        raise ValidationFailed(problems)
    await _flush(session)
    await _record(
        session,
        character,
        user,
        character_events.CharacterItemUpdated(
            **_about(session, character, user),
            **_item_payload(item),
            before=before,
            after={**before, "quantity": item.quantity},
        ),
    )
    return item


async def _open_item(
    session: AsyncSession, user: User, campaign_id: int, character_id: int, item_id: int
) -> tuple[Opened, Item]:
    opened = await open_character(session, user, campaign_id, character_id, edit=True)
    item = next((i for i in opened.items if i.id == item_id), None)
    if item is None:
        raise NotFound(_("Item not found."))
    return opened, item


async def update_item(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    character_id: int,
    item_id: int,
    draft: ItemDraft,
    *,
    version: int | None,
    replace_fields: bool = False,
) -> Item:
    """Edit an item; its system fields as ``_edited_fields`` says."""
    opened, item = await _open_item(session, user, campaign_id, character_id, item_id)
    _check_item_version(item, version)
    system = opened.character.system
    before = _item_state(item)
    _apply_edit(item, system, draft, replace_fields)
    problems = inventory(system).edit_problems(opened.character.data, opened.items, item)
    if problems:
        raise ValidationFailed(problems)
    await _flush(session)
    after = _item_state(item)
    await _record(
        session,
        opened.character,
        user,
        character_events.CharacterItemUpdated(
            **_about(session, opened.character, user),
            **_item_payload(item),
            before=before,
            after=after,
        ),
    )
    return item


async def remove_item(
    session: AsyncSession, user: User, campaign_id: int, character_id: int, item_id: int
) -> None:
    opened, item = await _open_item(session, user, campaign_id, character_id, item_id)
    payload = _item_payload(item)
    await session.delete(item)
    await _flush(session)
    await _record(
        session,
        opened.character,
        user,
        character_events.CharacterItemRemoved(**_about(session, opened.character, user), **payload),
    )


async def equip_item(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    character_id: int,
    item_id: int,
    slot: str,
) -> Item:
    opened, item = await _open_item(session, user, campaign_id, character_id, item_id)
    _check_equip(opened.character, opened.items, item, slot)
    before: character_events.ItemPlace = {"slot": item.slot, "container": item.container}
    item.equipped, item.slot, item.container = True, slot, None
    await _flush(session)
    await _record(
        session,
        opened.character,
        user,
        character_events.CharacterItemEquipped(
            **_about(session, opened.character, user), **_item_payload(item), before=before
        ),
    )
    return item


async def unequip_item(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    character_id: int,
    item_id: int,
    container: str | None = "default",
) -> Item:
    opened, item = await _open_item(session, user, campaign_id, character_id, item_id)
    character = opened.character
    container = _container(character, container)
    before: character_events.ItemPlace = {"slot": item.slot, "container": item.container}
    item.equipped, item.slot, item.container = False, None, container
    _check_stow(character, opened.items, item)
    await _flush(session)
    await _record(
        session,
        character,
        user,
        character_events.CharacterItemUnequipped(
            **_about(session, character, user), **_item_payload(item), before=before
        ),
    )
    return item


async def move_item(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    character_id: int,
    item_id: int,
    to_character_id: int,
    quantity: int | None = None,
) -> Item:
    """Hand (part of) a stack to another character of the campaign in one transaction.

    The giver needs the right to edit the source sheet; the receiver must be visible to
    them. H&H: the item goes into the receiver's Rucksack, whose capacity is enforced.
    """
    opened, item = await _open_item(session, user, campaign_id, character_id, item_id)
    if to_character_id == character_id:
        raise ValidationFailed({"to_character_id": _("Choose another character.")})
    target = await session.scalar(
        select(Character).where(
            Character.id == to_character_id, Character.campaign_id == campaign_id
        )
    )
    if target is None or not can_see_character(
        opened.viewer, hidden_from_players=target.hidden_from_players
    ):
        raise ValidationFailed({"to_character_id": _("Character not found.")})
    count = item.quantity if quantity is None else quantity
    if not 1 <= count <= item.quantity:
        raise ValidationFailed(
            {"quantity": _("Between %(min)d and %(max)d.", min=1, max=item.quantity)}
        )
    if count < item.quantity:
        await _check_room_for_item(session, target.id)
        item.quantity -= count
        copy = replace(_copied_draft(item), quantity=count)
        moved = _drafted_item(campaign_id, copy, copy.name, copy.fields)
        session.add(moved)
    else:
        await _check_room_for_item(session, target.id)
        moved = item
    moved.character_id = target.id
    moved.equipped, moved.slot = False, None
    moved.container = inventory(target.system).default_container(target.data)
    _check_stow(target, await _items(session, target.id), moved)
    await _flush(session)
    handed: _ItemRef = {**_item_payload(moved), "quantity": count}
    await _record(
        session,
        opened.character,
        user,
        character_events.CharacterItemMoved(
            **_about(session, opened.character, user),
            **handed,
            to_character_id=target.id,
            to_character_name=target.name,
        ),
        names=[target],
    )
    await _record(
        session,
        target,
        user,
        character_events.CharacterItemReceived(
            **_about(session, target, user),
            **handed,
            to_character_id=target.id,
            from_character_id=opened.character.id,
            from_character_name=opened.character.name,
        ),
        names=[opened.character],
    )
    return moved


# --- campaign item library ------------------------------------------------------------------


async def library(
    session: AsyncSession, user: User, campaign_id: int
) -> tuple[Campaign, Viewer, list[Item]]:
    campaign, viewer = await authorize(session, campaign_id, user.id, user.username, Action.view)
    return campaign, viewer, await library_items(session, campaign_id)


async def add_library_item(
    session: AsyncSession, user: User, campaign_id: int, draft: ItemDraft, *, starter: str = ""
) -> Item:
    campaign, _viewer = await authorize(
        session, campaign_id, user.id, user.username, Action.manage_item_library
    )
    library_size = await _count(session, Item.campaign_id == campaign_id, Item.in_library.is_(True))
    limits.check_room(library_size, limits.LIBRARY_ITEMS_PER_CAMPAIGN, "name")
    if starter:
        draft = _starter_draft(campaign.system, starter)
    name, parsed = _validate_item_input(campaign.system, draft)
    item = _drafted_item(campaign_id, draft, name, parsed, in_library=True)
    session.add(item)
    await session.flush()
    await append_event(
        session,
        campaign_id,
        character_events.LibraryItemAdded(
            actor_name=user.username, item_id=item.id, item_name=item.name
        ),
        actor_id=user.id,
    )
    return item


async def update_library_item(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    item_id: int,
    draft: ItemDraft,
    *,
    version: int | None,
    replace_fields: bool = False,
) -> Item:
    """Edit a library entry (GMs); the copies already on sheets stay as they are."""
    campaign, item = await _open_library_item(session, user, campaign_id, item_id)
    _check_item_version(item, version)
    before: character_events.LibraryItemState = {
        "name": item.name,
        "quantity": item.quantity,
        "price": item.price,
    }
    _apply_edit(item, campaign.system, draft, replace_fields)
    try:
        await session.flush()
    except StaleDataError:
        raise Conflict(
            _("Someone changed this item meanwhile. Here are the current values.")
        ) from None
    await append_event(
        session,
        campaign_id,
        character_events.LibraryItemUpdated(
            actor_name=user.username,
            item_id=item.id,
            item_name=item.name,
            before=before,
            after={"name": item.name, "quantity": item.quantity, "price": item.price},
        ),
        actor_id=user.id,
    )
    return item


async def _open_library_item(
    session: AsyncSession, user: User, campaign_id: int, item_id: int
) -> tuple[Campaign, Item]:
    """The campaign and an item of its library, for those who manage it."""
    campaign, _viewer = await authorize(
        session, campaign_id, user.id, user.username, Action.manage_item_library
    )
    item = await _library_row(session, campaign_id, item_id)
    if item is None:
        raise NotFound(_("Item not found."))
    return campaign, item


async def library_item(session: AsyncSession, user: User, campaign_id: int, item_id: int) -> Item:
    """An item of the campaign's library, for those who manage it."""
    _campaign, item = await _open_library_item(session, user, campaign_id, item_id)
    return item


async def remove_library_item(
    session: AsyncSession, user: User, campaign_id: int, item_id: int
) -> None:
    item = await library_item(session, user, campaign_id, item_id)
    await session.delete(item)
    await append_event(
        session,
        campaign_id,
        character_events.LibraryItemRemoved(
            actor_name=user.username, item_id=item_id, item_name=item.name
        ),
        actor_id=user.id,
    )


# --- rolls ----------------------------------------------------------------------------------


async def roll_odds(
    session: AsyncSession, user: User, campaign_id: int, character_id: int, req: rolling.RollRequest
) -> rolling.Odds:
    opened = await open_character(session, user, campaign_id, character_id, to_roll=True)
    c = opened.character
    return sheet_rolls(c.system).odds(c.data, opened.items, req)


async def roll(
    session: AsyncSession,
    roller: Roller,
    user: User,
    campaign_id: int,
    character_id: int,
    req: rolling.RollRequest,
) -> CampaignEvent:
    """Roll from the sheet through the engine; the result is a ``roll`` event in the dice log.

    Only those who may edit the sheet roll from it. Glück spent or burned changes the sheet
    (recorded as ``character_updated``, after the roll: in a fair-play session the roll
    event is the one that lists the faces). Rolls of a hidden NSC are GM-only.
    """
    opened = await open_character(session, user, campaign_id, character_id, to_roll=True)
    if req.visibility not in VISIBILITIES:
        raise ValidationFailed({"visibility": _("Choose public, GM only or GM and me.")})
    c = opened.character
    system = sheet_rolls(c.system)
    req = replace(req, visibility=system.roll_visibility(req, opened.campaign.settings))
    req, plan = await _knowledge_check(session, opened, req)
    req = await _with_helper(session, opened, req)
    dice = await roller_for_read_campaign(session, opened.campaign, user.id, roller)
    result = system.roll(dice, c.data, opened.items, req)
    payload = log_events.Roll.build(
        actor_name=user.username,
        expression=result.expression,
        label=f"{c.name}: {result.label}",
        dice=result.dice,
        modifier=result.modifier,
        total=result.total,
        sheet=log_events.SheetRoll(
            system=c.system,
            summary=result.summary,
            outcome=result.outcome,
            character_id=c.id,
            character_name=c.name,
            target=req.target,
        ),
    )
    event = await append_event(
        session,
        campaign_id,
        payload,
        actor_id=user.id,
        audience=about(
            payload.to_json(),
            [c.id] if c.hidden_from_players else [],
            chosen(req.visibility, user.id),
        ),
    )
    await _apply_sheet_changes(session, c, user, result.sheet_changes)
    if plan is not None:
        await knowledge.apply_check(session, user, campaign_id, plan, result.outcome)
    return event


async def _apply_sheet_changes(
    session: AsyncSession, c: Character, user: User, changes: Mapping[str, object]
) -> None:
    """Glück spent or burned by a roll goes onto the sheet, one ``character_updated`` each."""
    if not changes:
        return
    data = copy_json(c.data)
    for key, value in changes.items():
        before = sheets.get_value(c.data, key)
        sheets.set_value(data, key, value)
        await _record(
            session,
            c,
            user,
            character_events.CharacterUpdated(
                **_about(session, c, user), field=key, before=before, after=value
            ),
        )
    c.data = data
    c.updated_at = utcnow()
    await _flush(session)


def hidden_from_roller(event: CampaignEvent, viewer: Viewer) -> bool:
    """Whether the roller learns only that their roll happened, as the dice log shows it to
    them (the event's audience): a Verdeckter Wurf (PF2e, seed 002) or any roll for the GMs
    only, by a roller who is not a GM."""
    return not can_see(event, viewer)


async def helpers_for(session: AsyncSession, opened: Opened) -> list[Character]:
    """Who may help a roll from this sheet: the campaign's other characters the viewer sees
    (H&H Helfen; none where the system has no Helfen)."""
    if not sheet_rolls(opened.character.system).helping:
        return []
    seen = await visible_characters(session, opened.viewer, opened.campaign.id)
    return [c for c in seen if c.id != opened.character.id]


async def _with_helper(
    session: AsyncSession, opened: Opened, req: rolling.RollRequest
) -> rolling.RollRequest:
    """The request with the named helper's sheet, or refused at ``helper_id``."""
    if req.helper_id is None:
        return req
    sheet = await _other_sheet(session, opened, req.helper_id)
    if sheet is None:
        raise ValidationFailed({"helper_id": _("Choose a character of this campaign.")})
    return replace(req, helper=sheet)


async def _other_sheet(
    session: AsyncSession, opened: Opened, character_id: int
) -> rolling.HelperSheet | None:
    """Another character's sheet that may help this one (:func:`helpers_for`), or ``None``."""
    helper = next((c for c in await helpers_for(session, opened) if c.id == character_id), None)
    if helper is None:
        return None
    items = await _items(session, helper.id)
    return rolling.HelperSheet(helper.id, helper.name, helper.data, items)


async def _knowledge_check(
    session: AsyncSession, opened: Opened, req: rolling.RollRequest
) -> tuple[rolling.RollRequest, knowledge.CheckPlan | None]:
    """A roll with ``knowledge_of`` is a knowledge check: the rules set its SG (PF2e) and
    make it a Verdeckter Wurf (GM only) when the campaign keeps such checks secret."""
    if req.knowledge_of is None:
        return req, None
    c = opened.character
    plan = await knowledge.prepare_check(
        session, opened.viewer, c.campaign_id, req.knowledge_of, req.target, c.owner_id
    )
    return replace(
        req,
        dc=plan.dc if plan.dc is not None else req.dc,
        visibility="gm" if plan.secret else req.visibility,
    ), plan


# --- export / import ------------------------------------------------------------------------


def export(opened: Opened) -> dict[str, object]:
    c = opened.character
    return {
        "format": EXPORT_FORMAT,
        "format_version": EXPORT_VERSION,
        "system": c.system,
        "name": c.name,
        "kind": c.kind,
        "data": c.data,
        "items": [
            {
                "name": i.name,
                "description": i.description,
                "quantity": i.quantity,
                "price": i.price,
                "fields": i.fields,
                "slot": i.slot,
                "equipped": i.equipped,
                "container": i.container,
            }
            for i in opened.items
        ],
    }


def _bad_file(message: str) -> ValidationFailed:
    return ValidationFailed({"file": message})


def _check_import_file(document: Any, campaign_system: str) -> None:
    """Format, bounds (before any work that grows with the file), version and system."""
    if not isinstance(document, dict) or document.get("format") != EXPORT_FORMAT:
        raise _bad_file(_("This is not a Tafelrunde character file."))
    items_in_file = document.get("items", [])
    if isinstance(items_in_file, list) and len(items_in_file) > limits.ITEMS_PER_CHARACTER:
        raise _bad_file(
            _("A character carries at most %(max)d items.", max=limits.ITEMS_PER_CHARACTER)
        )
    too_much = limits.data_problem({"data": document.get("data")}) or limits.data_problem(
        document, limits.FILE_ENTRIES_MAX
    )
    if too_much is not None:
        raise _bad_file(f"{too_much[0]}: {too_much[1]}" if too_much[0] else too_much[1])
    if document.get("format_version") != EXPORT_VERSION:
        raise _bad_file(_("This file has an unknown format version."))
    system = document.get("system")
    if system != campaign_system:
        raise _bad_file(
            _(
                "This character belongs to %(file)s, the campaign plays %(campaign)s.",
                file=str(system),
                campaign=campaign_system,
            )
        )


def _import_item(system: str, campaign_id: int, n: int, raw: Any) -> Item:
    """Item ``n`` of a character file, checked like an item typed in by hand."""
    if not isinstance(raw, dict):
        raise _bad_file(_("Item %(n)d is malformed.", n=n))
    try:
        quantity = int(raw.get("quantity", 1))
        price = None if raw.get("price") is None else int(raw["price"])
        draft = ItemDraft(
            str(raw.get("name", "")),
            quantity,
            price,
            raw.get("fields") or {},
            str(raw.get("description", "")),
        )
        item_name, parsed = _validate_item_input(system, draft)
    except (ValueError, TypeError):
        raise _bad_file(_("Item %(n)d is malformed.", n=n)) from None
    except ValidationFailed as exc:
        raise _bad_file(_("Item %(n)d: %(problem)s", n=n, problem=exc.message)) from None
    slot = raw.get("slot")
    container = raw.get("container")
    equipped = bool(raw.get("equipped", False)) and isinstance(slot, str)
    return _drafted_item(
        campaign_id,
        draft,
        item_name,
        parsed,
        slot=slot if equipped else None,
        container=container if container == sheets.RUCKSACK else None,
    )


async def import_file(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    document: Any,
    owner_id: int | None = None,
) -> tuple[Character, Report | None]:
    """Import our own character file, a Pathbuilder 2e export or a Foundry pf2e/ds4
    character (told apart by shape, ``app.characters.foreign``); the report says what was
    taken, converted and left out (``None`` for our own files)."""
    campaign, _viewer = await authorize(
        session, campaign_id, user.id, user.username, Action.create_character
    )
    ours = isinstance(document, dict) and document.get("format") == EXPORT_FORMAT
    if not ours and not within_bounds(document):  # our own files have bounds of their own
        raise ValidationFailed({"file": _("The file is too large or too deeply nested.")})
    converted, report = foreign.convert(document, campaign.system)
    character = await import_character(session, user, campaign_id, converted, owner_id)
    return character, report


async def import_character(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    document: Any,
    owner_id: int | None = None,
) -> Character:
    """Create a character from an export. Everything is checked before anything is written:
    a malformed or mismatched file changes nothing and says what is wrong (field ``file``)."""
    campaign, viewer = await authorize(
        session, campaign_id, user.id, user.username, Action.create_character
    )
    _check_import_file(document, campaign.system)
    name, kind, data, items = (
        document.get("name"),
        document.get("kind", "pc"),
        document.get("data"),
        document.get("items", []),
    )
    if not isinstance(name, str) or not isinstance(data, dict) or not isinstance(items, list):
        raise _bad_file(_("The file lacks a name, sheet data or an item list."))
    if name_problem := limits.name_problem(name.strip()):
        raise _bad_file(f"name: {name_problem}")
    if kind == CharacterKind.npc.value and not allowed(viewer.role, Action.manage_characters):
        kind = CharacterKind.pc.value
    rules = character_system(campaign.system)
    sheet, errors = normalised_sheet(
        rules, data, "npc" if kind == CharacterKind.npc.value else "pc"
    )
    if errors:
        first = next(iter(errors.items()))
        raise _bad_file(_("Sheet value %(field)s: %(problem)s", field=first[0], problem=first[1]))
    parsed_items = [
        _import_item(campaign.system, campaign_id, n, raw) for n, raw in enumerate(items, start=1)
    ]
    problem = inventory(campaign.system).import_problem(sheet, parsed_items)
    if problem is not None:
        raise _bad_file(problem)
    character = await create_character(
        session,
        user,
        campaign_id,
        name,
        kind=kind if kind in ("pc", "npc") else "pc",
        owner_id=owner_id,
        data=sheet,
        hidden_from_players=False,
    )
    for item in parsed_items:
        item.character_id = character.id
        session.add(item)
    await session.flush()
    await _record(
        session,
        character,
        user,
        character_events.CharacterImported(
            **_about(session, character, user), items=len(parsed_items)
        ),
    )
    return character


# --- history --------------------------------------------------------------------------------


HISTORY_PAGE = limits.LOG_PAGE


async def history(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    character_id: int,
    limit: int = limits.HISTORY_API_PAGE,
    *,
    before: int | None = None,
) -> tuple[Opened, list[VisibleEvent]]:
    """The sheet's events the viewer may see, newest first (``before``: seq cursor)."""
    opened, events, _next = await history_page(
        session, user, campaign_id, character_id, before=before, limit=limit
    )
    return opened, events


async def history_page(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    character_id: int,
    *,
    before: int | None = None,
    limit: int | None = None,
) -> tuple[Opened, list[VisibleEvent], int | None]:
    """One page of the sheet's history, newest first, and the ``before`` cursor of the next
    page (``None`` when there are no older entries)."""
    limit = limit or HISTORY_PAGE
    opened = await open_character(session, user, campaign_id, character_id)
    events = await events_about(
        session,
        campaign_id,
        payload.subject_of("character", character_id),
        opened.viewer,
        type_like="character%",
        limit=limit + 1,
        before=before,
    )
    more = len(events) > limit
    page = project(events[:limit], opened.viewer)
    return opened, page, (events[limit - 1].seq if more else None)
