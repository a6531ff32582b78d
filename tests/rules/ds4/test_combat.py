"""Attacks with automatic Abwehr, damage, Patzer effects, modifiers, LK thresholds."""

from __future__ import annotations

import pytest

from app.rules.dice import ScriptedRoller
from app.rules.ds4 import (
    WAFFENLOS,
    AttackKind,
    AttackModifiers,
    CombatCheck,
    Condition,
    Fighter,
    PatzerEffect,
    Position,
    attack,
    attack_modifiers,
    condition,
    damage_after_abwehr,
    distance_modifier,
    evaluate_check,
    patzer_effect,
    verschnaufen,
    weapon,
)

GRUFFNECK = Fighter("gruffneck", lebenskraft=20, koerper=8, abwehr=12, schlagen=12, schiessen=8)
ORK = Fighter("ork", lebenskraft=12, koerper=5, abwehr=15, schlagen=10)
MAGE = Fighter("mage", lebenskraft=10, koerper=3, abwehr=4, zielzauber=14)


# --- the seed example ----------------------------------------------------------------------


def test_gruffneck_vs_ork_damage_function() -> None:
    assert damage_after_abwehr(9, evaluate_check(15, [4])) == 5


def test_gruffneck_vs_ork_full_attack() -> None:
    roller = ScriptedRoller([9, 4])
    out = attack(roller, GRUFFNECK, ORK, weapon("axt"), AttackKind.SCHLAGEN)
    assert roller.remaining == 0
    assert out.hit and out.damage_rolled == 9
    assert out.abwehr is not None and out.abwehr.pw == 15 and out.abwehr.result == 4
    assert out.damage == 5 and out.lk_change == -5
    assert out.target.lebenskraft == 7
    assert out.attacker == GRUFFNECK
    assert [r.roll.faces for r in out.rolls] == [(9,), (4,)]
    assert not (out.weapon_dropped or out.weapon_broken or out.spell_dropped)
    assert not (out.target_fell_prone or out.target_unconscious or out.target_dead)


# --- damage --------------------------------------------------------------------------------


def test_damage_never_below_zero() -> None:
    assert damage_after_abwehr(3, evaluate_check(15, [10])) == 0


def test_failed_abwehr_takes_full_damage() -> None:
    assert damage_after_abwehr(9, evaluate_check(15, [16])) == 9
    assert damage_after_abwehr(9, None) == 9


def test_abwehr_immersieg_reduces_by_full_pw() -> None:
    assert damage_after_abwehr(17, evaluate_check(15, [1])) == 2


def test_attack_immersieg_cannot_be_reduced() -> None:
    """ds4.md §2: an Immersieg of the attack rolls no Abwehr; its result (the PW) is damage."""
    roller = ScriptedRoller([1])
    out = attack(roller, GRUFFNECK, ORK, weapon("axt"), AttackKind.SCHLAGEN)
    assert roller.remaining == 0  # no Abwehr die was rolled
    assert out.hit and out.unblockable and out.abwehr is None
    assert out.damage_rolled == 12 and out.damage == 12
    assert out.target.lebenskraft == 0
    assert [r.roll.faces for r in out.rolls] == [(1,)]


def test_attack_without_immersieg_is_not_unblockable() -> None:
    out = attack(ScriptedRoller([9, 4]), GRUFFNECK, ORK, weapon("axt"), AttackKind.SCHLAGEN)
    assert not out.unblockable


def test_damage_from_attack_check() -> None:
    assert damage_after_abwehr(evaluate_check(12, [9]), None) == 9
    assert damage_after_abwehr(evaluate_check(12, [13]), None) == 0
    assert damage_after_abwehr(evaluate_check(12, [1]), evaluate_check(4, [3])) == 9


# --- weapon GA, prone, no defence ------------------------------------------------------------


def test_weapon_ga_lowers_the_abwehr_pw() -> None:
    out = attack(ScriptedRoller([10, 12]), GRUFFNECK, ORK, weapon("bihaender"), AttackKind.SCHLAGEN)
    assert out.abwehr is not None
    assert out.abwehr.pw == 11 and out.abwehr.breakdown[1] == ("ga:bihaender", -4)
    assert not out.abwehr.success  # 12 > 11
    assert out.damage == 10 and out.target.lebenskraft == 2


