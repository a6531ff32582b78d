"""H&H checks in a fight: the GM's check, Helfen, Sprünge and Stürze (issue 13).

Thin over the engine: :mod:`app.rules.hh.helping` (who may help, the helpers' Probes, the
bonus as a modifier part) and :mod:`app.rules.hh.athletics` (jump Probe, fall damage booked
like an attack's). Every target goes through ``modifiers.breakdown`` and the log line
shows it with the faces.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.encounters.combat import CombatError, Report, State, current_pid
from app.encounters.systems.hh_figures import (
    describe_changes,
    get,
    options,
    put,
    with_breakdown,
)
from app.i18n import N_
from app.rules import hh
from app.rules.dice import Roller
from app.rules.hh.athletics import fall_figure, jump_figure
from app.rules.hh.helping import HELPERS_MAX, Helper, Helping, help_problems, roll_help, spend_help
from app.rules.hh.modifiers import Breakdown, Part, breakdown
from app.rules.hh.movement import Direction
from app.rules.hh.state import Figure

DIRECTIONS: tuple[Direction, ...] = ("horizontal", "vertical")


def helpers_of(state: State, helped: Figure, ids: Sequence[str], skill: str) -> list[Helper]:
    """The declared helpers of ``helped``'s Probe with ``skill``; refusals first."""
    unique = list(dict.fromkeys(i for i in ids if i))
    if len(unique) > HELPERS_MAX:
        raise CombatError(N_("At most %(n)d helpers."), n=HELPERS_MAX)
    out: list[Helper] = []
    for pid in unique:
        if pid not in state["figures"]:
            raise CombatError(N_("Choose another figure as helper."))
        helper = get(state, pid)
        problems = help_problems(helper, helped, in_fight=True)
        if problems:
            raise CombatError(
                N_("%(name)s cannot help: %(reason)s"), name=helper.name, reason="; ".join(problems)
            )
        out.append(Helper(helper, skill))
    return out


def roll_helpers(
    state: State,
    helpers: Sequence[Helper],
    kind: str,
    situational: Sequence[Part],
    roller: Roller,
    report: Report,
) -> Helping | None:
    """The helpers roll first (hh.md §3); each spends its Reaktion (project decision)."""
    if not helpers:
        return None
    helping = roll_help(roller, helpers, kind, situational)
    for h in helpers:
        put(state, spend_help(h.figure), report)
        report.involved.add(h.figure.id)
    return helping


def helped(target: Breakdown, helping: Helping | None) -> Breakdown:
    """The main Probe's target with the help bonus as its last part."""
    return target.plus(helping.part) if helping is not None else target


def check(
    state: State, pid: str, skill: str, modifier: int, roller: Roller, report: Report,
    helpers: Sequence[str] = (),
) -> None:  # fmt: skip
    """A GM's check: the same modifier path as every Probe (conditions, the GM's, Helfen)."""
    fig = get(state, pid)
    situational = (Part("SL", modifier),)
    helping = roll_helpers(
        state, helpers_of(state, fig, helpers, skill), "action", situational, roller, report
    )
    target = helped(breakdown(fig, skill, "action", situational), helping)
    probe = hh.roll_probe(roller, target.value, target.modifier)
    report.involved.add(pid)
    lines = helping.lines() if helping else []
    entry = report.add(
        N_("%(name)s: %(check)s – %(outcome)s."),
        [*lines, with_breakdown(target, probe)],
        name=fig.name,
        check=f"{skill}-Probe",
        outcome=probe.outcome,
    )
    entry.dice = [d.as_dict() for d in (*(helping.rolls if helping else ()), *probe.rolls)]


def jump(
    state: State, pid: str, distance: int, direction: str, modifier: int, roller: Roller,
    report: Report,
) -> None:  # fmt: skip
    """The GM has a figure jump (hh.md §12): free within half its Bewegung, else the Probe."""
    if direction not in DIRECTIONS:
        raise CombatError(N_("Choose a direction."))
    way: Direction = "vertical" if direction == "vertical" else "horizontal"
    fig = get(state, pid)
    try:
        out = jump_figure(roller, fig, distance, way, (Part("SL", modifier),))
    except ValueError as exc:
        raise CombatError(N_("Not possible: %(reason)s"), reason=str(exc)) from None
    report.involved.add(pid)
    headline = (
        N_("%(name)s jumps %(distance)d Schritt and makes it.")
        if out.result.made_it
        else N_("%(name)s jumps %(distance)d Schritt and falls short.")
    )
    entry = report.add(headline, [out.line()], name=fig.name, distance=distance)
    entry.dice = [d.as_dict() for d in out.rolls]


def fall(
    state: State, pid: str, height: int, modifier: int, roller: Roller, report: Report,
    settings: dict[str, Any],
) -> tuple[Figure, Figure]:  # fmt: skip
    """The GM has a figure fall (hh.md §12); the damage is booked like an attack's.

    Returns the figure before and after (the caller checks an interrupted focus)."""
    fig = get(state, pid)
    own = current_pid(state) == pid
    try:
        out = fall_figure(
            roller, fig, height, options(settings), in_own_step=own,
            situational=(Part("SL", modifier),),
        )  # fmt: skip
    except ValueError as exc:
        raise CombatError(N_("Not possible: %(reason)s"), reason=str(exc)) from None
    put(state, out.outcome.figure, report)
    report.involved.add(pid)
    lost = fig.lp - out.outcome.figure.lp
    headline = (
        N_("%(name)s falls %(height)d Schritt and takes %(damage)d damage.")
        if lost
        else N_("%(name)s falls %(height)d Schritt unharmed.")
    )
    details = [*out.lines(fig.rs), *describe_changes(state, out.outcome.changes)]
    entry = report.add(headline, details, name=fig.name, height=height, damage=lost)
    entry.dice = [d.as_dict() for d in out.rolls]
    return fig, out.outcome.figure
