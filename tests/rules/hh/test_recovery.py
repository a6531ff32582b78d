"""Getting back into the fight with the Handlung: the conditions a figure can shake off
itself, and freeing a weapon the attack Patzer table jammed (docs/rules/hh.md)."""

import pytest

from app.rules.dice import ScriptedRoller
from app.rules.hh import Figure, RuleOptions, Zustand
from app.rules.hh.recovery import free_weapon, shakeable

SK = {"Unbeugsamkeit": 10, "Handwerk": 6, "Glück": 9}


def hero(*conditions: str, jammed: bool = False) -> Figure:
    return Figure(
        "h",
        skills=SK,
        conditions=tuple(Zustand(k) for k in conditions),
        jammed_weapon=jammed,
    )


def test_the_figure_shakes_off_what_it_can_end_itself() -> None:
    figure = hero("angeschlagen", "sterbend", "eingeschränkt", "verwirrt", "niedergeworfen")
    # «sterbend» is ended by another figure; «eingeschränkt» needs a «passende Probe».
    assert shakeable(figure) == ("angeschlagen", "verwirrt", "niedergeworfen")
    assert shakeable(figure, chosen=("eingeschränkt",)) == (
        "angeschlagen", "eingeschränkt", "verwirrt", "niedergeworfen",
    )  # fmt: skip
    # «benommen» is a Glück Probe in 003 and a «passende Probe» in 000.
    assert shakeable(hero("benommen")) == ("benommen",)
    assert shakeable(hero("benommen"), RuleOptions(condition_escalation="summary")) == ()
    assert shakeable(hero()) == ()


def test_a_melee_weapon_is_freed_with_unbeugsamkeit_a_ranged_one_with_handwerk() -> None:
    freed = free_weapon(ScriptedRoller([4, 5]), hero(jammed=True), ranged=False)
    assert freed.probe is not None and freed.probe.value == 10 and freed.probe.success
    assert not freed.figure.jammed_weapon
    assert [c.kind for c in freed.changes] == ["weapon_freed"]
    stuck = free_weapon(ScriptedRoller([4, 5]), hero(jammed=True), ranged=True)
    assert stuck.probe is not None and stuck.probe.value == 6 and not stuck.probe.success
    assert stuck.figure.jammed_weapon and stuck.changes == ()


def test_conditions_count_against_freeing_and_a_free_weapon_is_refused() -> None:
    # «angeschlagen»: −2 on physical actions; Unbeugsamkeit 10 − 2: 5 + 4 = 9 fails.
    out = free_weapon(ScriptedRoller([5, 4]), hero("angeschlagen", jammed=True), ranged=False)
    assert out.probe is not None and out.probe.modifier == -2 and not out.probe.success
    with pytest.raises(ValueError):
        free_weapon(ScriptedRoller([]), hero(), ranged=False)
