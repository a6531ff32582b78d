"""Glück / Unglück and rerolls."""

from __future__ import annotations

import pytest

from app.rules.dice import ScriptedRoller
from app.rules.pf2e import (
    Degree,
    FortuneState,
    Modifier,
    RerollNotAllowed,
    Statistic,
    kept_d20,
    reroll_check,
    roll_check,
    roll_d20,
)

STAT = Statistic("Athletik", (Modifier("Stärke", "attribute", 5),))


def test_kept_d20() -> None:
    assert kept_d20((7,), False, False) == 7
    assert kept_d20((3, 17), True, False) == 17
    assert kept_d20((3, 17), False, True) == 3
    assert kept_d20((12,), True, True) == 12  # cancel: a normal single roll


@pytest.mark.parametrize(
    ("faces", "fortune", "misfortune"),
    [
        ((3, 4), False, False),
        ((3,), True, False),
        ((3,), False, True),
        ((3, 4), True, True),
        ((0,), False, False),
        ((21, 3), True, False),
        ((), False, False),
    ],
)
def test_kept_d20_refuses_wrong_dice(
    faces: tuple[int, ...], fortune: bool, misfortune: bool
) -> None:
    with pytest.raises(ValueError):
        kept_d20(faces, fortune, misfortune)


def test_natural_read_from_kept_die() -> None:
    # fortune 1 and 20 → keep 20: a natural 20
    result = roll_check(ScriptedRoller([1, 20]), STAT, 30, fortune=True)
    assert result.natural == 20
    assert result.roll.die.kept == (False, True)
    assert result.degree is Degree.SUCCESS  # 25 vs 30 failure, natural 20 → success
    # misfortune 20 and 1 → keep 1: a natural 1
    result = roll_check(ScriptedRoller([20, 1]), STAT, 5, misfortune=True)
    assert result.natural == 1
    assert result.degree is Degree.FAILURE  # 6 vs 5 success, natural 1 → one step worse


def test_states_and_labels() -> None:
    assert roll_d20(ScriptedRoller([4])).state is FortuneState.NORMAL
    both = roll_d20(ScriptedRoller([9]), fortune=True, misfortune=True)
    assert both.state is FortuneState.CANCELLED and both.die.faces == (9,)
    assert FortuneState.CANCELLED.label == "Glück und Unglück heben sich auf"
    assert FortuneState.FORTUNE.label.startswith("Glück")
    assert FortuneState.MISFORTUNE.label.startswith("Unglück")
    assert FortuneState.NORMAL.dice == 1 and FortuneState.FORTUNE.dice == 2


def test_fortune_reroll_uses_new_result_even_if_worse() -> None:
    first = roll_check(ScriptedRoller([8]), STAT, 17)
    assert first.degree is Degree.FAILURE  # 13 vs 17
    second = reroll_check(ScriptedRoller([2]), first, kind="fortune", source="Heldenpunkt")
    assert second.natural == 2 and second.degree is Degree.CRITICAL_FAILURE  # 7 vs 17
    assert second.rerolled is first and second.reroll_source == "Heldenpunkt"
    assert second.fortune and not second.misfortune
    assert second.as_dict()["rerolled"] == first.as_dict()
    # a second fortune effect on the same roll is refused
    with pytest.raises(RerollNotAllowed) as info:
        reroll_check(ScriptedRoller([20]), second, kind="fortune", source="Halblingsglück")
    assert "Glückseffekt" in str(info.value)


def test_fortune_roll_cannot_get_fortune_reroll() -> None:
    # "wenn du ... zweimal würfeln ... kannst du bei einem Fehlschlag nicht mit
    # Halblingsglück würfeln"
    twice = roll_check(ScriptedRoller([2, 3]), STAT, 15, fortune=True)
    with pytest.raises(RerollNotAllowed):
        reroll_check(ScriptedRoller([20]), twice, kind="fortune", source="Halblingsglück")


def test_misfortune_reroll_of_success() -> None:
    first = roll_check(ScriptedRoller([15]), STAT, 15)
    assert first.degree is Degree.SUCCESS  # 20 vs 15
    forced = reroll_check(ScriptedRoller([5]), first, kind="misfortune", source="Fluch")
    assert forced.degree is Degree.FAILURE and forced.misfortune
    with pytest.raises(RerollNotAllowed) as info:
        reroll_check(ScriptedRoller([5]), forced, kind="misfortune", source="Fluch")
    assert "Unglückseffekt" in str(info.value)


def test_reroll_repeats_the_dice_mode() -> None:
    under = roll_check(ScriptedRoller([3, 9]), STAT, 15, misfortune=True)
    again = reroll_check(ScriptedRoller([18, 12]), under, kind="fortune", source="Heldenpunkt")
    assert again.roll.state is FortuneState.MISFORTUNE and again.natural == 12
    assert again.fortune and again.misfortune
    cancelled = roll_check(ScriptedRoller([3]), STAT, 15, fortune=True, misfortune=True)
    with pytest.raises(RerollNotAllowed):
        reroll_check(ScriptedRoller([4]), cancelled, kind="misfortune", source="X")


def test_reroll_kind_must_be_fortune_or_misfortune() -> None:
    with pytest.raises(ValueError):
        reroll_check(
            ScriptedRoller([4]), roll_check(ScriptedRoller([3]), STAT), kind="luck", source="X"
        )
