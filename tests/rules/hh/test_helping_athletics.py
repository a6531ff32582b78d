"""Helfen with figures (hh.md §3) and Sprünge/Stürze of a figure (hh.md §12) in play."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from app.rules.dice import ScriptedRoller
from app.rules.hh.athletics import fall_figure, jump_figure
from app.rules.hh.helping import HELPERS_MAX, Helper, help_problems, roll_help, spend_help
from app.rules.hh.modifiers import Part, breakdown
from app.rules.hh.state import Figure, Zustand


def fig(pid: str, name: str, **kw: object) -> Figure:
    skills = MappingProxyType({"Geschick": 12, "Spürsinn": 10, "Unbeugsamkeit": 8})
    return Figure(id=pid, name=name, skills=skills, reactions_left=2, **kw)  # type: ignore[arg-type]


def test_best_successful_helper_qs_is_the_bonus_with_its_name() -> None:
    brida, cem = fig("b", "Brida"), fig("c", "Cem")
    # Brida 3+4 = 7 ≤ 10 → QS 2; Cem 9+9 on 10 → Patzer (a complication, no penalty).
    helping = roll_help(
        ScriptedRoller([3, 4, 9, 9]), [Helper(brida, "Spürsinn"), Helper(cem, "Spürsinn")],
        "action", (Part("SL", 0),),
    )  # fmt: skip
    assert helping.bonus == 2
    assert helping.part == Part("Helfen", 2, "Brida QS 2")
    target = breakdown(fig("a", "Arjun"), "Spürsinn", "action").plus(helping.part)
    assert target.describe() == "Spürsinn 10 + Helfen 2 (Brida QS 2) = 12"
    lines = helping.lines()
    assert lines[0].startswith("Helfen: Brida (Spürsinn): 2W10: 3 + 4")
    assert lines[-1] == "Patzer beim Helfen (Cem): Komplikation (SL)"
    assert [d.faces for d in helping.rolls] == [(3, 4), (9, 9)]


def test_helpers_roll_with_the_main_modifier_and_their_own_conditions() -> None:
    hurt = fig("b", "Brida", conditions=(Zustand("angeschlagen"),))
    helping = roll_help(ScriptedRoller([5, 4]), [Helper(hurt, "Geschick")], "action",
                        (Part("SL", -2),))  # fmt: skip
    # 12 − angeschlagen 2 − SL 2 = 8 < 9: the help fails, no bonus, no part shown.
    assert helping.targets[0].target == 8 and helping.bonus == 0
    assert breakdown(fig("a", "A"), "Geschick", "action").plus(helping.part).parts == ()


def test_who_may_help_and_what_it_costs() -> None:
    arjun, brida = fig("a", "Arjun"), fig("b", "Brida")
    assert help_problems(brida, arjun, in_fight=True) == []
    assert help_problems(arjun, arjun, in_fight=False) == ["niemand hilft sich selbst"]
    tired = brida.evolve(reactions_left=0)
    assert help_problems(tired, arjun, in_fight=True) == ["Brida hat keine Reaktion mehr"]
    assert help_problems(tired, arjun, in_fight=False) == []
    assert help_problems(brida.evolve(unconscious=True), arjun, in_fight=False)
    assert spend_help(brida).reactions_left == 1
    with pytest.raises(ValueError):
        spend_help(tired)
    with pytest.raises(ValueError):
        roll_help(ScriptedRoller([]), [Helper(brida, "Geschick")] * (HELPERS_MAX + 1), "action")


def test_jump_beyond_the_free_distance_needs_geschick_akrobatik() -> None:
    arjun = fig("a", "Arjun")  # Bewegung 8: 4 Schritt free
    assert jump_figure(ScriptedRoller([]), arjun, 4).result.free
    # 12 − SL 2 = 10; 3+5 = 8 → Erfolg, QS 2 → 4 Schritt: short of 6.
    out = jump_figure(ScriptedRoller([3, 5]), arjun, 6, "horizontal", (Part("SL", -2),))
    assert out.result.probe is not None and out.result.reach == 4 and not out.result.made_it
    assert out.target.describe() == "Geschick (Akrobatik) 12 − SL 2 = 10"
    high = jump_figure(ScriptedRoller([4, 5]), arjun, 2, "vertical")
    assert high.result.free  # 2 ≤ 4: free, also upwards


def test_a_fall_is_booked_as_damage_with_its_thresholds() -> None:
    arjun = fig("a", "Arjun", lp=10, lp_max=20, rs=2)
    # 9 Schritt: 3W10 brechend; catch Probe 9+9 = 18 > 12 Patzer; dice 10, 10, 10 − RS 1.
    out = fall_figure(ScriptedRoller([9, 9, 10, 10, 10]), arjun, 9, in_own_step=True)
    assert out.result.dice == 3 and out.result.dice_removed == 0
    assert out.result.damage == 27 and out.outcome.figure.lp == -17
    assert out.outcome.figure.dead  # LP ≤ −Unbeugsamkeit 8
    assert out.result.damage_roll is not None
    assert out.result.damage_roll.describe().startswith("3W10: 10 + 10 + 10")


def test_a_fall_outside_the_own_step_is_caught_with_a_reaktion() -> None:
    arjun = fig("a", "Arjun", lp=20, lp_max=20)
    # 6 Schritt: 2W10; catch 3+3 = 6 → Volltreffer, QS 2 → both dice removed.
    out = fall_figure(ScriptedRoller([3, 3]), arjun, 6, in_own_step=False)
    assert out.reaction_spent and out.outcome.figure.reactions_left == 1
    assert out.result.damage == 0 and out.result.dice_removed == 2
    spent = arjun.evolve(reactions_left=0)
    # No Reaktion: no Probe, full dice: 5 + 6 = 11 → angeschlagen at 9/20.
    out = fall_figure(ScriptedRoller([5, 6]), spent, 6, in_own_step=False)
    assert out.result.probe is None and out.outcome.figure.lp == 9
    assert out.outcome.figure.has("angeschlagen")
