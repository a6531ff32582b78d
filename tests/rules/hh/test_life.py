import pytest

from app.rules.dice import ScriptedRoller
from app.rules.hh import (
    CONDITIONS,
    Figure,
    RuleOptions,
    Zustand,
    apply_condition,
    apply_damage,
    end_of_round,
    heal,
    modifier_for,
    remove_condition,
    shake_off,
    stabilise,
    sterbend_probe,
)
from app.rules.hh.conditions import condition_def
from app.rules.hh.life import angeschlagen_threshold, death_threshold, remove_zustand
from app.rules.hh.state import parent_skill, size_rank, skill_category

FULL, SUMMARY = RuleOptions(), RuleOptions(condition_escalation="summary")
SK = {"Unbeugsamkeit": 10, "Willenskraft": 12, "Spürsinn": 11, "Heilkunde": 12, "Glück": 9}


def hero(**kw: object) -> Figure:
    base: dict[str, object] = {"skills": SK, "reactions_left": 2}
    base.update(kw)
    return Figure("h", **base)  # type: ignore[arg-type]


def with_(*keys: str, **kw: object) -> Figure:
    return hero(conditions=tuple(Zustand(k) for k in keys), **kw)


# --- modifiers --------------------------------------------------------------------------


def test_modifiers_by_category_and_kind() -> None:
    assert modifier_for(["angeschlagen"], "physical", "attack") == -2
    assert modifier_for(["angeschlagen"], "physical", "defence") == -2
    assert modifier_for(["angeschlagen"], "mental", "action") == 0
    assert modifier_for(["eingeschränkt"], "magical", "defence") == -2
    assert modifier_for(["eingeschränkt"], "physical", "attack") == 0
    assert modifier_for(["entmutigt"], "magical", "attack") == -2
    assert modifier_for(["entmutigt"], "physical", "action") == 0
    assert modifier_for(["niedergeworfen"], "physical", "defence") == -2
    assert modifier_for(["niedergeworfen"], "physical", "reaction") == 0
    assert modifier_for([Zustand("verwirrt")], "magical", "action") == -2
    assert modifier_for(["verwirrt"], "physical", "action") == 0
    assert (
        modifier_for(["angeschlagen", "niedergeworfen", "eingeschränkt"], "physical", "defence")
        == -6
    )
    assert modifier_for(["angeschlagen"], "physical", "other") == 0
    assert modifier_for(["verwirrt"], "none", "action") == 0
    with pytest.raises(ValueError):
        modifier_for([], "physical", "dance")
    with pytest.raises(ValueError):
        condition_def("verzaubert")
    assert set(CONDITIONS) == {
        "angeschlagen",
        "benommen",
        "eingeschränkt",
        "entmutigt",
        "niedergeworfen",
        "sterbend",
        "verwirrt",
        "zehrend",
    }


def test_state_helpers() -> None:
    assert parent_skill("Kampfkunst (waffenlos)") == "Kampfkunst"
    assert skill_category("Magiekunde (Wegmagie)") == "magical"
    assert skill_category("Tanzen") == "physical"
    assert size_rank("winzig") == 0
    with pytest.raises(ValueError):
        size_rank("enorm")
    npc = Figure("n", monsterstufe=7, skills={"Kampfkunst": 12})
    assert npc.skill("Kampfkunst (Schwert)") == 12 and npc.skill("Geschick") == 7
    assert Figure("x").skill("Geschick") == 0
    z = Zustand("zehrend", "LP", "Feuer")
    assert z.label == "zehrend (LP, Feuer)" and Zustand("zehrend").label == "zehrend"
    assert not z.same_kind(Zustand("zehrend", "LP", "Blutung"))
    assert not z.same_kind(Zustand("verwirrt"))


# --- escalation -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "full", "summary"),
    [
        ("angeschlagen", "benommen", None),
        ("benommen", "verwirrt", None),
        ("eingeschränkt", "benommen", "niedergeworfen"),
        ("entmutigt", "benommen", None),
        ("niedergeworfen", "eingeschränkt", "eingeschränkt"),
        ("verwirrt", "benommen", None),
    ],
)
def test_escalation_to_condition(key: str, full: str, summary: str | None) -> None:
    f = with_(key)
    assert apply_condition(ScriptedRoller([]), f, key, FULL).figure.has(full)
    if summary:
        assert apply_condition(ScriptedRoller([]), f, key, SUMMARY).figure.has(summary)


