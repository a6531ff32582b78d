"""Inventar (hh.md §11): equipment slots, Rucksack places, encumbrance, taking things out.

Everything here is a pure calculation over what the character carries. Validation never
raises for a rule violation: it returns an :class:`InventoryCheck` with a stable error code
and parameters (the web layer translates them). Programming errors (a negative Reisekunde,
a quantity below 1) raise :class:`ValueError`.

Units:

- medium item (weapon, tool, …): 1 place per piece;
- small items (potions, …): every started 5 share 1 place, pooled over all small items;
- bundles (arrows, materials, food): every started 20 units *of the same key* take 1 place.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, get_args

from app.rules.dice import Roller
from app.rules.hh.probe import OptionalProbe, ProbeResult, roll_probe

Slot = Literal[
    "waffenhand",
    "schildhand",
    "waffengurt",
    "guerteltasche",
    "koecher",
    "koerper",
    "tattoos",
    "kopf",
    "ohren",
    "hals",
    "ruecken",
    "arme",
    "finger",
    "huefte",
    "fuesse",
]
ItemSize = Literal["small", "medium", "bundle"]

#: Capacity of every equipment slot, in units (pieces; ammunition counts single arrows).
SLOT_CAPACITY: Mapping[Slot, int] = MappingProxyType(
    {
        "waffenhand": 1,
        "schildhand": 1,
        "waffengurt": 1,
        "guerteltasche": 3,
        "koecher": 20,
        "koerper": 1,
        "tattoos": 3,
        "kopf": 1,
        "ohren": 1,
        "hals": 1,
        "ruecken": 1,
        "arme": 2,
        "finger": 4,
        "huefte": 1,
        "fuesse": 1,
    }
)
SLOTS: tuple[Slot, ...] = get_args(Slot)

#: Places of the Rucksack beyond Reisekunde; using any of them gives «eingeschränkt».
ENCUMBERED_PLACES = 5
SMALL_ITEMS_PER_PLACE = 5
BUNDLE_UNITS_PER_PLACE = 20
#: Actions needed in combat to get an item out of the Rucksack (find with a Probe, take out).
RUCKSACK_RETRIEVE_ACTIONS = 2


@dataclass(frozen=True, slots=True)
class Item:
    """A stack of one kind of item.

    ``key`` names the item type (catalogue id). ``quantity`` counts pieces, or units for a
    bundle. ``slots`` lists the equipment slots that accept it (from the catalogue); the
    Gürteltasche additionally only takes small items, the Köcher only items whose ``slots``
    name it (ammunition).
    """

    key: str
    size: ItemSize = "medium"
    quantity: int = 1
    slots: frozenset[Slot] = frozenset()

    def __post_init__(self) -> None:
        if self.quantity < 1:
            raise ValueError(f"quantity must be at least 1, not {self.quantity}")
        if self.size not in get_args(ItemSize):
            raise ValueError(f"unknown item size {self.size!r}")


@dataclass(frozen=True, slots=True)
class InventoryCheck:
    """Outcome of a validation: ``ok`` or a stable ``error`` code with ``params``.

    ``encumbered`` tells whether the character would be «eingeschränkt» afterwards (only
    meaningful for the Rucksack; always ``False`` for slots).
    """

    ok: bool
    error: str | None = None
    params: Mapping[str, object] = field(default_factory=dict)
    encumbered: bool = False


def places_needed(items: Iterable[Item]) -> int:
    """Rucksack (or carrier) places the items take together (see module docstring)."""
    medium = 0
    small = 0
    bundles: dict[str, int] = {}
    for item in items:
        if item.size == "medium":
            medium += item.quantity
        elif item.size == "small":
            small += item.quantity
        else:
            bundles[item.key] = bundles.get(item.key, 0) + item.quantity
    small_places = -(-small // SMALL_ITEMS_PER_PLACE)
    bundle_places = sum(-(-units // BUNDLE_UNITS_PER_PLACE) for units in bundles.values())
    return medium + small_places + bundle_places


@dataclass(frozen=True, slots=True)
class RucksackLoad:
    """How full a Rucksack is.

    ``capacity`` = Reisekunde + 5; ``free_capacity`` = Reisekunde places carried without
    penalty; ``encumbered`` = more than ``free_capacity`` places used (→ «eingeschränkt»).
    """

    used: int
    capacity: int
    free_capacity: int

    @property
    def free(self) -> int:
        """Places still available (0 when over capacity)."""
        return max(0, self.capacity - self.used)

    @property
    def encumbered(self) -> bool:
        return self.used > self.free_capacity

    @property
    def over_capacity(self) -> bool:
        return self.used > self.capacity

    def as_dict(self) -> dict[str, object]:
        return {
            "used": self.used,
            "capacity": self.capacity,
            "free_capacity": self.free_capacity,
            "free": self.free,
            "encumbered": self.encumbered,
        }


def rucksack_capacity(reisekunde: int) -> int:
    """Places of a Rucksack: Reisekunde + 5."""
    if reisekunde < 0:
        raise ValueError(f"Reisekunde cannot be negative, got {reisekunde}")
    return reisekunde + ENCUMBERED_PLACES


def rucksack_load(contents: Iterable[Item], reisekunde: int) -> RucksackLoad:
    """Used, free and encumbering places of a Rucksack holding ``contents``."""
    return RucksackLoad(
        used=places_needed(contents),
        capacity=rucksack_capacity(reisekunde),
        free_capacity=reisekunde,
    )


def check_rucksack_add(
    contents: Sequence[Item], item: Item, reisekunde: int, *, wears_rucksack: bool = True
) -> InventoryCheck:
    """Can ``item`` go into the Rucksack? Errors: ``no_rucksack``, ``rucksack_full``.

    On success ``encumbered`` says whether the character is «eingeschränkt» afterwards.
    """
    capacity = rucksack_capacity(reisekunde)
    if not wears_rucksack:
        return InventoryCheck(False, "no_rucksack", {})
    before = places_needed(contents)
    after = rucksack_load([*contents, item], reisekunde)
    if after.over_capacity:
        return InventoryCheck(
            False,
            "rucksack_full",
            {"used": before, "capacity": capacity, "needed": after.used - before},
            encumbered=before > reisekunde,
        )
    return InventoryCheck(True, encumbered=after.encumbered)


def check_carrier_add(contents: Sequence[Item], item: Item, capacity: int) -> InventoryCheck:
    """Can a carrier with ``capacity`` places (a Gefährte, a pack animal) take ``item``?

    Error ``carrier_full`` with ``used``, ``capacity`` and ``needed``.
    """
    before = places_needed(contents)
    after = places_needed([*contents, item])
    if after > capacity:
        return InventoryCheck(
            False, "carrier_full", {"used": before, "capacity": capacity, "needed": after - before}
        )
    return InventoryCheck(True)


def slot_usage(items: Iterable[Item]) -> int:
    """Units an equipment slot holds: the sum of the quantities."""
    return sum(item.quantity for item in items)


def check_equip(equipped: Mapping[Slot, Sequence[Item]], item: Item, slot: str) -> InventoryCheck:
    """Can ``item`` be equipped in ``slot`` given what is ``equipped`` already?

    Errors (params in parentheses): ``unknown_slot`` (slot), ``slot_not_allowed`` (slot,
    item), ``not_small_item`` (slot, item) for the Gürteltasche, ``slot_full`` (slot,
    capacity, used, needed).
    """
    if slot not in SLOT_CAPACITY:
        return InventoryCheck(False, "unknown_slot", {"slot": slot})
    typed_slot: Slot = slot  # type: ignore[assignment]
    if typed_slot not in item.slots:
        return InventoryCheck(False, "slot_not_allowed", {"slot": slot, "item": item.key})
    if typed_slot == "guerteltasche" and item.size != "small":
        return InventoryCheck(False, "not_small_item", {"slot": slot, "item": item.key})
    capacity = SLOT_CAPACITY[typed_slot]
    used = slot_usage(equipped.get(typed_slot, ()))
    if used + item.quantity > capacity:
        return InventoryCheck(
            False,
            "slot_full",
            {"slot": slot, "capacity": capacity, "used": used, "needed": item.quantity},
        )
    return InventoryCheck(True)


def check_equipment(equipped: Mapping[Slot, Sequence[Item]]) -> tuple[InventoryCheck, ...]:
    """Validate a whole equipment mapping; returns the failing checks (empty when valid)."""
    problems: list[InventoryCheck] = []
    for slot, items in equipped.items():
        so_far: list[Item] = []
        for item in items:
            check = check_equip({slot: so_far}, item, slot)
            if not check.ok:
                problems.append(check)
            else:
                so_far.append(item)
    return tuple(problems)


@dataclass(frozen=True, slots=True)
class InventoryState:
    """What a character carries and the resulting load (§11)."""

    load: RucksackLoad
    wears_rucksack: bool

    @property
    def encumbered(self) -> bool:
        """«eingeschränkt» from the Rucksack load."""
        return self.load.encumbered

    @property
    def conditions(self) -> tuple[str, ...]:
        return ("eingeschränkt",) if self.encumbered else ()


def inventory_state(
    rucksack: Iterable[Item], reisekunde: int, *, wears_rucksack: bool = True
) -> InventoryState:
    """Summarise the Rucksack: used/free places and whether it makes «eingeschränkt»."""
    return InventoryState(rucksack_load(rucksack, reisekunde), wears_rucksack)


@dataclass(frozen=True, slots=True)
class RetrieveResult(OptionalProbe):
    """Getting an item out of the Rucksack.

    In combat: the first action is the Reisekunde (Inventar) Probe; on success a second
    action takes the item out (``actions`` = 2), on failure the first action is spent and the
    item is not found yet (``actions`` = 1, the character may search again next action).
    Outside combat no Probe is needed and no actions are counted.
    """

    found: bool
    actions: int
    probe: ProbeResult | None


def retrieve_from_rucksack(
    roller: Roller, reisekunde_inventar: int, *, in_combat: bool = True, modifier: int = 0
) -> RetrieveResult:
    """Take an item out of the Rucksack (§11): in combat 2 actions with a Reisekunde Probe."""
    if not in_combat:
        return RetrieveResult(found=True, actions=0, probe=None)
    probe = roll_probe(roller, reisekunde_inventar, modifier)
    if probe.success:
        return RetrieveResult(found=True, actions=RUCKSACK_RETRIEVE_ACTIONS, probe=probe)
    return RetrieveResult(found=False, actions=1, probe=probe)
