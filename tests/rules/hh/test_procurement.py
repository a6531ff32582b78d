"""Beschaffung (hh.md §12): the price table, Glück check and one day of Gassenwissen."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.rules.dice import ScriptedRoller
from app.rules.hh.procurement import (
    IMMER,
    NIEMALS,
    PROCUREMENT_TABLE,
    Availability,
    check_availability,
    procure,
    procurement_row,
    search_item,
)
from app.rules.hh.state import Figure, Zustand

# (equipment price, construction price, Glück cell, Gassenwissen cell) — seed 003 table
SEED_TABLE = [
    (3, 25, "immer", "immer"),
    (10, 100, 4, "immer"),
    (25, 250, 2, "immer"),
    (100, 1_000, 0, 4),
    (250, 2_500, -2, 2),
    (1_000, 10_000, -4, 0),
    (2_500, 25_000, -6, -2),
    (10_000, 100_000, "niemals", -4),
]


def _cell(a: Availability) -> object:
    return a.modifier if a.kind == "probe" else a.kind


@pytest.mark.parametrize(("equip", "constr", "glueck", "gassen"), SEED_TABLE)
def test_rows_at_their_upper_limit(equip: int, constr: int, glueck: object, gassen: object) -> None:
    for price, category in ((equip, "ausruestung"), (constr, "konstruktion")):
        row = procurement_row(price, category)  # type: ignore[arg-type]
        assert (_cell(row.glueck), _cell(row.gassenwissen)) == (glueck, gassen)


def test_just_above_a_limit_is_the_next_row() -> None:
    assert _cell(procurement_row(Fraction(301, 100)).glueck) == 4
    assert _cell(procurement_row(Decimal("10.5")).glueck) == 2
    assert _cell(procurement_row(26, "konstruktion").glueck) == 4
    over = procurement_row(10_001)
    assert (_cell(over.glueck), _cell(over.gassenwissen)) == ("niemals", -6)
    assert procurement_row(100_001, "konstruktion") is PROCUREMENT_TABLE[-1]
    assert procurement_row(0) is PROCUREMENT_TABLE[0]


def test_invalid_input() -> None:
    with pytest.raises(ValueError):
        procurement_row(-1)
    with pytest.raises(ValueError):
        procurement_row(5, "waffen")  # type: ignore[arg-type]


def test_cheap_items_are_always_there_without_a_roll() -> None:
    result = check_availability(ScriptedRoller([]), 3, glueck=5)
    assert result.found and result.possible and result.probe is None and result.days == 0
    assert result.availability == IMMER and result.rolls == ()


def test_glueck_probe_uses_table_modifier() -> None:
    # 50 Lira: Glück ±0; Glück 10, roll 6+5 = 11 > 10 → not available
    result = check_availability(ScriptedRoller([6, 5]), 50, glueck=10)
    assert result.possible and not result.found
    assert result.probe is not None and result.probe.target == 10
    # 8 Lira: +4 → target 14, roll 11 → available
    result = check_availability(ScriptedRoller([6, 5]), 8, glueck=10)
    assert result.found and result.probe is not None and result.probe.target == 14
    assert result.rolls[0].faces == (6, 5)
    # extra modifier adds to the table's
    result = check_availability(ScriptedRoller([6, 5]), 50, glueck=10, modifier=1)
    assert result.found and result.probe is not None and result.probe.target == 11


def test_glueck_niemals_means_no_roll_and_impossible() -> None:
    result = check_availability(ScriptedRoller([]), 5_000, glueck=15)
    assert not result.possible and not result.found and result.probe is None
    assert result.availability == NIEMALS


def test_search_takes_a_day() -> None:
    # 20 Lira: Gassenwissen "Immer" after one day, no roll
    result = search_item(ScriptedRoller([]), 20, gassenwissen_beschaffung=5)
    assert result.found and result.days == 1 and result.probe is None
    assert result.step == "gassenwissen"
    # 2'000 Lira equipment: −2; value 12 → target 10; roll 10 → found
    result = search_item(ScriptedRoller([4, 6]), 2_000, gassenwissen_beschaffung=12)
    assert result.found and result.days == 1
    assert result.probe is not None and result.probe.target == 10
    # construction 200'000 Lira: −6
    result = search_item(
        ScriptedRoller([4, 6]), 200_000, gassenwissen_beschaffung=12, category="konstruktion"
    )
    assert not result.found and result.probe is not None and result.probe.target == 6


def test_availability_as_dict() -> None:
    assert Availability("probe", -2).as_dict() == {"kind": "probe", "modifier": -2}


@given(st.integers(0, 200_000), st.integers(0, 200_000))
def test_dearer_never_easier(a: int, b: int) -> None:
    low, high = sorted((a, b))

    def rank(cell: Availability) -> int:
        return {"immer": 100, "niemals": -100}.get(cell.kind, cell.modifier)

    for cat in ("ausruestung", "konstruktion"):
        r_low, r_high = procurement_row(low, cat), procurement_row(high, cat)
        assert rank(r_high.glueck) <= rank(r_low.glueck)
        assert rank(r_high.gassenwissen) <= rank(r_low.gassenwissen)


def test_procure_puts_the_figure_on_the_one_modifier_path() -> None:
    """``procure``: the step's skill, the figure's conditions by category (Gassenwissen is
    mental: «verwirrt» −2), the GM's modifier and the table's, shown part by part."""
    fig = Figure(id="a", skills={"Gassenwissen": 9, "Glück": 10},
                 conditions=(Zustand("verwirrt"), Zustand("angeschlagen")))  # fmt: skip
    r = procure(ScriptedRoller([2, 5]), fig, "gassenwissen", 150, modifier=-1)
    assert r.target is not None and r.probe is not None and r.found and r.days == 1
    assert r.target.describe() == (
        "Gassenwissen (Beschaffung) 9 − verwirrt 2 − Modifikator 1 + Tabelle 2 = 8"
    )
    assert r.probe.target == r.target.target == 8
    # Glück has no category: no condition touches it; "Immer" rolls nothing.
    r = procure(ScriptedRoller([9, 9]), fig, "glueck", 8)
    assert r.target is not None and r.target.describe() == "Glück 10 + Tabelle 4 = 14"
    assert not r.found
    r = procure(ScriptedRoller([]), fig, "glueck", 3)
    assert r.found and r.probe is None
