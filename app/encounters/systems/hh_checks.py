"""H&H checks in a fight: the GM's check, Helfen, Sprünge and Stürze (issue 13).

Thin over the engine: :mod:`app.rules.hh.helping` (who may help, the helpers' Probes, the
bonus as a modifier part) and :mod:`app.rules.hh.athletics` (jump Probe, fall damage booked
like an attack's). Every target goes through ``modifiers.breakdown`` and the log line
shows it with the faces.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.encounters.combat import CombatError, Detail, Report, State, current_pid, detail
from app.encounters.systems.hh_figures import (
    describe_changes,
    get,
    options,
    put,
    with_breakdown,
)
from app.encounters.systems.play import Play
from app.i18n import N_
from app.rules import hh
from app.rules.dice import Roller
from app.rules.hh.athletics import SKILL, FigureFall, FigureJump, fall_figure, jump_figure
from app.rules.hh.damage import effective_rs
from app.rules.hh.helping import HELPERS_MAX, Helper, Helping, help_problems, roll_help, spend_help
from app.rules.hh.modifiers import Breakdown, Part, breakdown
from app.rules.hh.movement import Direction
from app.rules.hh.state import Figure

DIRECTIONS: tuple[Direction, ...] = ("horizontal", "vertical")
#: A jump's first words (the direction), the log's English msgids.
JUMP_HEADS: dict[Direction, str] = {
    "horizontal": N_("Sprung %(distance)d Schritt far"),
    "vertical": N_("Sprung %(distance)d Schritt high"),
}


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
    entry = report.add(headline, [jump_detail(out)], name=fig.name, distance=distance)
    entry.dice = [d.as_dict() for d in out.rolls]


def fall(state: State, pid: str, height: int, modifier: int, play: Play) -> tuple[Figure, Figure]:
    """The GM has a figure fall (hh.md §12); the damage is booked like an attack's.

    Returns the figure before and after (the caller checks an interrupted focus)."""
    fig = get(state, pid)
    own = current_pid(state) == pid
    try:
        out = fall_figure(
            play.roller, fig, height, options(play.settings), in_own_step=own,
            situational=(Part("SL", modifier),),
        )  # fmt: skip
    except ValueError as exc:
        raise CombatError(N_("Not possible: %(reason)s"), reason=str(exc)) from None
    put(state, out.outcome.figure, play.report)
    play.report.involved.add(pid)
    lost = fig.lp - out.outcome.figure.lp
    headline = (
        N_("%(name)s falls %(height)d Schritt and takes %(damage)d damage.")
        if lost
        else N_("%(name)s falls %(height)d Schritt unharmed.")
    )
    details = [*fall_details(out, fig.rs), *describe_changes(state, out.outcome.changes)]
    entry = play.report.add(headline, details, name=fig.name, height=height, damage=lost)
    entry.dice = [d.as_dict() for d in out.rolls]
    return fig, out.outcome.figure


def _probe_shown(target: Breakdown) -> str:
    """The Probe's target in rule notation: the breakdown, or the skill alone."""
    return f"{target.describe()}; " if target.parts else f"{SKILL}: "


def jump_detail(out: FigureJump) -> Detail:
    """The jump's detail line, written in the reader's language by the log's view."""
    r = out.result
    head = detail(JUMP_HEADS[r.direction], distance=r.distance)
    if r.free:
        msg = N_("%(head)s: no Probe (up to half the Bewegung, %(reach)d Schritt)")
        return detail(msg, head=head, reach=r.reach)
    assert r.probe is not None
    probe = f"{_probe_shown(out.target)}{r.probe.describe()}"
    msg = (
        N_("%(head)s: %(probe)s → %(reach)d Schritt, made it")
        if r.made_it
        else N_("%(head)s: %(probe)s → %(reach)d Schritt, too short")
    )
    return detail(msg, head=head, probe=probe, reach=r.reach)


def fall_details(out: FigureFall, rs: int) -> list[str | Detail]:
    """The fall's detail lines: the dice it does, the catching Probe, the damage."""
    r = out.result
    head = f"Sturz {r.height} Schritt"
    if r.caught:
        return [detail(N_("%(head)s: caught (less than half the Bewegung)"), head=head)]
    lines: list[str | Detail] = [
        detail(N_("%(head)s: %(dice)s brechend (1W10 per full 3 Schritt)"), head=head,
               dice=f"{r.dice}W10"),
    ]  # fmt: skip
    if r.probe is not None:
        probe = f"{_probe_shown(out.target)}{r.probe.describe()}"
        lines.append(
            detail(N_("Catching the Sturz: %(probe)s → −%(dice)s"), probe=probe,
                   dice=f"{r.dice_removed} W10")
        )  # fmt: skip
    if out.reaction_spent:
        lines.append(detail(N_("1 Reaktion spent on catching the Sturz")))
    if r.damage_roll is not None:
        armour = effective_rs(rs, "brechend")
        lines.append(f"{r.damage_roll.describe()} − RS {armour} je Würfel = {r.damage} Schaden")
    return lines
