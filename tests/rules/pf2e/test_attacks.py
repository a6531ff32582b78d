"""Multiple attack penalty, range penalty, attack rolls and Strikes."""

from __future__ import annotations

import pytest

from app.rules.dice import ScriptedRoller
from app.rules.expression import parse
from app.rules.pf2e import (
    Degree,
    DegreeAdjustment,
    Delivery,
    Modifier,
    OutOfRange,
    Pf2eError,
    Statistic,
    attack_modifiers,
    attack_roll,
    delivery_of,
    map_modifier,
    multiple_attack_penalty,
    range_increment,
    range_modifier,
    range_penalty,
    roll_damage,
    strength_damage,
    strength_damage_modifier,
    strike,
)

FIGHTER = Statistic(
    "Nahkampfangriff (Langschwert)",
    (Modifier("Stärke", "attribute", 4), Modifier("Kompetenzbonus (Geübt)", "proficiency", 3)),
)


def test_seed_longsword_and_shortsword_example() -> None:
    # Langschwert (not agile) and Kurzschwert (Agil): three Strikes in one turn. The weapon
    # of each attack decides, whatever was used before.
    longsword, shortsword = False, True
    assert multiple_attack_penalty(1, longsword) == 0
    assert multiple_attack_penalty(1, shortsword) == 0
    assert multiple_attack_penalty(2, longsword) == -5
    assert multiple_attack_penalty(2, shortsword) == -4
    assert multiple_attack_penalty(3, longsword) == -10
    assert multiple_attack_penalty(3, shortsword) == -8
    assert multiple_attack_penalty(7, longsword) == -10
    assert multiple_attack_penalty(7, shortsword) == -8


def test_map_never_off_turn() -> None:
    assert map_modifier(3, False, own_turn=False) is None
    assert map_modifier(1, False) is None
    assert map_modifier(2, True) == Modifier("Malus für mehrfache Angriffe", "untyped", -4)


@pytest.mark.parametrize("number", [0, -1, True, 1.0])
def test_map_refuses_bad_numbers(number: object) -> None:
    with pytest.raises(ValueError):
        multiple_attack_penalty(number, False)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("distance", "penalty"),
    [
        (0, 0),
        (1.5, 0),
        (36, 0),  # "nicht weiter weg ... als diese Entfernung": no penalty
        (36.01, -2),  # "weiter als 36 m, aber weniger als 72 m": -2
        (71.9, -2),
        (72, -2),
        (72.5, -4),  # "weiter weg als 72 m, aber weniger als 108 m": -4
        (108, -4),
        (144, -6),
        (180, -8),
        (180.5, -10),  # "jenseits von 180 m, aber nicht weiter entfernt als 216 m": -10
        (216, -10),
    ],
)
def test_seed_crossbow_36_m_increments(distance: float, penalty: int) -> None:
    assert range_penalty(distance, 36) == penalty


def test_crossbow_beyond_216_m_is_out_of_range() -> None:
    with pytest.raises(OutOfRange) as info:
        range_penalty(216.5, 36)
    assert isinstance(info.value, Pf2eError)
    assert info.value.message.startswith("Ziel außer Reichweite")
    assert info.value.params == {"distance": "216,5", "increment": "36", "max": "216"}
    assert "216,5 m" in str(info.value)


def test_range_in_squares_is_exact_despite_floats() -> None:
    # 0.1 + 0.2 style noise must not push a target into the next increment
    assert range_increment(0.1 + 0.2, 0.3) == 1
    assert range_increment(3 * 1.5, 1.5 * 3) == 1
    assert range_increment(18.000000001, 18) == 1
    assert range_modifier(18, 18) is None
    assert range_modifier(19.5, 18) == Modifier("Malus für Entfernung", "untyped", -2)


@pytest.mark.parametrize(
    ("distance", "increment"),
    [(-1, 36), (10, 0), (10, -5), (float("nan"), 36), (float("inf"), 36), (True, 36), (10, "36")],
)
def test_range_refuses_nonsense(distance: object, increment: object) -> None:
    with pytest.raises(ValueError):
        range_penalty(distance, increment)  # type: ignore[arg-type]


def test_map_and_range_stack() -> None:
    # 2nd attack in increment 2 → -5 + -2 = -7
    mods = attack_modifiers(attack_number=2, distance_m=50, range_increment_m=36)
    assert sum(m.value for m in mods) == -7
    with pytest.raises(ValueError):
        attack_modifiers(distance_m=50)


def test_attack_roll_uses_map_and_range_and_rk_label() -> None:
    result = attack_roll(
        ScriptedRoller([12]),
        FIGHTER,
        18,
        attack_number=2,
        distance_m=40,
        range_increment_m=36,
    )
    assert result.modifier == 7 - 5 - 2
    assert result.total == 12
    assert result.dc_label == "RK"
    assert result.degree is Degree.FAILURE
    assert [m.source for m in result.breakdown.applied][-2:] == [
        "Malus für mehrfache Angriffe",
        "Malus für Entfernung",
    ]


def test_strike_hit_rolls_damage_once() -> None:
    roller = ScriptedRoller([11, 6])  # d20 11 + 7 = 18 vs RK 18: hit; 1W8 → 6
    result = strike(roller, FIGHTER, 18, "1W8+4")
    assert result.degree is Degree.SUCCESS and result.hit and not result.critical
    assert result.damage is not None and not result.damage.critical
    assert result.damage_total == 10
    assert [d.faces for d in result.dice] == [(11,), (6,)]
    assert roller.remaining == 0
    assert result.describe() == (
        "Nahkampfangriff (Langschwert): 1W20: 11 +7 = 18 gegen RK 18 – Treffer; Schaden 1W8+4: 10"
    )


