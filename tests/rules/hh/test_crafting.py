"""Herstellung (hh.md §12): cost, reachable Güte, time, missing tools, optional Probe."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.rules.dice import ScriptedRoller
from app.rules.hh.crafting import (
    crafting_cost,
    crafting_hours,
    crafting_probe,
    crafting_workdays,
    plan_crafting,
    plan_for,
    reachable_grade,
)
from app.rules.hh.magic import grade_rank
from app.rules.hh.state import Figure, Zustand


def test_cost_is_twenty_percent() -> None:
    assert crafting_cost(100) == 20
    assert crafting_cost(7) == Fraction(7, 5)
    assert crafting_cost(Decimal("12.5")) == Fraction(5, 2)
    with pytest.raises(ValueError):
        crafting_cost(-1)


@pytest.mark.parametrize(
    ("value", "grade"),
    [
        (-3, None),
        (0, None),
        (5, None),
        (6, "C"),
        (10, "C"),
        (11, "B"),
        (15, "B"),
        (16, "A"),
        (20, "A"),
        (21, "S"),
        (30, "S"),
    ],
)
def test_reachable_grade_table(value: int, grade: str | None) -> None:
    assert reachable_grade(value) == grade


def test_time_table() -> None:
    assert [crafting_hours(g) for g in ("C", "B", "A", "S")] == [4, 8, 16, 32]
    assert crafting_workdays("C") == Fraction(1, 2)
    assert crafting_workdays("S") == 4


def test_plan_possible() -> None:
    plan = plan_crafting(50, "B", 12)
    assert plan.possible and plan.error is None
    assert plan.cost == Fraction(10)
    assert (plan.hours, plan.workdays, plan.reachable) == (8, Fraction(1), "B")
    assert plan.as_dict()["cost"] == "10"


def test_plan_grade_too_high() -> None:
    plan = plan_crafting(50, "A", 12)
    assert not plan.possible and plan.error == "grade_too_high" and plan.reachable == "B"


def test_missing_tools_minus_four_or_impossible() -> None:
    plan = plan_crafting(50, "B", 12, equipment="fehlt_erschwert")
    assert plan.effective_value == 8 and plan.reachable == "C" and plan.error == "grade_too_high"
    assert plan_crafting(50, "C", 12, equipment="fehlt_erschwert").possible
    assert plan_crafting(50, "C", 20, equipment="fehlt_unmoeglich").error == "missing_equipment"
    assert plan_crafting(50, "C", 9, equipment="fehlt_erschwert").error == "no_usable_grade"


def test_plan_rejects_unknown_grade() -> None:
    with pytest.raises(ValueError):
        plan_crafting(50, "X", 12)  # type: ignore[arg-type]


def test_crafting_without_probe_succeeds_without_dice() -> None:
    out = crafting_probe(ScriptedRoller([]), plan_crafting(10, "C", 8))
    assert out.success and out.probe is None and out.rolls == ()


def test_crafting_probe_when_gm_requires_it() -> None:
    plan = plan_crafting(10, "C", 8, modifier=2)  # effective value 10
    out = crafting_probe(ScriptedRoller([5, 6]), plan, probe_required=True)
    assert not out.success and out.probe is not None and out.probe.target == 10
    out = crafting_probe(ScriptedRoller([5, 6]), plan, probe_required=True, modifier=1)
    assert out.success and out.rolls[0].faces == (5, 6)


def test_impossible_plan_cannot_be_crafted() -> None:
    with pytest.raises(ValueError):
        crafting_probe(ScriptedRoller([]), plan_crafting(10, "S", 8))


@given(st.integers(-10, 40), st.integers(-10, 40))
def test_higher_value_never_lowers_reachable_grade(a: int, b: int) -> None:
    low, high = sorted((a, b))
    g_low, g_high = reachable_grade(low), reachable_grade(high)
    if g_low is not None:
        assert g_high is not None and grade_rank(g_high) >= grade_rank(g_low)


def test_plan_for_reads_the_guete_from_the_figures_probenwert() -> None:
    """``plan_for``: conditions (Handwerk is physical: «angeschlagen» −2), the GM's modifier
    and missing tools lower the Probenwert before the Güte table is read."""
    fig = Figure(id="a", skills={"Handwerk": 13}, conditions=(Zustand("angeschlagen"),))
    plan = plan_for(fig, "Handwerk", 30, "B")
    assert plan.possible and plan.effective_value == 11 and plan.reachable == "B"
    assert plan.target is not None and plan.target.describe() == "Handwerk 13 − angeschlagen 2 = 11"
    plan = plan_for(fig, "Handwerk", 30, "B", equipment="fehlt_erschwert", modifier=1)
    assert plan.error == "grade_too_high" and plan.reachable == "C"
    assert plan.target is not None and plan.target.target == plan.effective_value == 8
