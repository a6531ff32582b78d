"""The campaign log's event types: one payload class per type, registered under its name.

A payload is a frozen dataclass, not a pydantic model: every payload is built on the
server from values the services have already validated, on the hottest paths (a roll, a
combat action), so a second validation would only cost time; and the stored form is plain
JSON that projection and templates read as it is. ``dataclasses.fields`` gives the field
list that ``docs/events.md`` is checked against (``tests/test_docs.py``).

Each class names the visibilities its events may have (``append_event`` refuses others)
and, for events about one character or encounter, its ``subject``: the column the sheet
history and the combat log filter on in SQL.

Stored rows stay readable: :meth:`EventPayload.from_json` fills a field that an older row
lacks with its default.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Literal, Self, TypedDict, TypeVar

from app.rules.dice import DieRoll

PUBLIC: frozenset[str] = frozenset({"public"})
PUBLIC_OR_GM: frozenset[str] = frozenset({"public", "gm"})

P = TypeVar("P", bound="EventPayload")

#: Event type name → payload class; filled by :func:`event_type`.
EVENT_TYPES: dict[str, type[EventPayload]] = {}


def event_type(name: str) -> Callable[[type[P]], type[P]]:
    """Register a payload class as the one for events of type ``name``."""

    def register(cls: type[P]) -> type[P]:
        if name in EVENT_TYPES:
            raise ValueError(f"event type {name!r} registered twice")
        cls.TYPE = name
        EVENT_TYPES[name] = cls
        return cls

    return register


def subject_of(kind: Literal["character", "encounter"], id_: int) -> str:
    """The ``campaign_event.subject`` of events about one character or encounter."""
    return f"{kind}:{id_}"


@dataclass(frozen=True, slots=True, kw_only=True)
class EventPayload:
    """What every event carries: who did it, by name (the log outlives accounts)."""

    TYPE: ClassVar[str]
    #: The visibilities events of this type may have (see ``VISIBILITIES`` of the service).
    VISIBILITIES: ClassVar[frozenset[str]] = PUBLIC
    #: Whether those it is hidden from learn that it happened (a stub: a secret roll).
    STUB_WHEN_HIDDEN: ClassVar[bool] = False

    actor_name: str

    @property
    def subject(self) -> str | None:
        """The character or encounter this event is about, if one."""
        return None

    def scene_ref(self) -> tuple[int | None, int | None]:
        """The scene and token a map event is about, which its audience checks when it is
        read (``app.events.audience.sight``); ``(None, None)`` for other events."""
        return None, None

    def to_json(self) -> dict[str, Any]:
        """The stored form: every field by name (nested values as they are)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        """Read a stored payload back; fields an older row lacks take their defaults."""
        return cls(**{f.name: data[f.name] for f in fields(cls) if f.name in data})


# --- campaign and members --------------------------------------------------------------------


@event_type("campaign_created")
@dataclass(frozen=True, slots=True, kw_only=True)
class CampaignCreated(EventPayload):
    name: str
    system: str


@event_type("member_joined")
@dataclass(frozen=True, slots=True, kw_only=True)
class MemberJoined(EventPayload):
    user_id: int
    role: str


@event_type("member_removed")
@dataclass(frozen=True, slots=True, kw_only=True)
class MemberRemoved(EventPayload):
    user_id: int


@event_type("member_role_changed")
@dataclass(frozen=True, slots=True, kw_only=True)
class MemberRoleChanged(EventPayload):
    user_id: int
    role: str


@event_type("gm_transferred")
@dataclass(frozen=True, slots=True, kw_only=True)
class GmTransferred(EventPayload):
    #: The new GM.
    user_id: int


@event_type("settings_changed")
@dataclass(frozen=True, slots=True, kw_only=True)
class SettingsChanged(EventPayload):
    #: The campaign's name and options before and after.
    before: dict[str, Any]
    after: dict[str, Any]


# --- the item library ------------------------------------------------------------------------


@event_type("library_item_added")
@dataclass(frozen=True, slots=True, kw_only=True)
class LibraryItemAdded(EventPayload):
    item_id: int
    item_name: str


