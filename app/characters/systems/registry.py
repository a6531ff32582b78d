"""The rule systems of the characters domain, keyed by the campaign's ``system``
(``app.core.systems.RuleSystem``; ``app.wiring`` registers each system's module), and each
capability a caller asks of one."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from app.characters.systems.protocol import (
    CharacterCore,
    CombatSheet,
    Companions,
    Inventory,
    Rests,
    SheetChecks,
    SheetRolls,
    WithoutCompanions,
    WithoutRests,
    WithoutSheetChecks,
)
from app.core.capability import capability

T = TypeVar("T")

SYSTEMS: dict[str, CharacterCore] = {}


def character_system(key: str) -> CharacterCore:
    """The system a campaign plays (``KeyError`` for a key no campaign can have)."""
    return SYSTEMS[key]


def _required(key: str, kind: Callable[..., T]) -> T:
    """A capability the sheet page cannot do without (``LookupError`` where it is missing:
    a system under construction)."""
    found = capability(SYSTEMS[key], kind)
    if found is None:
        raise LookupError(f"the rule system {key!r} has no {getattr(kind, '__name__', kind)}")
    return found


def inventory(key: str) -> Inventory:
    return _required(key, Inventory)


def sheet_rolls(key: str) -> SheetRolls:
    return _required(key, SheetRolls)


def combat_sheet(key: str) -> CombatSheet:
    return _required(key, CombatSheet)


def rests(key: str) -> Rests:
    """The system's rests; none where it has no :class:`Rests`."""
    return capability(SYSTEMS[key], Rests) or WithoutRests()


def sheet_checks(key: str) -> SheetChecks:
    """The system's guided checks; none (each refused) where it has no :class:`SheetChecks`."""
    return capability(SYSTEMS[key], SheetChecks) or WithoutSheetChecks()


def companions(key: str) -> Companions:
    """The system's Gefährten; none (each refused) where it has no :class:`Companions`."""
    return capability(SYSTEMS[key], Companions) or WithoutCompanions()
