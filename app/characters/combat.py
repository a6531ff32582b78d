"""A character's combat stat block, for encounters: every number from the rules engines.

The encounter keeps a stat block per participant (``app.encounters.statblocks``); for a
player character its system module builds it from the sheet and the equipped items
(:meth:`CharacterSystem.combat_statblock`), through the same engine functions the sheet
shows, so a fight and the sheet never disagree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.characters.sheets import ItemLike
from app.characters.systems.registry import character_system


def combat_statblock(
    system: str, data: Mapping[str, Any], items: Sequence[ItemLike]
) -> dict[str, Any]:
    """The encounter stat block of a character of ``system`` (keys of its bestiary schema)."""
    return character_system(system).combat_statblock(data, items)
