"""Sterbend/Verwundet/Todgeweiht, Genesungswurf, Anhaltender Schaden, Verängstigt, Würgen
(docs/rules/pf2e.md §9)."""

from __future__ import annotations

import pytest

from app.rules.dice import ScriptedRoller
from app.rules.pf2e import (
    Degree,
    Dying,
    Modifier,
    Statistic,
    damaged_while_dying,
    frightened_after_turn,
    knocked_out,
    lose_dying,
    persistent_damage,
    recovery_check,
    retch,
)


def test_knocked_out_adds_wounded_and_a_critical_adds_one_more() -> None:
    assert knocked_out(Dying(), critical=False) == Dying(dying=1)
    assert knocked_out(Dying(wounded=1), critical=False) == Dying(dying=2, wounded=1)
    assert knocked_out(Dying(wounded=1), critical=True) == Dying(dying=3, wounded=1)
    assert damaged_while_dying(Dying(dying=1), critical=False).dying == 2
    assert damaged_while_dying(Dying(dying=1), critical=True).dying == 3


def test_death_at_four_minus_doomed() -> None:
    assert not Dying(dying=3).dead and Dying(dying=4).dead
    assert Dying(dying=3, doomed=1).dead and not Dying(dying=2, doomed=1).dead
    assert not Dying().dead  # at 0 Sterbend nobody dies, whatever Todgeweiht says
    assert Dying(dying=2, wounded=1).describe() == "Sterbend 2, Verwundet 1"


@pytest.mark.parametrize(
    ("face", "dying", "degree", "after"),
    [
        (20, 1, Degree.CRITICAL_SUCCESS, 0),  # 20 ≥ 11: Erfolg; the natural 20 makes it critical
        (11, 1, Degree.SUCCESS, 0),
        (10, 1, Degree.FAILURE, 2),
        (1, 1, Degree.CRITICAL_FAILURE, 3),  # 1 ≤ 11 − 10: critical failure
        (13, 2, Degree.SUCCESS, 1),
        (2, 3, Degree.CRITICAL_FAILURE, 5),
    ],
)
def test_recovery_check_against_10_plus_dying(
    face: int, dying: int, degree: Degree, after: int
) -> None:
    result = recovery_check(ScriptedRoller([face]), Dying(dying=dying))
    assert (result.dc, result.degree, result.after.dying) == (10 + dying, degree, after)
    assert [d.faces for d in result.dice] == [(face,)]


def test_recovery_to_zero_raises_wounded_and_a_high_value_kills() -> None:
    result = recovery_check(ScriptedRoller([15]), Dying(dying=1, wounded=1))
    assert result.after == Dying(dying=0, wounded=2)
    assert "Genesungswurf SG 11" in result.describe()
    assert recovery_check(ScriptedRoller([5]), Dying(dying=3)).after.dead
    with pytest.raises(ValueError):
        recovery_check(ScriptedRoller([5]), Dying())
    assert lose_dying(Dying(dying=2, wounded=1)) == Dying(wounded=2)
    assert lose_dying(Dying(wounded=1)) == Dying(wounded=1)  # not Sterbend: no change


def test_persistent_damage_then_flat_check_dc_15() -> None:
    goes_on = persistent_damage(ScriptedRoller([4, 14]), "1W6", "Feuer")
    assert (goes_on.damage.total, goes_on.ended) == (4, False)
    ends = persistent_damage(ScriptedRoller([2, 15]), "1W6", "Feuer")
    assert ends.ended and [d.faces for d in ends.dice] == [(2,), (15,)]
    assert ends.describe()[0] == "Anhaltender Schaden Feuer: Schaden 1W6: 2"
    assert ends.describe()[1].endswith("– endet")


def test_frightened_drops_by_one_and_retching_lowers_sickened() -> None:
    assert [frightened_after_turn(v) for v in (2, 1, 0)] == [1, 0, 0]
    fort = Statistic("Zähigkeit", (Modifier("Werteblock", "untyped", 5),))
    assert retch(ScriptedRoller([10]), fort, 15, 2).after == 1  # 15 ≥ 15: Erfolg
    assert retch(ScriptedRoller([20]), fort, 15, 2).after == 0  # Kritischer Erfolg: −2
    assert retch(ScriptedRoller([9]), fort, 15, 2).after == 2  # Fehlschlag: unchanged
