"""Property tests (hypothesis)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from app.rules.dice import ScriptedRoller
from app.rules.pf2e import (
    MODIFIER_TYPES,
    Degree,
    Modifier,
    OutOfRange,
    basic_save_damage,
    degree_of_success,
    flat_check,
    kept_d20,
    multiple_attack_penalty,
    range_penalty,
    roll_d20,
    stack_modifiers,
    total_modifier,
)

faces = st.integers(1, 20)
mods = st.integers(-30, 50)
dcs = st.integers(-10, 70)
degrees = st.sampled_from(list(Degree))


@given(mods, dcs)
def test_natural_20_never_worse_than_any_face(modifier: int, dc: int) -> None:
    top = degree_of_success(20, modifier, dc)
    assert all(top >= degree_of_success(f, modifier, dc) for f in range(1, 21))


@given(mods, dcs)
def test_natural_1_never_better_than_any_face(modifier: int, dc: int) -> None:
    bottom = degree_of_success(1, modifier, dc)
    assert all(bottom <= degree_of_success(f, modifier, dc) for f in range(1, 21))


@given(faces, mods, st.integers(0, 20), dcs)
def test_higher_modifier_never_lowers_degree(d20: int, modifier: int, more: int, dc: int) -> None:
    assert degree_of_success(d20, modifier + more, dc) >= degree_of_success(d20, modifier, dc)


@given(faces, mods, dcs, st.integers(0, 20))
def test_higher_dc_never_raises_degree(d20: int, modifier: int, dc: int, more: int) -> None:
    assert degree_of_success(d20, modifier, dc + more) <= degree_of_success(d20, modifier, dc)


@given(faces, mods, dcs)
def test_natural_step_is_at_most_one_from_plain_comparison(d20: int, m: int, dc: int) -> None:
    total = d20 + m
    plain = 3 if total >= dc + 10 else 2 if total >= dc else 0 if total <= dc - 10 else 1
    assert abs(degree_of_success(d20, m, dc) - plain) <= 1


@given(faces, faces, mods, dcs)
def test_higher_face_never_lowers_degree(a: int, b: int, modifier: int, dc: int) -> None:
    lo, hi = sorted((a, b))
    assert degree_of_success(hi, modifier, dc) >= degree_of_success(lo, modifier, dc)


@given(st.integers(0, 10_000), degrees, degrees)
def test_basic_save_damage_monotone(damage: int, a: Degree, b: Degree) -> None:
    better, worse = max(a, b), min(a, b)
    assert basic_save_damage(damage, better) <= basic_save_damage(damage, worse)
    assert 0 <= basic_save_damage(damage, Degree.SUCCESS) <= damage


@given(st.integers(0, 1000), st.integers(0, 1000))
def test_basic_save_damage_monotone_in_damage(a: int, b: int) -> None:
    lo, hi = sorted((a, b))
    for degree in Degree:
        assert basic_save_damage(lo, degree) <= basic_save_damage(hi, degree)


@given(faces, faces)
def test_fortune_never_below_misfortune(a: int, b: int) -> None:
    assert kept_d20((a, b), True, False) >= kept_d20((a, b), False, True)
    assert kept_d20((a, b), True, False) in (a, b)


@given(faces, faces, st.booleans(), st.booleans())
def test_roll_d20_natural_matches_kept_d20(a: int, b: int, fortune: bool, misfortune: bool) -> None:
    rolled = roll_d20(ScriptedRoller([a, b]), fortune=fortune, misfortune=misfortune)
    assert rolled.natural == kept_d20(rolled.die.faces, fortune, misfortune)


modifier_lists = st.lists(
    st.builds(
        Modifier,
        st.sampled_from(["A", "B", "C", "D", "E", "F"]),
        st.sampled_from(MODIFIER_TYPES),
        st.integers(-6, 6),
    ),
    max_size=10,
)


@given(modifier_lists)
def test_breakdown_partitions_the_input(mods_: list[Modifier]) -> None:
    breakdown = stack_modifiers(mods_)
    assert len(breakdown.applied) + len(breakdown.ignored) == len(mods_)
    assert breakdown.total == sum(m.value for m in breakdown.applied)
    # each source and each typed bonus/penalty slot counts at most once
    sources = [m.source for m in breakdown.applied]
    assert len(sources) == len(set(sources))
    for kind in ("attribute", "proficiency"):
        assert sum(m.type == kind for m in breakdown.applied) <= 1
    for kind in ("circumstance", "item", "status"):
        assert sum(m.type == kind and m.value >= 0 for m in breakdown.applied) <= 1
        assert sum(m.type == kind and m.value < 0 for m in breakdown.applied) <= 1


@given(modifier_lists, st.permutations(list(range(10))))
def test_total_independent_of_order_for_distinct_sources(
    mods_: list[Modifier], perm: list[int]
) -> None:
    unique = list({m.source: m for m in mods_}.values())
    shuffled = [unique[i] for i in perm if i < len(unique)]
    assert total_modifier(shuffled) == total_modifier(unique)


@given(modifier_lists, st.integers(1, 5), st.sampled_from(["circumstance", "item", "status"]))
def test_adding_a_new_bonus_never_lowers_the_total(
    mods_: list[Modifier], value: int, kind: str
) -> None:
    assert total_modifier([*mods_, Modifier("Neu", kind, value)]) >= total_modifier(mods_)


@given(st.integers(1, 50), st.booleans())
def test_map_agile_never_worse_and_never_positive(n: int, agile: bool) -> None:
    assert multiple_attack_penalty(n, True) >= multiple_attack_penalty(n, False)
    assert multiple_attack_penalty(n, agile) <= 0
    assert multiple_attack_penalty(n + 1, agile) <= multiple_attack_penalty(n, agile)


@given(st.integers(0, 300_000), st.integers(1_500, 60_000))
def test_range_penalty_monotone_and_bounded(distance_mm: int, increment_mm: int) -> None:
    distance, increment = distance_mm / 1000, increment_mm / 1000
    try:
        penalty = range_penalty(distance, increment)
    except OutOfRange:
        assert distance_mm > 6 * increment_mm
        return
    assert distance_mm <= 6 * increment_mm
    assert penalty in (0, -2, -4, -6, -8, -10)
    assert range_penalty(distance / 2, increment) >= penalty


@given(st.integers(-20, 40), faces)
def test_flat_check_is_just_the_die(dc: int, d20: int) -> None:
    expected = True if dc <= 1 else False if dc >= 21 else d20 >= dc
    assert flat_check(dc, d20) is expected
