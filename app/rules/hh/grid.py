"""Gefährdungsbereich and Blockadeangriff on a square grid (hh.md §6.7).

The Gefährdungsbereich of a figure is every square within 1 Schritt (the 8 neighbours).
Moving *past* a figure through it triggers a Blockadeangriff; entering and stopping,
moving inside without passing, or leaving without going around does not.

Project decision (geometry of "vorbei"): for each stretch of the path inside the zone,
extended by the square just before and just after it, the direction from the figure to
the mover is tracked; the mover passes the figure when that direction turns by 90° or more
(net, in one sense). Walking along an adjacent row past the figure turns it by ≥ 90°;
stepping in and out on the same side does not.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

Square = tuple[int, int]
PASS_ANGLE = 90.0


def chebyshev(a: Square, b: Square) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def threat_zone(pos: Square, reach: int = 1) -> set[Square]:
    """Squares within ``reach`` Schritt (default 1) around ``pos``, without ``pos``."""
    x, y = pos
    return {
        (x + dx, y + dy)
        for dx in range(-reach, reach + 1)
        for dy in range(-reach, reach + 1)
        if (dx, dy) != (0, 0)
    }


def _angle(center: Square, sq: Square) -> float:
    return math.degrees(math.atan2(sq[1] - center[1], sq[0] - center[0]))


def _turn(a: float, b: float) -> float:
    d = (b - a) % 360.0
    return d - 360.0 if d > 180.0 else d


def passes(path: Sequence[Square], center: Square, reach: int = 1) -> int | None:
    """Index in ``path`` at which the mover has passed ``center`` (None if it never does)."""
    inside = [chebyshev(sq, center) <= reach for sq in path]
    i = 0
    n = len(path)
    while i < n:
        if not inside[i]:
            i += 1
            continue
        j = i
        while j + 1 < n and inside[j + 1]:
            j += 1
        lo, hi = max(0, i - 1), min(n - 1, j + 1)
        sweep = 0.0
        for k in range(lo + 1, hi + 1):
            sweep += _turn(_angle(center, path[k - 1]), _angle(center, path[k]))
            if abs(sweep) >= PASS_ANGLE - 1e-9 and k >= i:
                return min(k, j)
        i = j + 1
    return None


@dataclass(frozen=True, slots=True)
class BlockadeTrigger:
    figure: str
    #: Index in the path (and the square) where the mover had passed the figure.
    index: int
    square: Square


def blockade_triggers(
    path: Sequence[Square],
    positions: Mapping[str, Square],
    hostile: Iterable[str],
    reach: Mapping[str, int] | None = None,
) -> list[BlockadeTrigger]:
    """Which of the ``hostile`` figures (ids in ``positions``) may make a Blockadeangriff
    against a mover following ``path`` (start square first), in the order they trigger.

    Whether the figure can actually react (reaction left, not «benommen») is checked by the
    caller with :attr:`app.rules.hh.state.Figure.can_react`.
    """
    out: list[BlockadeTrigger] = []
    for fid in hostile:
        if fid not in positions:
            continue
        idx = passes(path, positions[fid], (reach or {}).get(fid, 1))
        if idx is not None:
            out.append(BlockadeTrigger(fid, idx, path[idx]))
    out.sort(key=lambda t: t.index)
    return out


#: A melee weapon reaches the Gefährdungsbereich: 1 Schritt.
MELEE_REACH = 1


def weapon_reaches(distance: int, ranged: bool, max_range: int | None = None) -> bool:
    """Whether a weapon reaches a target ``distance`` Schritt away (docs/rules/hh.md): a melee
    weapon its Gefährdungsbereich, a ranged weapon its Reichweite (``None``: the stat block
    gives none, no limit)."""
    if not ranged:
        return distance <= MELEE_REACH
    return max_range is None or distance <= max_range
