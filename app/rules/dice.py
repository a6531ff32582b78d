"""Dice for every rules engine: a roller interface, a secure roller and a scripted one.

Engines never draw randomness themselves. They receive a :class:`Roller` and record what
it produced as :class:`DieRoll` values, so a result can be shown ("2W10: 5 + 6 = 11"),
audited and replayed with a :class:`ScriptedRoller` fed the recorded faces.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol


class Roller(Protocol):
    """Source of die faces. ``roll(sides)`` returns a face in ``1..sides``."""

    def roll(self, sides: int) -> int: ...


class SecureRoller:
    """Production roller: the operating system's CSPRNG via :func:`secrets.randbelow`.

    ``randbelow`` uses rejection sampling, so every face is exactly equally likely.
    """

    def roll(self, sides: int) -> int:
        if sides < 1:
            raise ValueError(f"a die needs at least one side, not {sides}")
        return secrets.randbelow(sides) + 1


class ScriptExhausted(RuntimeError):
    """A :class:`ScriptedRoller` was asked for more dice than it was given."""


class FaceOutOfRange(ValueError):
    """A scripted face does not exist on the die it was used for."""


class ScriptedRoller:
    """Roller for tests and replays: hands out the given faces in order.

    It fails loudly when the script runs out or a face does not fit the die, so a test can
    never pass on dice it did not mean to roll.
    """

    def __init__(self, faces: Iterable[int]) -> None:
        self._faces = list(faces)
        self._next = 0

    def roll(self, sides: int) -> int:
        if self._next >= len(self._faces):
            raise ScriptExhausted(
                f"scripted roller ran out after {len(self._faces)} faces (asked for a W{sides})"
            )
        face = self._faces[self._next]
        if not 1 <= face <= sides:
            raise FaceOutOfRange(f"face {face} at position {self._next} does not fit a W{sides}")
        self._next += 1
        return face

    @property
    def remaining(self) -> int:
        """Faces not yet used; a replay that leaves some over did not match."""
        return len(self._faces) - self._next


@dataclass(frozen=True, slots=True)
class DieRoll:
    """One group of identical dice as rolled: sides, faces in order, which faces count."""

    sides: int
    faces: tuple[int, ...]
    kept: tuple[bool, ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.kept:
            object.__setattr__(self, "kept", tuple(True for _ in self.faces))
        if len(self.kept) != len(self.faces):
            raise ValueError("kept must have one flag per face")

    @property
    def total(self) -> int:
        """Sum of the kept faces."""
        return sum(f for f, k in zip(self.faces, self.kept, strict=True) if k)

    @property
    def kept_faces(self) -> tuple[int, ...]:
        return tuple(f for f, k in zip(self.faces, self.kept, strict=True) if k)

    def as_dict(self) -> dict[str, object]:
        """JSON-ready form used by the event log and the API."""
        return {"sides": self.sides, "faces": list(self.faces), "kept": list(self.kept)}

    def describe(self, die_letter: str = "W") -> str:
        """German-style notation, e.g. ``2W10: 5 + 6``; dropped faces in parentheses."""
        parts = [str(f) if k else f"({f})" for f, k in zip(self.faces, self.kept, strict=True)]
        return f"{len(self.faces)}{die_letter}{self.sides}: {' + '.join(parts)}"


def roll_dice(roller: Roller, count: int, sides: int) -> DieRoll:
    """Roll ``count`` dice with ``sides`` sides and record every face."""
    roll = roller.roll
    return DieRoll(sides, tuple([roll(sides) for _ in range(count)]), (True,) * count)


def keep_highest(roll: DieRoll, n: int) -> DieRoll:
    """Mark the ``n`` highest faces kept (earliest wins ties), the rest dropped."""
    return _keep(roll, n, highest=True)


def keep_lowest(roll: DieRoll, n: int) -> DieRoll:
    """Mark the ``n`` lowest faces kept (earliest wins ties), the rest dropped."""
    return _keep(roll, n, highest=False)


def _keep(roll: DieRoll, n: int, *, highest: bool) -> DieRoll:
    order = sorted(
        range(len(roll.faces)), key=lambda i: (-roll.faces[i] if highest else roll.faces[i], i)
    )
    chosen = set(order[: max(0, n)])
    return DieRoll(roll.sides, roll.faces, tuple(i in chosen for i in range(len(roll.faces))))
