"""Typed modifiers and how they stack, with a breakdown for the UI.

Stacking (see ``docs/rules/pf2e.md``)::

    total = best attribute modifier offered
          + best proficiency bonus offered
          + per type Situation / Gegenstand / Zustand: highest bonus + worst penalty
          + every untyped (Kategorielos) modifier

Before that, modifiers from the same source count once. Every modifier that does not count
is kept in :attr:`ModifierBreakdown.ignored` with the reason and the modifier it lost to.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

ATTRIBUTE = "attribute"
PROFICIENCY = "proficiency"
CIRCUMSTANCE = "circumstance"
ITEM = "item"
STATUS = "status"
UNTYPED = "untyped"

MODIFIER_TYPES = (ATTRIBUTE, PROFICIENCY, CIRCUMSTANCE, ITEM, STATUS, UNTYPED)
TYPED_BONUS_TYPES = (CIRCUMSTANCE, ITEM, STATUS)

TYPE_LABELS = {
    ATTRIBUTE: "Attribut",
    PROFICIENCY: "Kompetenz",
    CIRCUMSTANCE: "Situation",
    ITEM: "Gegenstand",
    STATUS: "Zustand",
    UNTYPED: "Kategorielos",
}


def signed(value: int) -> str:
    """``+4``, ``+0``, ``-2``: how the sheet writes a modifier."""
    return f"{value:+d}"


@dataclass(frozen=True, slots=True)
class Modifier:
    """A modifier, bonus or penalty on a check or DC: its source, its type and its value."""

    source: str
    type: str
    value: int

    def __post_init__(self) -> None:
        if not isinstance(self.source, str) or not self.source.strip():
            raise ValueError("a modifier needs a source")
        if self.type not in MODIFIER_TYPES:
            raise ValueError(f"unknown modifier type {self.type!r}; use one of {MODIFIER_TYPES}")
        if isinstance(self.value, bool) or not isinstance(self.value, int):
            raise ValueError(f"a modifier value is an integer, not {self.value!r}")

    @property
    def type_label(self) -> str:
        """German name of the type, e.g. ``Zustand``."""
        return TYPE_LABELS[self.type]

    @property
    def label(self) -> str:
        """German line for the breakdown, e.g. ``Heldenmut (Zustand) +1``."""
        return f"{self.source} ({self.type_label}) {signed(self.value)}"


class IgnoreReason(Enum):
    """Why a modifier does not count, with a German explanation for the UI."""

    DUPLICATE_SOURCE = "duplicate_source"
    BETTER_ATTRIBUTE = "better_attribute"
    BETTER_PROFICIENCY = "better_proficiency"
    HIGHER_BONUS = "higher_bonus"
    WORSE_PENALTY = "worse_penalty"

    @property
    def label(self) -> str:
        return _REASON_LABELS[self]


_REASON_LABELS = {
    IgnoreReason.DUPLICATE_SOURCE: "Dieselbe Quelle zählt nur einmal",
    IgnoreReason.BETTER_ATTRIBUTE: "Ein besserer Attributsmodifikator wird verwendet",
    IgnoreReason.BETTER_PROFICIENCY: "Ein höherer Kompetenzbonus wird verwendet",
    IgnoreReason.HIGHER_BONUS: "Nur der höchste Bonus derselben Art zählt",
    IgnoreReason.WORSE_PENALTY: "Nur der schlechteste Malus derselben Art zählt",
}


@dataclass(frozen=True, slots=True)
class IgnoredModifier:
    """A modifier that does not count, why, and the modifier that counts instead."""

    modifier: Modifier
    reason: IgnoreReason
    superseded_by: Modifier

    @property
    def label(self) -> str:
        """German line, e.g. ``Segen (Zustand) +1 – Nur der höchste Bonus ... (Heldenmut)``."""
        return f"{self.modifier.label} – {self.reason.label} ({self.superseded_by.source})"


@dataclass(frozen=True, slots=True)
class ModifierBreakdown:
    """Applied modifiers in the order given, ignored ones with reasons, and the total."""

    applied: tuple[Modifier, ...]
    ignored: tuple[IgnoredModifier, ...]

    @property
    def total(self) -> int:
        """The Gesamtmodifikator: the sum of the applied modifiers."""
        return sum(m.value for m in self.applied)

    def describe(self) -> str:
        """One German line: applied modifiers and the total, e.g. ``Stärke +4, ... = +7``."""
        parts = ", ".join(f"{m.source} {signed(m.value)}" for m in self.applied)
        return f"{parts or 'keine Modifikatoren'} = {signed(self.total)}"

    def as_dict(self) -> dict[str, object]:
        """JSON-ready form for the event log and the API."""
        return {
            "total": self.total,
            "applied": [
                {"source": m.source, "type": m.type, "value": m.value, "label": m.label}
                for m in self.applied
            ],
            "ignored": [
                {
                    "source": i.modifier.source,
                    "type": i.modifier.type,
                    "value": i.modifier.value,
                    "reason": i.reason.value,
                    "label": i.label,
                    "superseded_by": i.superseded_by.source,
                }
                for i in self.ignored
            ],
        }


def _pick(indices: list[int], mods: list[Modifier], *, highest: bool) -> int:
    """Index of the best (or worst) value; the earliest wins a tie."""
    return min(indices, key=lambda i: (-mods[i].value if highest else mods[i].value, i))


def stack_modifiers(modifiers: Iterable[Modifier]) -> ModifierBreakdown:
    """Apply the stacking rules and record what counts and what does not, and why."""
    mods = list(modifiers)
    for m in mods:
        if not isinstance(m, Modifier):
            raise TypeError(f"expected a Modifier, not {m!r}")
    winner: dict[int, tuple[IgnoreReason, int]] = {}  # loser index -> (reason, winner index)

    # Same source counts once: keep the one with the largest effect (earliest on a tie).
    by_source: dict[str, list[int]] = {}
    for i, m in enumerate(mods):
        by_source.setdefault(m.source, []).append(i)
    for indices in by_source.values():
        keep = min(indices, key=lambda i: (-abs(mods[i].value), i))
        for i in indices:
            if i != keep:
                winner[i] = (IgnoreReason.DUPLICATE_SOURCE, keep)

    remaining = [i for i in range(len(mods)) if i not in winner]

    def only_best(indices: list[int], reason: IgnoreReason, *, highest: bool) -> None:
        if not indices:
            return
        keep = _pick(indices, mods, highest=highest)
        for i in indices:
            if i != keep:
                winner[i] = (reason, keep)

    only_best(
        [i for i in remaining if mods[i].type == ATTRIBUTE],
        IgnoreReason.BETTER_ATTRIBUTE,
        highest=True,
    )
    only_best(
        [i for i in remaining if mods[i].type == PROFICIENCY],
        IgnoreReason.BETTER_PROFICIENCY,
        highest=True,
    )
    for kind in TYPED_BONUS_TYPES:
        of_kind = [i for i in remaining if mods[i].type == kind]
        only_best(
            [i for i in of_kind if mods[i].value >= 0], IgnoreReason.HIGHER_BONUS, highest=True
        )
        only_best(
            [i for i in of_kind if mods[i].value < 0], IgnoreReason.WORSE_PENALTY, highest=False
        )

    applied = tuple(m for i, m in enumerate(mods) if i not in winner)
    ignored = tuple(
        IgnoredModifier(mods[i], winner[i][0], mods[winner[i][1]])
        for i in range(len(mods))
        if i in winner
    )
    return ModifierBreakdown(applied, ignored)


def total_modifier(modifiers: Iterable[Modifier]) -> int:
    """The Gesamtmodifikator of ``modifiers`` after the stacking rules."""
    return stack_modifiers(modifiers).total
