"""Degree of success (Erfolgsgrad): the total against the DC, the natural 20/1 step, then
abilities that change the degree.

Order, as the rules demand: (1) compare the total with the DC (±10 for the critical
degrees), (2) a natural 20 improves by one step and a natural 1 worsens by one step,
capped at the ends, (3) only then abilities such as "a success becomes a critical success".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum

D20_SIDES = 20


class Degree(IntEnum):
    """The four degrees of success, ordered from worst to best."""

    CRITICAL_FAILURE = 0
    FAILURE = 1
    SUCCESS = 2
    CRITICAL_SUCCESS = 3

    @property
    def label(self) -> str:
        """German label, e.g. ``Kritischer Erfolg``."""
        return _LABELS[self]

    @property
    def attack_label(self) -> str:
        """German label for an attack roll: ``Kritischer Treffer`` / ``Treffer`` / ..."""
        return _ATTACK_LABELS[self]

    @property
    def is_success(self) -> bool:
        """True for Erfolg and Kritischer Erfolg."""
        return self >= Degree.SUCCESS

    def step(self, steps: int) -> Degree:
        """The degree ``steps`` better (negative: worse), capped at both ends."""
        return Degree(min(Degree.CRITICAL_SUCCESS, max(Degree.CRITICAL_FAILURE, self + steps)))


_LABELS = {
    Degree.CRITICAL_FAILURE: "Kritischer Fehlschlag",
    Degree.FAILURE: "Fehlschlag",
    Degree.SUCCESS: "Erfolg",
    Degree.CRITICAL_SUCCESS: "Kritischer Erfolg",
}

_ATTACK_LABELS = {
    Degree.CRITICAL_FAILURE: "Kritischer Fehlschlag",
    Degree.FAILURE: "Fehlschlag",
    Degree.SUCCESS: "Treffer",
    Degree.CRITICAL_SUCCESS: "Kritischer Treffer",
}


def check_d20(face: int) -> None:
    """Refuse anything that is not a face of a W20."""
    if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= D20_SIDES:
        raise ValueError(f"a W20 shows 1 to 20, not {face!r}")


def degree_from_total(total: int, dc: int) -> Degree:
    """Degree by the numbers alone (no natural 20/1): ±10 around the DC."""
    if total >= dc + 10:
        return Degree.CRITICAL_SUCCESS
    if total >= dc:
        return Degree.SUCCESS
    if total <= dc - 10:
        return Degree.CRITICAL_FAILURE
    return Degree.FAILURE


def degree_of_success(d20: int, modifier: int, dc: int) -> Degree:
    """Degree of a check: ``d20 + modifier`` against ``dc``, then the natural 20/1 step."""
    check_d20(d20)
    degree = degree_from_total(d20 + modifier, dc)
    if d20 == D20_SIDES:
        return degree.step(+1)
    if d20 == 1:
        return degree.step(-1)
    return degree


@dataclass(frozen=True, slots=True)
class DegreeAdjustment:
    """An ability that changes one degree into another, e.g. Erfolg → Kritischer Erfolg."""

    source: str
    from_degree: Degree
    to_degree: Degree

    def __post_init__(self) -> None:
        if not self.source.strip():
            raise ValueError("a degree adjustment needs a source")
        object.__setattr__(self, "from_degree", Degree(self.from_degree))
        object.__setattr__(self, "to_degree", Degree(self.to_degree))

    @property
    def label(self) -> str:
        """German description, e.g. ``Entrinnen: Erfolg wird zu Kritischer Erfolg``."""
        return f"{self.source}: {self.from_degree.label} wird zu {self.to_degree.label}"


@dataclass(frozen=True, slots=True)
class AdjustedDegree:
    """The degree before and after degree-changing abilities, and which ones counted.

    ``ignored`` lists adjustments that matched the degree but lost to an earlier one.
    """

    rolled: Degree
    final: Degree
    applied: DegreeAdjustment | None
    ignored: tuple[DegreeAdjustment, ...]


def apply_adjustments(degree: Degree, adjustments: Iterable[DegreeAdjustment]) -> AdjustedDegree:
    """Apply degree-changing abilities to a degree that already has its natural 20/1 step.

    Project decision: every adjustment is matched against that degree (adjustments do not
    chain); when several match, the first listed applies and the others are reported as
    ignored.
    """
    applied: DegreeAdjustment | None = None
    ignored: list[DegreeAdjustment] = []
    for adjustment in adjustments:
        if adjustment.from_degree != degree:
            continue
        if applied is None:
            applied = adjustment
        else:
            ignored.append(adjustment)
    final = applied.to_degree if applied is not None else degree
    return AdjustedDegree(degree, final, applied, tuple(ignored))
