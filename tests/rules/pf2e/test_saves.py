"""Saves and the einfacher Rettungswurf."""

from __future__ import annotations

import pytest

from app.rules.dice import ScriptedRoller
from app.rules.pf2e import (
    Degree,
    DegreeAdjustment,
    basic_save_damage,
    save_against,
    saving_throw,
)

REFLEX = saving_throw("reflex", level=1, rank="trained", attribute_modifier=1)  # +4


@pytest.mark.parametrize(
    ("damage", "degree", "taken"),
    [
        (17, Degree.CRITICAL_SUCCESS, 0),
        (17, Degree.SUCCESS, 8),  # half, rounded down
        (17, Degree.FAILURE, 17),
        (17, Degree.CRITICAL_FAILURE, 34),
        (1, Degree.SUCCESS, 0),
        (0, Degree.CRITICAL_FAILURE, 0),
    ],
)
def test_basic_save_damage(damage: int, degree: Degree, taken: int) -> None:
    assert basic_save_damage(damage, degree) == taken


@pytest.mark.parametrize("damage", [-1, True, 2.5])
def test_basic_save_damage_refuses(damage: object) -> None:
    with pytest.raises(ValueError):
        basic_save_damage(damage, Degree.FAILURE)  # type: ignore[arg-type]


def test_basic_save_accepts_plain_ints_as_degrees() -> None:
    assert basic_save_damage(10, 2) == 5  # type: ignore[arg-type]


def test_save_against_spell_dc_basic() -> None:
    # 12 + 4 = 16 vs Zauber-SG 16: success → half of 21
    result = save_against(ScriptedRoller([12]), REFLEX, 16, damage=21, dc_label="Zauber-SG")
    assert result.degree is Degree.SUCCESS
    assert result.damage_taken == 10
    assert result.dice[0].faces == (12,)
    assert result.describe() == (
        "Reflex: 1W20: 12 +4 = 16 gegen Zauber-SG 16 – Erfolg; Schaden 21 → 10"
    )


def test_save_natural_1_doubles() -> None:
    result = save_against(ScriptedRoller([1]), REFLEX, 10, damage=8)
    # 1 + 4 = 5 vs 10: failure, natural 1 → critical failure
    assert result.degree is Degree.CRITICAL_FAILURE and result.damage_taken == 16


def test_save_without_damage_and_with_evasion() -> None:
    evasion = DegreeAdjustment("Entrinnen", Degree.SUCCESS, Degree.CRITICAL_SUCCESS)
    result = save_against(ScriptedRoller([14]), REFLEX, 18, damage=30, adjustments=[evasion])
    assert result.check.adjusted is not None
    assert result.check.adjusted.rolled is Degree.SUCCESS
    assert result.degree is Degree.CRITICAL_SUCCESS and result.damage_taken == 0
    plain = save_against(ScriptedRoller([14]), REFLEX, 18)
    assert plain.damage is None and plain.damage_taken is None
    assert plain.describe().endswith("Erfolg")


def test_save_refuses_bad_damage_before_rolling() -> None:
    roller = ScriptedRoller([10])
    with pytest.raises(ValueError):
        save_against(roller, REFLEX, 15, damage=-3)
    assert roller.remaining == 1
