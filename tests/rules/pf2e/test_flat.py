"""Einfacher Wurf (flat check)."""

from __future__ import annotations

import inspect

import pytest

from app.rules.dice import ScriptedRoller
from app.rules.pf2e import flat_check, roll_flat_check


def test_flat_check_against_dc() -> None:
    for dc in range(2, 21):
        for d20 in range(1, 21):
            assert flat_check(dc, d20) is (d20 >= dc)


@pytest.mark.parametrize("dc", [-5, 0, 1])
def test_dc_1_or_less_succeeds_whatever_the_die(dc: int) -> None:
    for d20 in (1, 20, 0, 99):  # the die is ignored, even an impossible one
        assert flat_check(dc, d20) is True


@pytest.mark.parametrize("dc", [21, 22, 40])
def test_dc_21_or_more_fails_even_on_a_natural_20(dc: int) -> None:
    assert flat_check(dc, 20) is False


def test_die_is_checked_when_it_counts() -> None:
    with pytest.raises(ValueError):
        flat_check(11, 0)


def test_roll_uses_highest_dc_once() -> None:
    roller = ScriptedRoller([12])
    result = roll_flat_check(roller, [5, 11, 15])
    assert result.dc == 15 and result.dcs == (5, 11, 15)
    assert result.success is False and result.outcome_label == "Fehlschlag"
    assert result.dice[0].faces == (12,)
    assert roller.remaining == 0
    assert result.describe() == "Einfacher Wurf gegen SG 15: 1W20: 12 = 12 – Fehlschlag"


def test_roll_single_dc_success() -> None:
    result = roll_flat_check(ScriptedRoller([11]), 11)
    assert result.success and not result.automatic and result.outcome_label == "Erfolg"


def test_automatic_results_roll_nothing() -> None:
    roller = ScriptedRoller([])
    easy = roll_flat_check(roller, [1, -2])
    hard = roll_flat_check(roller, 21)
    assert easy.success and easy.automatic and easy.dice == ()
    assert not hard.success and hard.automatic
    assert hard.describe() == "Einfacher Wurf gegen SG 21: automatisch – Fehlschlag"
    assert hard.as_dict()["natural"] is None


def test_no_dc_refused() -> None:
    with pytest.raises(ValueError):
        roll_flat_check(ScriptedRoller([5]), [])


def test_flat_check_takes_no_modifiers() -> None:
    params = set(inspect.signature(roll_flat_check).parameters)
    assert params == {"roller", "dcs", "label", "fortune", "misfortune", "secret"}


def test_secret_flat_check_hidden_from_players() -> None:
    result = roll_flat_check(ScriptedRoller([3, 17]), 11, fortune=True, secret=True)
    assert result.success and result.roll is not None and result.roll.natural == 17
    assert result.as_dict(reveal=False) == {
        "label": "Einfacher Wurf",
        "secret": True,
        "secret_label": "Verdeckter Wurf",
    }
    full = result.as_dict()
    assert full["natural"] == 17 and full["success"] is True and full["dc"] == 11
