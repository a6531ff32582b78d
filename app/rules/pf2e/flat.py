"""Einfacher Wurf (flat check): a bare W20 against a DC, no modifiers of any kind.

Several flat checks for the same event are one roll against the highest DC. A DC of 1 or
less succeeds and a DC of 21 or more fails without a roll (no natural-20 exception).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from app.rules.dice import DieRoll, Roller
from app.rules.pf2e.checks import SECRET_LABEL
from app.rules.pf2e.degrees import check_d20
from app.rules.pf2e.fortune import D20Roll, roll_d20

FLAT_CHECK_LABEL = "Einfacher Wurf"
AUTO_SUCCESS_MAX_DC = 1
AUTO_FAILURE_MIN_DC = 21


def decided_without_roll(dc: int) -> bool | None:
    """``True``/``False`` when the DC alone decides, ``None`` when the die must be rolled."""
    if dc <= AUTO_SUCCESS_MAX_DC:
        return True
    if dc >= AUTO_FAILURE_MIN_DC:
        return False
    return None


def flat_check(dc: int, d20: int) -> bool:
    """Success of a flat check: ``d20 >= dc``; the die is ignored when the DC decides."""
    decided = decided_without_roll(dc)
    if decided is not None:
        return decided
    check_d20(d20)
    return d20 >= dc


@dataclass(frozen=True, slots=True)
class FlatCheckResult:
    """The outcome of an Einfacher Wurf; ``roll`` is ``None`` when none was needed."""

    label: str
    dc: int
    dcs: tuple[int, ...]
    roll: D20Roll | None
    success: bool
    secret: bool

    @property
    def automatic(self) -> bool:
        return self.roll is None

    @property
    def dice(self) -> tuple[DieRoll, ...]:
        return () if self.roll is None else (self.roll.die,)

    @property
    def outcome_label(self) -> str:
        return "Erfolg" if self.success else "Fehlschlag"

    def describe(self) -> str:
        if self.roll is None:
            how = "automatisch"
        else:
            how = f"{self.roll.die.describe()} = {self.roll.natural}"
        return f"{self.label} gegen SG {self.dc}: {how} – {self.outcome_label}"

    def as_dict(self, *, reveal: bool = True) -> dict[str, object]:
        if self.secret and not reveal:
            return {"label": self.label, "secret": True, "secret_label": SECRET_LABEL}
        return {
            "label": self.label,
            "secret": self.secret,
            "dc": self.dc,
            "dcs": list(self.dcs),
            "dice": [d.as_dict() for d in self.dice],
            "natural": None if self.roll is None else self.roll.natural,
            "automatic": self.automatic,
            "success": self.success,
            "outcome_label": self.outcome_label,
        }


def roll_flat_check(
    roller: Roller,
    dcs: int | Iterable[int],
    *,
    label: str = FLAT_CHECK_LABEL,
    fortune: bool = False,
    misfortune: bool = False,
    secret: bool = False,
) -> FlatCheckResult:
    """Roll one Einfacher Wurf against the highest of ``dcs`` (no die when the DC decides).

    There is deliberately no parameter for modifiers: a flat check never has any.
    """
    all_dcs = (dcs,) if isinstance(dcs, int) else tuple(dcs)
    if not all_dcs:
        raise ValueError("a flat check needs at least one DC")
    dc = max(all_dcs)
    decided = decided_without_roll(dc)
    if decided is not None:
        return FlatCheckResult(label, dc, all_dcs, None, decided, secret)
    roll = roll_d20(roller, fortune=fortune, misfortune=misfortune)
    return FlatCheckResult(label, dc, all_dcs, roll, flat_check(dc, roll.natural), secret)
