"""The fights' event types: what the GMs prepared, a combat action's log lines and the areas
on the linked scene's map (``app.encounters``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Literal, TypedDict

from app.events.payload import PUBLIC_OR_GM, EventPayload, event_type, subject_of

if TYPE_CHECKING:
    from app.encounters.combat import EntryJSON

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


@dataclass(frozen=True, slots=True, kw_only=True)
class EncounterEvent(EventPayload):
    """An event about one encounter: its ``subject``, which the combat log filters on."""

    encounter_id: int

    @property
    def subject(self) -> str | None:
        return subject_of("encounter", self.encounter_id)


@event_type("combat")
class Combat(EncounterEvent):
    """One combat action's log lines, and which regions of the combat page it changed.

    An action whose lines concern hidden participants (or a secret roll) writes them to a
    GM-only event and the rest to a public one."""

    VISIBILITIES: ClassVar[frozenset[str]] = PUBLIC_OR_GM

    #: Log lines (``msg`` an English msgid).
    entries: list[EntryJSON]
    #: Participant ids whose roster rows changed.
    changed: list[str]
    #: Participant ids whose tokens tell something else: their health as shown changed
    #: (status, points, conditions, out), or the turn passed from or to them. The map
    #: redraws their tokens (older events lack it).
    shown_changed: list[str] = field(default_factory=list)
    order_changed: bool
    turn_changed: bool
    pending_changed: bool
    roster_changed: bool
    status_changed: bool
    #: The seqs of the events this one undid.
    undo_of: list[int]
    #: The GM rolled a Verdeckter Wurf (the GM-only half of the action).
    secret_roll: bool


class AreaFigure(TypedDict):
    """A figure in an area: its participant id and name."""

    participant_id: int
    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class AreaEvent(EncounterEvent):
    """An area on the map of a fight's linked scene (issue 27, ``app/encounters/area.py``).
    Players get it without the figures in it they may not see (its audience's party form)."""

    area_id: int
    scene_id: int | None
    #: ``circle``, ``cone`` or ``line``.
    shape: str
    #: The cells it covers, ``[[col, row], …]``.
    cells: list[list[int]]
    #: The figures in it: ``[{participant_id, name}]``.
    targets: list[AreaFigure]


@event_type("area_placed")
class AreaPlaced(AreaEvent):
    """An area was placed; its cells show on the board while it resolves."""


@event_type("area_resolved")
class AreaResolved(AreaEvent):
    """Every figure in the area has its outcome (the log's lines); the board drops it."""


#: The payload classes of this package; ``app.wiring`` registers them.
EVENTS: tuple[type[EventPayload], ...] = (
    EncounterPrepared,
    Combat,
    AreaPlaced,
    AreaResolved,
)
