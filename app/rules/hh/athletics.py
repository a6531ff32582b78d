"""Sprünge and Stürze of a figure in play (hh.md §12, seed 003 "Springen", "Sturz
abfangen"): the calculators of :mod:`app.rules.hh.movement` on a :class:`Figure`, with the
one modifier path (:func:`app.rules.hh.modifiers.breakdown`) and the fall's damage booked
like every other damage (:func:`app.rules.hh.life.apply_damage`: «angeschlagen»,
«sterbend», death).

The Probe is Geschick (Akrobatik) (a specialisation falls back to Geschick). The free
distance is half the figure's Bewegung (min. 1). A fall outside the figure's own
Initiativeschritt can be caught only with a Reaktion, which catching (freely or by the
Probe) spends; a figure that cannot act catches nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.rules.dice import DieRoll, Roller
from app.rules.hh.life import Outcome, apply_damage
from app.rules.hh.modifiers import Breakdown, Part, breakdown
from app.rules.hh.movement import Direction, FallResult, JumpResult, fall, jump
from app.rules.hh.options import DEFAULT_OPTIONS, RuleOptions
from app.rules.hh.state import Figure

SKILL = "Geschick (Akrobatik)"
#: The most Schritt a jump or fall the GM can enter (a tower is 30; the rest is a cliff).
DISTANCE_MAX = 200


@dataclass(frozen=True, slots=True)
class FigureJump:
    """A figure's jump: the Probe's target (with every modifier) and the engine's result
    (the log writes it in the reader's language: ``app.encounters.systems.hh_checks``)."""

    figure: Figure
    target: Breakdown
    result: JumpResult

    @property
    def rolls(self) -> tuple[DieRoll, ...]:
        return self.result.rolls


def jump_figure(
    roller: Roller,
    figure: Figure,
    distance: int,
    direction: Direction = "horizontal",
    situational: Sequence[Part] = (),
) -> FigureJump:
    """``figure`` jumps ``distance`` Schritt (``horizontal``: QS × 2, ``vertical``: QS)."""
    _check_distance(distance)
    target = breakdown(figure, SKILL, "action", situational)
    result = jump(
        roller, distance, figure.bewegung, target.value,
        direction=direction, modifier=target.modifier,
    )  # fmt: skip
    return FigureJump(figure, target, result)


@dataclass(frozen=True, slots=True)
class FigureFall:
    """A figure's fall: the catching Probe's target, the engine's result, the booked damage
    (``outcome``) and whether a Reaktion went into catching it."""

    target: Breakdown
    result: FallResult
    outcome: Outcome
    reaction_spent: bool

    @property
    def rolls(self) -> tuple[DieRoll, ...]:
        return self.result.rolls + self.outcome.all_rolls


def fall_figure(
    roller: Roller,
    figure: Figure,
    height: int,
    options: RuleOptions = DEFAULT_OPTIONS,
    *,
    in_own_step: bool,
    situational: Sequence[Part] = (),
) -> FigureFall:
    """``figure`` falls ``height`` Schritt; its damage is booked on the figure."""
    _check_distance(height)
    kind = "action" if in_own_step else "reaction"
    target = breakdown(figure, SKILL, kind, situational)
    own = in_own_step and figure.can_act
    reaction = not own and figure.can_react
    result = fall(
        roller, height, figure.bewegung, target.value, rs=figure.rs, modifier=target.modifier,
        in_own_step=own, reaction_available=reaction,
    )  # fmt: skip
    spent = reaction and (result.caught or result.probe is not None)
    if spent:
        figure = figure.evolve(reactions_left=figure.reactions_left - 1)
    outcome = apply_damage(roller, figure, result.damage, options, source=f"Sturz {height} Schritt")
    return FigureFall(target, result, outcome, spent)


def _check_distance(distance: int) -> None:
    if not 0 <= distance <= DISTANCE_MAX:
        raise ValueError(f"between 0 and {DISTANCE_MAX} Schritt")