def test_unarmed_gives_ga_plus_five() -> None:
    out = attack(ScriptedRoller([10, 18]), GRUFFNECK, ORK, None, AttackKind.SCHLAGEN)
    assert out.abwehr is not None and out.abwehr.pw == 20
    assert out.damage == 0


def test_zielzauber_ignores_weapon_ga() -> None:
    out = attack(ScriptedRoller([12, 3]), MAGE, ORK, weapon("kampfstab"), AttackKind.ZIELZAUBER)
    assert out.abwehr is not None and out.abwehr.pw == 15
    assert out.damage == 9


def test_prone_attacker_and_prone_target_get_minus_two() -> None:
    prone_gruff = Fighter("g", 20, 8, 12, schlagen=12, prone=True)
    prone_ork = Fighter("o", 12, 5, 15, prone=True)
    out = attack(
        ScriptedRoller([10, 13]), prone_gruff, prone_ork, weapon("axt"), AttackKind.SCHLAGEN
    )
    assert out.attack.pw == 10 and ("prone", -2) in out.attack.breakdown
    assert out.abwehr is not None and out.abwehr.pw == 13 and ("prone", -2) in out.abwehr.breakdown
    assert out.damage == 0 and out.target.prone


def test_target_that_cannot_defend_rolls_no_abwehr() -> None:
    helpless = Fighter("o", 3, 5, 15, can_defend=False)
    roller = ScriptedRoller([9])
    out = attack(roller, GRUFFNECK, helpless, weapon("axt"), AttackKind.SCHLAGEN)
    assert roller.remaining == 0
    assert out.abwehr is None and out.damage == 9
    assert out.target.lebenskraft == -6
    assert out.target_dead and out.target.condition is Condition.DEAD


def test_miss_rolls_no_abwehr_and_changes_nothing() -> None:
    roller = ScriptedRoller([15])
    out = attack(roller, GRUFFNECK, ORK, weapon("axt"), AttackKind.SCHLAGEN)
    assert roller.remaining == 0
    assert not out.hit and out.abwehr is None and out.damage == 0
    assert out.target == ORK and out.attacker_patzer is None


# --- thresholds ----------------------------------------------------------------------------


def test_koerper_8_thresholds() -> None:
    assert condition(1, 8) is Condition.OK
    assert condition(0, 8) is Condition.UNCONSCIOUS
    assert condition(-8, 8) is Condition.UNCONSCIOUS
    assert condition(-9, 8) is Condition.DEAD


def test_attack_knocks_out_and_then_kills() -> None:
    target = Fighter("t", lebenskraft=5, koerper=8, abwehr=2)
    out = attack(ScriptedRoller([12, 19]), GRUFFNECK, target, weapon("axt"), AttackKind.SCHLAGEN)
    assert out.target.lebenskraft == -7 and out.target_unconscious and not out.target_dead
    assert not out.target.can_defend
    again = attack(ScriptedRoller([2]), GRUFFNECK, out.target, weapon("axt"), AttackKind.SCHLAGEN)
    assert again.abwehr is None
    assert again.target.lebenskraft == -9 and again.target_dead


def test_verschnaufen_regains_half_the_lost_lk_rounded_down() -> None:
    assert verschnaufen(5, 20) == 12  # lost 15 → +7
    assert verschnaufen(-3, 20) == 8  # lost 23 → +11
    assert verschnaufen(20, 20) == 20
    assert verschnaufen(19, 20) == 19  # lost 1 → +0


# --- Patzer effects ------------------------------------------------------------------------


