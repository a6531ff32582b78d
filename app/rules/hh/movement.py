"""Sprünge and Stürze (hh.md §12), as calculators for GM and players.

Sprünge: within a regular movement a figure clears gaps and hurdles up to half its
Bewegung (min. 1 Schritt) without a Probe («Sprinten» does not raise that). Further or
higher jumps: Geschick (Akrobatik) as «Schwierige Bewegung»; success → QS × 2 Schritt
horizontal or QS Schritt vertical.

Stürze: 1W10 brechend per full 3 Schritt of height. A fall of less than half the Bewegung
(min. 1) is caught as part of the movement; deeper falls allow a Geschick (Akrobatik)
Probe whose success removes QS dice. Outside its own initiative step a figure needs a
reaction to catch a fall.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.rules.dice import DieRoll, Roller, roll_dice
from app.rules.hh.damage import damage
from app.rules.hh.probe import OptionalProbe, ProbeResult, roll_probe

Direction = Literal["horizontal", "vertical"]
#: Schritt of height per damage die.
FALL_SCHRITT_PER_DIE = 3


def free_distance(bewegung: int) -> int:
    """Half the Bewegung, at least 1 Schritt (free jump, caught fall)."""
    return max(1, bewegung // 2)


def jump_reach(qs: int, direction: Direction) -> int:
    """Distance a successful jump Probe reaches: QS × 2 horizontal, QS vertical."""
    if direction not in ("horizontal", "vertical"):
        raise ValueError(f"unknown direction {direction!r}")
    return max(0, qs) * (2 if direction == "horizontal" else 1)


@dataclass(frozen=True, slots=True)
class JumpResult(OptionalProbe):
    """A jump over ``distance`` Schritt.

    ``free``: within half the Bewegung, no Probe, part of the movement. Otherwise
    ``probe`` is the Geschick (Akrobatik) Probe (a «Schwierige Bewegung» action) and
    ``reach`` what it achieved; ``made_it`` when the reach covers the distance (project
    decision: a jump that falls short fails).
    """

    distance: int
    direction: Direction
    free: bool
    probe: ProbeResult | None
    reach: int
    made_it: bool


def jump(
    roller: Roller,
    distance: int,
    bewegung: int,
    akrobatik: int,
    *,
    direction: Direction = "horizontal",
    modifier: int = 0,
) -> JumpResult:
    """Resolve a jump over ``distance`` Schritt with Geschick (Akrobatik) ``akrobatik``."""
    if distance < 0:
        raise ValueError(f"a distance cannot be negative, got {distance}")
    jump_reach(0, direction)  # validates the direction
    free = free_distance(bewegung)
    if distance <= free:
        return JumpResult(distance, direction, True, None, free, True)
    probe = roll_probe(roller, akrobatik, modifier)
    reach = jump_reach(probe.qs, direction) if probe.success else 0
    return JumpResult(distance, direction, False, probe, reach, probe.success and reach >= distance)


def fall_dice(height: int) -> int:
    """Damage dice of a fall: one per full 3 Schritt."""
    return max(0, height) // FALL_SCHRITT_PER_DIE


@dataclass(frozen=True, slots=True)
class FallResult:
    """A fall of ``height`` Schritt.

    ``caught``: shorter than half the Bewegung and caught within the movement (no damage).
    ``probe``: the Geschick (Akrobatik) Probe, if one was made; ``dice_removed`` = its QS.
    ``damage_roll``: the W10s rolled; ``damage``: LP lost after RS (brechend: RS halved,
    per die) and resistance.
    """

    height: int
    caught: bool
    probe: ProbeResult | None
    dice: int
    dice_removed: int
    damage_roll: DieRoll | None
    damage: int

    @property
    def rolls(self) -> tuple[DieRoll, ...]:
        own = self.probe.rolls if self.probe else ()
        return own + ((self.damage_roll,) if self.damage_roll else ())


def fall(
    roller: Roller,
    height: int,
    bewegung: int,
    akrobatik: int,
    *,
    rs: int = 0,
    resistance: str = "none",
    modifier: int = 0,
    in_own_step: bool = True,
    reaction_available: bool = True,
    attempt_probe: bool = True,
) -> FallResult:
    """Resolve a fall of ``height`` Schritt.

    Outside the own initiative step (``in_own_step=False``) catching — both the free catch
    and the Probe — needs a reaction (``reaction_available``; the caller spends it when a
    Probe is made or the fall is caught). ``attempt_probe=False`` skips the Probe.
    """
    if height < 0:
        raise ValueError(f"a height cannot be negative, got {height}")
    can_catch = in_own_step or reaction_available
    if can_catch and height < free_distance(bewegung):
        return FallResult(height, True, None, 0, 0, None, 0)
    dice = fall_dice(height)
    probe: ProbeResult | None = None
    removed = 0
    if can_catch and attempt_probe and dice > 0:
        probe = roll_probe(roller, akrobatik, modifier)
        removed = min(dice, probe.qs) if probe.success else 0
    left = dice - removed
    roll = roll_dice(roller, left, 10) if left > 0 else None
    lost = damage(list(roll.faces), 0, rs, "brechend", resistance) if roll else 0
    return FallResult(height, False, probe, dice, removed, roll, lost)
