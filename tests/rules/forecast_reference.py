"""An independent reference for the forecasts: the real engine over every dice sequence.

A roller answers from a prefix of faces and stops at the first die beyond it; a
depth-first walk then visits every sequence of dice an action can roll, each with its exact
probability (1/sides per die), and hands each finished result to the caller.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import TypeVar

from app.rules.dice import Roller

T = TypeVar("T")


class NeedDie(Exception):
    def __init__(self, sides: int) -> None:
        self.sides = sides


class PrefixRoller:
    def __init__(self, faces: list[int]) -> None:
        self.faces = faces
        self.used = 0

    def roll(self, sides: int) -> int:
        if self.used == len(self.faces):
            raise NeedDie(sides)
        face = self.faces[self.used]
        self.used += 1
        return face


def every_outcome(action: Callable[[Roller], T]) -> Iterator[tuple[T, Fraction]]:
    """Each result of ``action`` over every dice sequence, with its probability."""
    stack: list[tuple[list[int], Fraction]] = [([], Fraction(1))]
    while stack:
        faces, p = stack.pop()
        try:
            result = action(PrefixRoller(faces))
        except NeedDie as need:
            share = p / need.sides
            stack += [([*faces, f], share) for f in range(1, need.sides + 1)]
            continue
        yield result, p