def test_patzer_effect_table() -> None:
    assert patzer_effect(CombatCheck.ABWEHR) is PatzerEffect.PRONE
    assert patzer_effect(CombatCheck.SCHLAGEN, weapon("langschwert")) is PatzerEffect.WEAPON_DROPPED
    assert patzer_effect(CombatCheck.SCHLAGEN, weapon("keule")) is PatzerEffect.WEAPON_BROKEN
    assert patzer_effect(CombatCheck.SCHIESSEN, weapon("kurzbogen")) is PatzerEffect.WEAPON_BROKEN
    assert (
        patzer_effect(CombatCheck.SCHIESSEN, weapon("armbrust_leicht"))
        is PatzerEffect.WEAPON_DROPPED
    )
    assert patzer_effect(CombatCheck.SCHLAGEN, None) is None
    assert patzer_effect(CombatCheck.SCHLAGEN, WAFFENLOS) is None
    assert patzer_effect(CombatCheck.ZAUBERN) is PatzerEffect.SPELL_DROPPED
    assert patzer_effect(CombatCheck.ZIELZAUBER) is PatzerEffect.SPELL_DROPPED


def test_attack_patzer_drops_the_weapon() -> None:
    out = attack(ScriptedRoller([20]), GRUFFNECK, ORK, weapon("langschwert"), AttackKind.SCHLAGEN)
    assert out.attack.patzer and out.weapon_dropped and not out.weapon_broken
    assert out.damage == 0 and out.target == ORK


def test_attack_patzer_breaks_a_wooden_weapon() -> None:
    out = attack(ScriptedRoller([20]), GRUFFNECK, ORK, weapon("kurzbogen"), AttackKind.SCHIESSEN)
    assert out.weapon_broken and not out.weapon_dropped


def test_zielzauber_patzer_drops_the_spell() -> None:
    out = attack(ScriptedRoller([20]), MAGE, ORK, weapon("kampfstab"), AttackKind.ZIELZAUBER)
    assert out.spell_dropped and not out.weapon_broken


def test_abwehr_patzer_makes_the_target_prone() -> None:
    out = attack(ScriptedRoller([9, 20]), GRUFFNECK, ORK, weapon("axt"), AttackKind.SCHLAGEN)
    assert out.target_fell_prone and out.target.prone
    assert out.damage == 9 and out.target.lebenskraft == 3


def test_custom_patzer_range_applies_to_both_rolls() -> None:
    out = attack(
        ScriptedRoller([9, 19]), GRUFFNECK, ORK, weapon("axt"), AttackKind.SCHLAGEN, patzer_min=19
    )
    assert out.target_fell_prone and out.damage == 9


# --- modifiers -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("metres", "mod"), [(0, 0), (9.9, 0), (10, -1), (19.5, -1), (20, -2), (45, -4)]
)
def test_distance_modifier_per_full_ten_metres(metres: float, mod: int) -> None:
    assert distance_modifier(metres) == mod


def test_negative_distance_is_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        distance_modifier(-1)


def test_position_modifiers() -> None:
    for pos, mod in ((Position.SIDE, 1), (Position.ABOVE, 1), (Position.BEHIND, 2)):
        assert attack_modifiers(AttackKind.SCHLAGEN, AttackModifiers(position=pos)) == [
            (f"position:{pos.value}", mod)
        ]
    assert attack_modifiers(AttackKind.SCHLAGEN, AttackModifiers()) == []


def test_distance_and_adjacent_count_only_for_ranged_and_zielzauber() -> None:
    mods = AttackModifiers(distance_m=25, adjacent=True, extra=(("gm", 1),))
    assert attack_modifiers(AttackKind.SCHLAGEN, mods) == [("gm", 1)]
    expected = [("distance", -2), ("adjacent", -2), ("gm", 1)]
    assert attack_modifiers(AttackKind.SCHIESSEN, mods) == expected
    assert attack_modifiers(AttackKind.ZIELZAUBER, mods) == expected


def test_attack_applies_modifiers_to_both_checks() -> None:
    mods = AttackModifiers(
        distance_m=30, position=Position.BEHIND, abwehr_extra=(("cover", 2), ("none", 0))
    )
    out = attack(
        ScriptedRoller([7, 5]), GRUFFNECK, ORK, weapon("kurzbogen"), AttackKind.SCHIESSEN, mods
    )
    assert out.attack.pw == 8 - 3 + 2
    assert out.abwehr is not None and out.abwehr.pw == 17
    assert out.abwehr.breakdown == (("base", 15), ("cover", 2))
    assert out.damage == 2