@event_type("library_item_updated")
@dataclass(frozen=True, slots=True, kw_only=True)
class LibraryItemUpdated(EventPayload):
    item_id: int
    item_name: str
    #: ``name``, ``quantity`` and ``price`` before and after.
    before: dict[str, Any]
    after: dict[str, Any]


@event_type("library_item_removed")
@dataclass(frozen=True, slots=True, kw_only=True)
class LibraryItemRemoved(EventPayload):
    item_id: int
    item_name: str


# --- characters ------------------------------------------------------------------------------


class CharacterRef(TypedDict):
    """The fields every ``character_*`` event starts with (see :func:`about_character`)."""

    actor_name: str
    character_id: int
    character_name: str
    origin_tab: str | None


def about_character(
    actor_name: str, character_id: int, character_name: str, origin_tab: str | None
) -> CharacterRef:
    return {
        "actor_name": actor_name,
        "character_id": character_id,
        "character_name": character_name,
        "origin_tab": origin_tab or None,
    }


@dataclass(frozen=True, slots=True, kw_only=True)
class CharacterEvent(EventPayload):
    """A change of one sheet. GM-only while the character is a hidden NSC."""

    VISIBILITIES: ClassVar[frozenset[str]] = PUBLIC_OR_GM

    character_id: int
    character_name: str
    #: The browser tab that made the change; its own live view skips the push.
    origin_tab: str | None = None

    @property
    def subject(self) -> str | None:
        return subject_of("character", self.character_id)


@event_type("character_created")
@dataclass(frozen=True, slots=True, kw_only=True)
class CharacterCreated(CharacterEvent):
    #: ``pc`` or ``npc``.
    kind: str


@event_type("character_updated")
@dataclass(frozen=True, slots=True, kw_only=True)
class CharacterUpdated(CharacterEvent):
    #: The dotted sheet key (``skills.Spürsinn``) or a meta field (``name``, ``owner_id``, …).
    field: str
    before: Any
    after: Any


@event_type("character_rested")
@dataclass(frozen=True, slots=True, kw_only=True)
class CharacterRested(CharacterEvent):
    #: The rest's key (``verschnaufen``) and its label as the sheet offers it.
    rest: str
    label: str
    #: Data key → ``[before, after]`` of every value the rest changed.
    changes: dict[str, list[Any]]
    #: The rule notation (numbers and German rule terms), e.g.
    #: ``Verschnaufen: LK 5 → 12 (+7 = 15 / 2)`` (before issue 31: ``(+7, die Hälfte von 15
    #: verlorenen)``, which the history still reads).
    detail: str


@event_type("character_checked")
@dataclass(frozen=True, slots=True, kw_only=True)
class CharacterChecked(CharacterEvent):
    """A guided check from the sheet (H&H: Beschaffung, Herstellung): its Probe, what it
    changed on the sheet and the item it put into the inventory, in one event."""

    #: The check's key (``beschaffung``) and its label as the sheet offers it.
    check: str
    label: str
    #: The item the check was about, as typed or chosen.
    item_name: str
    success: bool
    #: Data key → ``[before, after]`` of every value the check changed (``lira``).
    changes: dict[str, list[Any]]
    #: The item put on the sheet (``None``: nothing), where it went.
    item_id: int | None
    quantity: int
    container: str | None
    #: The rule text with every face, e.g. ``Beschaffung «Seil» (8 Lira, Ausrüstung): …``.
    detail: str


@event_type("character_advanced")
@dataclass(frozen=True, slots=True, kw_only=True)
class CharacterAdvanced(CharacterEvent):
    """A companion rose to Monsterstufe ``level`` for ``xp_cost`` XP (H&H Gefährten)."""

    level: int
    xp_cost: int
    #: Data key → ``[before, after]`` of every value the Steigerung changed.
    changes: dict[str, list[Any]]


@event_type("character_fought")
@dataclass(frozen=True, slots=True, kw_only=True)
class CharacterFought(CharacterEvent):
    """A fight changed the sheet: the character row is the truth of its current values."""

    #: The encounter whose step changed the sheet.
    encounter_id: int
    #: ``{"field", "before", "after"}`` per changed sheet key (``lp``, ``gp``, ``conditions``, …).
    changes: list[dict[str, Any]]