def test_summary_escalation_damage() -> None:
    out = apply_condition(ScriptedRoller([6]), with_("angeschlagen", rs=2), "angeschlagen", SUMMARY)
    assert out.figure.lp == 16 and out.rolls[0].faces == (6,)  # 1W10 by cause, RS applies
    out = apply_condition(ScriptedRoller([6]), with_("benommen", rs=2), "benommen", SUMMARY)
    assert out.figure.lp == 14  # direct
    out = apply_condition(ScriptedRoller([4]), with_("entmutigt"), "entmutigt", SUMMARY)
    assert out.figure.wp == 6 and out.figure.lp == 20
    out = apply_condition(ScriptedRoller([]), with_("verwirrt"), "verwirrt", SUMMARY)
    assert out.figure.lose_next_action
    both = with_("eingeschränkt", "niedergeworfen")
    assert apply_condition(ScriptedRoller([3]), both, "eingeschränkt", SUMMARY).figure.lp == 17
    for opts in (FULL, SUMMARY):
        out = apply_condition(ScriptedRoller([5]), with_("sterbend", lp=-1), "sterbend", opts)
        assert out.figure.lp == -6


def test_zehrend_same_kind_again() -> None:
    burning = hero(conditions=(Zustand("zehrend", "LP", "Feuer"),), rs=2)
    out = apply_condition(ScriptedRoller([7]), burning, Zustand("zehrend", "LP", "Feuer"))
    assert out.figure.lp == 15  # armour applies
    mana = hero(conditions=(Zustand("zehrend", "WP", "Mana"),))
    out = apply_condition(ScriptedRoller([3]), mana, Zustand("zehrend", "WP", "Mana"))
    assert out.figure.wp == 7
    other = apply_condition(ScriptedRoller([]), burning, Zustand("zehrend", "LP", "Blutung"))
    assert len(other.figure.conditions) == 2
    assert other.figure.conditions[1].probe_skill == "Unbeugsamkeit"


def test_escalation_cycle_stops() -> None:
    f = with_("angeschlagen", "benommen", "verwirrt")
    out = apply_condition(ScriptedRoller([]), f, "angeschlagen", FULL)
    assert out.figure.conditions == f.conditions and out.changes == ()


# --- shaking off ------------------------------------------------------------------------


def test_shake_off() -> None:
    out = shake_off(ScriptedRoller([2, 3]), with_("angeschlagen"), "angeschlagen")
    assert not out.figure.has("angeschlagen") and out.probe is not None
    out = shake_off(ScriptedRoller([9, 8]), with_("verwirrt"), "verwirrt")
    assert out.figure.has("verwirrt")
    assert not shake_off(ScriptedRoller([]), with_("niedergeworfen"), "niedergeworfen").figure.has(
        "niedergeworfen"
    )
    out = shake_off(ScriptedRoller([2, 3]), with_("benommen"), "benommen")
    assert out.probe is not None and out.probe.value == 9  # Glück (003)
    with pytest.raises(ValueError):
        shake_off(ScriptedRoller([]), with_("benommen"), "benommen", SUMMARY)
    out = shake_off(
        ScriptedRoller([2, 3]), with_("benommen"), "benommen", SUMMARY, skill="Willenskraft"
    )
    assert not out.figure.has("benommen")
    with pytest.raises(ValueError):
        shake_off(ScriptedRoller([]), with_("sterbend"), "sterbend")
    with pytest.raises(ValueError):
        shake_off(ScriptedRoller([]), hero(), "verwirrt")
    assert remove_condition(hero(), "verwirrt").changes == ()
    assert remove_zustand(hero(), Zustand("verwirrt")).changes == ()


# --- damage, dying ----------------------------------------------------------------------


def test_thresholds() -> None:
    assert angeschlagen_threshold(21) == 10 and death_threshold(10) == -10
    out = apply_damage(ScriptedRoller([]), hero(), 10)
    assert out.figure.lp == 10 and out.figure.has("angeschlagen")
    out = apply_damage(ScriptedRoller([]), hero(), 9)
    assert not out.figure.has("angeschlagen")
    assert apply_damage(ScriptedRoller([]), hero(), 0).changes == ()


def test_unbeugsamkeit_10_dies_at_minus_10() -> None:
    at_9 = apply_damage(ScriptedRoller([]), hero(lp=0, conditions=(Zustand("sterbend"),)), 9)
    assert at_9.figure.lp == -9 and not at_9.figure.dead
    at_10 = apply_damage(ScriptedRoller([]), at_9.figure, 1)
    assert at_10.figure.dead
    once = apply_damage(ScriptedRoller([]), hero(), 30)  # a single attack from 20 to −10
    assert once.figure.dead and once.figure.has("sterbend")
    assert apply_damage(ScriptedRoller([]), once.figure, 5).figure.lp == -10


