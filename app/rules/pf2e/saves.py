"""Saving throws (Rettungswürfe) and the einfacher Rettungswurf's damage.

Einfacher Rettungswurf: Kritischer Erfolg 0, Erfolg half (rounded down), Fehlschlag full,
Kritischer Fehlschlag double, all of the listed damage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Unpack

from app.rules.dice import DieRoll, Roller
from app.rules.pf2e.checks import CheckOptions, CheckResult, roll_check
from app.rules.pf2e.degrees import Degree
from app.rules.pf2e.statistics import Statistic


def basic_save_damage(damage: int, degree: Degree) -> int:
    """Damage taken on an einfacher Rettungswurf against ``damage`` listed damage."""
    if isinstance(damage, bool) or not isinstance(damage, int) or damage < 0:
        raise ValueError(f"listed damage is a non-negative integer, not {damage!r}")
    degree = Degree(degree)
    if degree is Degree.CRITICAL_SUCCESS:
        return 0
    if degree is Degree.SUCCESS:
        return damage // 2
    if degree is Degree.FAILURE:
        return damage
    return damage * 2


@dataclass(frozen=True, slots=True)
class SaveResult:
    """A save: the check, and for an einfacher Rettungswurf the listed and taken damage."""

    check: CheckResult
    damage: int | None
    damage_taken: int | None

    @property
    def degree(self) -> Degree:
        assert self.check.degree is not None  # a save always has a DC
        return self.check.degree

    @property
    def dice(self) -> tuple[DieRoll, ...]:
        return self.check.dice

    def describe(self) -> str:
        text = self.check.describe()
        if self.damage is not None:
            text += f"; Schaden {self.damage} → {self.damage_taken}"  # listed → taken
        return text


def save_against(
    roller: Roller,
    save: Statistic,
    dc: int,
    *,
    damage: int | None = None,
    **check_options: Unpack[CheckOptions],
) -> SaveResult:
    """Roll a save (e.g. Reflex against a Zauber-SG). With ``damage`` (the listed damage,
    rolled once for the whole effect) it is an einfacher Rettungswurf and the result says
    how much of it this creature takes; degree-changing abilities (e.g. Entrinnen) count.
    The other keywords are :func:`roll_check`'s."""
    if damage is not None:
        basic_save_damage(damage, Degree.FAILURE)  # validate before rolling
    check = roll_check(roller, save, dc, **check_options)
    assert check.degree is not None
    taken = None if damage is None else basic_save_damage(damage, check.degree)
    return SaveResult(check, damage, taken)
