"""Sprünge and Stürze (hh.md §12)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.dice import ScriptedRoller
from app.rules.hh.movement import fall, fall_dice, free_distance, jump, jump_reach
from app.rules.hh.probe import evaluate_probe


def test_free_distance_half_bewegung_min_one() -> None:
    assert free_distance(8) == 4
    assert free_distance(9) == 4
    assert free_distance(1) == 1
    assert free_distance(0) == 1


def test_jump_reach() -> None:
    assert jump_reach(3, "horizontal") == 6
    assert jump_reach(3, "vertical") == 3
    with pytest.raises(ValueError):
        jump_reach(1, "diagonal")  # type: ignore[arg-type]


def test_free_jump_needs_no_roll() -> None:
    result = jump(ScriptedRoller([]), 4, 8, 12)
    assert result.free and result.made_it and result.probe is None and result.rolls == ()


def test_jump_probe_qs_times_two_horizontal() -> None:
    # Akrobatik 13, roll 3 + 4 = 7 → QS 2 → 4 Schritt horizontal (free would be 2)
    result = jump(ScriptedRoller([3, 4]), 4, 4, 13)
    assert not result.free and result.reach == 4 and result.made_it
    assert result.rolls[0].faces == (3, 4)
    short = jump(ScriptedRoller([3, 4]), 5, 4, 13)
    assert short.reach == 4 and not short.made_it


def test_jump_probe_vertical_and_failure() -> None:
    result = jump(ScriptedRoller([6, 5]), 3, 4, 13, direction="vertical")  # 11 → QS 3
    assert result.reach == 3 and result.made_it
    failed = jump(ScriptedRoller([9, 8]), 3, 4, 13)
    assert failed.reach == 0 and not failed.made_it


def test_jump_invalid() -> None:
    with pytest.raises(ValueError):
        jump(ScriptedRoller([]), -1, 4, 10)
    with pytest.raises(ValueError):
        jump(ScriptedRoller([]), 1, 4, 10, direction="up")  # type: ignore[arg-type]


def test_fall_dice_per_three_schritt() -> None:
    assert [fall_dice(h) for h in (0, 2, 3, 5, 6, 9, 10)] == [0, 0, 1, 1, 2, 3, 3]
    assert fall_dice(-3) == 0


def test_short_fall_is_caught() -> None:
    result = fall(ScriptedRoller([]), 3, 8, 10)  # 3 < 4 (half Bewegung)
    assert result.caught and result.damage == 0 and result.rolls == ()


def test_fall_probe_removes_qs_dice_brechend() -> None:
    # 9 Schritt → 3 dice; Akrobatik 12, roll 2 + 4 = 6 → QS 2 → 1 die left; W10 = 7; RS 3
    # brechend halves RS to 1 → 6 damage
    result = fall(ScriptedRoller([2, 4, 7]), 9, 6, 12, rs=3)
    assert not result.caught
    assert (result.dice, result.dice_removed) == (3, 2)
    assert result.damage_roll is not None and result.damage_roll.faces == (7,)
    assert result.damage == 6
    assert [r.faces for r in result.rolls] == [(2, 4), (7,)]


def test_fall_probe_failure_keeps_all_dice() -> None:
    result = fall(ScriptedRoller([9, 8, 1, 2]), 6, 4, 12)
    assert result.dice_removed == 0 and result.damage == 3


def test_fall_probe_can_remove_all_dice() -> None:
    result = fall(ScriptedRoller([6, 6]), 6, 4, 14)  # Volltreffer, QS 3 ≥ 2 dice
    assert result.dice_removed == 2 and result.damage_roll is None and result.damage == 0


def test_fall_without_dice_makes_no_probe() -> None:
    result = fall(ScriptedRoller([]), 2, 2, 12)  # 2 ≥ half Bewegung 1, but 0 dice
    assert not result.caught and result.probe is None and result.damage == 0


def test_fall_outside_own_step_without_reaction() -> None:
    # no reaction: neither the free catch nor the Probe
    roller = ScriptedRoller([4])
    result = fall(roller, 3, 8, 12, in_own_step=False, reaction_available=False)
    assert not result.caught and result.probe is None and result.damage == 4
    assert roller.remaining == 0
    # with a reaction it is caught as usual
    assert fall(ScriptedRoller([]), 3, 8, 12, in_own_step=False).caught


def test_fall_no_probe_requested_and_resistance() -> None:
    result = fall(ScriptedRoller([8, 8]), 6, 2, 12, attempt_probe=False, resistance="resistant")
    assert result.probe is None and result.damage == 8


def test_fall_invalid_height() -> None:
    with pytest.raises(ValueError):
        fall(ScriptedRoller([]), -1, 4, 10)


def test_fall_exhaustive_probe_faces() -> None:
    """All 100 Probe face pairs for a 9-Schritt fall with Akrobatik 12: dice removed = QS."""
    for a, b in itertools.product(range(1, 11), repeat=2):
        probe = evaluate_probe((a, b), 12)
        left = 3 - (min(3, probe.qs) if probe.success else 0)
        result = fall(ScriptedRoller([a, b, *[10] * left]), 9, 4, 12)
        assert result.dice_removed == 3 - left
        assert result.damage == 10 * left


@settings(deadline=None)
@given(
    st.integers(0, 60),
    st.integers(0, 16),
    st.integers(0, 20),
    st.integers(0, 12),
    st.lists(st.integers(1, 10), min_size=24, max_size=24),
)
def test_fall_damage_never_negative_nor_above_dice(
    height: int, bewegung: int, akro: int, rs: int, faces: list[int]
) -> None:
    result = fall(ScriptedRoller(faces), height, bewegung, akro, rs=rs)
    assert 0 <= result.damage <= 10 * fall_dice(height)
    assert 0 <= result.dice_removed <= result.dice


@settings(deadline=None)
@given(st.integers(0, 60), st.integers(0, 60), st.integers(0, 16))
def test_deeper_fall_never_fewer_dice(a: int, b: int, bewegung: int) -> None:
    low, high = sorted((a, b))
    assert fall_dice(low) <= fall_dice(high)


def test_fall_of_exactly_half_bewegung_is_not_caught() -> None:
    # "weniger als die halbe Bewegung": 4 Schritt with Bewegung 8 is not caught for free
    result = fall(ScriptedRoller([9, 9, 5]), 4, 8, 12)
    assert not result.caught and result.dice == 1 and result.damage == 5
