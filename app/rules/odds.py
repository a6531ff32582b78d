"""The exact outcome of one action for its target, shared by the rule systems' forecasts.

Each system's engine computes it by enumeration (``app.rules.<system>.forecast``); the
encounter adapters and the API show it as it is.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
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


#: (damage tail, expected damage): ``tail[d]`` is the chance of at least ``d`` damage.
DamageOdds = tuple[tuple[float, ...], float]


def damage_odds(damage: Mapping[int, Fraction]) -> DamageOdds:
    """A damage distribution as its tail and expected value, in floats (for the fight
    simulations' choices)."""
    top = max(damage)
    tail = [0.0] * (top + 2)
    for d in range(top, -1, -1):
        tail[d] = tail[d + 1] + float(damage.get(d, 0))
    return tuple(tail), sum(float(d * p) for d, p in damage.items())


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


@dataclass(frozen=True, slots=True)
class FightOutcome:
    """One simulated fight: rounds played, who went down or died, and the points each lost."""

    rounds: int
    down: frozenset[str]
    dead: frozenset[str]
    damage: Mapping[str, float]


#: A simulated fight still running after this many rounds is counted as ended there (the
#: same for every rule system, like :func:`run_trials`).
MAX_ROUNDS = 30


def run_trials(
    play: Callable[[], FightOutcome],
    ids: Sequence[str],
    party: Sequence[str],
    trials: int,
    should_stop: Callable[[], bool] = lambda: False,
) -> RiskResult:
    """Play up to ``trials`` fights and count them; the risks are those of ``party``.

    ``should_stop`` is asked after every fight (the caller's time budget): the result then
    counts the fights played so far (at least 2), and ``trials`` says how many. Shared by
    the rule systems' simulations, so every system's estimate means the same.
    """
    if trials < 2:
        raise ValueError("a risk estimate needs at least 2 trials")
    down = dict.fromkeys(ids, 0)
    dead = dict.fromkeys(ids, 0)
    damage: dict[str, list[float]] = {fid: [] for fid in ids}
    any_down = any_dead = wipes = 0
    rounds: list[float] = []
    while len(rounds) < trials and (len(rounds) < 2 or not should_stop()):
        out = play()
        rounds.append(out.rounds)
        for fid in ids:
            down[fid] += fid in out.down
            dead[fid] += fid in out.dead
            damage[fid].append(out.damage.get(fid, 0.0))
        any_down += any(p in out.down for p in party)
        any_dead += any(p in out.dead for p in party)
        wipes += bool(party) and all(p in out.down for p in party)
    n = len(rounds)
    ordered = sorted(rounds)
    return RiskResult(
        trials=n,
        p_any_down=proportion(any_down, n),
        p_any_dead=proportion(any_dead, n),
        p_wipe=proportion(wipes, n),
        rounds_mean=mean_estimate(rounds),
        rounds_p90=int(ordered[min(n - 1, math.ceil(0.9 * n) - 1)]),
        figures={
            fid: FigureRisk(
                proportion(down[fid], n), proportion(dead[fid], n), mean_estimate(damage[fid])
            )
            for fid in ids
        },
    )


#: The threat ratings of an encounter budget, from the least to the most dangerous.
THREATS = ("trivial", "low", "moderate", "severe", "extreme")


@dataclass(frozen=True, slots=True)
class BudgetRating:
    """A rule system's own difficulty guideline for an encounter (PF2e: the XP budget).

    ``xp`` is the encounter's total, ``rating`` one of :data:`THREATS`, ``budgets`` the
    XP each threat allows this party.
    """

    xp: int
    rating: str
    party_level: int
    party_size: int
    budgets: Mapping[str, int]
