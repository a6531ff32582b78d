"""Degree of success: exhaustive against an independent definition, plus adjustments."""

from __future__ import annotations

import pytest

from app.rules.pf2e import (
    Degree,
    DegreeAdjustment,
    apply_adjustments,
    degree_from_total,
    degree_of_success,
)

ORDER = ["Kritischer Fehlschlag", "Fehlschlag", "Erfolg", "Kritischer Erfolg"]


def reference_degree(d20: int, modifier: int, dc: int) -> str:
    """Independent reading of the seed text, by labels and list positions (no IntEnum).

    "erfolgreich, wenn gleich oder höher als der SG"; "Kritischer Erfolg ... wenn das
    Ergebnis den SG um 10 oder mehr übersteigt"; "liegt das Ergebnis um 10 oder mehr unter
    dem SG ... Kritischer Fehlschlag"; natural 20 one step better, natural 1 one worse.
    """
    result = d20 + modifier
    if result - dc >= 10:
        name = "Kritischer Erfolg"
    elif dc - result >= 10:
        name = "Kritischer Fehlschlag"
    elif result >= dc:
        name = "Erfolg"
    else:
        name = "Fehlschlag"
    position = ORDER.index(name)
    if d20 == 20:
        position = min(position + 1, len(ORDER) - 1)
    if d20 == 1:
        position = max(position - 1, 0)
    return ORDER[position]


def test_exhaustive_against_reference() -> None:
    checked = 0
    for d20 in range(1, 21):
        for modifier in range(-15, 41):
            for dc in range(-5, 61):
                got = degree_of_success(d20, modifier, dc)
                assert got.label == reference_degree(d20, modifier, dc), (d20, modifier, dc)
                checked += 1
    assert checked == 20 * 56 * 66


def test_which_degrees_each_face_can_reach() -> None:
    for d20 in range(1, 21):
        seen = {degree_of_success(d20, m, 20) for m in range(-40, 41)}
        if d20 == 1:  # a natural 1 is never a critical success
            assert seen == set(Degree) - {Degree.CRITICAL_SUCCESS}
        elif d20 == 20:  # a natural 20 is never a critical failure
            assert seen == set(Degree) - {Degree.CRITICAL_FAILURE}
        else:
            assert seen == set(Degree)


def test_enum_values_and_labels() -> None:
    assert [int(d) for d in Degree] == [0, 1, 2, 3]
    assert int(Degree.CRITICAL_FAILURE) == 0 and int(Degree.CRITICAL_SUCCESS) == 3
    assert [d.label for d in Degree] == ORDER
    assert Degree.CRITICAL_SUCCESS.attack_label == "Kritischer Treffer"
    assert Degree.SUCCESS.attack_label == "Treffer"
    assert Degree.FAILURE.attack_label == "Fehlschlag"
    assert Degree.SUCCESS.is_success and not Degree.FAILURE.is_success
    assert Degree.CRITICAL_SUCCESS.step(1) is Degree.CRITICAL_SUCCESS
    assert Degree.CRITICAL_FAILURE.step(-1) is Degree.CRITICAL_FAILURE
    assert Degree.FAILURE.step(2) is Degree.CRITICAL_SUCCESS


def test_boundaries_exactly() -> None:
    assert degree_from_total(20, 20) is Degree.SUCCESS
    assert degree_from_total(19, 20) is Degree.FAILURE
    assert degree_from_total(30, 20) is Degree.CRITICAL_SUCCESS
    assert degree_from_total(29, 20) is Degree.SUCCESS
    assert degree_from_total(10, 20) is Degree.CRITICAL_FAILURE
    assert degree_from_total(11, 20) is Degree.FAILURE


def test_seed_natural_20_can_still_fail_and_natural_1_can_still_succeed() -> None:
    # "falls 20 plus dein Gesamtmodifikator immer noch 10 unter dem SG liegt" → Fehlschlag
    assert degree_of_success(20, 0, 30) is Degree.FAILURE
    # natural 20 only reaching a normal success against a very high DC
    assert degree_of_success(20, 0, 25) is Degree.SUCCESS
    # "eine 1 ... den SG immer noch um 10 übersteigt" → Erfolg
    assert degree_of_success(1, 20, 11) is Degree.SUCCESS
    assert degree_of_success(1, 19, 11) is Degree.FAILURE
    # the usual cases
    assert degree_of_success(20, 5, 20) is Degree.CRITICAL_SUCCESS
    assert degree_of_success(1, 5, 15) is Degree.CRITICAL_FAILURE


@pytest.mark.parametrize("face", [0, 21, -1, True, 2.0])
def test_rejects_impossible_faces(face: object) -> None:
    with pytest.raises(ValueError):
        degree_of_success(face, 0, 10)  # type: ignore[arg-type]


EVASION = DegreeAdjustment("Entrinnen", Degree.SUCCESS, Degree.CRITICAL_SUCCESS)
RESOLVE = DegreeAdjustment("Entschlossenheit", Degree.SUCCESS, Degree.CRITICAL_SUCCESS)
CRIT_FAIL_SOFT = DegreeAdjustment("Zäher Hund", Degree.CRITICAL_FAILURE, Degree.FAILURE)


def test_adjustment_applies_after_the_natural_step() -> None:
    # natural 1 turns a plain success into a failure; Entrinnen (success → crit) then no
    # longer matches
    rolled = degree_of_success(1, 12, 12)
    assert rolled is Degree.FAILURE
    assert apply_adjustments(rolled, [EVASION]).final is Degree.FAILURE
    # natural 20 makes a failure a success, which Entrinnen then raises to critical
    rolled = degree_of_success(20, -5, 20)
    assert rolled is Degree.SUCCESS
    adjusted = apply_adjustments(rolled, [EVASION])
    assert adjusted.final is Degree.CRITICAL_SUCCESS
    assert adjusted.rolled is Degree.SUCCESS
    assert adjusted.applied is EVASION
    assert EVASION.label == "Entrinnen: Erfolg wird zu Kritischer Erfolg"


def test_adjustments_do_not_chain_and_first_match_wins() -> None:
    up = DegreeAdjustment("A", Degree.FAILURE, Degree.SUCCESS)
    adjusted = apply_adjustments(Degree.FAILURE, [up, EVASION])
    assert adjusted.final is Degree.SUCCESS  # not chained on to critical success
    adjusted = apply_adjustments(Degree.SUCCESS, [EVASION, RESOLVE, CRIT_FAIL_SOFT])
    assert adjusted.applied is EVASION
    assert adjusted.ignored == (RESOLVE,)
    none = apply_adjustments(Degree.SUCCESS, [CRIT_FAIL_SOFT])
    assert none.final is Degree.SUCCESS and none.applied is None and none.ignored == ()


def test_adjustment_needs_source() -> None:
    with pytest.raises(ValueError):
        DegreeAdjustment(" ", Degree.SUCCESS, Degree.CRITICAL_SUCCESS)
    coerced = DegreeAdjustment("X", 2, 3)  # type: ignore[arg-type]
    assert coerced.from_degree is Degree.SUCCESS and coerced.to_degree is Degree.CRITICAL_SUCCESS
