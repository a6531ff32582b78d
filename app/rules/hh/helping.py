"""Helfen with figures (hh.md §3, seed 003 "Helfen"): who may help, the helpers' Probes
on the same modifier path as the main Probe, and the bonus as a modifier :class:`Part`.

Helpers declare before the main roll and roll first, each with their own Fertigkeit value
and conditions plus the main Probe's situational modifiers ("in der Regel derselbe
Modifikator wie für die Hauptprobe"). Only successes count; the best helper QS is the
bonus. A helper's Patzer is a complication the GM decides (no penalty otherwise).

Project decisions (docs/rules/hh.md, "Helfen in play"): in a fight helping costs the
helper one Reaktion (it acts outside its own Initiativeschritt, like every answer to
another figure's action); only figures of the helped figure's side help; a figure
that cannot act (dead, unconscious, «benommen»,
«sterbend») or has no Reaktion left cannot help; nobody helps themself; at most
:data:`HELPERS_MAX` helpers per Probe.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.rules.dice import DieRoll, Roller
from app.rules.hh.modifiers import Breakdown, Part, breakdown
from app.rules.hh.opposed import HelpResult, evaluate_help
from app.rules.hh.probe import roll_probe
from app.rules.hh.state import Figure

#: The most helpers one Probe takes (the texts let the GM limit them; this is the cap).
HELPERS_MAX = 4


def help_problems(helper: Figure, helped: Figure, *, in_fight: bool) -> list[str]:
    """Why ``helper`` cannot help ``helped`` now (empty: it may)."""
    problems: list[str] = []
    if helper.id == helped.id:
        problems.append("niemand hilft sich selbst")
    if helper.side != helped.side:
        problems.append(f"{helper.name} steht nicht auf derselben Seite")
    if not helper.can_act:
        problems.append(f"{helper.name} kann nicht handeln")
    elif in_fight and helper.reactions_left <= 0:
        problems.append(f"{helper.name} hat keine Reaktion mehr")
    return problems


@dataclass(frozen=True, slots=True)
class Helper:
    """One declared helper: its figure and the Fertigkeit it helps with."""

    figure: Figure
    skill: str


@dataclass(frozen=True, slots=True)
class Helping:
    """The helpers' Probes (in order), their targets and the bonus for the main Probe."""

    helpers: tuple[Helper, ...]
    targets: tuple[Breakdown, ...]
    result: HelpResult

    @property
    def bonus(self) -> int:
        return self.result.bonus

    @property
    def rolls(self) -> tuple[DieRoll, ...]:
        out: tuple[DieRoll, ...] = ()
        for probe in self.result.helpers:
            out += probe.rolls
        return out

    @property
    def part(self) -> Part:
        """``Helfen 2 (Brida QS 2)``: the bonus with every successful helper's QS."""
        named = [
            f"{h.figure.name} QS {p.qs}"
            for h, p in zip(self.helpers, self.result.helpers, strict=True)
            if p.success
        ]
        return Part("Helfen", self.bonus, ", ".join(named))

    def lines(self) -> list[str]:
        """One rule text per helper, then the complications of its Patzer."""
        out = []
        for h, target, probe in zip(self.helpers, self.targets, self.result.helpers, strict=True):
            shown = f"{target.describe()}; " if target.parts else ""
            out.append(f"Helfen: {h.figure.name} ({h.skill}): {shown}{probe.describe()}")
        for i in self.result.complications:
            out.append(f"Patzer beim Helfen ({self.helpers[i].figure.name}): Komplikation (SL)")
        return out


def roll_help(
    roller: Roller, helpers: Sequence[Helper], kind: str, situational: Sequence[Part] = ()
) -> Helping:
    """Each helper's Probe, in order, before the main Probe (which adds :attr:`Helping.part`).

    A helper's target takes the same path as every Probe (BE for attacks/defences, its own
    conditions) plus the main Probe's ``situational`` parts.
    """
    if len(helpers) > HELPERS_MAX:
        raise ValueError(f"at most {HELPERS_MAX} helpers")
    targets = tuple(breakdown(h.figure, h.skill, kind, situational) for h in helpers)
    probes = [roll_probe(roller, t.value, t.modifier) for t in targets]
    return Helping(tuple(helpers), targets, evaluate_help(probes))


def spend_help(helper: Figure) -> Figure:
    """The helper after helping in a fight: one Reaktion less."""
    if helper.reactions_left <= 0:
        raise ValueError(f"{helper.name} hat keine Reaktion mehr")
    return helper.evolve(reactions_left=helper.reactions_left - 1)