def test_dying_non_lethal_and_npc() -> None:
    out = apply_damage(ScriptedRoller([]), hero(), 22)
    assert out.figure.has("sterbend") and not out.figure.dead and not out.figure.can_act
    nl = apply_damage(ScriptedRoller([]), hero(), 25, non_lethal=True)
    assert nl.figure.lp == 0 and nl.figure.unconscious and not nl.figure.has("sterbend")
    again = apply_damage(ScriptedRoller([]), nl.figure, 3, non_lethal=True)
    assert again.figure.has("sterbend") and again.figure.lp == -3
    npc = apply_damage(ScriptedRoller([]), hero(drops_at_zero=True), 20)
    assert npc.figure.unconscious and [c.kind for c in npc.changes][-1] == "out"
    wp = apply_damage(ScriptedRoller([]), hero(), 15, resource="WP")
    assert wp.figure.wp == 0
    feet = apply_damage(ScriptedRoller([]), hero(on_feet=True, lp=0), 3)
    assert not feet.figure.has("sterbend")


def test_heal() -> None:
    dying = hero(lp=-3, conditions=(Zustand("sterbend"),))
    assert heal(dying, 5).figure.has("sterbend")
    out = heal(hero(lp=0, unconscious=True), 30)
    assert out.figure.lp == 20 and not out.figure.unconscious
    assert heal(hero(dead=True), 5).changes == ()


@pytest.mark.parametrize(
    ("faces", "stabilised", "dead", "lp"),
    [
        ((2, 2), True, False, -2),  # Volltreffer
        ((2, 3), False, False, -2),  # success
        ((6, 5, 4), False, False, -6),  # failure → 1W10
        ((8, 8), False, True, -2),  # Patzer
        ((6, 5, 9), False, True, -11),  # failure and dies
    ],
)
def test_sterbend_probe(faces: tuple[int, ...], stabilised: bool, dead: bool, lp: int) -> None:
    f = hero(lp=-2, conditions=(Zustand("sterbend"),))
    out = sterbend_probe(ScriptedRoller(faces), f)
    assert (not out.figure.has("sterbend")) == stabilised
    assert out.figure.dead == dead and out.figure.lp == lp
    assert len(out.all_rolls) == (1 if len(faces) == 2 else 2)


def test_sterbend_probe_needs_dying() -> None:
    with pytest.raises(ValueError):
        sterbend_probe(ScriptedRoller([]), hero())


def test_stabilise() -> None:
    dying = hero(lp=-2, conditions=(Zustand("sterbend"),))
    medic = Figure("m", skills={"Heilkunde": 12})
    out = stabilise(ScriptedRoller([2, 3]), medic, dying)
    assert not out.figure.has("sterbend") and out.figure.unconscious
    assert any(c.kind == "stabilised" for c in out.changes)
    out = stabilise(ScriptedRoller([9, 9, 4]), medic, dying)
    assert out.figure.lp == -6 and out.figure.has("sterbend")
    assert stabilise(ScriptedRoller([6, 7]), medic, dying).figure == dying
    with pytest.raises(ValueError):
        stabilise(ScriptedRoller([]), dying, dying)
    with pytest.raises(ValueError):
        stabilise(ScriptedRoller([]), medic, hero())
    with pytest.raises(ValueError):
        stabilise(ScriptedRoller([]), medic.evolve(dead=True), dying)


# --- end of round -----------------------------------------------------------------------


def test_end_of_round_order() -> None:
    bleeding = hero(lp=3, conditions=(Zustand("zehrend", "LP", "Blutung", "Heilkunde"),))
    dying = Figure("d", skills=SK, lp=-1, conditions=(Zustand("sterbend"),))
    mana = Figure("w", skills=SK, conditions=(Zustand("zehrend", "WP", "Mana", "Magiekunde"),))
    # h: zehrend 5 → LP −2 (sterbend), Heilkunde 2+3 ends it; w: 4 WP, Magiekunde 0 → fails
    # then sterbend Probes: h 2+3 survives; d 2+2 Volltreffer → stabilised
    r = end_of_round(ScriptedRoller([5, 2, 3, 4, 6, 5, 2, 3, 2, 2]), [bleeding, dying, mana])
    h, d, w = r.figures
    assert h.lp == -2 and h.has("sterbend") and not h.has("zehrend")
    assert w.wp == 6 and w.has("zehrend")
    assert not d.has("sterbend") and d.unconscious
    assert [p.reason for p in r.probes] == [
        "zehrend (LP, Blutung)",
        "zehrend (WP, Mana)",
        "sterbend",
        "sterbend",
    ]
    assert len(r.rolls) == 6 and r.figure("d") is d


def test_end_of_round_zehrend_kills() -> None:
    f = hero(
        lp=-9,
        conditions=(
            Zustand("sterbend"),
            Zustand("zehrend", "LP", "Feuer"),
            Zustand("zehrend", "LP", "Säure"),
        ),
    )
    r = end_of_round(ScriptedRoller([4]), [f, Figure("dead", dead=True)])
    assert r.figures[0].dead and r.probes == ()
