"""Flächenzauber and Arkane Explosion in the engine (issue 27; docs/rules/hh.md
«Flächeneffekte»): ``resolve_area_cast``, ``area_spell_hit``, ``area_spell_distance``,
``explosion_damage`` and ``book_explosion``."""

from __future__ import annotations

from app.rules.dice import ScriptedRoller
from app.rules.hh.magic import (
    AREA_DEFENCE_SKILL,
    Caster,
    Focus,
    KnownSpell,
    Spell,
    SpellEffect,
    area_defence,
    area_spell_distance,
    area_spell_hit,
    book_explosion,
    explosion_damage,
    resolve_area_cast,
)
from app.rules.hh.probe import evaluate_probe
from app.rules.hh.state import Figure, Zustand

FEUERBALL = SpellEffect("Feuerball", range=25, damage_die=6, damage_bonus=1, area=True)
WELLE = SpellEffect("Welle", range=0, damage_die=6, area=True)
FUNKE = SpellEffect("Funke", range=10, damage_die=6)


def mage(focus: int = 0) -> Caster:
    figure = Figure("mira", "Mira", skills={"Magiekunde": 14, "Willenskraft": 12}, lp=20)
    held = Focus("feuerball", focus) if focus else None
    known = (KnownSpell("feuerball", "B"), KnownSpell("welle", "C"), KnownSpell("funke", "C"))
    return Caster(figure, learned=known, focus=held)


def goblin(**kw: object) -> Figure:
    values: dict[str, object] = {"lp": 12, "rs": 1, "be": 1, "reactions_left": 1, **kw}
    return Figure("gob", "Goblin", "gegner", skills={"Unbeugsamkeit": 8}, **values)  # type: ignore[arg-type]


def test_the_distance_is_the_areas_start_and_range_zero_radiates_from_the_caster() -> None:
    assert area_spell_distance(FEUERBALL, 12) == 12
    assert area_spell_distance(FEUERBALL, 26) is None
    assert area_spell_distance(WELLE, 1) == 0  # no Berührung bonus for an area
    assert area_spell_distance(WELLE, 2) is None


def test_the_area_cast_is_the_wirkprobe_with_focus_and_range_and_nothing_opposed() -> None:
    out = resolve_area_cast(
        ScriptedRoller([3, 4]), mage(focus=1), Spell("feuerball", 1), FEUERBALL, distance=12
    )
    assert out.ok and out.cast is not None and out.cast.wirkprobe is not None
    # Magiekunde 14, −2 for up to 25 Schritt; 7 → QS 2, +1 for the focus.
    assert out.cast.wirkprobe.target == 12 and out.cast.qs == 3 and out.cast.defence is None
    assert out.distance == 12 and out.target is None and len(out.rolls) == 1


def test_an_area_cast_is_refused_for_a_plain_spell_and_beyond_its_range() -> None:
    roller = ScriptedRoller([3, 4])
    assert resolve_area_cast(roller, mage(), Spell("funke"), FUNKE).error == "not_an_area_spell"
    far = resolve_area_cast(roller, mage(), Spell("feuerball"), FEUERBALL, distance=30)
    assert far.error == "beyond_spell_range"
    needs = resolve_area_cast(roller, mage(), Spell("feuerball", 2), FEUERBALL, distance=3)
    assert needs.error == "focus_required"
    assert roller.remaining == 2  # nothing rolled


def test_a_patzer_books_the_kontrollverlust_with_the_explosion_radius() -> None:
    # 10 + 10 Patzer; Kontrollverlust 1 + 1 = 2 → Arkane Explosion; 1W10: 8 (RS 0: 8).
    out = resolve_area_cast(ScriptedRoller([10, 10, 1, 1, 8]), mage(), Spell("feuerball"),
                            FEUERBALL, distance=5)  # fmt: skip
    assert out.cast is not None and out.cast.kontrollverlust is not None
    loss = out.cast.kontrollverlust
    assert loss.key == "arkane_explosion" and loss.area_radius == 5
    assert out.caster is not None and out.caster.lp == 12


def test_each_figure_defends_with_unbeugsamkeit_the_winner_takes_the_difference() -> None:
    wirk = evaluate_probe((4, 5), 14, extra_qs=1)  # 9, QS 2 + focus 1
    out = area_spell_hit(ScriptedRoller([2, 3, 6, 6, *[5] * 4]), wirk, goblin(), FEUERBALL)
    assert out.defence is not None and out.defence_target is not None
    assert out.defence_target.skill == AREA_DEFENCE_SKILL
    assert out.defence_target.target == 7  # Unbeugsamkeit 8 − BE 1
    # 9 beats 5: qs(4) = 1, + the focus bonus of the winning caster.
    assert out.hit and out.qs == 2 and out.target.reactions_left == 0
    assert out.damage_roll is not None and out.damage_roll.faces == (6, 6)
    assert out.damage == (6 + 1 - 1) * 2 and out.target.lp == 12 - 12


def test_a_defence_that_wins_stops_the_spell_and_no_reaction_means_the_wirkprobe_qs() -> None:
    wirk = evaluate_probe((2, 3), 14)  # 5, QS 1
    held = area_spell_hit(ScriptedRoller([3, 4]), wirk, goblin(), FEUERBALL)
    assert not held.hit and held.damage == 0 and held.target.reactions_left == 0
    open_ = area_spell_hit(ScriptedRoller([4]), wirk, goblin(reactions_left=0), FEUERBALL)
    assert open_.hit and open_.defence is None and open_.qs == 1
    assert open_.damage == 4 + 1 - 1 and open_.target.lp == 12 - 4
    waived = area_spell_hit(ScriptedRoller([4]), wirk, goblin(), FEUERBALL, defend=False)
    assert waived.hit and waived.target.reactions_left == 1


def test_the_defence_takes_conditions_and_the_glueck_bonus() -> None:
    shaken = goblin(conditions=(Zustand("angeschlagen"),))
    b = area_defence(shaken, 4)
    assert b.target == 8 - 1 - 2 + 4
    assert [p.label for p in b.parts][-1] == "Glück"


def test_the_explosion_is_one_roll_less_each_figures_rs_brechend() -> None:
    tough = goblin(rs=4)
    assert explosion_damage(tough, (8,)) == 8 - 2
    assert explosion_damage(goblin(resistances={"magie": "resistant"}), (8,)) == 4
    booked, amount = book_explosion(ScriptedRoller([]), tough, (8,))
    assert amount == 6 and booked.figure.lp == 6 and booked.figure.has("angeschlagen")
