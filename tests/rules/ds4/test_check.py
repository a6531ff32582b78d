"""Probe: rulebook examples, exhaustive comparison with a brute-force definition, odds."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from app.rules.dice import ScriptedRoller
from app.rules.ds4 import (
    DIFFICULTY_MODIFIER,
    CheckResult,
    Difficulty,
    check_odds,
    dice_needed,
    evaluate_check,
    evaluate_opposed,
    roll_check,
    sub_checks,
)

FACES = range(1, 21)
Outcome = tuple[bool, int, bool, bool]


# --- independent brute-force definition (ds4.md §1 read literally) ------------------------


def brute_force(pw: int, faces: tuple[int, ...], imm: int = 1, pat: int = 20) -> Outcome:
    """(success, result, immersieg, patzer) by trying every assignment of dice."""
    if faces[0] >= pat:
        return (False, 0, False, True)
    if pw <= 20:
        (f,) = faces
        if pw <= 0:
            return (f <= imm, 0, f <= imm, False)
        if f <= imm:
            return (True, pw, True, False)
        return (f <= pw, f if f <= pw else 0, False, False)
    subs = [20] * (pw // 20) + ([pw % 20] if pw % 20 else [])
    assert len(subs) == len(faces)

    def score(f: int, s: int) -> int:
        if f <= imm:
            return s
        return f if f <= s else 0

    best = max(
        sum(score(f, s) for f, s in zip(p, subs, strict=True))
        for p in itertools.permutations(faces)
    )
    return (True, best, any(f <= imm for f in faces), False)


def assert_consistent(res: CheckResult) -> None:
    """The assignment uses every die once, covers every sub-check and sums to the result."""
    if res.patzer and len(res.faces) > 1:
        assert res.assignment == ()
        return
    assert sorted(s.die_index for s in res.assignment) == list(range(len(res.faces)))
    assert [s.pw for s in res.assignment] == list(sub_checks(res.pw))
    assert all(res.faces[s.die_index] == s.face for s in res.assignment)
    if res.success:
        assert sum(s.score for s in res.assignment) == res.result


def outcome(res: CheckResult) -> Outcome:
    return (res.success, res.result, res.immersieg, res.patzer)


# --- rulebook examples ---------------------------------------------------------------------


def test_gruffneck_immersieg_scores_the_pw() -> None:
    res = evaluate_check(12, [1])
    assert res.success and res.immersieg and not res.patzer
    assert res.result == 12


def test_pw_44_with_2_1_17_scores_39() -> None:
    res = evaluate_check(44, [2, 1, 17])
    assert res.success and res.result == 39
    assert [(s.pw, s.face, s.score) for s in res.assignment] == [
        (20, 1, 20),
        (20, 17, 17),
        (4, 2, 2),
    ]


def test_patzer_fails_even_with_pw_20_or_more() -> None:
    for pw in (20, 25, 44):
        faces = [20] + [5] * (dice_needed(pw) - 1)
        res = evaluate_check(pw, faces)
        assert res.patzer and not res.success and res.result == 0


def test_later_twenty_is_no_patzer() -> None:
    res = evaluate_check(44, [3, 20, 20])
    assert res.success and not res.patzer
    assert res.result == 43  # 20 and 20 on the 20s, 3 on the 4


def test_pw_at_most_zero_only_a_one_succeeds_with_result_zero() -> None:
    for pw in (0, -1, -7):
        assert outcome(evaluate_check(pw, [1])) == (True, 0, True, False)
        for f in range(2, 20):
            assert outcome(evaluate_check(pw, [f])) == (False, 0, False, False)
        assert outcome(evaluate_check(pw, [20])) == (False, 0, False, True)


def test_normal_success_and_failure() -> None:
    assert outcome(evaluate_check(12, [9])) == (True, 9, False, False)
    assert outcome(evaluate_check(12, [12])) == (True, 12, False, False)
    assert outcome(evaluate_check(12, [13])) == (False, 0, False, False)


def test_sub_checks_and_dice_needed() -> None:
    assert sub_checks(44) == (20, 20, 4)
    assert sub_checks(40) == (20, 20)
    assert sub_checks(20) == (20,)
    assert sub_checks(21) == (20, 1)
    assert sub_checks(-3) == (-3,)
    assert dice_needed(61) == 4


# --- exhaustive ----------------------------------------------------------------------------


@pytest.mark.parametrize("pw", range(-3, 41))
def test_exhaustive_all_faces_match_brute_force(pw: int) -> None:
    for faces in itertools.product(FACES, repeat=dice_needed(pw)):
        res = evaluate_check(pw, faces)
        assert outcome(res) == brute_force(pw, faces), faces
        assert_consistent(res)


@pytest.mark.parametrize("pw", [41, 44, 50, 59, 60])
def test_exhaustive_three_dice_match_brute_force(pw: int) -> None:
    for faces in itertools.product(FACES, repeat=3):
        res = evaluate_check(pw, faces)
        assert outcome(res) == brute_force(pw, faces), faces
        assert_consistent(res)


@pytest.mark.parametrize(("imm", "pat"), [(2, 20), (1, 19), (3, 18)])
@pytest.mark.parametrize("pw", [-1, 0, 1, 2, 5, 18, 19, 20, 21, 23, 39, 40])
def test_exhaustive_with_wider_ranges(pw: int, imm: int, pat: int) -> None:
    for faces in itertools.product(FACES, repeat=dice_needed(pw)):
        res = evaluate_check(pw, faces, immersieg_max=imm, patzer_min=pat)
        assert outcome(res) == brute_force(pw, faces, imm, pat), faces
        assert_consistent(res)


# --- odds ----------------------------------------------------------------------------------


def enumerate_odds(pw: int, imm: int = 1, pat: int = 20) -> tuple[Fraction, ...]:
    rolls = list(itertools.product(FACES, repeat=dice_needed(pw)))
    n = len(rolls)
    res = [evaluate_check(pw, f, immersieg_max=imm, patzer_min=pat) for f in rolls]
    return (
        Fraction(sum(r.success for r in res), n),
        Fraction(sum(r.immersieg for r in res), n),
        Fraction(sum(r.patzer for r in res), n),
        Fraction(sum(r.result for r in res), n),
    )


@pytest.mark.parametrize("pw", [*range(-2, 41), 44, 57, 60])
def test_odds_match_enumeration(pw: int) -> None:
    odds = check_odds(pw)
    assert (odds.success, odds.immersieg, odds.patzer, odds.expected_result) == enumerate_odds(pw)


@pytest.mark.parametrize("pw", [0, 3, 20, 22, 40, 45])
def test_odds_match_enumeration_with_wider_ranges(pw: int) -> None:
    odds = check_odds(pw, immersieg_max=2, patzer_min=19)
    assert (odds.success, odds.immersieg, odds.patzer, odds.expected_result) == enumerate_odds(
        pw, 2, 19
    )


def test_odds_known_values() -> None:
    assert check_odds(10).success == Fraction(1, 2)
    assert check_odds(10).expected_result == Fraction(64, 20)
    assert check_odds(20).success == Fraction(19, 20)
    assert check_odds(0).success == Fraction(1, 20)
    assert check_odds(0).expected_result == 0
    assert check_odds(100).success == Fraction(19, 20)


def test_success_probability_never_drops_with_higher_pw() -> None:
    probs = [check_odds(pw).success for pw in range(-5, 101)]
    assert all(a <= b for a, b in itertools.pairwise(probs))


# --- validation ----------------------------------------------------------------------------


def test_wrong_number_of_faces_is_refused() -> None:
    with pytest.raises(ValueError, match="needs 3 W20"):
        evaluate_check(44, [1, 2])
    with pytest.raises(ValueError, match="needs 1 W20"):
        evaluate_check(12, [])


def test_face_off_the_die_is_refused() -> None:
    with pytest.raises(ValueError, match="not on a W20"):
        evaluate_check(12, [21])
    with pytest.raises(ValueError, match="not on a W20"):
        evaluate_check(12, [0])


@pytest.mark.parametrize(("imm", "pat"), [(0, 20), (5, 5), (10, 3), (1, 21)])
def test_bad_ranges_are_refused(imm: int, pat: int) -> None:
    with pytest.raises(ValueError, match="immersieg_max"):
        evaluate_check(10, [5], immersieg_max=imm, patzer_min=pat)
    with pytest.raises(ValueError, match="immersieg_max"):
        check_odds(10, immersieg_max=imm, patzer_min=pat)


# --- opposed -------------------------------------------------------------------------------


def test_opposed_only_one_succeeds() -> None:
    hit, miss = evaluate_check(10, [5]), evaluate_check(10, [15])
    assert evaluate_opposed(hit, miss) == "a"
    assert evaluate_opposed(miss, hit) == "b"


def test_opposed_immersieg_beats_a_higher_normal_success() -> None:
    imm = evaluate_check(5, [1])  # result 5
    normal = evaluate_check(18, [17])  # result 17
    assert evaluate_opposed(imm, normal) == "a"
    assert evaluate_opposed(normal, imm) == "b"


def test_opposed_higher_result_wins_and_ties_have_no_winner() -> None:
    assert evaluate_opposed(evaluate_check(15, [12]), evaluate_check(15, [8])) == "a"
    assert evaluate_opposed(evaluate_check(15, [8]), evaluate_check(15, [12])) == "b"
    assert evaluate_opposed(evaluate_check(15, [8]), evaluate_check(9, [8])) == "none"
    assert evaluate_opposed(evaluate_check(12, [1]), evaluate_check(12, [1])) == "none"
    assert evaluate_opposed(evaluate_check(14, [1]), evaluate_check(12, [1])) == "a"


def test_opposed_both_fail_no_winner() -> None:
    assert evaluate_opposed(evaluate_check(5, [9]), evaluate_check(5, [20])) == "none"


# --- rolling -------------------------------------------------------------------------------


def test_roll_check_uses_one_die_per_sub_check_and_records_it() -> None:
    roller = ScriptedRoller([2, 1, 17])
    roll = roll_check(roller, 40, modifiers=[("bonus", 4)])
    assert roller.remaining == 0
    assert roll.pw == 44
    assert roll.breakdown == (("base", 40), ("bonus", 4))
    assert roll.roll.sides == 20 and roll.roll.faces == (2, 1, 17)
    assert roll.success and roll.result == 39 and roll.immersieg and not roll.patzer


def test_roll_check_with_difficulty() -> None:
    roll = roll_check(ScriptedRoller([15]), 10, difficulty=Difficulty.LEICHT)
    assert roll.pw == 12
    assert roll.breakdown[-1] == ("difficulty:leicht", 2)
    assert not roll.success and roll.result == 0
    patzer = roll_check(ScriptedRoller([19]), 10, patzer_min=19)
    assert patzer.patzer


def test_difficulty_table() -> None:
    assert [DIFFICULTY_MODIFIER[d] for d in Difficulty] == [8, 4, 2, 0, -2, -4, -8]