def test_strike_critical_doubles_damage() -> None:
    roller = ScriptedRoller([20, 5])  # natural 20 on a hit → critical
    result = strike(roller, FIGHTER, 25, "1W8+4")
    assert result.critical
    assert result.damage_total == 2 * (5 + 4)
    assert "× 2 (Kritischer Treffer) = 18" in result.describe()
    assert "Kritischer Treffer" in result.describe()


def test_strike_miss_rolls_no_damage() -> None:
    roller = ScriptedRoller([2])
    result = strike(roller, FIGHTER, 18, "1W8+4")
    assert not result.hit and result.damage is None and result.damage_total == 0
    assert roller.remaining == 0
    assert result.describe().endswith("Fehlschlag")


def test_strike_out_of_range_rolls_nothing() -> None:
    roller = ScriptedRoller([20, 8])
    with pytest.raises(OutOfRange):
        strike(roller, FIGHTER, 10, "1W8", distance_m=300, range_increment_m=36)
    assert roller.remaining == 2


def test_strike_bad_damage_expression_rolls_nothing() -> None:
    roller = ScriptedRoller([20])
    with pytest.raises(ValueError):
        strike(roller, FIGHTER, 10, "1W8+zwei")
    assert roller.remaining == 1


def test_reaction_strike_has_no_map() -> None:
    result = strike(
        ScriptedRoller([10, 3]), FIGHTER, 17, parse("1W8+4"), attack_number=3, own_turn=False
    )
    assert result.attack.modifier == 7 and result.hit


def test_strike_with_adjustment_and_fortune() -> None:
    upgrade = DegreeAdjustment("Test", Degree.SUCCESS, Degree.CRITICAL_SUCCESS)
    roller = ScriptedRoller([3, 15, 4])  # fortune: keep 15; 15+7=22 vs 20 success → crit
    result = strike(roller, FIGHTER, 20, "1W6", fortune=True, adjustments=[upgrade])
    assert result.attack.natural == 15
    assert result.critical and result.damage_total == 8


def test_damage_minimum_one() -> None:
    weak = roll_damage(ScriptedRoller([1]), "1W4-3")
    assert weak.roll.total == -2 and weak.total == 1
    assert weak.describe() == "Schaden 1W4-3: -2, mindestens 1 → 1"
    crit = roll_damage(ScriptedRoller([1]), "1W4-3", critical=True)
    assert crit.total == 2  # pf2e.md §3: the minimum of 1 applies before doubling
    assert crit.describe() == "Schaden 1W4-3: -2, mindestens 1 → 1 × 2 (Kritischer Treffer) = 2"


@pytest.mark.parametrize(
    ("strength", "delivery", "added"),
    [
        (4, Delivery.MELEE, 4),
        (4, Delivery.THROWN, 4),
        (4, Delivery.RANGED, 0),
        (4, Delivery.PROPULSIVE, 2),
        (3, Delivery.PROPULSIVE, 1),
        (-1, Delivery.PROPULSIVE, -1),
        (-2, Delivery.MELEE, -2),
        (-2, Delivery.RANGED, 0),
    ],
)
def test_strength_damage_by_delivery(strength: int, delivery: Delivery, added: int) -> None:
    assert strength_damage(strength, delivery) == added


def test_langschwert_critical_with_strength_four_doubles_everything() -> None:
    """The reported case: Langschwert 1W8, Stärke 4, a critical hit on an 8 → 24, not 16."""
    bonus = strength_damage_modifier(4, Delivery.MELEE)
    assert bonus is not None
    roller = ScriptedRoller([20, 8])
    result = strike(roller, FIGHTER, 25, "1W8", damage_bonuses=[bonus])
    assert result.critical and result.damage_total == 24
    assert result.damage is not None
    assert result.damage.describe() == (
        "Schaden 1W8: 8 +4 (Stärke) = 12 × 2 (Kritischer Treffer) = 24"
    )


def test_strength_and_other_bonuses_add_before_the_minimum() -> None:
    bonuses = [Modifier("Stärke", "untyped", -1), Modifier("Waffenspezialisierung", "untyped", 2)]
    dmg = roll_damage(ScriptedRoller([1]), "1W4", bonuses=bonuses)
    assert dmg.total == 2
    assert strength_damage_modifier(0, Delivery.MELEE) is None
    assert strength_damage_modifier(5, Delivery.RANGED) is None


def test_first_increment_and_first_attack_add_nothing() -> None:
    assert attack_modifiers(distance_m=10, range_increment_m=36) == ()
    assert attack_modifiers() == ()


@pytest.mark.parametrize(
    ("traits", "ranged", "delivery"),
    [
        ((), False, Delivery.MELEE),
        (("Agil", "Finesse"), False, Delivery.MELEE),
        ((), True, Delivery.RANGED),
        (("Wurf 6 m",), False, Delivery.THROWN),
        (("thrown 10 ft",), True, Delivery.THROWN),
        (("Tödlich W10", "Propulsiv"), True, Delivery.PROPULSIVE),
    ],
)
def test_delivery_from_traits(traits: tuple[str, ...], ranged: bool, delivery: Delivery) -> None:
    assert delivery_of(traits, ranged=ranged) is delivery
