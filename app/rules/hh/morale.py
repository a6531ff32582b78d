"""Moral (hh.md §6.9): Moralwurf on the triggers, failure → «entmutigt»; rallying."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.rules.dice import Roller
from app.rules.hh.life import Log, Outcome, _apply_condition, probe_modifier, remove_condition
from app.rules.hh.options import DEFAULT_OPTIONS, RuleOptions
from app.rules.hh.probe import ProbeResult, roll_probe
from app.rules.hh.state import Figure, Zustand

MORALE_TRIGGERS: dict[str, str] = {
    "hinterhalt": "Die Figur gerät in einen Hinterhalt.",
    "anfuehrer_faellt": "Der Anführer fällt oder flieht.",
    "angeschlagen": "Die Figur erleidet den Zustand «angeschlagen».",
    "verbuendeter_sterbend": "Ein Verbündeter geht mit «sterbend» zu Boden.",
}
MORALE_SKILLS = ("Unbeugsamkeit", "Willenskraft")


def morale_check(
    roller: Roller,
    figure: Figure,
    options: RuleOptions = DEFAULT_OPTIONS,
    *,
    skill: str = "Willenskraft",
    modifier: int = 0,
) -> Outcome:
    """Moralwurf on Unbeugsamkeit or Willenskraft; failure → «entmutigt» (with escalation).

    Project decision: it is neither action nor reaction, so conditions do not modify it.
    """
    if skill not in MORALE_SKILLS:
        raise ValueError(f"a Moralwurf uses {MORALE_SKILLS}, not {skill!r}")
    log = Log()
    probe = roll_probe(roller, figure.skill(skill), modifier)
    if not probe.success:
        figure = _apply_condition(
            roller, figure, Zustand("entmutigt"), options, log, "normal", set()
        )
    return log.outcome(figure, probe)


def rally_modifier(allies: int) -> int:
    """Interaktion is −1 per 2 allies (rounded down)."""
    return -(max(0, allies) // 2)


@dataclass(frozen=True, slots=True)
class RallyResult:
    probe: ProbeResult
    figures: tuple[Figure, ...]
    outcomes: tuple[Outcome, ...]


def rally(
    roller: Roller,
    leader: Figure,
    allies: Sequence[Figure],
    *,
    modifier: int = 0,
) -> RallyResult:
    """An action: the leader's Interaktion Probe, −1 per 2 allies; success removes
    «entmutigt» from every listed ally (project decision: one Probe for the whole group)."""
    total = modifier + rally_modifier(len(allies)) + probe_modifier(leader, "Interaktion", "action")
    probe = roll_probe(roller, leader.skill("Interaktion"), total)
    if not probe.success:
        return RallyResult(probe, tuple(allies), ())
    outs = tuple(remove_condition(f, "entmutigt", detail="Moral gehoben") for f in allies)
    return RallyResult(probe, tuple(o.figure for o in outs), outs)
