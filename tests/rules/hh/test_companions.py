"""Gefährten (hh.md §12): level-up costs, growth, talents, carrying, healing, transport."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.rules.hh.companions import (
    BINDING_XP,
    COMPANION_TALENT_XP,
    COMPANION_TALENTS,
    armoured_rs,
    can_serve_as_mount,
    carry_places,
    check_learn_adventurer_talent,
    check_learn_companion_talent,
    companion_can_be_healed_by,
    companion_stats,
    elemental_protection,
    fits_in_guerteltasche,
    is_defeated,
    level_up,
    level_up_cost,
    level_up_total_cost,
    movement_form_modifier,
    movement_with_form,
    shape_change,
)

# seed 003, "Tabelle: Steigerungskosten Monsterstufe von Gefährten"
COST_TABLE = {
    **dict.fromkeys(range(1, 8), 1),
    **dict.fromkeys(range(8, 13), 2),
    13: 4,
    14: 4,
    15: 8,
    16: 8,
    17: 12,
    18: 12,
    19: 16,
    20: 16,
    21: 20,
    30: 20,
}


@pytest.mark.parametrize(("level", "cost"), sorted(COST_TABLE.items()))
def test_level_up_cost_table(level: int, cost: int) -> None:
    assert level_up_cost(level) == cost


def test_level_up_cost_invalid() -> None:
    with pytest.raises(ValueError):
        level_up_cost(0)
    with pytest.raises(ValueError):
        level_up_total_cost(5, 4)


def test_total_cost_sums_each_level() -> None:
    assert level_up_total_cost(6, 6) == 0
    assert level_up_total_cost(6, 9) == 1 + 2 + 2  # levels 7, 8, 9
    assert level_up_total_cost(12, 15) == 4 + 4 + 8


def test_constants() -> None:
    assert BINDING_XP == 1 and COMPANION_TALENT_XP == 3


def test_growth_per_level() -> None:
    base = companion_stats(4, initiative=6, bewegung=5, rs=1, lp=12, probenwerte=8)
    up = level_up(base, 6)
    assert up.xp_cost == 2 and up.before is base
    after = up.after
    assert after.level == 6
    assert after.initiative == 8
    assert after.reaktionen == Fraction(1, 2)
    assert after.bewegung == 6
    assert after.rs == 2
    assert after.lp == 16
    assert after.angriffseffekte == 2
    assert after.probenwerte == 10
    assert after.schadensbonus == 1
    one = level_up(base, 5).after
    assert one.effective() == {
        "initiative": 7,
        "reaktionen": 0,
        "bewegung": 5,
        "rs": 1,
        "lp": 14,
        "angriffseffekte": 1,
        "probenwerte": 9,
        "schadensbonus": 0,
    }


@given(st.integers(1, 30), st.integers(0, 15))
def test_growth_is_linear_and_cost_positive(level: int, gained: int) -> None:
    base = companion_stats(level)
    up = level_up(base, level + gained)
    assert up.after.lp == 2 * gained
    assert up.after.reaktionen == Fraction(gained, 4)
    assert up.xp_cost >= gained


def test_companion_talents_cost_three_xp() -> None:
    assert len(COMPANION_TALENTS) == 12
    ok = check_learn_companion_talent("fernangriff", 3)
    assert ok.ok and ok.xp_cost == 3
    assert COMPANION_TALENTS["fernangriff"].wp_cost == 1
    poor = check_learn_companion_talent("fernangriff", 2)
    assert poor.error == "not_enough_xp" and dict(poor.params) == {"xp": 2, "needed": 3}
    assert check_learn_companion_talent("fliegen", 9).error == "unknown_talent"
    assert check_learn_companion_talent("fernangriff", 9, ["fernangriff"]).error == "already_known"
    # repeatable talents may be learned again
    assert check_learn_companion_talent("elementarer_schutz", 9, ["elementarer_schutz"]).ok
    full = check_learn_companion_talent("gepanzerte_gestalt", 9, current_rs=10)
    assert full.error == "rs_at_maximum"
    assert check_learn_companion_talent("gepanzerte_gestalt", 9, current_rs=8).ok


def test_adventurer_talent_needs_summoner_to_have_it() -> None:
    assert check_learn_adventurer_talent("kampfrausch", ["kampfrausch"]).ok
    no = check_learn_adventurer_talent("kampfrausch", [])
    assert no.error == "summoner_lacks_talent"


def test_armoured_shape_caps_at_ten() -> None:
    assert armoured_rs(2, 1) == 4
    assert armoured_rs(6, 3) == 10
    assert armoured_rs(11, 1) == 11


def test_elemental_protection_twice_is_immunity() -> None:
    assert elemental_protection(["feuer", "eis", "feuer"]) == {
        "feuer": "immune",
        "eis": "resistant",
    }


def test_shape_change() -> None:
    bigger = shape_change(2)
    assert (bigger.rs, bigger.lp, bigger.initiative, bigger.bewegung) == (2, 8, 0, 0)
    smaller = shape_change(-1)
    assert (smaller.rs, smaller.lp, smaller.initiative, smaller.bewegung) == (0, 0, 2, 2)


def test_carry_places_lp_halved() -> None:
    assert carry_places(13) == 6
    assert carry_places(13, "fliegen") == 3
    assert carry_places(13, "graben") == 0
    assert carry_places(13, "tauchen") == 6
    assert carry_places(-4) == 0


def test_movement_forms() -> None:
    assert movement_with_form(10, "graben") == 2
    assert movement_with_form(10, "fliegen") == 10
    assert movement_form_modifier("fliegen") == movement_form_modifier("graben") == -2
    assert movement_form_modifier("tauchen") == 0


def test_healing_restrictions() -> None:
    assert companion_can_be_healed_by("rast")
    assert companion_can_be_healed_by("manifestation_heilen")
    assert not companion_can_be_healed_by("heilkunde")
    assert not companion_can_be_healed_by("heiltrank")


def test_transport_and_defeat() -> None:
    assert fits_in_guerteltasche("winzig") and not fits_in_guerteltasche("klein")
    assert can_serve_as_mount("gross", "mittel") and not can_serve_as_mount("mittel", "mittel")
    assert can_serve_as_mount("riesig", "mittel")
    with pytest.raises(ValueError):
        can_serve_as_mount("monstroes", "mittel")
    assert is_defeated(0) and not is_defeated(1)
