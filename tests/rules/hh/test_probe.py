from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.rules.dice import ScriptedRoller
from app.rules.hh import (
    DIFFICULTIES,
    RuleOptions,
    automatic_volltreffer,
    best_qs,
    difficulty_modifier,
    evaluate_probe,
    probability_table,
    probe_odds,
    qs,
    qs_distribution,
    roll_probe,
    success_probability,
)

PAIRS: list[tuple[int, int]] = [(a, b) for a in range(1, 11) for b in range(1, 11)]


def test_arjun_climbs_the_tree() -> None:
    r = evaluate_probe((5, 6), 13, 2)
    assert (r.roll, r.target, r.success, r.qs) == (11, 15, True, 3)
    assert not r.volltreffer and not r.patzer
    assert r.describe() == "2W10: 5 + 6 = 11 ≤ 15 → Erfolg, QS 3"


@pytest.mark.parametrize(
    ("x", "expected"),
    [(-3, 0), (0, 0), (1, 1), (5, 1), (6, 2), (10, 2), (11, 3), (15, 3), (16, 4), (20, 4), (21, 5)],
)
def test_qs_per_started_five(x: int, expected: int) -> None:
    assert qs(x) == expected


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_every_face_pair_against_every_target(a: int, b: int) -> None:
    for target in range(-2, 32):
        r = evaluate_probe((a, b), target)
        s = a + b
        assert r.roll == s
        assert r.success == (s <= target and s < 19)
        assert r.volltreffer == (a == b and r.success)
        assert r.patzer == (a == b and not r.success)
        if r.volltreffer:
            assert r.qs == qs(min(target, 18))
        elif r.success:
            assert r.qs == qs(s)
        else:
            assert r.qs == 0
        if s in (19, 20):
            assert not r.success
        if (a, b) == (10, 10):
            assert r.patzer


def test_volltreffer_gets_highest_reachable_qs() -> None:
    assert evaluate_probe((2, 2), 30).qs == 4  # best successful roll is 18
    assert evaluate_probe((1, 1), 7).qs == 2
    assert best_qs(1) == 0


def test_extra_qs_only_on_success() -> None:
    assert evaluate_probe((2, 3), 10, extra_qs=1).qs == 2
    fail = evaluate_probe((6, 5), 10, extra_qs=1)
    assert fail.qs == 0 and fail.extra_qs == 0


def test_invalid_faces_rejected() -> None:
    with pytest.raises(ValueError):
        evaluate_probe((0, 5), 10)
    with pytest.raises(ValueError):
        evaluate_probe((1, 2, 3), 10)  # type: ignore[arg-type]


def test_describe_variants() -> None:
    assert evaluate_probe((10, 10), 30).describe() == "2W10: 10 + 10 = 20 (19/20) 30 → Patzer"
    assert evaluate_probe((9, 8), 10).describe() == "2W10: 9 + 8 = 17 > 10 → Misserfolg"
    assert evaluate_probe((3, 3), 10).describe().endswith("Volltreffer, QS 2")
    assert automatic_volltreffer(10).describe() == "Glück verbrannt → Volltreffer, QS 2"
    assert evaluate_probe((1, 2), 5).as_dict()["faces"] == [1, 2]


def test_roll_probe_records_dice() -> None:
    r = roll_probe(ScriptedRoller([4, 4]), 12, -2)
    assert r.rolls[0].faces == (4, 4) and r.rolls[0].sides == 10
    assert r.volltreffer and r.qs == 2 and r.pasch and not r.failure
    assert r.outcome == "Volltreffer"


def test_automatic_volltreffer() -> None:
    r = automatic_volltreffer(1)
    assert r.success and r.volltreffer and r.qs == 1 and r.rolls == () and r.roll == 2
    assert automatic_volltreffer(25).qs == 4


def test_difficulties() -> None:
    assert [d.modifier for d in DIFFICULTIES] == [6, 4, 2, 0, -2, -4, -6]
    assert difficulty_modifier("sehr schwierig") == -6
    assert difficulty_modifier("wenig_fordernd") == 2
    with pytest.raises(ValueError):
        difficulty_modifier("unmöglich")


def brute_force(target: int) -> tuple[Fraction, dict[int, Fraction]]:
    dist: dict[int, Fraction] = {}
    for a, b in PAIRS:
        q = evaluate_probe((a, b), target).qs
        dist[q] = dist.get(q, Fraction(0)) + Fraction(1, 100)
    succ = sum((p for q, p in dist.items() if q > 0), Fraction(0))
    return succ, dist


@pytest.mark.parametrize("target", range(-3, 35))
def test_odds_match_enumeration(target: int) -> None:
    succ, dist = brute_force(target)
    assert success_probability(target) == succ
    assert qs_distribution(target) == dist
    odds = probe_odds(target)
    assert sum(odds.qs_counts) == 100
    assert odds.volltreffer + odds.patzer == 10


def test_known_odds() -> None:
    assert success_probability(15) == Fraction(85, 100)
    assert success_probability(30) == Fraction(97, 100)  # 19 and 20 always fail: 3 pairs
    assert success_probability(1) == 0
    assert success_probability(10, 5) == success_probability(15)
    odds = probe_odds(18)
    assert odds.success == Fraction(97, 100)
    assert odds.volltreffer_chance == Fraction(9, 100)
    assert odds.patzer_chance == Fraction(1, 100)
    assert odds.as_dict()["success"] == 97


def test_probability_table() -> None:
    table = probability_table()
    assert [o.target for o in table][:3] == [2, 3, 4]
    assert len(table) == 29


@given(st.integers(-10, 40), st.integers(-10, 10), st.integers(1, 5))
def test_success_chance_never_rises_when_modifier_falls(value: int, mod: int, drop: int) -> None:
    assert success_probability(value, mod - drop) <= success_probability(value, mod)


@given(st.tuples(st.integers(1, 10), st.integers(1, 10)), st.integers(-10, 40))
def test_volltreffer_always_success(faces: tuple[int, int], target: int) -> None:
    r = evaluate_probe(faces, target)
    if r.volltreffer:
        assert r.success and r.qs >= 1
    assert r.volltreffer != r.patzer or not r.pasch


@given(st.integers(-10, 40), st.integers(-8, 8))
def test_success_probability_equals_brute_force(value: int, mod: int) -> None:
    count = sum(evaluate_probe(p, value, mod).success for p in PAIRS)
    assert success_probability(value, mod) == Fraction(count, 100)


def test_rule_options() -> None:
    assert RuleOptions().as_dict() == {
        "movement": "full",
        "condition_escalation": "full",
        "long_rest_lp": "full",
        "focus_qs": "per_spell",
    }
    o = RuleOptions.from_mapping({"movement": "half", "long_rest_lp": None, "other": 1})
    assert o.movement == "half" and o.long_rest_lp == "full"
    assert RuleOptions.from_mapping(None) == RuleOptions()
    with pytest.raises(ValueError):
        RuleOptions.from_mapping({"focus_qs": "sometimes"})
