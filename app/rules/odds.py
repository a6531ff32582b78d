"""The exact outcome of one action for its target, shared by the rule systems' forecasts.

Each system's engine computes it by enumeration (``app.rules.<system>.forecast``); the
encounter adapters and the API show it as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
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
