"""Glück und Unglück (fortune and misfortune) on the W20.

At most one fortune and one misfortune effect act on a roll (two booleans cannot express
more). Fortune rolls two W20 and keeps the higher, misfortune keeps the lower; both at
once cancel and a single W20 is rolled. The kept die is the natural one.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from app.rules.dice import DieRoll, Roller, keep_highest, keep_lowest, roll_dice
from app.rules.pf2e.degrees import D20_SIDES, check_d20


class FortuneState(Enum):
    NORMAL = "normal"
    FORTUNE = "fortune"
    MISFORTUNE = "misfortune"
    CANCELLED = "cancelled"

    @property
    def label(self) -> str:
        return _LABELS[self]

    @property
    def dice(self) -> int:
        """How many W20 this state rolls."""
        return 2 if self in (FortuneState.FORTUNE, FortuneState.MISFORTUNE) else 1


_LABELS = {
    FortuneState.NORMAL: "Normaler Wurf",
    FortuneState.FORTUNE: "Glück: zweimal würfeln, höheres Ergebnis",
    FortuneState.MISFORTUNE: "Unglück: zweimal würfeln, niedrigeres Ergebnis",
    FortuneState.CANCELLED: "Glück und Unglück heben sich auf",
}


def fortune_state(fortune: bool, misfortune: bool) -> FortuneState:
    if fortune and misfortune:
        return FortuneState.CANCELLED
    if fortune:
        return FortuneState.FORTUNE
    if misfortune:
        return FortuneState.MISFORTUNE
    return FortuneState.NORMAL


def kept_d20(faces: tuple[int, ...], fortune: bool, misfortune: bool) -> int:
    """The natural W20 result: the higher of two (fortune), the lower (misfortune), or the
    single face (neither, or both cancelling). The number of faces must fit the state."""
    state = fortune_state(fortune, misfortune)
    if len(faces) != state.dice:
        raise ValueError(f"{state.label} needs {state.dice} W20 faces, got {len(faces)}")
    for face in faces:
        check_d20(face)
    if state is FortuneState.FORTUNE:
        return max(faces)
    if state is FortuneState.MISFORTUNE:
        return min(faces)
    return faces[0]


@dataclass(frozen=True, slots=True)
class D20Roll:
    """The W20 as rolled: the dice (dropped face marked), the fortune state, the natural."""

    die: DieRoll
    state: FortuneState

    @property
    def natural(self) -> int:
        """The kept face, from which the natural 20/1 is read."""
        return self.die.kept_faces[0]


def roll_d20(roller: Roller, *, fortune: bool = False, misfortune: bool = False) -> D20Roll:
    """Roll the W20 of a check under fortune / misfortune."""
    state = fortune_state(fortune, misfortune)
    die = roll_dice(roller, state.dice, D20_SIDES)
    if state is FortuneState.FORTUNE:
        die = keep_highest(die, 1)
    elif state is FortuneState.MISFORTUNE:
        die = keep_lowest(die, 1)
    return D20Roll(die, state)
