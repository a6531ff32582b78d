"""Initiative: everyone rolls Wahrnehmung (or the skill the GM calls for); higher first.

Ties: an adversary (Gegner) goes before an adventurer (Abenteurer) with the same result;
within one side the GM (or the players) choose. :func:`roll_initiative` puts tied
combatants of one side in the order they were given and marks them as a tie group;
:func:`reorder_initiative` lets the GM permute inside tie groups and nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from app.rules.dice import DieRoll, Roller
from app.rules.pf2e.checks import CheckResult, roll_check
from app.rules.pf2e.errors import InvalidInitiativeOrder
from app.rules.pf2e.statistics import Statistic


class Side(StrEnum):
    ADVENTURER = "adventurer"
    ADVERSARY = "adversary"

    @property
    def label(self) -> str:
        return "Abenteurer" if self is Side.ADVENTURER else "Gegner"


@dataclass(frozen=True, slots=True)
class Combatant:
    """One participant: an id for the service, a name, a side and the statistic it rolls
    (its Wahrnehmung, or the skill the GM called for)."""

    id: str
    name: str
    side: Side
    statistic: Statistic
    fortune: bool = False
    misfortune: bool = False
    secret: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "side", Side(self.side))


@dataclass(frozen=True, slots=True)
class InitiativeEntry:
    """A place in the order: who, the roll, and the tie group (``None`` if untied).

    A tie group numbers the combatants of one side with the same result; the GM may
    reorder inside it.
    """

    combatant: Combatant
    check: CheckResult
    tie_group: int | None = None

    @property
    def result(self) -> int:
        return self.check.total

    @property
    def dice(self) -> tuple[DieRoll, ...]:
        return self.check.dice


def _sort_key(entry: InitiativeEntry) -> tuple[int, int]:
    return (-entry.result, 0 if entry.combatant.side is Side.ADVERSARY else 1)


def _mark_ties(entries: list[InitiativeEntry]) -> list[InitiativeEntry]:
    """Number runs of equal (result, side) with two or more members."""
    out: list[InitiativeEntry] = []
    group = 0
    i = 0
    while i < len(entries):
        j = i
        while j + 1 < len(entries) and _sort_key(entries[j + 1]) == _sort_key(entries[i]):
            j += 1
        if j > i:
            group += 1
            out.extend(replace(e, tie_group=group) for e in entries[i : j + 1])
        else:
            out.append(replace(entries[i], tie_group=None))
        i = j + 1
    return out


def roll_initiative(roller: Roller, combatants: Iterable[Combatant]) -> list[InitiativeEntry]:
    """Roll initiative for everyone (in the given order) and return the turn order.

    Higher result first; on equal results adversaries before adventurers; within a side
    the given order, marked with a tie group the GM may reorder.
    """
    people = list(combatants)
    ids = [c.id for c in people]
    if len(set(ids)) != len(ids):
        raise ValueError("combatant ids must be unique")
    entries = [
        InitiativeEntry(
            c,
            roll_check(
                roller,
                c.statistic,
                fortune=c.fortune,
                misfortune=c.misfortune,
                secret=c.secret,
            ),
        )
        for c in people
    ]
    return _mark_ties(sorted(entries, key=_sort_key))


def tie_groups(order: Sequence[InitiativeEntry]) -> list[list[InitiativeEntry]]:
    """The tie groups of an order, each in its current order."""
    groups: dict[int, list[InitiativeEntry]] = {}
    for entry in order:
        if entry.tie_group is not None:
            groups.setdefault(entry.tie_group, []).append(entry)
    return list(groups.values())


def reorder_initiative(
    order: Sequence[InitiativeEntry], combatant_ids: Sequence[str]
) -> list[InitiativeEntry]:
    """The GM's new order, given as combatant ids; only swaps inside tie groups are allowed."""
    by_id = {e.combatant.id: e for e in order}
    if sorted(combatant_ids) != sorted(by_id) or len(set(combatant_ids)) != len(combatant_ids):
        raise InvalidInitiativeOrder(
            "Die neue Reihenfolge muss jeden Teilnehmer genau einmal enthalten."
        )
    new = [by_id[i] for i in combatant_ids]
    for old_entry, new_entry in zip(order, new, strict=True):
        same_place = old_entry is new_entry
        same_group = old_entry.tie_group is not None and old_entry.tie_group == new_entry.tie_group
        if not (same_place or same_group):
            raise InvalidInitiativeOrder(
                "%(name)s kann nicht verschoben werden: Nur Gleichstände innerhalb einer "
                "Seite darf die SL umsortieren.",
                name=new_entry.combatant.name,
            )
    return new
