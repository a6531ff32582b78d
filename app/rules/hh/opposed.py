"""Vergleichende Probe (hh.md §2) and Helfen (hh.md §3)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from app.rules.dice import DieRoll, Roller
from app.rules.hh.probe import ProbeResult, best_qs, qs, roll_probe

Winner = Literal["attacker", "defender", "none"]


@dataclass(frozen=True, slots=True)
class OpposedResult:
    """Outcome of an opposed Probe: ``winner`` and the winner's ``qs`` (0 when nobody wins)."""

    attacker: ProbeResult
    defender: ProbeResult
    winner: Winner
    qs: int

    @property
    def rolls(self) -> tuple[DieRoll, ...]:
        return self.attacker.rolls + self.defender.rolls

    def describe(self) -> str:
        who = {"attacker": "Angreifer", "defender": "Verteidiger", "none": "niemand"}[self.winner]
        head = f"{self.attacker.describe()} | {self.defender.describe()} → {who} gewinnt"
        return f"{head}, QS {self.qs}" if self.winner != "none" else head


def _winner_qs(winner: ProbeResult, loser_roll: int) -> int:
    base = qs(winner.roll - loser_roll)
    if winner.volltreffer:
        base = max(base, best_qs(winner.target), 1 if winner.automatic else 0)
    return base + winner.extra_qs


def evaluate_opposed(attacker: ProbeResult, defender: ProbeResult) -> OpposedResult:
    """Compare two Probes rolled at once (§2).

    Only one succeeds → it wins with its own QS. Both succeed → the higher roll wins, ties
    go to the defender; QS = qs(difference), or the highest reachable QS if the winner rolled
    a Volltreffer and that is higher (a tie won by the defender without a Volltreffer has
    QS 0). Both fail → nobody wins (the defender holds).
    """
    if attacker.success and not defender.success:
        return OpposedResult(attacker, defender, "attacker", attacker.qs)
    if defender.success and not attacker.success:
        return OpposedResult(attacker, defender, "defender", defender.qs)
    if not attacker.success:
        return OpposedResult(attacker, defender, "none", 0)
    if attacker.roll > defender.roll:
        return OpposedResult(attacker, defender, "attacker", _winner_qs(attacker, defender.roll))
    return OpposedResult(attacker, defender, "defender", _winner_qs(defender, attacker.roll))


def roll_opposed(
    roller: Roller,
    attacker_value: int,
    defender_value: int,
    attacker_modifier: int = 0,
    defender_modifier: int = 0,
) -> OpposedResult:
    """Roll both sides (attacker first) and compare."""
    a = roll_probe(roller, attacker_value, attacker_modifier)
    d = roll_probe(roller, defender_value, defender_modifier)
    return evaluate_opposed(a, d)


@dataclass(frozen=True, slots=True)
class HelpResult:
    """Helfen: the helpers' Probes, the bonus (best helper QS) and who fumbled."""

    helpers: tuple[ProbeResult, ...]
    bonus: int
    #: Indexes of helpers whose Probe was a Patzer (a complication for the GM).
    complications: tuple[int, ...]


def evaluate_help(helpers: Sequence[ProbeResult]) -> HelpResult:
    """Only successful helpers count; the best helper QS is the bonus (§3)."""
    bonus = max((h.qs for h in helpers if h.success), default=0)
    fumbles = tuple(i for i, h in enumerate(helpers) if h.patzer)
    return HelpResult(tuple(helpers), bonus, fumbles)


@dataclass(frozen=True, slots=True)
class HelpedProbe:
    help: HelpResult
    main: ProbeResult

    @property
    def rolls(self) -> tuple[DieRoll, ...]:
        out: tuple[DieRoll, ...] = ()
        for h in self.help.helpers:
            out += h.rolls
        return out + self.main.rolls


def roll_with_help(
    roller: Roller, value: int, modifier: int, helper_values: Sequence[int]
) -> HelpedProbe:
    """Helpers roll first with the main Probe's modifier; their best QS raises the target."""
    helpers = [roll_probe(roller, v, modifier) for v in helper_values]
    help_ = evaluate_help(helpers)
    return HelpedProbe(help_, roll_probe(roller, value, modifier + help_.bonus))
