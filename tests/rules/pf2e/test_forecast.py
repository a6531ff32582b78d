"""The PF2e Strike forecast equals the real engine's ``strike`` over every dice sequence."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from app.rules.expression import outcome_counts, parse
from app.rules.pf2e import Delivery, Modifier, Statistic, strength_damage_modifier, strike
from app.rules.pf2e.forecast import forecast_strike
from tests.rules.forecast_reference import every_outcome

FIGHTER = Statistic("Langschwert", (Modifier("Angriff", "untyped", 9),))
STRENGTH = strength_damage_modifier(4, Delivery.MELEE)
assert STRENGTH is not None


def _reference(hp: int, damage: str, **kw: Any) -> dict[str, Fraction]:
    out = dict.fromkeys(("hit", "crit", "fumble", "down", "mean"), Fraction(0))
    for result, p in every_outcome(lambda r: strike(r, FIGHTER, 18, damage, **kw)):
        out["hit"] += p if result.hit else 0
        out["crit"] += p if result.critical else 0
        out["fumble"] += p if result.degree.name == "CRITICAL_FAILURE" else 0
        out["down"] += p if hp - result.damage_total <= 0 else 0
        out["mean"] += p * result.damage_total
    return out


CASES = [
    pytest.param({}, "1W8+4", id="first-strike"),
    pytest.param({"attack_number": 2}, "1W8+4", id="map-2nd"),
    pytest.param({"attack_number": 3, "agile": True}, "1W6", id="map-3rd-agile"),
    pytest.param({"attack_number": 2, "own_turn": False}, "2W6", id="off-turn-no-map"),
    pytest.param({"damage_bonuses": (STRENGTH,)}, "1W8", id="strength"),
    pytest.param({"fortune": True}, "1W4-3", id="fortune-minimum-one"),
    pytest.param(
        {"distance_m": 50, "range_increment_m": 18, "misfortune": True}, "1W8", id="range"
    ),
]


@pytest.mark.parametrize(("kw", "damage"), CASES)
def test_forecast_equals_the_engine_over_every_dice_sequence(kw: Any, damage: str) -> None:
    got = forecast_strike(FIGHTER, 18, damage, target_hp=9, target_dies_at_zero=True, **kw)
    ref = _reference(9, damage, **kw)
    assert sum(got.damage.values()) == 1
    assert (got.p_hit, got.p_crit, got.p_fumble) == (ref["hit"], ref["crit"], ref["fumble"])
    assert got.p_down == got.p_dead == ref["down"]
    assert got.expected_damage == ref["mean"]


def test_a_player_character_at_zero_is_dying_not_dead() -> None:
    got = forecast_strike(FIGHTER, 10, "2W6", target_hp=3, target_dies_at_zero=False)
    assert got.p_down > 0 and got.p_dead == 0


def test_outcome_counts_of_kept_dice() -> None:
    counts, combinations = outcome_counts(parse("4W6kh3"))
    assert combinations == 6**4 and sum(counts.values()) == combinations
    assert counts[18] == 21 and counts[3] == 1  # the classic 4d6-drop-lowest table
    counts, combinations = outcome_counts(parse("2W6-1W4+2"))
    assert min(counts) == 2 + 2 - 4 and max(counts) == 12 + 2 - 1
    assert sum(counts.values()) == combinations == 36 * 4
