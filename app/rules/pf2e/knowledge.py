"""Wissen abrufen (Recall Knowledge) about a creature: its SG and what a degree yields.

A Verdeckter Wurf (``../shared/rules/pf2e.md`` §7) against the level-based SG of the
creature's Stufe (project table, ``docs/rules/pf2e.md``, "Wissen abrufen"). A Kritischer
Erfolg recalls two facts, an Erfolg one, a Fehlschlag none, a Kritischer Fehlschlag one
false fact (the GM confirms or replaces it).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.rules.pf2e.degrees import Degree

#: SG by Stufe (−1 … 25): the level-based SGs of the GM rules.
LEVEL_DC: dict[int, int] = {
    -1: 13, 0: 14, 1: 15, 2: 16, 3: 18, 4: 19, 5: 20, 6: 22, 7: 23, 8: 24, 9: 26, 10: 27,
    11: 28, 12: 30, 13: 31, 14: 32, 15: 34, 16: 35, 17: 36, 18: 38, 19: 39, 20: 40,
    21: 42, 22: 44, 23: 46, 24: 48, 25: 50,
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Recall:
    """What one Wissen abrufen yields: true facts, and whether one false fact is learned."""

    facts: int
    false_fact: bool


_RECALL = {
    Degree.CRITICAL_SUCCESS: Recall(2, False),
    Degree.SUCCESS: Recall(1, False),
    Degree.FAILURE: Recall(0, False),
    Degree.CRITICAL_FAILURE: Recall(0, True),
}


def recall_dc(level: int) -> int:
    """The SG to recall knowledge about a creature of this Stufe (clamped to the table)."""
    return LEVEL_DC[max(-1, min(level, 25))]


def recall_knowledge(degree: Degree) -> Recall:
    """What a Wissen abrufen with this degree of success yields."""
    return _RECALL[degree]