@event_type("character_archived")
@dataclass(frozen=True, slots=True, kw_only=True)
class CharacterArchived(CharacterEvent):
    """A sheet was archived (it leaves the lists, its history stays)."""


@event_type("character_restored")
@dataclass(frozen=True, slots=True, kw_only=True)
class CharacterRestored(CharacterEvent):
    """An archived sheet came back."""


@event_type("character_deleted")
@dataclass(frozen=True, slots=True, kw_only=True)
class CharacterDeleted(CharacterEvent):
    """A sheet was deleted; its events stay in the log."""


@event_type("character_imported")
@dataclass(frozen=True, slots=True, kw_only=True)
class CharacterImported(CharacterEvent):
    #: How many items came with the sheet.
    items: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SheetItemEvent(CharacterEvent):
    """An item on a sheet, where it is after the change."""

    item_id: int
    item_name: str
    quantity: int
    slot: str | None
    equipped: bool
    container: str | None


@event_type("character_item_added")
@dataclass(frozen=True, slots=True, kw_only=True)
class CharacterItemAdded(SheetItemEvent):
    """An item was added to a sheet (the item's fields come from the base class)."""


@event_type("character_item_updated")
@dataclass(frozen=True, slots=True, kw_only=True)
class CharacterItemUpdated(SheetItemEvent):
    #: ``name``, ``quantity``, ``price`` and ``fields`` before and after.
    before: dict[str, Any]
    after: dict[str, Any]


@event_type("character_item_removed")
@dataclass(frozen=True, slots=True, kw_only=True)
class CharacterItemRemoved(SheetItemEvent):
    """An item was removed from a sheet."""


@event_type("character_item_equipped")
@dataclass(frozen=True, slots=True, kw_only=True)
class CharacterItemEquipped(SheetItemEvent):
    #: ``slot`` and ``container`` before.
    before: dict[str, Any]


@event_type("character_item_unequipped")
@dataclass(frozen=True, slots=True, kw_only=True)
class CharacterItemUnequipped(SheetItemEvent):
    #: ``slot`` and ``container`` before.
    before: dict[str, Any]


@event_type("character_item_moved")
@dataclass(frozen=True, slots=True, kw_only=True)
class CharacterItemMoved(SheetItemEvent):
    """On the giver's sheet; ``quantity`` is the number handed over."""

    to_character_id: int
    to_character_name: str


@event_type("character_item_received")
@dataclass(frozen=True, slots=True, kw_only=True)
class CharacterItemReceived(SheetItemEvent):
    """On the receiver's sheet; ``quantity`` is the number handed over."""

    to_character_id: int
    from_character_id: int
    from_character_name: str


# --- dice ------------------------------------------------------------------------------------


