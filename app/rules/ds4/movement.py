"""DS4 movement per turn: Laufen, Rennen, Sturmangriff (seed "Laufen", ds4.md §2).

A turn allows movement up to Laufen metres, before or after the action but not split.
Rennen is the action: move Laufen once more (2 × Laufen in total). Sturmangriff: run to a
melee target in a straight, unobstructed line up to 2 × Laufen away and still strike.
Obstacles can halve or quarter Laufen (``terrain``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Terrain(Enum):
    """Factor on Laufen for ground obstacles (rubble, thick undergrowth)."""

    OPEN = 1.0
    HALVED = 0.5
    QUARTERED = 0.25


@dataclass(frozen=True, slots=True)
class Reach:
    """Metres a character can cover in one turn."""

    laufen: float  # movement alongside an action
    rennen: float  # total movement when the action is Rennen
    sturmangriff: float  # farthest melee target reachable by a Sturmangriff


def reach(laufen: float, terrain: Terrain = Terrain.OPEN) -> Reach:
    """Reach for a Laufen value; a negative Laufen (heavy armour) counts as 0."""
    base = max(0.0, laufen) * terrain.value
    return Reach(laufen=base, rennen=2 * base, sturmangriff=2 * base)


def can_sturmangriff(
    distance_m: float, laufen: float, *, straight_and_clear: bool = True,
    terrain: Terrain = Terrain.OPEN,
) -> bool:  # fmt: skip
    """Whether a melee target ``distance_m`` away can be charged and still struck."""
    return straight_and_clear and 0 <= distance_m <= reach(laufen, terrain).sturmangriff
