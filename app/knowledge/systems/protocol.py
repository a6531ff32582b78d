"""What knowledge needs of a rule system: the facts of a stat block and what a check yields.

Each system lists the facts a bestiary entry has (its name, its kind, the range of its
life points, its armour, resistances and weaknesses, its abilities), which of them a
player needs before the attack forecast may use the target's values, which roll from the
sheet is a knowledge check about an entry, and how many facts a check's outcome (decided by
the engine's own check, ``app/rules/<system>/``) reveals.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class Fact:
    """One fact of an entry: ``key`` (stable: ``lp``, ``res:Feuer``, ``spell:feuerball``),
    ``label`` (the rule term, for the GM's list), ``text`` (what a player reads:
    "LP ~60", "verwundbar gegen Feuer") and ``lie`` (a plausible false text the GM may
    confirm after a critical failure)."""

    key: str
    label: str
    text: str
    lie: str


@dataclass(frozen=True, slots=True)
class Learned:
    """What one knowledge check yields: ``facts`` true facts and maybe one false fact."""

    facts: int
    false_fact: bool = False


@dataclass(frozen=True, slots=True)
class CheckSetup:
    """How the check is rolled: the SG the rules set (PF2e) and whether it is secret."""

    dc: int | None
    secret: bool


class KnowledgeRules(Protocol):
    @property
    def name(self) -> str: ...

    def facts(self, name: str, block: Mapping[str, Any]) -> tuple[Fact, ...]:
        """Every fact of this entry, in the order checks reveal them."""

    def forecast_needs(self, facts: tuple[Fact, ...]) -> frozenset[str]:
        """The fact keys a player must know before the forecast uses the target's values."""

    def check_problem(self, block: Mapping[str, Any], target: str) -> str | None:
        """Why a roll on ``target`` is no knowledge check about this entry (a msgid), or None."""

    def setup(self, block: Mapping[str, Any], settings: Mapping[str, str]) -> CheckSetup:
        """The SG and secrecy of a check about this entry under the campaign's options."""

    def learned(self, outcome: Mapping[str, Any]) -> Learned:
        """What the sheet roll's outcome (the engine's result) reveals."""


def about(value: int, step: int = 5) -> str:
    """A life-point range as players learn it: rounded to ``step`` ("~60")."""
    rounded = max(step, round(value / step) * step)
    return f"~{rounded}"


def wrong(value: int) -> int:
    """A plausible wrong number for a false fact: half as much again, or less."""
    return value + max(2, value // 2) if value < 10 else value // 2
