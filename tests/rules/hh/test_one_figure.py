"""The engine's part of issue 13: one modifier path with its breakdown, «zehrend» causes
as typed, LP written by hand, one Handlung per step, Treffer entgehen."""

from __future__ import annotations

from app.rules.dice import ScriptedRoller
from app.rules.hh import AttackSpec, Weapon, resolve_attack
from app.rules.hh.attack import attack_breakdown, defence_breakdown
from app.rules.hh.conditions import zehrend, zustand_from_label
from app.rules.hh.initiative import handlung_left
from app.rules.hh.life import set_lp
from app.rules.hh.modifiers import Part, breakdown
from app.rules.hh.state import Figure, Zustand


def hero(**kw: object) -> Figure:
    values: dict[str, object] = {
        "id": "a", "skills": {"Kampfkunst": 12, "Unbeugsamkeit": 10}, "lp": 10, "lp_max": 21,
        "be": 2, "gp": 1, "conditions": (Zustand("angeschlagen"),), "reactions_left": 1,
    }  # fmt: skip
    values.update(kw)
    return Figure(**values)  # type: ignore[arg-type]


def test_the_breakdown_names_every_modifier() -> None:
    b = breakdown(hero(), "Kampfkunst", "attack", (Part("Deckung", -2), Part("SL", 0)))
    assert b.describe() == "Kampfkunst 12 − BE 2 − angeschlagen 2 − Deckung 2 = 6"
    assert b.target == 6
    # Actions are not reduced by BE; «eingeschränkt» hits reactions only.
    fig = hero(conditions=(Zustand("angeschlagen"), Zustand("eingeschränkt")))
    assert breakdown(fig, "Kampfkunst", "action").target == 10
    assert breakdown(fig, "Kampfkunst", "defence").target == 6


def test_attack_and_defence_targets_come_from_the_breakdown() -> None:
    spec = AttackSpec(cover="half", modifier=1)
    b = attack_breakdown(hero(), spec)
    assert [p.label for p in b.parts] == ["BE", "angeschlagen", "Deckung", "Modifikator"]
    assert b.target == 12 - 2 - 2 - 2 + 1
    assert defence_breakdown(hero(), "x", spec).target == 8


def test_zehrend_takes_the_resource_from_the_cause_as_typed() -> None:
    assert zehrend("LP, Blutung").label == "zehrend (LP, Blutung)"
    assert zehrend("WP, Gift") == Zustand("zehrend", "WP", "Gift")
    assert zehrend("Blutung") == Zustand("zehrend", "LP", "Blutung")
    assert zustand_from_label("zehrend (LP, Blutung)").label == "zehrend (LP, Blutung)"
    assert zustand_from_label(" Angeschlagen ") == Zustand("angeschlagen")


def test_lp_written_by_hand_add_the_threshold_conditions_without_dice() -> None:
    out = set_lp(hero(conditions=(), lp=21), 10)
    assert out.figure.has("angeschlagen") and not out.figure.has("sterbend")
    out = set_lp(out.figure, 0)
    assert out.figure.has("sterbend") and not out.figure.dead
    assert set_lp(out.figure, -10).figure.dead
    assert set_lp(out.figure, 5).figure.has("sterbend")  # healing does not end it (§7)


def test_one_handlung_per_step() -> None:
    assert handlung_left(0) and not handlung_left(1) and handlung_left(1, granted=1)


def test_treffer_entgehen_halves_the_damage_before_it_is_booked() -> None:
    attacker = Figure(id="g", skills={"Kampfkunst": 10})
    target = hero(conditions=(), rs=1, be=0)
    spec = AttackSpec(weapon=Weapon(die=6, bonus=1), defend=False, halve_damage=True)
    # Attack 2+3 = 5 ≤ 10 (QS 1), damage W6 6 + 1 − RS 1 = 6, halved to 3 for 1 GP.
    result = resolve_attack(ScriptedRoller([2, 3, 6]), attacker, target, spec=spec)
    assert result.damage == 3 and result.defender.lp == 7 and result.defender.gp == 0
