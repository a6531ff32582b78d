"""The shared dice module and the dice-expression parser."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.rules.dice import (
    DieRoll,
    FaceOutOfRange,
    ScriptedRoller,
    ScriptExhausted,
    SecureRoller,
    keep_highest,
    keep_lowest,
    roll_dice,
)
from app.rules.expression import MAX_DICE, ExpressionError, parse, roll

# Chi-square critical values for alpha = 1e-6 (df = sides - 1): the x with
# regularized upper incomplete gamma Q(df/2, x/2) = 1e-6, computed with mpmath.
CHI2_CRITICAL = {6: 35.89, 10: 44.81, 20: 63.68}


@pytest.mark.parametrize("sides", sorted(CHI2_CRITICAL))
def test_secure_roller_is_uniform(sides: int) -> None:
    """100,000 rolls per die; fails by chance once in a million runs."""
    roller = SecureRoller()
    n = 100_000
    counts = [0] * sides
    for _ in range(n):
        counts[roller.roll(sides) - 1] += 1
    expected = n / sides
    chi2 = sum((c - expected) ** 2 / expected for c in counts)
    assert chi2 < CHI2_CRITICAL[sides], (chi2, counts)


def test_secure_roller_covers_every_face_and_refuses_nonsense() -> None:
    roller = SecureRoller()
    assert {roller.roll(4) for _ in range(400)} == {1, 2, 3, 4}
    with pytest.raises(ValueError):
        roller.roll(0)


def test_scripted_roller_fails_loudly() -> None:
    roller = ScriptedRoller([3, 7])
    assert roller.roll(6) == 3 and roller.remaining == 1
    with pytest.raises(FaceOutOfRange):
        roller.roll(6)
    assert roller.roll(10) == 7
    with pytest.raises(ScriptExhausted):
        roller.roll(10)


def test_die_roll_records_and_describes() -> None:
    roll_ = roll_dice(ScriptedRoller([5, 6]), 2, 10)
    assert roll_ == DieRoll(10, (5, 6), (True, True))
    assert roll_.total == 11 and roll_.describe() == "2W10: 5 + 6"
    kept = keep_highest(DieRoll(20, (4, 17)), 1)
    assert kept.kept == (False, True) and kept.describe("d") == "2d20: (4) + 17"
    assert kept.as_dict() == {"sides": 20, "faces": [4, 17], "kept": [False, True]}
    with pytest.raises(ValueError):
        DieRoll(6, (1, 2), (True,))


@given(st.lists(st.integers(1, 6), min_size=1, max_size=12), st.data())
def test_keep_picks_the_extremes(faces: list[int], data: st.DataObject) -> None:
    n = data.draw(st.integers(1, len(faces)))
    roll_ = DieRoll(6, tuple(faces))
    high, low = keep_highest(roll_, n), keep_lowest(roll_, n)
    assert sorted(high.kept_faces) == sorted(faces)[-n:]
    assert sorted(low.kept_faces) == sorted(faces)[:n]
    assert sum(high.kept) == sum(low.kept) == n


@pytest.mark.parametrize(
    ("text", "notation", "faces", "total"),
    [
        ("2W10+3", "2W10+3", [5, 6], 14),
        ("1d20+7", "1W20+7", [13], 20),
        ("3W6", "3W6", [1, 2, 3], 6),
        ("2d20kh1", "2W20kh1", [4, 17], 17),
        ("4d6kl3", "4W6kl3", [6, 1, 3, 2], 6),
        (" w20 - 2 ", "1W20-2", [1], -1),
        ("W6+W8-1", "1W6+1W8-1", [6, 8], 13),
        ("2d6-1d4", "2W6-1W4", [3, 4, 2], 5),
    ],
)
def test_expressions(text: str, notation: str, faces: list[int], total: int) -> None:
    expression = parse(text)
    assert expression.notation() == notation
    result = roll(expression, ScriptedRoller(faces))
    assert result.total == total
    assert [f for d in result.dice for f in d.faces] == faces


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "abc",
        "2d",
        "d",
        "2W10+",
        "+",
        "2d6 3",
        "1d1",
        "1d1001",
        "0d6",
        "101d6",
        "10000d10000",
        "3d6kh4",
        "3d6kh0",
        "5",
        "1d6+100000",
        "1d6" + "+1" * 20,
        "x" * 101,
    ],
)
def test_refused_expressions(text: str) -> None:
    with pytest.raises(ExpressionError) as info:
        parse(text)
    assert info.value.message


def test_dice_limit_counts_all_groups() -> None:
    parse(f"{MAX_DICE // 2}d6+{MAX_DICE // 2}d6")
    with pytest.raises(ExpressionError):
        parse(f"{MAX_DICE // 2}d6+{MAX_DICE // 2 + 1}d6")


@given(st.integers(1, 20), st.integers(2, 100), st.integers(-50, 50))
def test_total_is_within_bounds(count: int, sides: int, bonus: int) -> None:
    text = f"{count}d{sides}{bonus:+d}"
    faces = itertools.cycle(range(1, sides + 1))
    result = roll(parse(text), ScriptedRoller([next(faces) for _ in range(count)]))
    assert count + bonus <= result.total <= count * sides + bonus
