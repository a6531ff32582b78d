"""Use cases of the bestiary, encounters and running combat.

Permissions come from :mod:`app.campaigns.permissions` (``run_encounters`` for the GM side,
``act_in_combat`` for players acting with their own characters). Every change appends an
event to the campaign log in the same transaction: ``encounter`` (preparation, GM only) and
``combat`` (a running fight). A combat report is split by visibility: lines about a hidden
participant and Verdeckte Würfe go into a GM-only event, the rest into a public one, so a
player's stream never carries them.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy import Select, bindparam, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.exc import StaleDataError

from app import limits
from app.accounts.models import User
from app.campaigns.models import Campaign
from app.campaigns.permissions import Action, allowed, authorize
from app.campaigns.settings import current as rule_options
from app.characters import events as character_events
from app.characters.combat import combat_statblock, combat_values, sheet_changes
from app.characters.models import Character, Item
from app.characters.sheets import set_value
from app.core.imports import Report as ImportReport
from app.core.imports import within_bounds
from app.core.jsoncopy import copy_json
from app.core.queries import all_rows
from app.core.systems import RuleSystem
from app.core.viewer import Viewer
from app.db import utcnow
from app.encounters import board, bursts, foreign, statblocks
from app.encounters import events as encounter_events
from app.encounters import undo as steps
from app.encounters.board import Snapshot, attack_params, cast_params, snapshot
from app.encounters.combat import (
    SIDES,
    CombatError,
    Entry,
    Report,
    State,
    current_pid,
    delay,
    fresh_state,
    map_moved,
    map_moves,
    remove_from_order,
    spend_movement,
    swap_tied,
)
from app.encounters.models import BestiaryEntry, Encounter, Participant
from app.encounters.state import FigureData, dump_state, load_state, read_state
from app.encounters.systems import system
from app.encounters.systems.play import AttackOrder, Play
from app.encounters.systems.protocol import (
    CountedActions,
    Settings,
    SheetSync,
    Spellcasting,
    capability,
    need,
    settings_of,
)
from app.errors import Conflict, Forbidden, NotFound, ValidationFailed
from app.events import audience, payload
from app.events.models import CampaignEvent
from app.events.service import append_event, events_about
from app.i18n import N_, _
from app.knowledge import service as knowledge
from app.rules.dice import Roller, SecureRoller
from app.sessions import service as sessions
from app.sessions.dice import roller_for_read_campaign

MAX_COPIES = 20
NAME_MAX = limits.NAME_MAX
#: Combat log entries per page (page and API).
LOG_PAGE = limits.COMBAT_LOG_ENTRIES

Op = Callable[[State, Report], None]
#: A character and its items.
Sheet = tuple[Character, list[Item]]
T = TypeVar("T")


class Shared:
    """What the views compute the same way for every viewer of one read of a fight (a
    figure's ``view``), computed once for all the viewers a live push serves
    (:func:`live_rows`); each viewer's projection is cut from it afterwards.

    Values belong to the encounter's state object they were computed from: a state that is
    another object (a use case wrote a new one) starts afresh."""

    __slots__ = ("_state", "_values")

    def __init__(self) -> None:
        self._state: object = None
        self._values: dict[Hashable, object] = {}

    def get(self, state: object, key: Hashable, make: Callable[[], T]) -> T:
        """The value of ``key`` for ``state``, made by ``make()`` the first time."""
        if self._state is not state:
            self._state, self._values = state, {}
        if key not in self._values:
            self._values[key] = make()
        value: T = self._values[key]  # type: ignore[assignment]  # stored by make() above
        return value


@dataclass(frozen=True, slots=True)
class Loaded:
    campaign: Campaign
    viewer: Viewer
    encounter: Encounter
    participants: list[Participant]
    #: Actions the GM can undo, counted with the encounter row (``app.encounters.undo``);
    #: the steps themselves are read only by an undo.
    undo_steps: int
    #: The player characters in the fight by participant id, with their items: the truth
    #: of their current values (issue 13), already set into ``encounter.state``.
    characters: Mapping[str, Sheet] = field(default_factory=dict)
    #: Per bestiary entry, what a player knows of it ("LP ~60"); empty for the GMs.
    known: dict[int, list[str]] = field(default_factory=dict)
    #: The linked scene's board (issue 27): attacks measure on it, the forms leave out the
    #: fields it decides; ``None`` in theatre of the mind.
    board: Snapshot | None = None
    #: What views compute for every viewer alike, shared by the viewers of one live push
    #: (:func:`as_viewer`); ``None``: computed for this viewer alone.
    shared: Shared | None = None

    @property
    def by_id(self) -> dict[str, Participant]:
        return {str(p.id): p for p in self.participants}

    @property
    def hidden(self) -> set[str]:
        return {str(p.id) for p in self.participants if p.hidden}

    @property
    def settings(self) -> Settings:
        """The encounter's settings as the rule system reads them."""
        return settings_of(self.encounter.settings)


def combat_error(exc: CombatError) -> ValidationFailed:
    return ValidationFailed({exc.field: _(exc.message, **exc.params)})


# --- bestiary --------------------------------------------------------------------------------


async def _gm(session: AsyncSession, user: User, campaign_id: int) -> tuple[Campaign, Viewer]:
    return await authorize(session, campaign_id, user.id, user.username, Action.run_encounters)


async def bestiary(session: AsyncSession, user: User, campaign_id: int) -> list[BestiaryEntry]:
    _campaign, _viewer = await _gm(session, user, campaign_id)
    query = select(BestiaryEntry).where(BestiaryEntry.campaign_id == campaign_id)
    return await all_rows(session, query.order_by(BestiaryEntry.name, BestiaryEntry.id))


async def bestiary_entry(
    session: AsyncSession, user: User, campaign_id: int, entry_id: int
) -> BestiaryEntry:
    await _gm(session, user, campaign_id)
    entry = await _entry(session, campaign_id, entry_id)
    if entry is None:
        raise NotFound(_("Bestiary entry not found."))
    return entry


async def _entry(session: AsyncSession, campaign_id: int, entry_id: int) -> BestiaryEntry | None:
    """The campaign's bestiary entry ``entry_id``, if it has one."""
    return await session.scalar(
        select(BestiaryEntry).where(
            BestiaryEntry.id == entry_id, BestiaryEntry.campaign_id == campaign_id
        )
    )


def _name(name: str, field: str = "name") -> str:
    return limits.check_name(name, field)


async def _check_room_for_entry(session: AsyncSession, campaign_id: int, adding: int = 1) -> None:
    count = await session.scalar(
        select(func.count())
        .select_from(BestiaryEntry)
        .where(BestiaryEntry.campaign_id == campaign_id)
    )
    limits.check_room(int(count or 0) + adding - 1, limits.BESTIARY_ENTRIES_PER_CAMPAIGN, "name")


async def _check_room_for_encounter(session: AsyncSession, campaign_id: int) -> None:
    count = await session.scalar(
        select(func.count()).select_from(Encounter).where(Encounter.campaign_id == campaign_id)
    )
    limits.check_room(int(count or 0), limits.ENCOUNTERS_PER_CAMPAIGN, "name")


def _check_room_for_participants(loaded: Loaded, adding: int, field: str) -> None:
    count = len(loaded.participants) + adding - 1
    limits.check_room(count, limits.PARTICIPANTS_PER_ENCOUNTER, field)


async def _prep_event(
    session: AsyncSession,
    campaign_id: int,
    user: User,
    kind: encounter_events.EncounterKind,
    *,
    name: str | None = None,
    names: list[str] | None = None,
    entry_id: int | None = None,
    encounter_id: int | None = None,
    source_id: int | None = None,
) -> None:
    """Log a step of the GMs' preparation (GM-only)."""
    await append_event(
        session,
        campaign_id,
        encounter_events.EncounterPrepared(
            actor_name=user.username,
            kind=kind,
            name=name,
            names=names,
            entry_id=entry_id,
            encounter_id=encounter_id,
            source_id=source_id,
        ),
        actor_id=user.id,
        audience=audience.gm_only(),
    )


async def create_entry(
    session: AsyncSession, user: User, campaign_id: int, name: str, data: Mapping[str, Any]
) -> BestiaryEntry:
    campaign, _viewer = await _gm(session, user, campaign_id)
    await _check_room_for_entry(session, campaign_id)
    limits.check_data(data)
    errors: dict[str, str] = {}
    try:
        name = _name(name)
    except ValidationFailed as exc:
        errors.update(exc.fields)
    try:
        block = statblocks.validate(campaign.system, data)
    except ValidationFailed as exc:
        errors.update(exc.fields)
    if errors:
        raise ValidationFailed(errors)
    entry = BestiaryEntry(campaign_id=campaign_id, system=campaign.system, name=name, data=block)
    session.add(entry)
    await session.flush()
    await _prep_event(session, campaign_id, user, "bestiary_added", entry_id=entry.id, name=name)
    return entry


async def import_entry(
    session: AsyncSession, user: User, campaign_id: int, document: Any
) -> tuple[BestiaryEntry, ImportReport]:
    """A bestiary entry from a Foundry pf2e NPC or ds4 creature (``app.encounters.foreign``);
    the stat block is checked like a typed one, and a bad file changes nothing (``file``)."""
    campaign, _viewer = await _gm(session, user, campaign_id)
    if not within_bounds(document):
        raise ValidationFailed({"file": _("The file is too large or too deeply nested.")})
    name, block, report = foreign.convert(document, campaign.system)
    try:
        entry = await create_entry(session, user, campaign_id, name[:100], block)
    except ValidationFailed as exc:
        first = next(iter(exc.fields.items()))
        raise ValidationFailed(
            {"file": _("Value %(field)s: %(problem)s", field=first[0], problem=first[1])}
        ) from None
    return entry, report


async def update_entry(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    entry_id: int,
    version: int | None,
    name: str,
    data: Mapping[str, Any],
) -> BestiaryEntry:
    entry = await bestiary_entry(session, user, campaign_id, entry_id)
    if version is not None and version != entry.version:
        raise Conflict(_("Someone changed this entry meanwhile."))
    name = _name(name)
    limits.check_data(data)
    entry.data = statblocks.validate(entry.system, data)
    entry.name = name
    entry.sample = False
    await _flush(session)
    await _prep_event(session, campaign_id, user, "bestiary_changed", entry_id=entry.id, name=name)
    return entry


async def delete_entry(session: AsyncSession, user: User, campaign_id: int, entry_id: int) -> None:
    entry = await bestiary_entry(session, user, campaign_id, entry_id)
    await session.delete(entry)
    await _prep_event(
        session, campaign_id, user, "bestiary_removed", entry_id=entry_id, name=entry.name
    )


async def add_samples(session: AsyncSession, user: User, campaign_id: int) -> list[BestiaryEntry]:
    """Add the system's starter monsters (marked as sample data) that are not there yet."""
    campaign, _viewer = await _gm(session, user, campaign_id)
    existing = set(
        (
            await session.scalars(
                select(BestiaryEntry.name).where(
                    BestiaryEntry.campaign_id == campaign_id, BestiaryEntry.sample.is_(True)
                )
            )
        ).all()
    )
    added: list[BestiaryEntry] = []
    for name, block in statblocks.rules(campaign.system).samples:
        if name in existing:
            continue
        entry = BestiaryEntry(
            campaign_id=campaign_id,
            system=campaign.system,
            name=name,
            data=statblocks.validate(campaign.system, block),
            sample=True,
        )
        added.append(entry)
    await _check_room_for_entry(session, campaign_id, len(added))
    session.add_all(added)
    await session.flush()
    if added:
        await _prep_event(
            session, campaign_id, user, "bestiary_samples", names=[e.name for e in added]
        )
    return added


# --- encounters ------------------------------------------------------------------------------


async def encounters(session: AsyncSession, user: User, campaign_id: int) -> list[Encounter]:
    """The GM sees every encounter; players see the running and finished ones."""
    _campaign, viewer = await authorize(session, campaign_id, user.id, user.username, Action.view)
    return await encounters_for(session, campaign_id, viewer)


async def encounters_for(
    session: AsyncSession, campaign_id: int, viewer: Viewer
) -> list[Encounter]:
    """The encounters ``viewer`` may see (the list page and its live pushes), newest first."""
    query = select(Encounter).where(Encounter.campaign_id == campaign_id)
    if not allowed(viewer.role, Action.run_encounters):
        query = query.where(Encounter.status != "prepared")
    return await all_rows(session, query.order_by(Encounter.id.desc()))


@functools.cache
def _encounter_query(
    links: tuple[board.BoardLink, ...], for_update: bool
) -> Select[Encounter, int, bool]:
    """The encounter, its number of undo steps and whether a board is linked to it; read by
    every combat request, so built once (per set of registered boards)."""
    query = select(Encounter, steps.count(), board.linked(links, Encounter.id.expression)).where(
        Encounter.id == bindparam("encounter_id"),
        Encounter.campaign_id == bindparam("campaign_id"),
    )
    return query.with_for_update(of=Encounter) if for_update else query


@dataclass(frozen=True, slots=True)
class _EncounterRow:
    encounter: Encounter
    undo_steps: int
    has_board: bool


async def _encounter(
    session: AsyncSession,
    campaign_id: int,
    encounter_id: int,
    for_update: bool = False,
) -> _EncounterRow | None:
    """The encounter, its number of undo steps and whether it has a board, in one statement.

    ``for_update`` locks the row until the end of the transaction (PostgreSQL), for a use
    case that writes the log before the row: the lock order stays encounter, then campaign
    (the log's sequence), as in every other use case.
    """
    query = _encounter_query(tuple(board.LINKS), for_update)
    params = {"encounter_id": encounter_id, "campaign_id": campaign_id}
    row = (await session.execute(query, params)).first()
    return _EncounterRow(row[0], int(row[1]), bool(row[2])) if row is not None else None


async def _known(
    session: AsyncSession, viewer: Viewer, campaign_id: int, participants: Sequence[Participant]
) -> dict[int, list[str]]:
    """What a player knows of the visible figures' bestiary entries (``app.knowledge``)."""
    return await knowledge.known_texts(session, viewer, campaign_id, _seen_entries(participants))


def _seen_entries(participants: Sequence[Participant]) -> list[int]:
    """The bestiary entries of the figures players may see."""
    return [p.bestiary_entry_id for p in participants if p.bestiary_entry_id and not p.hidden]


async def load(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    encounter_id: int,
    action: Action = Action.view,
    *,
    for_update: bool = False,
) -> Loaded:
    campaign, viewer = await authorize(session, campaign_id, user.id, user.username, action)
    row = await _encounter(session, campaign_id, encounter_id, for_update)
    if row is None or (
        row.encounter.status == "prepared" and not allowed(viewer.role, Action.run_encounters)
    ):
        raise NotFound(_("Encounter not found."))
    cast = await _cast(session, encounter_id)
    return await _loaded(session, campaign, viewer, row, cast)


async def _load_at(
    session: AsyncSession, user: User, campaign_id: int, encounter_id: int, version: int | None
) -> Loaded:
    """The encounter loaded for the GMs, refused (409) unless it is at ``version``."""
    loaded = await load(session, user, campaign_id, encounter_id, Action.run_encounters)
    _check_version(loaded.encounter, version)
    return loaded


#: The participants with their characters (``None`` for a bestiary figure), in one
#: statement: each participant has at most one character, so no row repeats.
_PARTICIPANTS = (
    select(Participant, Character)
    .outerjoin(Character, Character.id == Participant.character_id)
    .where(Participant.encounter_id == bindparam("encounter_id"))
    .order_by(Participant.position, Participant.id)
)


@dataclass(frozen=True, slots=True)
class _Cast:
    """An encounter's participants in order, and the characters among them."""

    participants: list[Participant]
    characters: list[Character]


async def _cast(session: AsyncSession, encounter_id: int) -> _Cast:
    rows = (await session.execute(_PARTICIPANTS, {"encounter_id": encounter_id})).all()
    return _Cast([p for p, _c in rows], [c for _p, c in rows if c is not None])


async def _loaded(
    session: AsyncSession,
    campaign: Campaign,
    viewer: Viewer,
    row: _EncounterRow,
    cast: _Cast,
) -> Loaded:
    """The encounter with its player characters' sheets (:func:`_with_sheets`)."""
    encounter = row.encounter
    characters = await _with_sheets(session, campaign, encounter, cast)
    participants = cast.participants
    known = await _known(session, viewer, campaign.id, participants)
    on_board = await snapshot(session, encounter.id) if row.has_board else None
    return Loaded(
        campaign, viewer, encounter, participants, row.undo_steps, characters, known, on_board
    )


async def _with_sheets(
    session: AsyncSession, campaign: Campaign, encounter: Encounter, cast: _Cast
) -> dict[str, Sheet]:
    """The characters' sheets; a running fight's figures get the sheets' current values
    (in memory: reading the fight writes nothing)."""
    characters = await _with_items(session, cast.participants, cast.characters)
    if characters and encounter.state.get("figures"):
        state = load_state(encounter.state)
        take_sheets(campaign.system, state, characters)
        set_committed_value(encounter, "state", state)
    return characters


_CHARACTERS = select(Character).where(Character.id.in_(bindparam("ids", expanding=True)))
_ITEMS = select(Item).where(Item.character_id.in_(bindparam("ids", expanding=True)))


async def _sheets(session: AsyncSession, participants: Sequence[Participant]) -> dict[str, Sheet]:
    """The characters of ``participants`` (player characters and NSC sheets) and their items."""
    ids = [p.character_id for p in participants if p.character_id is not None]
    rows = (await session.scalars(_CHARACTERS, {"ids": ids})).all() if ids else []
    return await _with_items(session, participants, rows)


async def _with_items(
    session: AsyncSession, participants: Sequence[Participant], characters: Sequence[Character]
) -> dict[str, Sheet]:
    """The sheets of ``participants`` by participant id: their ``characters`` (read) and
    the characters' items."""
    by_char = {p.character_id: str(p.id) for p in participants if p.character_id is not None}
    if not by_char:
        return {}
    items = (await session.scalars(_ITEMS, {"ids": list(by_char)})).all()
    out: dict[str, Sheet] = {by_char[c.id]: (c, []) for c in characters}
    for item in items:
        assert item.character_id is not None
        out[by_char[item.character_id]][1].append(item)
    return out


def take_sheets(system_name: str, state: State, characters: Mapping[str, Sheet]) -> None:
    """Set each character's figure to the sheet's current values (the sheet is the truth)."""
    rules = capability(system(system_name), SheetSync)
    if rules is None:
        return
    for pid, (character, items) in characters.items():
        fig = state["figures"].get(pid)
        if fig is not None:
            rules.take_sheet_state(fig, combat_values(system_name, character.data, items))


async def write_sheets(session: AsyncSession, loaded: Loaded, user: User, state: State) -> None:
    """What the fight changed on its characters goes onto their sheets, one
    ``character_fought`` event each (a stale sheet: 409 when flushed)."""
    rules = capability(system(loaded.campaign.system), SheetSync)
    if rules is None:
        return
    for pid, (character, _items) in loaded.characters.items():
        fig = state["figures"].get(pid)
        if fig is None:
            continue
        changes = sheet_changes(character.system, character.data, rules.sheet_state(fig))
        if not changes:
            continue
        data = copy_json(character.data)
        for key, (_before, after) in changes.items():
            set_value(data, key, after)
        character.data = data
        character.updated_at = utcnow()
        await append_event(
            session,
            loaded.campaign.id,
            character_events.CharacterFought(
                **character_events.about_character(
                    user.username, character.id, character.name, None
                ),
                encounter_id=loaded.encounter.id,
                changes=[
                    {"field": k, "before": before, "after": after}
                    for k, (before, after) in changes.items()
                ],
            ),
            actor_id=user.id,
            audience=audience.about({"character_id": character.id}, _hidden(character)),
        )


def _hidden(character: Character) -> list[int]:
    return [character.id] if character.hidden_from_players else []


async def load_as(
    session: AsyncSession, viewer: Viewer, campaign_id: int, encounter_id: int
) -> Loaded | None:
    """The encounter for a viewer whose membership the caller has checked (live stream)."""
    return as_viewer(await live_rows(session, campaign_id, encounter_id), viewer)


#: What a live stream reads of an encounter: the same for every viewer (:func:`as_viewer`).
LiveRows = tuple[
    Campaign, Encounter, list[Participant], int, Mapping[str, "Sheet"], knowledge.Lore,
    Snapshot | None, Shared,
]  # fmt: skip


async def live_rows(session: AsyncSession, campaign_id: int, encounter_id: int) -> LiveRows | None:
    """The rows of :func:`load_as`, for any viewer: live streams read them once per step
    for all their viewers (``app.web.regions.shared_load``)."""
    campaign = await session.get(Campaign, campaign_id)
    row = await _encounter(session, campaign_id, encounter_id)
    if campaign is None or row is None:
        return None
    encounter = row.encounter
    cast = await _cast(session, encounter_id)
    characters = await _with_sheets(session, campaign, encounter, cast)
    participants = cast.participants
    lore = await knowledge.lore(session, campaign_id, _seen_entries(participants))
    on_board = await snapshot(session, encounter_id) if row.has_board else None
    return campaign, encounter, participants, row.undo_steps, characters, lore, on_board, Shared()


def as_viewer(rows: LiveRows | None, viewer: Viewer) -> Loaded | None:
    """The rows as ``viewer`` may see them: a prepared encounter only for those who run it,
    and of the monsters what this viewer knows (cut from the lore read for all)."""
    if rows is None:
        return None
    campaign, encounter, participants, undo_steps, characters, lore, board, shared = rows
    if encounter.status == "prepared" and not allowed(viewer.role, Action.run_encounters):
        return None
    known = lore.texts_for(viewer)
    return Loaded(
        campaign, viewer, encounter, participants, undo_steps, characters, known, board, shared
    )


async def _flush(session: AsyncSession) -> None:
    try:
        await session.flush()
    except StaleDataError:
        raise Conflict(_("Someone changed this encounter meanwhile. Reload to see it.")) from None


def _check_version(encounter: Encounter, version: int | None) -> None:
    if version is not None and version != encounter.version:
        raise Conflict(_("Someone changed this encounter meanwhile. Reload to see it."))


def _touch(encounter: Encounter) -> None:
    encounter.updated_at = utcnow()


async def create_encounter(
    session: AsyncSession, user: User, campaign_id: int, name: str, notes: str
) -> Encounter:
    campaign, _viewer = await _gm(session, user, campaign_id)
    await _check_room_for_encounter(session, campaign_id)
    name = _name(name)
    notes = limits.check_text(notes.strip(), "notes")
    options = rule_options(RuleSystem(campaign.system), campaign.settings)
    encounter = Encounter(
        campaign_id=campaign_id,
        name=name,
        notes=notes,
        settings={k: v for k, v in options.items()},
        state={},
    )
    session.add(encounter)
    await session.flush()
    await _prep_event(
        session, campaign_id, user, "encounter_created", encounter_id=encounter.id, name=name
    )
    return encounter


async def update_encounter(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    encounter_id: int,
    version: int | None,
    name: str,
    notes: str,
    settings: Mapping[str, Any] | None = None,
) -> Encounter:
    loaded = await _load_at(session, user, campaign_id, encounter_id, version)
    enc = loaded.encounter
    enc.name = _name(name)
    enc.notes = limits.check_text(notes.strip(), "notes")
    if settings:
        new = dict(enc.settings)
        if "surprise" in settings:
            surprise = settings["surprise"] or ""
            if surprise not in ("", *SIDES):
                raise ValidationFailed({"surprise": _("Choose one of the listed options.")})
            new["surprise"] = surprise
        if "defence_timeout" in settings:
            try:
                timeout = int(settings["defence_timeout"])
            except (TypeError, ValueError):
                timeout = 0
            if not 10 <= timeout <= 3600:
                raise ValidationFailed({"defence_timeout": _("Between 10 and 3600 seconds.")})
            new["defence_timeout"] = timeout
        enc.settings = new
    _touch(enc)
    await _flush(session)
    await _prep_event(
        session, campaign_id, user, "encounter_changed", encounter_id=enc.id, name=enc.name
    )
    return enc


async def duplicate(
    session: AsyncSession, user: User, campaign_id: int, encounter_id: int
) -> Encounter:
    loaded = await load(session, user, campaign_id, encounter_id, Action.run_encounters)
    await _check_room_for_encounter(session, campaign_id)
    src = loaded.encounter
    copy_ = Encounter(
        campaign_id=campaign_id,
        name=_("%(name)s (copy)", name=src.name)[:NAME_MAX],
        notes=src.notes,
        settings=dict(src.settings),
        state={},
    )
    session.add(copy_)
    await session.flush()
    for p in loaded.participants:
        session.add(
            Participant.like(p, copy_.id, p.character_id, p.bestiary_entry_id, dict(p.stats))
        )
    await session.flush()
    await _prep_event(
        session,
        campaign_id,
        user,
        "encounter_duplicated",
        encounter_id=copy_.id,
        source_id=src.id,
        name=copy_.name,
    )
    return copy_


async def delete_encounter(
    session: AsyncSession, user: User, campaign_id: int, encounter_id: int
) -> None:
    loaded = await load(session, user, campaign_id, encounter_id, Action.run_encounters)
    await session.delete(loaded.encounter)
    await _prep_event(
        session,
        campaign_id,
        user,
        "encounter_deleted",
        encounter_id=encounter_id,
        name=loaded.encounter.name,
    )


def _side(side: str) -> str:
    if side not in SIDES:
        raise ValidationFailed({"side": _("Choose Abenteurer, Gegner or Neutral.")})
    return side


async def _next_position(session: AsyncSession, encounter_id: int) -> int:
    top = await session.scalar(
        select(func.max(Participant.position)).where(Participant.encounter_id == encounter_id)
    )
    return int(top or 0) + 1


async def add_character(
    session: AsyncSession,
    user: User,
    roller: Roller,
    campaign_id: int,
    encounter_id: int,
    character_id: int,
    side: str = "abenteurer",
    hidden: bool = False,
) -> Participant:
    loaded = await load(session, user, campaign_id, encounter_id, Action.run_encounters)
    character = await session.scalar(
        select(Character).where(Character.id == character_id, Character.campaign_id == campaign_id)
    )
    if character is None:
        raise ValidationFailed({"character_id": _("Choose a character of this campaign.")})
    if any(p.character_id == character_id for p in loaded.participants):
        raise ValidationFailed({"character_id": _("This character takes part already.")})
    _check_room_for_participants(loaded, 1, "character_id")
    items = (await session.scalars(select(Item).where(Item.character_id == character.id))).all()
    system = loaded.campaign.system
    stats = statblocks.validate(
        system,
        statblocks.for_character(
            system, combat_statblock(system, character.data, items), character.data
        ),
    )
    participant = Participant(
        encounter_id=encounter_id,
        character_id=character.id,
        name=character.name,
        side=_side(side),
        # A hidden NSC stays hidden in the fight until the GM reveals the participant.
        hidden=hidden or character.hidden_from_players,
        stats=stats,
        position=await _next_position(session, encounter_id),
    )
    session.add(participant)
    await session.flush()
    await _joined(session, user, roller, loaded, [participant], owner=character.owner_id)
    return participant


async def add_monsters(
    session: AsyncSession,
    user: User,
    roller: Roller,
    campaign_id: int,
    encounter_id: int,
    entry_id: int,
    count: int = 1,
    side: str = "gegner",
    hidden: bool = False,
) -> list[Participant]:
    """Add ``count`` copies of a bestiary entry, numbered ("Goblin 1", "Goblin 2", ...)."""
    loaded = await load(session, user, campaign_id, encounter_id, Action.run_encounters)
    entry = await _entry(session, campaign_id, entry_id)
    if entry is None:
        raise ValidationFailed({"entry_id": _("Choose an entry of the bestiary.")})
    if not 1 <= count <= MAX_COPIES:
        raise ValidationFailed({"count": _("Between 1 and %(max)d.", max=MAX_COPIES)})
    _check_room_for_participants(loaded, count, "count")
    _side(side)
    used = {p.name for p in loaded.participants}
    position = await _next_position(session, encounter_id)
    number = 1
    added: list[Participant] = []
    for _i in range(count):
        while f"{entry.name} {number}" in used:
            number += 1
        name = f"{entry.name} {number}"
        used.add(name)
        participant = Participant(
            encounter_id=encounter_id,
            bestiary_entry_id=entry.id,
            name=name[:NAME_MAX],
            side=side,
            hidden=hidden,
            stats=dict(entry.data),
            position=position,
        )
        position += 1
        session.add(participant)
        added.append(participant)
    await session.flush()
    await _joined(session, user, roller, loaded, added, owner=None)
    return added


async def _joined(
    session: AsyncSession,
    user: User,
    roller: Roller,
    loaded: Loaded,
    added: list[Participant],
    *,
    owner: int | None,
) -> None:
    enc = loaded.encounter
    _touch(enc)
    if enc.status != "running":
        await _flush(session)
        await _prep_event(
            session,
            enc.campaign_id,
            user,
            "participants_added",
            encounter_id=enc.id,
            names=[p.name for p in added],
        )
        return
    # The encounter row before the log's lock, in the order every combat step takes them.
    await session.execute(select(Encounter.id).where(Encounter.id == enc.id).with_for_update())
    dice = await roller_for_read_campaign(session, loaded.campaign, user.id, roller)
    state = load_state(enc.state)
    report = Report()
    mod = system(loaded.campaign.system)
    sheets = await _sheets(session, added)
    for p in added:
        pid = str(p.id)
        state["figures"][pid] = participant_figure(
            loaded.campaign.system, p, loaded.settings, owner
        )
        take_sheets(loaded.campaign.system, state, {k: v for k, v in sheets.items() if k == pid})
        report.add(N_("%(name)s joins the fight."), who={pid}, name=p.name)
        try:
            mod.add_figure(state, pid, dice, report)
        except CombatError as exc:
            raise combat_error(exc) from None
    report.order_changed = True
    await steps.clear(session, enc.id, loaded.undo_steps)  # participant rows are not undone
    enc.state = dump_state(state)
    all_participants = [*loaded.participants, *added]
    await _flush(session)
    await _log(session, loaded, user, report, participants=all_participants, roster=True)


def participant_figure(
    system_name: str, p: Participant, settings: Settings, owner: int | None = None
) -> FigureData:
    """The JSON figure a participant enters the fight with."""
    stats = statblocks.validate(system_name, p.stats)
    data = system(system_name).new_figure(
        str(p.id), p.name, p.side, stats, npc=p.character_id is None, settings=settings
    )
    data["owner"] = owner
    return data


async def _participant(
    session: AsyncSession, user: User, campaign_id: int, encounter_id: int, participant_id: int
) -> tuple[Loaded, Participant]:
    """The encounter loaded for the GMs with one of its participants (404 if it has none)."""
    loaded = await load(session, user, campaign_id, encounter_id, Action.run_encounters)
    p = loaded.by_id.get(str(participant_id))
    if p is None:
        raise NotFound(_("Participant not found."))
    return loaded, p


async def update_participant(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    encounter_id: int,
    participant_id: int,
    *,
    side: str | None = None,
    hidden: bool | None = None,
    name: str | None = None,
    stats: Mapping[str, Any] | None = None,
) -> Participant:
    loaded, p = await _participant(session, user, campaign_id, encounter_id, participant_id)
    enc = loaded.encounter
    running = enc.status == "running"
    if name is not None:
        p.name = _name(name)
    if side is not None:
        p.side = _side(side)
    if stats is not None:
        limits.check_data(stats)
        p.stats = statblocks.validate(loaded.campaign.system, stats)
    was_hidden = p.hidden
    if hidden is not None:
        p.hidden = hidden
    _touch(enc)
    if running:
        pid = str(p.id)
        state = load_state(enc.state)
        fig = state["figures"].get(pid)
        if fig is not None:
            fig["name"] = p.name
            fig["side"] = p.side
        enc.state = dump_state(state)
        report = Report()
        if was_hidden and not p.hidden:
            report.add(N_("%(name)s appears."), who=set(), name=p.name)
        elif p.hidden and not was_hidden:
            report.add(N_("%(name)s is hidden from the players."), who={pid}, name=p.name)
        report.changed.add(pid)
        await _flush(session)
        # Hidden state changes the roster for players: push it whole.
        await _log(session, loaded, user, report, roster=True)
    else:
        await _flush(session)
        await _prep_event(
            session, campaign_id, user, "participant_changed", encounter_id=enc.id, name=p.name
        )
    return p


async def remove_participant(
    session: AsyncSession, user: User, campaign_id: int, encounter_id: int, participant_id: int
) -> None:
    loaded, p = await _participant(session, user, campaign_id, encounter_id, participant_id)
    enc = loaded.encounter
    _touch(enc)
    if enc.status == "running":
        pid = str(p.id)
        state = load_state(enc.state)
        pending = state.get("pending")
        if pending and pid in (pending["attacker"], pending["target"]):
            state["pending"] = None
        remove_from_order(state, pid)
        state["figures"].pop(pid, None)
        enc.state = dump_state(state)
        await steps.clear(session, enc.id, loaded.undo_steps)
        report = Report()
        report.add(N_("%(name)s leaves the fight."), who={pid}, name=p.name)
        report.order_changed = report.turn_changed = report.pending_changed = True
        await _log(session, loaded, user, report, roster=True)
    else:
        await _prep_event(
            session, campaign_id, user, "participant_removed", encounter_id=enc.id, name=p.name
        )
    await session.delete(p)
    await _flush(session)


# --- running combat ----------------------------------------------------------------------------


async def start(
    session: AsyncSession,
    user: User,
    roller: Roller,
    campaign_id: int,
    encounter_id: int,
    version: int | None = None,
) -> Loaded:
    loaded = await _load_at(session, user, campaign_id, encounter_id, version)
    enc = loaded.encounter
    if enc.status == "running":
        raise Conflict(_("This encounter is running already."))
    if len(loaded.participants) < 2:
        raise ValidationFailed({"combat": _("A fight needs at least two participants.")})
    owners = await _owners(session, loaded.participants)
    state = fresh_state(loaded.campaign.system)
    for p in loaded.participants:
        state["figures"][str(p.id)] = participant_figure(
            loaded.campaign.system, p, loaded.settings, owners.get(p.id)
        )
    take_sheets(loaded.campaign.system, state, loaded.characters)
    report = Report()
    # The encounter row before the log's lock, in the order every combat step takes them.
    await session.execute(select(Encounter.id).where(Encounter.id == enc.id).with_for_update())
    dice = await roller_for_read_campaign(session, loaded.campaign, user.id, roller)
    try:
        system(loaded.campaign.system).start(state, Play(dice, report, loaded.settings))
    except CombatError as exc:
        raise combat_error(exc) from None
    await steps.clear(session, enc.id, loaded.undo_steps)
    enc.state = dump_state(state)
    enc.status = "running"
    _touch(enc)
    await _flush(session)
    await _log(session, loaded, user, report, roster=True, status=True)
    return await _as_left(session, loaded, 0, moved=False)


async def _owners(session: AsyncSession, participants: Sequence[Participant]) -> dict[int, int]:
    ids = [p.character_id for p in participants if p.character_id is not None]
    if not ids:
        return {}
    rows = (
        await session.execute(select(Character.id, Character.owner_id).where(Character.id.in_(ids)))
    ).all()
    by_char = {cid: owner for cid, owner in rows if owner is not None}
    return {
        p.id: by_char[p.character_id]
        for p in participants
        if p.character_id is not None and p.character_id in by_char
    }


async def end(
    session: AsyncSession, user: User, campaign_id: int, encounter_id: int, version: int | None
) -> Loaded:
    loaded = await _load_at(session, user, campaign_id, encounter_id, version)
    enc = loaded.encounter
    if enc.status != "running":
        raise Conflict(_("This encounter is not running."))
    await steps.clear(session, enc.id, loaded.undo_steps)
    enc.status = "ended"
    state = load_state(enc.state)
    state["pending"] = None
    enc.state = dump_state(state)
    _touch(enc)
    report = Report()
    report.add(N_("The fight is over."), who=set())
    report.turn_changed = report.pending_changed = True
    await _flush(session)
    await _log(session, loaded, user, report, status=True)
    return await _as_left(session, loaded, 0, moved=False)


def owns(loaded: Loaded, pid: str | None) -> bool:
    """Whether the viewer plays participant ``pid`` (the owner of its character)."""
    if pid is None:
        return False
    fig = loaded.encounter.state.get("figures", {}).get(pid)
    return fig is not None and fig.get("owner") == loaded.viewer.user_id


def may_act(loaded: Loaded, pid: str) -> None:
    """GMs may act for anyone; a player only for their own figure on its turn."""
    if loaded.viewer.is_gm:
        return
    if not allowed(loaded.viewer.role, Action.act_in_combat) or not owns(loaded, pid):
        raise Forbidden(_("You can only act with your own character."))
    if current_pid(read_state(loaded.encounter.state)) != pid:
        raise ValidationFailed({"combat": _("It is not your turn.")})


def may_use_luck(loaded: Loaded, pid: str) -> None:
    """Glück is the figure's: its player spends it (at any time), or a GM."""
    if loaded.viewer.is_gm:
        return
    if not allowed(loaded.viewer.role, Action.act_in_combat) or not owns(loaded, pid):
        raise Forbidden(_("You can only act with your own character."))


#: What runs after every combat operation, in its transaction, with the encounter saved:
#: the battle map moves the tokens the rules moved (``Report.displacements``,
#: ``app.maps.displace``) — the map sits above this package; ``app.wiring`` adds it.
AfterOperation = Callable[[AsyncSession, User, Loaded, Report], Awaitable[None]]
AFTER_OPERATION: list[AfterOperation] = []

#: What runs after an undo, in its transaction, with the restored state saved: the battle
#: map puts the tokens the undone operation moved back (``combat.map_moves``, given here
#: as token id and cell) — ``app.maps.displace``, added by ``app.wiring``.
AfterUndo = Callable[
    [AsyncSession, User, Loaded, list[tuple[int, tuple[int, int]]]], Awaitable[None]
]
AFTER_UNDO: list[AfterUndo] = []


async def operate(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    encounter_id: int,
    version: int | None,
    op: Callable[[Loaded, State, Report, Roller], None],
    *,
    roller: Roller,
    gm_only: bool = False,
    undoable: bool = True,
    allow_pending: bool = False,
    override: bool = False,
) -> Loaded:
    """Run one combat operation on a copy of the state, then save and log it.

    Its dice come from :func:`app.sessions.dice.roller_for_read_campaign` (fair play), asked
    once the encounter row is locked; an ``override`` (a GM's LP edit) follows the session's
    table rule. Returns the fight as the operation left it (:func:`_as_left`): what the answer
    shows, without reading the fight again (issue 26)."""
    action = Action.run_encounters if gm_only else Action.act_in_combat
    loaded = await load(session, user, campaign_id, encounter_id, action, for_update=True)
    enc = loaded.encounter
    _check_version(enc, version)
    if enc.status != "running":
        raise Conflict(_("This encounter is not running."))
    if enc.state.get("pending") and not allow_pending:
        raise ValidationFailed({"combat": _("First the open defence must be answered.")})
    if override:
        await sessions.guard_override(session, loaded.campaign)
    dice = await roller_for_read_campaign(session, loaded.campaign, user.id, roller)
    state = load_state(enc.state)
    if undoable:
        state["map_moves"] = []  # the tokens this operation moves (an undo's to put back)
    report = Report(on_board=loaded.board is not None)
    try:
        op(loaded, state, report, dice)
    except CombatError as exc:
        raise combat_error(exc) from None
    _settle_areas(loaded, state, report, dice, (enc.state.get("area") or {}).get("id"))
    report.shown_changed = _shown_changed(loaded, read_state(enc.state), state, report.changed)
    # The log first, so that the undo step has the seqs of its events and the encounter
    # row is written once (the row was locked when loaded: no other writer between).
    seqs = await _log(session, loaded, user, report)
    for done in state.pop(bursts.DONE, []):
        seqs += await _area_events(session, loaded, user, None, done)
    seqs += await _area_events(session, loaded, user, enc.state.get("area"), state.get("area"))
    await write_sheets(session, loaded, user, state)
    if undoable:
        await steps.push(session, enc.id, enc.state, seqs, loaded.undo_steps)
    enc.state = dump_state(state)
    _touch(enc)
    await _flush(session)
    for after in AFTER_OPERATION:
        await after(session, user, loaded, report)
    kept = steps.after_push(loaded.undo_steps) if undoable else loaded.undo_steps
    return await _as_left(session, loaded, kept, moved=bool(report.displacements))


def _shown_changed(loaded: Loaded, before: State, after: State, changed: set[str]) -> set[str]:
    """The figures whose tokens tell something else after the operation: those of
    ``changed`` whose health as shown (:func:`views.health_of`: status, points, conditions,
    out) differs, and the figures the turn passed from and to. The map redraws just their
    tokens; a step that only spent movement redraws none."""
    mod = system(loaded.campaign.system)

    def shown(state: State, pid: str) -> tuple[object, ...] | None:
        figure = state["figures"].get(pid)
        if figure is None:
            return None
        view = mod.view(figure)
        return view["status"], view["points"], view["conditions"], view["out"]

    told = {pid for pid in changed if shown(before, pid) != shown(after, pid)}
    acting = {current_pid(before), current_pid(after)}
    if len(acting) > 1:
        told |= {pid for pid in acting if pid is not None}
    return told


async def _as_left(
    session: AsyncSession, loaded: Loaded, undo_steps: int, *, moved: bool
) -> Loaded:
    """The fight as a use case left it, for its answer: the rows it loaded (the encounter,
    its participants, the sheets) were changed in place, so only the count of undo steps is
    new, and the board is read again when the operation moved tokens on it."""
    on_board = await snapshot(session, loaded.encounter.id) if moved else loaded.board
    return replace(loaded, undo_steps=undo_steps, board=on_board)


@dataclass(frozen=True, slots=True)
class MapMove:
    """A move on the battle map of the figure ``pid``'s token ``token_id`` from ``start``
    for ``cost`` cells of its movement; ``stride``: the move is an action of its turn
    (the system has ``CountedActions``; PF2e's Stride)."""

    pid: str
    token_id: int
    start: tuple[int, int]
    cost: int
    stride: bool


async def move_figure(
    session: AsyncSession, user: User, campaign_id: int, encounter_id: int, move: MapMove
) -> None:
    """A figure's move on the battle map in the running fight: its movement spent in this
    Handlung or turn (``combat.movement_spent``), an action where moves are actions —
    logged, undoable (an undo gives both back and the map puts the token back). The map
    checked the way, the allowance and who may move; it rolls no die."""

    def op(loaded: Loaded, state: State, report: Report, roller: Roller) -> None:
        pid = move.pid
        if pid not in state["figures"]:
            raise CombatError(N_("This participant is not in the combat."))
        if move.stride:
            need(system(loaded.campaign.system), CountedActions).stride(state, pid, report)
        spend_movement(state, pid, move.cost)
        map_moved(state, move.token_id, move.start)
        # A public step (its row changed) refreshes every combat page's controls, which
        # post the encounter's new version; a hidden figure's step is the GMs' alone.
        report.changed.add(pid)
        if pid in loaded.hidden and not report.entries:
            report.add(N_("GM: %(name)s moves on the map."), who={pid},
                       name=state["figures"][pid]["name"])  # fmt: skip

    await operate(
        session, user, campaign_id, encounter_id, None, op, roller=SecureRoller(),
        allow_pending=True,
    )  # fmt: skip


def _reveal(loaded: Loaded, report: Report, *pids: str) -> bool:
    """A hidden figure that attacks or is attacked by a visible one comes into view."""
    parts = loaded.by_id
    hidden = [parts[p] for p in pids if p in parts and parts[p].hidden]
    if not hidden or len(hidden) == len(pids):
        return False
    for p in hidden:
        p.hidden = False
        report.add(N_("%(name)s appears."), who=set(), name=p.name)
    return True


def op_next(loaded: Loaded, state: State, report: Report, roller: Roller) -> None:
    pid = current_pid(state)
    if not loaded.viewer.is_gm and (pid is None or not owns(loaded, pid)):
        raise CombatError(N_("It is not your turn."))
    system(loaded.campaign.system).advance(state, Play(roller, report, loaded.settings))


def op_attack(
    loaded: Loaded,
    state: State,
    report: Report,
    roller: Roller,
    attacker: str,
    target: str,
    params: Mapping[str, Any],
) -> None:
    may_act(loaded, attacker)
    if target not in state["figures"] or (not loaded.viewer.is_gm and target in loaded.hidden):
        raise CombatError(N_("This participant is not in the combat."))
    rules = system(loaded.campaign.system)
    params = attack_params(
        loaded.board, rules, state, report, attacker, target, params, is_gm=loaded.viewer.is_gm
    )
    if _reveal(loaded, report, attacker, target):
        report.roster = True
    owner = state["figures"][target].get("owner")
    bystanders = {
        p: copy_json(state["figures"][p])
        for p in loaded.hidden - {attacker, target}
        if p in state["figures"]
    }
    rules.attack(
        state,
        AttackOrder(attacker, target, params),
        Play(roller, report, loaded.settings),
        target_owner=owner,
    )
    _reveal_struck(loaded, state, report, bystanders)


def _reveal_struck(loaded: Loaded, state: State, report: Report, before: Mapping[str, Any]) -> None:
    """A hidden figure an attack struck on its way (H&H: a miss hitting the living cover the
    board found) comes into view: the attack's log line names it."""
    for pid, figure in before.items():
        if state["figures"].get(pid) != figure:
            participant = loaded.by_id[pid]
            participant.hidden = False
            report.add(N_("%(name)s appears."), who=set(), name=participant.name)
            report.roster = True


def op_cast(
    loaded: Loaded,
    state: State,
    report: Report,
    roller: Roller,
    caster: str,
    params: Mapping[str, Any],
) -> None:
    """Zauber wirken; the caller checked that the viewer may act with ``caster``."""
    target = str(params.get("target") or "")
    rules = system(loaded.campaign.system)
    unseen = target not in state["figures"] or (not loaded.viewer.is_gm and target in loaded.hidden)
    if target and unseen:
        raise CombatError(N_("This participant is not in the combat."))
    params = cast_params(loaded.board, rules, report, caster, params, is_gm=loaded.viewer.is_gm)
    if target and _reveal(loaded, report, caster, target):
        report.roster = True
    need(rules, Spellcasting).cast(state, caster, params, Play(roller, report, loaded.settings))


def can_answer(loaded: Loaded, state: State) -> str | None:
    """How the viewer may answer the open defence: "owner", "gm", "timeout" or None."""
    pending = state.get("pending")
    if not pending:
        return None
    if pending.get("owner") is not None and pending["owner"] == loaded.viewer.user_id:
        return "owner"
    if loaded.viewer.is_gm:
        return "gm"
    deadline = datetime.fromisoformat(pending["deadline"])
    if datetime.now(UTC) >= deadline and owns(loaded, pending.get("attacker")):
        return "timeout"
    return None


def op_respond(loaded: Loaded, state: State, report: Report, roller: Roller, choice: str) -> None:
    how = can_answer(loaded, state)
    if how is None:
        raise CombatError(N_("Only the defender's player or the GM can answer now."))
    pending = state.get("pending")
    assert pending is not None  # can_answer: a prompt is open
    if how == "timeout" and pending["kind"] == "hit":
        choice = "accept"
        report.add(N_("No answer in time: the default is taken."), who=set())
    elif how == "timeout":
        choice = "defend" if pending["reactions"] > 0 else "none"
        report.add(N_("No answer in time: the default is taken."), who=set())
    elif how == "gm" and pending["owner"] is not None:
        report.add(N_("The GM answers for the defender."), who=set())
    system(loaded.campaign.system).respond(state, choice, Play(roller, report, loaded.settings))


def op_delay(loaded: Loaded, state: State, report: Report) -> None:
    pid = current_pid(state)
    if pid is None:
        raise CombatError(N_("It is not your turn."))
    may_act(loaded, pid)
    delay(state)
    name = state["figures"][pid]["name"]
    report.add(N_("%(name)s delays."), who={pid}, name=name)
    report.order_changed = report.turn_changed = True


def op_reorder(loaded: Loaded, state: State, report: Report, pid: str, direction: int) -> None:
    other = swap_tied(state, pid, -1 if direction < 0 else 1)
    names = {k: f["name"] for k, f in state["figures"].items()}
    report.add(
        N_("GM: %(a)s and %(b)s swap places (same initiative)."),
        who={pid, other},
        a=names[pid],
        b=names[other],
    )
    report.order_changed = report.turn_changed = True


async def undo(
    session: AsyncSession, user: User, campaign_id: int, encounter_id: int, version: int | None
) -> Loaded:
    """Restore the state before the last action; the log keeps its entries, marked undone."""
    loaded = await _load_at(session, user, campaign_id, encounter_id, version)
    enc = loaded.encounter
    undoable = enc.status == "running" and loaded.undo_steps > 0
    last = await steps.newest(session, enc.id) if undoable else None
    if last is None:
        raise ValidationFailed({"combat": _("There is nothing to undo.")})
    await sessions.guard_override(session, loaded.campaign)
    step_id, entry = last
    undone_seqs: list[int] = entry["seq"]
    moved_back = map_moves(read_state(enc.state))
    state = load_state(entry["state"])
    state["undone"] = [*enc.state.get("undone", []), *undone_seqs]
    enc.state = dump_state(state)
    _touch(enc)
    report = Report()
    report.add(N_("GM: the last action was undone."), who=set())
    report.turn_changed = report.pending_changed = report.order_changed = True
    report.changed |= set(state["figures"])
    await _flush(session)  # the version check (409) before the step goes
    await steps.drop(session, step_id)
    visible_before = await session.scalars(
        select(CampaignEvent.visibility).where(
            CampaignEvent.campaign_id == campaign_id, CampaignEvent.seq.in_(undone_seqs)
        )
    )
    gm_only = all(v == "gm" for v in visible_before.all())
    await _log(session, loaded, user, report, undo_of=undone_seqs, gm_only=gm_only, roster=True)
    await write_sheets(session, loaded, user, state)
    await _flush(session)
    for after in AFTER_UNDO:
        await after(session, user, loaded, moved_back)
    return await _as_left(session, loaded, loaded.undo_steps - 1, moved=bool(moved_back))


# --- the log -------------------------------------------------------------------------------------


async def _log(
    session: AsyncSession,
    loaded: Loaded,
    user: User,
    report: Report,
    *,
    participants: Sequence[Participant] | None = None,
    roster: bool = False,
    status: bool = False,
    undo_of: list[int] | None = None,
    gm_only: bool = False,
) -> list[int]:
    """Append the report as a public event and, for hidden lines, a GM-only one."""
    parts = list(participants) if participants is not None else loaded.participants
    hidden = {str(p.id) for p in parts if p.hidden}
    roster = roster or report.roster
    public: list[Entry] = []
    secret: list[Entry] = []
    for entry in report.entries:
        (secret if report.secret or gm_only or entry.who & hidden else public).append(entry)
    base = encounter_events.Combat(
        actor_name=user.username,
        encounter_id=loaded.encounter.id,
        entries=[],
        changed=[],
        shown_changed=[],
        order_changed=report.order_changed or roster,
        turn_changed=report.turn_changed,
        pending_changed=report.pending_changed,
        roster_changed=roster,
        status_changed=status,
        undo_of=undo_of or [],
        secret_roll=False,
    )
    seqs: list[int] = []
    if secret:
        event = await append_event(
            session,
            loaded.campaign.id,
            replace(
                base,
                entries=[e.as_dict() for e in secret],
                changed=sorted(report.changed),
                shown_changed=sorted(report.shown_changed),
                secret_roll=report.secret,
            ),
            actor_id=user.id,
            audience=audience.gm_only(),
        )
        seqs.append(event.seq)
    visible_changes = sorted(report.changed - hidden)
    needs_public = (
        bool(public)
        or bool(visible_changes)
        or base.order_changed
        or base.turn_changed
        or base.pending_changed
        or base.status_changed
    )
    if report.secret and secret:
        public.insert(0, Entry(N_("The GM rolled a Verdeckter Wurf."), {}))
        needs_public = True
    if needs_public and not gm_only:
        event = await append_event(
            session,
            loaded.campaign.id,
            replace(
                base,
                entries=[e.as_dict() for e in public],
                changed=visible_changes,
                shown_changed=sorted(report.shown_changed - hidden),
            ),
            actor_id=user.id,
        )
        seqs.append(event.seq)
    return seqs


def _settle_areas(
    loaded: Loaded, state: State, report: Report, roller: Roller, before_id: object
) -> None:
    """An area nothing waits for any more is resolved (issue 27); then the areas the rules
    set off by themselves (:mod:`app.encounters.bursts`) are placed on the board."""
    area = state.get("area")
    if area and not area.get("resolved") and not state.get("pending"):
        area["resolved"] = True
    if report.bursts and loaded.board is not None:
        rules = system(loaded.campaign.system)
        try:
            bursts.place(loaded.board, rules, state, report, roller,
                         loaded.settings, loaded.hidden, before_id)  # fmt: skip
        except CombatError as exc:
            raise combat_error(exc) from None


async def _area_events(
    session: AsyncSession,
    loaded: Loaded,
    user: User,
    before: Mapping[str, Any] | None,
    after: Mapping[str, Any] | None,
) -> list[int]:
    """One ``area_placed`` when an operation placed an area, one ``area_resolved`` when it
    finished resolving one (``state["area"]``, ``app.encounters.area``)."""
    if not after:
        return []
    new = not before or before.get("id") != after.get("id")
    done = bool(after.get("resolved")) and (new or not (before or {}).get("resolved"))
    kinds: list[type[encounter_events.AreaEvent]] = []
    if new:
        kinds.append(encounter_events.AreaPlaced)
    if done:
        kinds.append(encounter_events.AreaResolved)
    names = {str(p.id): p.name for p in loaded.participants}
    hidden = loaded.hidden
    seqs: list[int] = []
    for kind in kinds:
        payload = kind(
            actor_name=user.username,
            encounter_id=loaded.encounter.id,
            area_id=int(after["id"]),
            scene_id=after.get("scene_id"),
            shape=str(after["shape"]),
            cells=[list(c) for c in after["cells"]],
            targets=[
                {"participant_id": int(p), "name": names.get(p, "")} for p in after["targets"]
            ],
        )
        seen = [t for t in payload.targets if str(t["participant_id"]) not in hidden]
        party = None
        if len(seen) < len(payload.targets):
            fields = {k: v for k, v in payload.to_json().items() if k != "actor_name"}
            party = {"type": kind.TYPE, **fields, "targets": seen}
        heard = audience.Audience(party_form=party)
        event = await append_event(
            session, loaded.campaign.id, payload, actor_id=user.id, audience=heard
        )
        seqs.append(event.seq)
    return seqs


@dataclass(frozen=True)
class LogWindow:
    """The newest steps of a fight with a line to show, and the seq to page back from
    (``None`` when nothing older is left)."""

    events: list[CampaignEvent]
    older_than: int | None


#: How many steps one read of the log fetches, and how many reads one window may take: a
#: fight of turns passed on (steps without a line) still fills its window, within a bound.
LOG_READ = 24
LOG_READS = 8


async def log_window(
    session: AsyncSession, loaded: Loaded, shown: int, *, before: int | None = None
) -> LogWindow:
    """The newest ``shown`` steps the viewer may see that have a log line, older than
    ``before`` when given, skipping steps without one (a turn passed on)."""
    found: list[CampaignEvent] = []
    cursor = before
    for _read in range(LOG_READS):
        read = await log_entries(session, loaded, LOG_READ, before=cursor)
        found.extend(e for e in read if e.payload.get("entries"))
        if len(found) > shown:
            return LogWindow(found[:shown], found[shown - 1].seq)
        if len(read) < LOG_READ:
            return LogWindow(found, None)
        cursor = read[-1].seq
    return LogWindow(found, cursor)


async def log_entries(
    session: AsyncSession, loaded: Loaded, limit: int = LOG_PAGE, *, before: int | None = None
) -> list[CampaignEvent]:
    """The newest combat events of this encounter the viewer may see (newest first), older
    than the seq ``before`` when given."""
    return list(
        await events_about(
            session,
            loaded.campaign.id,
            payload.subject_of("encounter", loaded.encounter.id),
            loaded.viewer,
            type_like=encounter_events.Combat.TYPE,
            limit=limit,
            before=before,
        )
    )
