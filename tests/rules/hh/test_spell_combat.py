"""A spell cast in combat (hh.md §9): ``magic.resolve_cast`` books what the cast did."""

from __future__ import annotations

import pytest

from app.rules.dice import ScriptedRoller
from app.rules.hh.damage import typed_damage
from app.rules.hh.magic import (
    Caster,
    KnownSpell,
    Spell,
    SpellEffect,
    magic_defence,
    resolve_cast,
    spell_distance,
)
from app.rules.hh.state import Figure, Zustand

FEUERBALL = SpellEffect("Feuerball", range=25, damage_die=6, damage_bonus=1, defended=True)
HAND = SpellEffect("Schockhand", range=0, condition="benommen", defended=True)


def mage(lp: int = 20) -> Caster:
    figure = Figure("mira", "Mira", skills={"Magiekunde": 14, "Willenskraft": 12}, lp=lp)
    return Caster(figure, learned=(KnownSpell("feuerball", "B"), KnownSpell("hand", "C")))


def ork(*, reactions: int = 0, magiekunde: int = 12, **kw: object) -> Figure:
    return Figure(
        "ork", "Ork", "gegner", skills={"Magiekunde": magiekunde}, rs=1, be=1,
        reactions_left=reactions, **kw,  # type: ignore[arg-type]
    )  # fmt: skip


def test_a_hit_deals_qs_dice_of_magic_damage_against_rs_and_resistance() -> None:
    target = ork(resistances={"magie": "resistant"})
    out = resolve_cast(
        ScriptedRoller([3, 4, *[6] * 8]), mage(), Spell("feuerball"), FEUERBALL,
        target=target, distance=12,
    )  # fmt: skip
    assert out.ok and out.success and out.cast is not None
    assert out.cast.defence is None  # no Reaktion left: no defence
    assert out.distance == 12 and out.cast.wirkprobe is not None
    assert out.cast.wirkprobe.modifier == -2  # 11–25 Schritt
    qs = out.cast.qs
    assert qs >= 1 and out.damage_roll is not None
    assert out.damage_roll.faces == (6,) * qs
    expected = typed_damage([6] * qs, 1, 1, damage_type="magie", resistances={"magie": "resistant"})
    assert out.damage == expected > 0
    assert out.target is not None and out.target.lp == 20 - expected
    assert [r.faces for r in out.rolls][:2] == [(3, 4), (6,) * qs]
    assert out.caster == mage().figure and out.kontrollverlust is None


def test_a_defence_spends_a_reaction_and_may_hold() -> None:
    target = ork(reactions=2)
    out = resolve_cast(
        ScriptedRoller([4, 5, 6, 4]), mage(), Spell("feuerball"), FEUERBALL,
        target=target, distance=5,
    )  # fmt: skip
    assert out.ok and out.cast is not None and out.cast.defence is not None
    assert out.cast.defence.target == magic_defence(target) == 11
    assert out.cast.opposed is not None and out.cast.opposed.winner == "defender"
    assert not out.success and out.damage == 0 and out.damage_roll is None
    assert out.target == target.evolve(reactions_left=1)
    assert [r.faces for r in out.rolls] == [(4, 5), (6, 4)]


def test_at_beruehrung_there_is_no_defence_and_the_condition_is_given() -> None:
    target = ork(reactions=2)
    out = resolve_cast(
        ScriptedRoller([2, 3, *[5] * 10]), mage(), Spell("hand"), HAND, target=target,
        distance=40,
    )  # fmt: skip
    assert out.ok and out.distance == "beruehrung" and out.success
    assert out.cast is not None and out.cast.defence is None
    assert out.cast.wirkprobe is not None and out.cast.wirkprobe.modifier == 2
    assert out.target is not None and out.target.has("benommen")
    assert out.target.reactions_left == 2
    assert any(c.kind == "condition_added" for c in out.target_changes)


def test_a_failed_spell_without_a_target_changes_nothing() -> None:
    out = resolve_cast(ScriptedRoller([9, 8]), mage(), Spell("feuerball"), FEUERBALL)
    assert out.ok and not out.success and out.target is None
    assert out.caster == mage().figure and out.target_changes == ()


@pytest.mark.parametrize(
    ("target", "distance", "grade", "error", "params"),
    [
        (Figure("mira"), 5, None, "self_target", {}),
        (ork(dead=True), 5, None, "target_dead", {"name": "Ork"}),
        (ork(), 26, None, "beyond_spell_range", {"range": 25}),
        (ork(), 5, "X", "unknown_grade", {}),
        (ork(), 5, "S", "grade_too_high", {"grade": "S", "mastered": "B"}),
    ],
)
def test_refusals_roll_nothing(
    target: Figure, distance: int, grade: str | None, error: str, params: dict[str, object]
) -> None:
    out = resolve_cast(
        ScriptedRoller([]), mage(), Spell("feuerball"), FEUERBALL, target=target,
        distance=distance, grade=grade,
    )  # fmt: skip
    assert not out.ok and out.error == error and dict(out.params) == params
    assert out.rolls == () and out.target is None


def test_a_patzer_books_its_kontrollverlust_on_the_caster() -> None:
    out = resolve_cast(
        ScriptedRoller([9, 9, *[1] * 30]), mage(), Spell("feuerball"), FEUERBALL,
        target=ork(), distance=5,
    )  # fmt: skip
    assert out.ok and not out.success and out.cast is not None
    assert out.cast.wirkprobe is not None and out.cast.wirkprobe.patzer
    loss, booked = out.cast.kontrollverlust, out.kontrollverlust
    assert loss is not None and booked is not None
    assert out.caster == booked.figure
    lp = sum(c.amount for c in booked.changes if c.kind == "lp")
    assert booked.figure.lp == mage().figure.lp + lp
    conditions = {z.key for z in booked.figure.conditions}
    granted = {g.condition for g in loss.entry.effect.conditions if g.target == "caster"}
    assert granted <= conditions
    assert out.rolls == (*out.cast.wirkprobe.rolls, *loss.rolls, *booked.rolls)
    assert out.target == ork()  # a failed spell leaves its target alone


def test_spell_distance() -> None:
    assert spell_distance(HAND, 100) == "beruehrung"
    assert spell_distance(FEUERBALL, 25) == 25
    assert spell_distance(FEUERBALL, 26) is None


def test_the_target_conditions_modify_its_defence() -> None:
    assert magic_defence(ork()) == 12 - 1  # Magiekunde − BE
    assert magic_defence(ork(conditions=(Zustand("verwirrt"),))) == 12 - 1 - 2
    assert magic_defence(ork(conditions=(Zustand("entmutigt"),))) == 12 - 1
