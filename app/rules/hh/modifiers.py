"""One modifier path for every H&H Probe, with its breakdown (issue 13).

A Probe's target is the skill value plus its modifiers (hh.md §1). The modifiers come from
the same sources wherever the Probe is rolled (sheet, GM check, attack, defence, spell,
round-end Probe, Rast): Behinderung (attacks and defences, §6), the figure's conditions
(§8, by Probe category and kind), and situational ones the caller names (cover, Zielen,
Helfen, difficulty, the GM's modifier). :func:`breakdown` lists each as a :class:`Part`, so
every result can show "Kampfkunst 12 − BE 2 − angeschlagen 2 = 8".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from app.rules.hh.conditions import condition_def, modifier_for
from app.rules.hh.state import Figure, Zustand, skill_category

#: Probe kinds whose value is reduced by Behinderung (hh.md §6: attack and defence − BE).
BE_KINDS = frozenset({"attack", "defence"})


@dataclass(frozen=True, slots=True)
class Part:
    """One modifier of a Probe: its name (rule term) and signed value."""

    label: str
    value: int
    #: Where the value comes from, shown after it: "Helfen +2 (Brida QS 2)".
    note: str = ""


@dataclass(frozen=True, slots=True)
class Breakdown:
    """The skill, each modifier and the resulting target value."""

    skill: str
    value: int
    parts: tuple[Part, ...] = ()

    @property
    def modifier(self) -> int:
        return sum(p.value for p in self.parts)

    @property
    def target(self) -> int:
        return self.value + self.modifier

    def probe_args(self) -> tuple[int, int]:
        """(skill − BE, the other modifiers): the Probe's value and modifier (§6)."""
        be = sum(p.value for p in self.parts if p.label == "BE")
        return self.value + be, self.modifier - be

    def plus(self, *parts: Part) -> Breakdown:
        """The same breakdown with more parts (zero parts are left out)."""
        return Breakdown(self.skill, self.value, (*self.parts, *(p for p in parts if p.value)))

    def describe(self) -> str:
        """E.g. ``"Kampfkunst 12 − BE 2 − angeschlagen 2 = 8"``."""
        text = f"{self.skill} {self.value}"
        for p in self.parts:
            text += f" {'+' if p.value >= 0 else '−'} {p.label} {abs(p.value)}"
            text += f" ({p.note})" if p.note else ""
        return f"{text} = {self.target}" if self.parts else text


def condition_parts(conditions: Iterable[Zustand | str], skill: str, kind: str) -> list[Part]:
    """Each active condition's modifier on a Probe with ``skill`` of ``kind`` (§8)."""
    category = skill_category(skill)
    out: list[Part] = []
    seen: set[str] = set()
    for c in conditions:
        key = c if isinstance(c, str) else c.key
        if key in seen:
            continue
        seen.add(key)
        condition_def(key)
        value = modifier_for((key,), category, kind)
        if value:
            out.append(Part(key, value))
    return out


def breakdown(figure: Figure, skill: str, kind: str, situational: Sequence[Part] = ()) -> Breakdown:
    """The target of ``figure``'s Probe with ``skill`` of ``kind`` (``action``, ``attack``,
    ``defence``, ``reaction``, ``other``): BE for attacks and defences, the conditions, then
    the ``situational`` parts in the caller's order (zero parts are left out)."""
    parts: list[Part] = []
    if kind in BE_KINDS and figure.be:
        parts.append(Part("BE", -figure.be))
    parts += condition_parts(figure.conditions, skill, kind)
    return Breakdown(skill, figure.skill(skill), tuple(parts)).plus(*situational)
