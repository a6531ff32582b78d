"""The exact outcome of one action for its target, shared by the rule systems' forecasts.

Each system's engine computes it by enumeration (``app.rules.<system>.forecast``); the
encounter adapters and the API show it as it is.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True, slots=True)
class ActionForecast:
    """The distribution of one action's outcome for the target.

    ``damage`` maps the points the target loses (LP, LK or TP) to their probability (the
    values sum to 1); ``p_down`` is the chance the target ends out of the fight (dying,
    unconscious or out) and ``p_dead`` the chance it dies at once. ``defends`` says whether
    the forecast assumes the target answers with a defence.
    """

    defends: bool
    p_hit: Fraction
    p_crit: Fraction
    p_fumble: Fraction
    damage: Mapping[int, Fraction]
    p_down: Fraction
    p_dead: Fraction

    @property
    def expected_damage(self) -> Fraction:
        return sum((v * p for v, p in self.damage.items()), Fraction(0))


def distribution(counts: Mapping[int, int], total: int) -> dict[int, Fraction]:
    """Integer counts out of ``total`` as exact probabilities, sorted by value."""
    return {v: Fraction(c, total) for v, c in sorted(counts.items()) if c}


@dataclass(frozen=True, slots=True)
class Estimate:
    """A proportion over the trials with its standard error."""

    value: float
    stderr: float


def proportion(hits: int, n: int) -> Estimate:
    p = hits / n
    return Estimate(p, math.sqrt(p * (1 - p) / n))


def mean_estimate(values: Sequence[float]) -> Estimate:
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    return Estimate(mean, math.sqrt(var / n))


@dataclass(frozen=True, slots=True)
class FigureRisk:
    p_down: Estimate
    p_dead: Estimate
    expected_damage: Estimate


@dataclass(frozen=True, slots=True)
class RiskResult:
    """What ``trials`` fights showed; ``party`` is the side whose risk is asked."""

    trials: int
    p_any_down: Estimate
    p_any_dead: Estimate
    p_wipe: Estimate
    rounds_mean: Estimate
    rounds_p90: int
    figures: Mapping[str, FigureRisk]
