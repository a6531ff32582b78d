"""The sheets' and the item library's event types (``app.characters.service`` writes them;
``character_fought`` comes from a fight's step, ``app.encounters.service``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, TypedDict

from app.events.payload import PUBLIC_OR_GM, EventPayload, event_type, subject_of

# --- the item library ------------------------------------------------------------------------


class LibraryItemState(TypedDict):
    """What a library item's update event tells of it before and after."""

    name: str
    quantity: int
    price: int | None


@event_type("library_item_added")
class LibraryItemAdded(EventPayload):
    item_id: int
    item_name: str


@event_type("library_item_updated")
class LibraryItemUpdated(EventPayload):
    item_id: int
    item_name: str
    #: ``name``, ``quantity`` and ``price`` before and after.
    before: LibraryItemState
    after: LibraryItemState


@event_type("library_item_removed")
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
class CharacterCreated(CharacterEvent):
    #: ``pc`` or ``npc``.
    kind: str


@event_type("character_updated")
class CharacterUpdated(CharacterEvent):
    #: The dotted sheet key (``skills.Spürsinn``) or a meta field (``name``, ``owner_id``, …).
    field: str
    before: Any
    after: Any


@event_type("character_rested")
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
class CharacterAdvanced(CharacterEvent):
    """A companion rose to Monsterstufe ``level`` for ``xp_cost`` XP (H&H Gefährten)."""

    level: int
    xp_cost: int
    #: Data key → ``[before, after]`` of every value the Steigerung changed.
    changes: dict[str, list[Any]]


class FieldChange(TypedDict):
    """A sheet value a fight changed: its key (``lp``, ``gp``, ``conditions``, …) and its
    values before and after."""

    field: str
    before: Any
    after: Any


@event_type("character_fought")
class CharacterFought(CharacterEvent):
    """A fight changed the sheet: the character row is the truth of its current values."""

    #: The encounter whose step changed the sheet.
    encounter_id: int
    #: One per changed sheet key.
    changes: list[FieldChange]


@event_type("character_archived")
class CharacterArchived(CharacterEvent):
    """A sheet was archived (it leaves the lists, its history stays)."""


@event_type("character_restored")
class CharacterRestored(CharacterEvent):
    """An archived sheet came back."""


@event_type("character_deleted")
class CharacterDeleted(CharacterEvent):
    """A sheet was deleted; its events stay in the log."""


@event_type("character_imported")
class CharacterImported(CharacterEvent):
    #: How many items came with the sheet.
    items: int


class ItemState(TypedDict):
    """What a sheet item's update event tells of it before and after."""

    name: str
    quantity: int
    price: int | None
    #: The system's item fields (opaque JSON here, ``app.characters.catalog``).
    fields: dict[str, object]


class ItemPlace(TypedDict):
    """Where a sheet item was: its slot (equipped) or its container."""

    slot: str | None
    container: str | None


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
class CharacterItemAdded(SheetItemEvent):
    """An item was added to a sheet (the item's fields come from the base class)."""


@event_type("character_item_updated")
class CharacterItemUpdated(SheetItemEvent):
    #: ``name``, ``quantity``, ``price`` and ``fields`` before and after.
    before: ItemState
    after: ItemState


@event_type("character_item_removed")
class CharacterItemRemoved(SheetItemEvent):
    """An item was removed from a sheet."""


@event_type("character_item_equipped")
class CharacterItemEquipped(SheetItemEvent):
    #: ``slot`` and ``container`` before.
    before: ItemPlace


@event_type("character_item_unequipped")
class CharacterItemUnequipped(SheetItemEvent):
    #: ``slot`` and ``container`` before.
    before: ItemPlace


@event_type("character_item_moved")
class CharacterItemMoved(SheetItemEvent):
    """On the giver's sheet; ``quantity`` is the number handed over."""

    to_character_id: int
    to_character_name: str


@event_type("character_item_received")
class CharacterItemReceived(SheetItemEvent):
    """On the receiver's sheet; ``quantity`` is the number handed over."""

    to_character_id: int
    from_character_id: int
    from_character_name: str


#: The payload classes of this package; ``app.wiring`` registers them.
EVENTS: tuple[type[EventPayload], ...] = (
    LibraryItemAdded,
    LibraryItemUpdated,
    LibraryItemRemoved,
    CharacterCreated,
    CharacterUpdated,
    CharacterRested,
    CharacterChecked,
    CharacterAdvanced,
    CharacterFought,
    CharacterArchived,
    CharacterRestored,
    CharacterDeleted,
    CharacterImported,
    CharacterItemAdded,
    CharacterItemUpdated,
    CharacterItemRemoved,
    CharacterItemEquipped,
    CharacterItemUnequipped,
    CharacterItemMoved,
    CharacterItemReceived,
)