@event_type("roll")
@dataclass(frozen=True, slots=True, kw_only=True)
class Roll(EventPayload):
    """A roll of the dice log: a free expression or, with the sheet fields, a roll from a
    sheet through its rules engine. Built only by :meth:`build`."""

    VISIBILITIES: ClassVar[frozenset[str]] = frozenset({"public", "gm", "self"})
    STUB_WHEN_HIDDEN: ClassVar[bool] = True

    expression: str
    label: str
    #: ``{"sides", "faces", "kept"}`` per group of dice.
    dice: list[dict[str, object]]
    #: +1 or −1 per group of dice.
    signs: list[int]
    modifier: int
    total: int
    #: Sheet rolls only (``None`` for a free roll):
    system: str | None = None
    summary: str | None = None
    outcome: dict[str, Any] | None = None
    character_id: int | None = None
    character_name: str | None = None
    #: The sheet's roll target (``skill:Spürsinn``, ``attack:…``).
    target: str | None = None

    @property
    def subject(self) -> str | None:
        return None if self.character_id is None else subject_of("character", self.character_id)

    @classmethod
    def build(
        cls,
        *,
        actor_name: str,
        expression: str,
        label: str,
        dice: Sequence[DieRoll],
        modifier: int,
        total: int,
        signs: Sequence[int] | None = None,
        sheet: SheetRoll | None = None,
    ) -> Roll:
        """The one builder of ``roll`` payloads; ``signs`` default to all +1."""
        return cls(
            actor_name=actor_name,
            expression=expression,
            label=label,
            dice=[d.as_dict() for d in dice],
            signs=list(signs) if signs is not None else [1] * len(dice),
            modifier=modifier,
            total=total,
            system=sheet.system if sheet else None,
            summary=sheet.summary if sheet else None,
            outcome=sheet.outcome if sheet else None,
            character_id=sheet.character_id if sheet else None,
            character_name=sheet.character_name if sheet else None,
            target=sheet.target if sheet else None,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class SheetRoll:
    """What a roll from a sheet adds to a ``roll`` payload."""

    system: str
    summary: str
    outcome: dict[str, Any]
    character_id: int
    character_name: str
    target: str


# --- encounters ------------------------------------------------------------------------------

EncounterKind = Literal[
    "bestiary_added",
    "bestiary_changed",
    "bestiary_removed",
    "bestiary_samples",
    "encounter_created",
    "encounter_changed",
    "encounter_duplicated",
    "encounter_deleted",
    "participants_added",
    "participant_changed",
    "participant_removed",
]


@event_type("encounter")
@dataclass(frozen=True, slots=True, kw_only=True)
class EncounterPrepared(EventPayload):
    """The GMs prepared something: a bestiary entry, an encounter, its participants."""

    VISIBILITIES: ClassVar[frozenset[str]] = frozenset({"gm"})

    kind: EncounterKind
    #: The bestiary entry, encounter or participant named.
    name: str | None = None
    #: Several names (sample monsters added, participants added).
    names: list[str] | None = None
    entry_id: int | None = None
    encounter_id: int | None = None
    #: ``encounter_duplicated``: the encounter copied.
    source_id: int | None = None

    @property
    def subject(self) -> str | None:
        return None if self.encounter_id is None else subject_of("encounter", self.encounter_id)


@event_type("combat")
@dataclass(frozen=True, slots=True, kw_only=True)
class Combat(EventPayload):
    """One combat action's log lines, and which regions of the combat page it changed.

    An action whose lines concern hidden participants (or a secret roll) writes them to a
    GM-only event and the rest to a public one."""

    VISIBILITIES: ClassVar[frozenset[str]] = PUBLIC_OR_GM

    encounter_id: int
    #: Log lines: ``{"msg", "params", "details", "dice", …}`` (``msg`` an English msgid).
    entries: list[dict[str, Any]]
    #: Participant ids whose roster rows changed.
    changed: list[str]
    order_changed: bool
    turn_changed: bool
    pending_changed: bool
    roster_changed: bool
    status_changed: bool
    #: The seqs of the events this one undid.
    undo_of: list[int]
    #: The GM rolled a Verdeckter Wurf (the GM-only half of the action).
    secret_roll: bool

    @property
    def subject(self) -> str | None:
        return subject_of("encounter", self.encounter_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class AreaEvent(EventPayload):
    """An area on the map of a fight's linked scene (issue 27, ``app/encounters/area.py``).
    Players get it without the figures in it they may not see (its audience's party form)."""

    encounter_id: int
    area_id: int
    scene_id: int | None
    #: ``circle``, ``cone`` or ``line``.
    shape: str
    #: The cells it covers, ``[[col, row], …]``.
    cells: list[list[int]]
    #: The figures in it: ``[{participant_id, name}]``.
    targets: list[dict[str, Any]]

    @property
    def subject(self) -> str | None:
        return subject_of("encounter", self.encounter_id)


@event_type("area_placed")
@dataclass(frozen=True, slots=True, kw_only=True)
class AreaPlaced(AreaEvent):
    """An area was placed; its cells show on the board while it resolves."""


@event_type("area_resolved")
@dataclass(frozen=True, slots=True, kw_only=True)
class AreaResolved(AreaEvent):
    """Every figure in the area has its outcome (the log's lines); the board drops it."""


# --- table talk (chat and handouts) ----------------------------------------------------------

#: A chat message: to every member, to the GMs and its sender (a ``/gr`` roll), or to listed
#: members (a whisper: its sender, the users in ``to`` and the GMs).
TALK_VISIBILITIES: frozenset[str] = frozenset({"public", "self", "listed"})


@event_type("chat_message")
@dataclass(frozen=True, slots=True, kw_only=True)
class ChatMessagePosted(EventPayload):
    """A message in the campaign's chat (``app/talk/service.py``)."""

    VISIBILITIES: ClassVar[frozenset[str]] = TALK_VISIBILITIES

    message_id: int
    #: ``ooc``, ``ic``, ``emote`` or ``roll``.
    kind: str
    text: str
    #: The name spoken as (``ic``/``emote`` as a character), else ``None``.
    speaker: str | None
    character_id: int | None
    #: The whisper's recipients (user ids); empty for a message to everyone or the GMs.
    to: list[int]
    #: A whisper to the GMs only.
    to_gm: bool
    #: An inline roll: ``{"seq", "expression", "label", "total", "dice", "signs", "modifier"}``.
    roll: dict[str, Any] | None = None


@event_type("chat_message_edited")
@dataclass(frozen=True, slots=True, kw_only=True)
class ChatMessageEdited(EventPayload):
    """The sender changed a message's text within the edit window."""

    VISIBILITIES: ClassVar[frozenset[str]] = TALK_VISIBILITIES

    message_id: int
    text: str
    before: str
    to: list[int]


@event_type("chat_message_deleted")
@dataclass(frozen=True, slots=True, kw_only=True)
class ChatMessageDeleted(EventPayload):
    """The sender (within the edit window) or a GM withdrew a message."""

    VISIBILITIES: ClassVar[frozenset[str]] = TALK_VISIBILITIES

    message_id: int
    to: list[int]


@event_type("handout_created")
@dataclass(frozen=True, slots=True, kw_only=True)
class HandoutCreated(EventPayload):
    """The GMs prepared a handout; nobody else knows of it until it is shown."""

    VISIBILITIES: ClassVar[frozenset[str]] = frozenset({"gm"})

    handout_id: int
    title: str


@event_type("handout_shown")
@dataclass(frozen=True, slots=True, kw_only=True)
class HandoutShown(EventPayload):
    """A GM showed a handout: to everyone (``to`` empty, ``public``) or to listed players."""

    VISIBILITIES: ClassVar[frozenset[str]] = frozenset({"public", "listed"})

    handout_id: int
    title: str
    to: list[int]


@event_type("handout_image_set")
@dataclass(frozen=True, slots=True, kw_only=True)
class HandoutImageSet(EventPayload):
    """A GM gave a handout its picture (re-encoded; ``etag`` names the stored bytes)."""

    VISIBILITIES: ClassVar[frozenset[str]] = frozenset({"gm"})

    handout_id: int
    width: int
    height: int
    etag: str


@event_type("journal_note_shared")
@dataclass(frozen=True, slots=True, kw_only=True)
class JournalNoteShared(EventPayload):
    """A journal note as its readers now see it: written or changed while shared with the
    group (``public``) or with chosen members (``listed``). Private notes write no event."""

    VISIBILITIES: ClassVar[frozenset[str]] = frozenset({"public", "listed"})

    note_id: int
    title: str
    body: str
    #: ``group`` or ``listed``.
    sharing: str
    to: list[int]
    #: A quest's status (``open``, ``done``, ``failed``); ``None`` for a plain note.
    quest: str | None = None


@event_type("journal_note_deleted")
@dataclass(frozen=True, slots=True, kw_only=True)
class JournalNoteDeleted(EventPayload):
    """A shared journal note deleted (by its author or a GM), for those who read it."""

    VISIBILITIES: ClassVar[frozenset[str]] = frozenset({"public", "listed"})

    note_id: int
    title: str
    #: The members it was shared with (``listed``); empty for a group note.
    to: list[int]


# --- game sessions and fair play (app/sessions, docs/fairplay.md) ------------------------------


@event_type("session_started")
@dataclass(frozen=True, slots=True, kw_only=True)
class SessionStarted(EventPayload):
    """A GM started a game session; in fair play with the commitment to its server seed,
    published before any roll of the session (the first link of its chain)."""

    session_id: int
    #: SHA-256 (hex) of the 32-byte server seed; ``None`` when fair play is off.
    commitment: str | None
    #: The table rule for this session (``None`` without fair play).
    overrides: str | None
    reveal_secret_rolls: bool


@event_type("session_ended")
@dataclass(frozen=True, slots=True, kw_only=True)
class SessionEnded(EventPayload):
    """A GM ended the game session; in fair play the server seed is published (hex)."""

    session_id: int
    server_seed: str | None


@event_type("client_seed_set")
@dataclass(frozen=True, slots=True, kw_only=True)
class ClientSeedSet(EventPayload):
    """A member set their client seed for the session's rolls from now on."""

    session_id: int
    client_seed: str


@event_type("fairplay_configured")
@dataclass(frozen=True, slots=True, kw_only=True)
class FairPlayConfigured(EventPayload):
    """A GM changed the campaign's fair-play rule (applies from the next session)."""

    enabled: bool
    overrides: str
    reveal_secret_rolls: bool


# --- the battle map (app/maps) ---------------------------------------------------------------

#: A map event about something players may not see is for the GMs only; one whose token
#: enters or leaves the players' sight carries the form players get instead (its audience,
#: ``app.events.audience.sight``).
MAP_VISIBILITIES: frozenset[str] = PUBLIC_OR_GM


@event_type("scene_updated")
@dataclass(frozen=True, slots=True, kw_only=True)
class SceneUpdated(EventPayload):
    """A scene was created, changed (name, size, grid, walls, doors, terrain, background)
    or deleted; viewers fetch it again as they may see it."""

    VISIBILITIES: ClassVar[frozenset[str]] = MAP_VISIBILITIES

    scene_id: int
    #: ``created``, ``changed``, ``walls``, ``background``, ``shown``, ``hidden`` or
    #: ``deleted``.
    change: str
    version: int

    def scene_ref(self) -> tuple[int | None, int | None]:
        return (None, None) if self.change == "deleted" else (self.scene_id, None)


@event_type("token_added")
@dataclass(frozen=True, slots=True, kw_only=True)
class TokenAdded(EventPayload):
    """A token was placed (or came into the players' sight: their form of a move or a fog
    change)."""

    VISIBILITIES: ClassVar[frozenset[str]] = MAP_VISIBILITIES

    scene_id: int
    #: ``{id, x, y, label, colour, size, participant_id, character_id}`` (+ ``hidden``).
    token: dict[str, Any]

    def scene_ref(self) -> tuple[int | None, int | None]:
        return self.scene_id, self.token.get("id")


@event_type("token_moved")
@dataclass(frozen=True, slots=True, kw_only=True)
class TokenMoved(EventPayload):
    """A token moved on a scene: ``cost`` cells of movement, ``override`` when a GM placed
    it past the rules; ``reactions`` offered (H&H Blockadeangriff: ``{participant_id,
    kind}``); ``pushed``: the rule of the fight that moved it; ``blocked``: something the
    mover cannot see stopped it; ``undo``: the GM's undo of a fight's step put it back."""

    VISIBILITIES: ClassVar[frozenset[str]] = MAP_VISIBILITIES

    scene_id: int
    token_id: int
    x: int
    y: int
    cost: int = 0
    override: bool = False
    reactions: list[dict[str, Any]] | None = None
    #: The rule that moved it (H&H «Wegstossen», «Fehltritt»), not its player.
    pushed: str | None = None
    #: The way reached a figure the mover cannot see: it ended on the last free cell before.
    blocked: bool = False
    #: The GM undid the step of the fight that moved it: it stands where it stood before.
    undo: bool = False

    def scene_ref(self) -> tuple[int | None, int | None]:
        return self.scene_id, self.token_id


@event_type("token_sighted")
@dataclass(frozen=True, slots=True, kw_only=True)
class TokenSighted(EventPayload):
    """With line of sight on: a token came into or went out of some players' sight because
    what their figures see changed (their own token moved). Only its per-player forms
    matter — ``token_added`` / ``token_removed`` (its audience's own forms per player);
    the GMs, who see every token, get it as it is and have nothing to change."""

    VISIBILITIES: ClassVar[frozenset[str]] = MAP_VISIBILITIES

    scene_id: int
    token_id: int

    def scene_ref(self) -> tuple[int | None, int | None]:
        return self.scene_id, self.token_id


@event_type("token_removed")
@dataclass(frozen=True, slots=True, kw_only=True)
class TokenRemoved(EventPayload):
    """A token was removed (or left the players' sight: their form of a move)."""

    VISIBILITIES: ClassVar[frozenset[str]] = MAP_VISIBILITIES

    scene_id: int
    token_id: int

    def scene_ref(self) -> tuple[int | None, int | None]:
        return self.scene_id, self.token_id


@event_type("fog_changed")
@dataclass(frozen=True, slots=True, kw_only=True)
class FogChanged(EventPayload):
    """The GMs revealed or hid cells (or turned the fog on or off), or the party's sight
    revealed them; the GMs' alone while the scene is hidden from the players, like every
    map event."""

    VISIBILITIES: ClassVar[frozenset[str]] = MAP_VISIBILITIES

    scene_id: int
    revealed: list[list[int]]
    hidden: list[list[int]]
    fog: bool

    def scene_ref(self) -> tuple[int | None, int | None]:
        return self.scene_id, None


@event_type("light_changed")
@dataclass(frozen=True, slots=True, kw_only=True)
class LightChanged(EventPayload):
    """The GMs made a scene dark or light again, or placed or took away a light on a cell
    (docs/map.md «Light»). Players get it without ``light`` (where a light stands is the
    GMs'; what it lights, they see on the board); the tokens that come into or leave a
    player's view with it reach them as ``token_sighted``."""

    VISIBILITIES: ClassVar[frozenset[str]] = MAP_VISIBILITIES

    scene_id: int
    #: ``dark``, ``light_added`` or ``light_removed``.
    change: str
    dark: bool
    #: The light placed or taken away, ``[x, y, radius]``; ``None`` for ``dark``.
    light: list[int] | None = None

    def scene_ref(self) -> tuple[int | None, int | None]:
        return self.scene_id, None


@event_type("token_changed")
@dataclass(frozen=True, slots=True, kw_only=True)
class TokenChanged(EventPayload):
    """A GM changed a token's label, colour, size or hidden flag. Players get it as
    ``token_added`` when the token comes into their sight, ``token_removed`` when it leaves,
    and not at all while they cannot see it."""

    VISIBILITIES: ClassVar[frozenset[str]] = MAP_VISIBILITIES

    scene_id: int
    token: dict[str, Any]

    def scene_ref(self) -> tuple[int | None, int | None]:
        return self.scene_id, self.token.get("id")


@event_type("map_pointer")
@dataclass(frozen=True, slots=True, kw_only=True)
class MapPointer(EventPayload):
    """A member's ruler (its waypoints, while held), its release (``clear``) or a ping on a
    scene: short-lived, shown live and never replayed as state (docs/map.md)."""

    scene_id: int
    #: ``ruler``, ``ping`` or ``clear``.
    kind: str
    cells: list[list[int]]
    #: The ruler's length in the system's unit (``None`` for a ping or a release).
    distance: float | None
    unit: str
    #: The scene's columns and rows (the overlay is drawn from the event alone).
    cols: int
    rows: int

    def scene_ref(self) -> tuple[int | None, int | None]:
        return self.scene_id, None


@event_type("knowledge_revealed")
@dataclass(frozen=True, slots=True, kw_only=True)
class KnowledgeRevealed(EventPayload):
    """Facts of a bestiary entry told to the party (``public``, ``to`` empty) or to the
    members in ``to`` (``listed``), by a GM or a knowledge check (``app/knowledge/``)."""

    VISIBILITIES: ClassVar[frozenset[str]] = frozenset({"public", "listed"})

    entry_id: int
    #: ``[{"key", "text"}]``: only the facts told, in their words (never the entry's name
    #: unless ``name`` is among them).
    facts: list[dict[str, str]]
    to: list[int]


@event_type("knowledge_false_pending")
@dataclass(frozen=True, slots=True, kw_only=True)
class KnowledgeFalsePending(EventPayload):
    """A critically failed check proposes a false fact; the GMs confirm or replace it."""

    VISIBILITIES: ClassVar[frozenset[str]] = frozenset({"gm"})

    entry_id: int
    fact_id: int
    fact: str
    text: str
    #: The one player it is for; empty: the party.
    to: list[int]
