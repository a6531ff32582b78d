"""Exact odds of one PF2e Strike before anyone rolls (pf2e.md §3), by enumeration.

:func:`forecast_strike` rolls the engine's own :func:`attack_roll` once per W20 face (both
faces under fortune or misfortune), so MAP, range, modifiers, the natural 20/1 step and
degree adjustments are the engine's. The damage of a hit is the expression's exact
distribution (:func:`app.rules.expression.outcome_counts`) through
:func:`damage_total` (bonuses, at least 1, doubled on a critical hit).

A target "down" is at 0 TP or less. Creatures without dying rules (the bestiary's) are dead
then; player characters are dying, not dead: one Strike kills them only through rules the
forecast does not follow (doomed, massive damage).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from fractions import Fraction
from itertools import product
from typing import Unpack

from app.rules.dice import Roller, ScriptedRoller
from app.rules.expression import Expression, outcome_counts, parse
from app.rules.odds import ActionForecast, distribution
from app.rules.pf2e.attacks import AttackOptions, attack_roll, damage_total
from app.rules.pf2e.checks import CheckResult
from app.rules.pf2e.degrees import Degree
from app.rules.pf2e.modifiers import Modifier
from app.rules.pf2e.statistics import Statistic

D20 = 20
ZERO = Fraction(0)


def _degree_counts(roll: Callable[[Roller], CheckResult], dice: int) -> Counter[Degree]:
    """The degree of ``roll`` over every face of its ``dice`` W20, with counts."""
    counts: Counter[Degree] = Counter()
    for faces in product(range(1, D20 + 1), repeat=dice):
        degree = roll(ScriptedRoller(faces)).degree
        assert degree is not None  # an attack roll always has a DC (the RK)
        counts[degree] += 1
    return counts


def forecast_strike(
    attack: Statistic,
    target_ac: int,
    damage: str | Expression,
    *,
    target_hp: int,
    target_dies_at_zero: bool,
    damage_bonuses: Iterable[Modifier] = (),
    **attack_options: Unpack[AttackOptions],
) -> ActionForecast:
    """The exact outcome distribution of :func:`app.rules.pf2e.attacks.strike`; the other
    keywords are :func:`app.rules.pf2e.attacks.attack_roll`'s."""
    expression = damage if isinstance(damage, Expression) else parse(damage)
    # Rolled once per face: one-shot iterables are read into tuples first.
    options: AttackOptions = {
        **attack_options,
        "extra": tuple(attack_options.get("extra", ())),
        "adjustments": tuple(attack_options.get("adjustments", ())),
    }

    def roll(roller: Roller) -> CheckResult:
        return attack_roll(roller, attack, target_ac, **options)

    fortune, misfortune = options.get("fortune", False), options.get("misfortune", False)
    degrees = _degree_counts(roll, 2 if fortune != misfortune else 1)
    attack_total = sum(degrees.values())
    rolled, combinations = outcome_counts(expression)
    bonuses = tuple(b for b in damage_bonuses if b.value)
    lost: Counter[int] = Counter()
    lost[0] += (degrees[Degree.FAILURE] + degrees[Degree.CRITICAL_FAILURE]) * combinations
    for degree in (Degree.SUCCESS, Degree.CRITICAL_SUCCESS):
        critical = degree is Degree.CRITICAL_SUCCESS
        for total, count in rolled.items():
            lost[damage_total(total, bonuses, critical)] += degrees[degree] * count
    dist = distribution(lost, attack_total * combinations)
    p_down = sum((p for d, p in dist.items() if target_hp - d <= 0), ZERO)
    return ActionForecast(
        defends=False,
        p_hit=Fraction(degrees[Degree.SUCCESS] + degrees[Degree.CRITICAL_SUCCESS], attack_total),
        p_crit=Fraction(degrees[Degree.CRITICAL_SUCCESS], attack_total),
        p_fumble=Fraction(degrees[Degree.CRITICAL_FAILURE], attack_total),
        damage=dist,
        p_down=p_down,
        p_dead=p_down if target_dies_at_zero else ZERO,
    )
