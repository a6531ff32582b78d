"""A character in a fight: its stat block and its current values, one truth (issue 13).

The encounter keeps a stat block per participant (``app.encounters.statblocks``); for a
player character its system module builds it from the sheet and the equipped items
(:meth:`CombatSheet.combat_statblock`), through the same engine functions the sheet
shows, so a fight and the sheet never disagree.

The character row is the truth for a player character's current values (LP, WP, GP,
conditions, worn armour): the encounter takes them at every step (:func:`combat_values`)
and writes what the fight changed back to the sheet (:func:`sheet_changes`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from app.characters.sheets import ItemLike, get_value
from app.characters.systems.registry import combat_sheet


def combat_statblock(
    system: str, data: Mapping[str, object], items: Sequence[ItemLike]
) -> dict[str, object]:
    """The encounter stat block of a character of ``system`` (keys of its bestiary schema)."""
    return combat_sheet(system).combat_statblock(data, items)


def combat_values(
    system: str, data: Mapping[str, object], items: Sequence[ItemLike]
) -> dict[str, object]:
    """The sheet's current values a fight of ``system`` takes at every step (one truth)."""
    return combat_sheet(system).combat_values(data, items)


def sheet_changes(
    system: str, data: Mapping[str, object], values: Mapping[str, object]
) -> dict[str, tuple[object, object]]:
    """What a fight changed on the sheet: sheet key → (before, after) for each value that
    differs (``values`` as ``combat_values`` names them)."""
    out: dict[str, tuple[object, object]] = {}
    for key, after in combat_sheet(system).sheet_values(data, values).items():
        before = get_value(data, key)
        if before != after:
            out[key] = (before, after)
    return out
