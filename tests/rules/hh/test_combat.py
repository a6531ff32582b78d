from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.rules.dice import ScriptedRoller
from app.rules.hh import (
    HANDLUNGEN,
    MANEUVERS,
    REAKTIONEN,
    TABLES,
    AttackSpec,
    Figure,
    FullCover,
    RuleOptions,
    Weapon,
    Zustand,
    aim,
    aim_interrupted,
    blockade_triggers,
    cover_modifier,
    damage,
    elemental_damage,
    figure_movement,
    initiative,
    initiative_steps,
    living_cover,
    maneuver_allowed,
    morale_check,
    movement_per_action,
    rally,
    reactions,
    resolve_attack,
    resolve_maneuver,
    round_order,
    sprint_distance,
    start_of_round,
    table_entry,
    threat_zone,
    typed_damage,
)
from app.rules.hh.damage import apply_resistance, effective_rs, resistance_against
from app.rules.hh.tables import band_index, table_by_key

# --- initiative -------------------------------------------------------------------------


def test_initiative_examples() -> None:
    assert initiative_steps(15) == [15, 11, 7, 3]
    assert initiative_steps(9) == [9, 5, 1]
    assert initiative_steps(4) == [4]
    assert initiative(12, 3) == 9 and initiative(2, 5) == 1
    assert reactions(15) == 3 and reactions(9) == 2 and reactions(3) == 0


def test_round_order_same_step() -> None:
    hero = Figure("hero", side="abenteurer", initiative_value=9)
    orc = Figure("orc", side="gegner", initiative_value=9)
    cat = Figure("cat", side="neutral", initiative_value=9)
    fast = Figure("fast", side="gegner", initiative_value=13)
    dead = Figure("dead", initiative_value=20, dead=True)
    turns = round_order([cat, orc, hero, fast, dead])
    assert [(t.step, t.figure) for t in turns] == [
        (13, "fast"),
        (9, "fast"),
        (9, "hero"),
        (9, "orc"),
        (9, "cat"),
        (5, "fast"),
        (5, "hero"),
        (5, "orc"),
        (5, "cat"),
        (1, "fast"),
        (1, "hero"),
        (1, "orc"),
        (1, "cat"),
    ]
    twin = Figure("twin", side="abenteurer", initiative_value=9)
    order = [t.figure for t in round_order([hero, twin], gm_order=["twin", "hero"])][:2]
    assert order == ["twin", "hero"]


def test_initiative_from_spuersinn_and_reactions_at_round_start() -> None:
    f = Figure("a", skills={"Spürsinn": 14}, be=2)
    dazed = Figure("b", initiative_value=12, conditions=(Zustand("benommen"),), reactions_left=1)
    figs, changes = start_of_round([f, dazed])
    assert f.initiative == 12
    assert figs[0].reactions_left == 3 and figs[1].reactions_left == 0
    assert {c.figure for c in changes} == {"a", "b"}


def test_movement_variants() -> None:
    full, half = RuleOptions(), RuleOptions(movement="half")
    assert movement_per_action(8, full) == 8
    assert movement_per_action(8, half) == 4
    assert movement_per_action(3, half) == 2
    assert movement_per_action(8, full, eingeschraenkt=True) == 4
    slowed = Figure("a", bewegung=8, conditions=(Zustand("eingeschränkt"),))
    assert figure_movement(slowed, half) == 2
    assert sprint_distance(slowed) == 4 and sprint_distance(Figure("b")) == 8
    assert "sprinten" in {h.key for h in HANDLUNGEN}
    assert "blockadeangriff" in {h.key for h in REAKTIONEN}


# --- damage -----------------------------------------------------------------------------


def test_damage_example() -> None:
    assert damage([7, 5], 1, 2) == 10


def test_damage_kinds_and_resistances() -> None:
    assert damage([7, 5], 1, 5, "brechend") == 10
    assert damage([1, 1], 0, 9, "direkt") == 2
    assert damage([1], 0, 9) == 0
    assert damage([7, 5], 1, 2, resistance="resistant") == 5
    assert damage([7, 5], 1, 2, resistance="vulnerable") == 15
    assert damage([7, 5], 1, 2, resistance="immune") == 0
    assert elemental_damage([6], 0, 4) == 4  # brechend: RS 2
    assert elemental_damage([6], 0, 4, "resistant") == 1  # not brechend, then halved
    assert elemental_damage([6], 0, 4, kind="direkt") == 6
    assert typed_damage([6], 0, 4, damage_type="Feuer", resistances={"feuer": "immune"}) == 0
    assert typed_damage([6], 0, 4, damage_type="physisch") == 2
    assert resistance_against({}, "eis") == "none"
    with pytest.raises(ValueError):
        effective_rs(2, "magisch")
    with pytest.raises(ValueError):
        apply_resistance(2, "sometimes")


@given(
    st.lists(st.integers(1, 12), max_size=8),
    st.integers(-5, 10),
    st.integers(0, 20),
    st.sampled_from(["normal", "brechend", "direkt"]),
    st.sampled_from(["none", "resistant", "vulnerable", "immune"]),
)
def test_damage_never_negative_and_rs_monotone(
    rolls: list[int], bonus: int, rs: int, kind: str, res: str
) -> None:
    d = damage(rolls, bonus, rs, kind, res)
    assert d >= 0
    assert damage(rolls, bonus, rs + 1, kind, res) <= d


# --- tables -----------------------------------------------------------------------------


def test_every_2w10_sum_lands_in_exactly_one_entry() -> None:
    for name, entries in TABLES.items():
        assert len({e.key for e in entries}) == 7
        for a in range(1, 11):
            for b in range(1, 11):
                for qs in range(0, 8):
                    roll = a + b - qs
                    hits = [e for e in entries if e.contains(roll)]
                    assert hits == [table_entry(name, roll)], (name, roll)


@pytest.mark.parametrize(
    ("roll", "band"),
    [
        (-5, 0),
        (0, 0),
        (1, 1),
        (2, 1),
        (3, 2),
        (4, 2),
        (5, 3),
        (6, 3),
        (7, 4),
        (9, 4),
        (10, 5),
        (14, 5),
        (15, 6),
        (20, 6),
    ],
)
def test_bands(roll: int, band: int) -> None:
    assert band_index(roll) == band


def test_table_contents() -> None:
    e = table_entry("angriff_volltreffer", 0)
    assert e.key == "zerschmetterter_leib" and e.effect.extra_damage_dice == 2
    assert e.effect.direct_damage and e.range_label == "≤0"
    wunde = table_entry("verteidigung_patzer", 3).effect.conditions[0]
    assert (wunde.condition, wunde.resource, wunde.cause) == ("zehrend", "LP", "Blutung")
    assert table_entry("angriff_patzer", 5).effect.slide == 2
    assert table_entry("angriff_patzer", 8).effect.jammed_weapon
    assert table_entry("verteidigung_volltreffer", -1).effect.counter_attack_bonus == 2
    assert table_entry("verteidigung_volltreffer", 8).effect.free_move_divisor == 4
    assert table_entry("verteidigung_volltreffer", 12).effect.defence_bonus == 2
    k = table_entry("kontrollverlust", 0).effect.damage[0]
    assert k.per_focus and k.kind == "brechend"
    assert table_entry("kontrollverlust", 2).effect.damage[0].radius_per_focus == 5
    assert table_entry("kontrollverlust", 20).key == "harmlos_verpufft"
    assert table_by_key("angriff_patzer", "muskelriss").name == "Muskelriss"
    with pytest.raises(ValueError):
        table_entry("nope", 1)
    with pytest.raises(ValueError):
        table_by_key("angriff_patzer", "nope")


# --- attack -----------------------------------------------------------------------------

SKILLS = {"Kampfkunst": 14, "Unbeugsamkeit": 10, "Willenskraft": 10}


def fighter(fid: str, **kw: object) -> Figure:
    base: dict[str, object] = {"skills": SKILLS, "reactions_left": 2}
    base.update(kw)
    return Figure(fid, **base)  # type: ignore[arg-type]


SWORD = AttackSpec(weapon=Weapon(bonus=1))


def test_attack_undefended_damage_example() -> None:
    a, d = fighter("a"), fighter("d", rs=2, reactions_left=0)
    r = resolve_attack(ScriptedRoller([4, 5, 7, 5]), a, d, spec=SWORD)  # 9 → QS 2
    assert r.hit and r.qs == 2 and r.damage == 10 and r.defence is None
    assert r.defender.lp == 10 and r.defender.has("angeschlagen")
    assert r.damage_per_die == (6, 4)
    assert [x.sides for x in r.rolls] == [10, 10]
    assert "Treffer QS 2, 10 Schaden" in r.describe()


def test_attack_missed_ends_without_defence() -> None:
    r = resolve_attack(ScriptedRoller([9, 8]), fighter("a"), fighter("d"))
    assert not r.hit and r.defence is None and r.defender.reactions_left == 2
    assert r.describe().endswith("kein Treffer")


def test_defender_wins_comparison_costs_reaction() -> None:
    r = resolve_attack(ScriptedRoller([2, 3, 4, 5]), fighter("a"), fighter("d"))
    assert r.comparison is not None and r.comparison.winner == "defender"
    assert not r.hit and r.defender.reactions_left == 1 and r.defender.lp == 20


def test_attacker_wins_with_difference_qs_and_aim() -> None:
    a = fighter("a", aim=1)
    r = resolve_attack(ScriptedRoller([6, 7, 1, 2, 4, 4, 4]), a, fighter("d"), spec=SWORD)
    # attack 13 ≤ 16 (aim +2); defence 3; diff 10 → QS 2; +1 QS for aiming → 3 dice
    assert r.hit and r.qs == 3 and r.attacker.aim == 0
    assert r.damage == 15


def test_attack_volltreffer_table_and_effects() -> None:
    # attack 3+3 (QS 3 best), undefended → table 2W10 − 3: 5+4−3 = 6 → Kopftreffer
    d = fighter("d", reactions_left=0)
    r = resolve_attack(ScriptedRoller([3, 3, 5, 4, 1, 1, 1, 1]), fighter("a"), d)
    assert r.tables[0].entry.key == "kopftreffer" and r.tables[0].roll == 6
    assert r.damage_dice is not None and len(r.damage_dice.faces) == 4
    assert r.defender.has("verwirrt")
    assert (
        "Volltreffer beim Angriff: " in r.describe() and "angriff_volltreffer" not in r.describe()
    )


def test_zerschmetterter_leib_is_direct() -> None:
    d = fighter("d", reactions_left=0, rs=5)
    r = resolve_attack(ScriptedRoller([3, 3, 1, 1, 2, 2, 2, 2, 2]), fighter("a"), d)
    assert r.tables[0].entry.key == "zerschmetterter_leib"
    assert r.damage_kind == "direkt" and r.damage == 10


def test_attack_patzer_table() -> None:
    # Patzer 9+9 → table 2W10 − 0 = 1 → Überdehnt: 1W10 direct to the attacker
    r = resolve_attack(ScriptedRoller([9, 9, 1, 1, 6]), fighter("a"), fighter("d"))
    assert r.tables[0].entry.key == "ueberdehnt"
    assert r.attacker.lp == 14 and r.defender.lp == 20
    jam = resolve_attack(ScriptedRoller([9, 9, 4, 4]), fighter("a"), fighter("d"))
    assert jam.attacker.jammed_weapon
    slip = resolve_attack(ScriptedRoller([9, 9, 3, 3]), fighter("a"), fighter("d"))
    assert slip.attacker.has("eingeschränkt")
    assert any(c.kind == "slide" for c in slip.changes)
    fizz = resolve_attack(ScriptedRoller([9, 9, 9, 9]), fighter("a"), fighter("d"))
    assert any(c.kind == "attack_negated" for c in fizz.changes)


def test_defence_patzer_adds_dice() -> None:
    # attack 5 (QS 1) vs defence 8+8 Patzer → table 2W10 − 1: 10+6−1 = 15 → no effect
    r = resolve_attack(ScriptedRoller([2, 3, 8, 8, 10, 6, 3]), fighter("a"), fighter("d"))
    assert r.hit and r.tables[0].table == "verteidigung_patzer" and r.damage == 3
    r2 = resolve_attack(ScriptedRoller([2, 3, 8, 8, 2, 2, 3, 3]), fighter("a"), fighter("d"))
    assert r2.tables[0].entry.key == "tiefe_wunde" and r2.defender.has("zehrend")


def test_defence_volltreffer_counter_and_bonus() -> None:
    # attack 5 vs defence 6+6=12 (target 14) Volltreffer, wins; QS 3 → table 2W10 − 3
    rolls = [2, 3, 6, 6, 1, 1]  # 2 − 3 = −1 → Tödliche Konteröffnung
    r = resolve_attack(ScriptedRoller(rolls), fighter("a"), fighter("d"))
    assert r.tables[0].entry.key == "toedliche_konteroeffnung" and r.counter is None
    assert any(c.kind == "counter_attack" and c.amount == 2 for c in r.changes)
    counter = resolve_attack(
        ScriptedRoller([*rolls, 4, 5, 1, 1]),
        fighter("a"),
        fighter("d"),
        counter_spec=AttackSpec(defend=False),
    )
    assert counter.counter is not None and counter.counter.hit
    assert counter.attacker.lp < 20
    clean = resolve_attack(ScriptedRoller([2, 3, 6, 6, 7, 8]), fighter("a"), fighter("d"))
    assert clean.tables[0].entry.key == "saubere_abwehr"
    assert clean.defender.defence_bonus_against("a") == 2
    room = resolve_attack(ScriptedRoller([2, 3, 6, 6, 5, 5]), fighter("a"), fighter("d"))
    assert any(c.kind == "free_move" and c.amount == 2 for c in room.changes)


def test_cover_and_stray_hit() -> None:
    ally = fighter("ally")
    spec = AttackSpec(cover="three_quarter", living_cover=True)
    # roll 12: misses 14−4 = 10, would hit 14 → W10 3 ≤ 5 → hits the ally, who defends (fails)
    r = resolve_attack(
        ScriptedRoller([5, 7, 3, 9, 8, 1, 1, 1]),
        fighter("a"),
        fighter("d"),
        spec=spec,
        covering=ally,
    )
    assert not r.hit and r.stray is not None and r.stray.hit and r.stray.qs == 3
    assert r.stray.defender.lp < 20 and r.defender.lp == 20
    assert "Fehlschuss trifft ally" in r.describe()
    lucky = resolve_attack(
        ScriptedRoller([5, 7, 6]), fighter("a"), fighter("d"), spec=spec, covering=ally
    )
    assert lucky.stray is None and not lucky.hit
    assert cover_modifier("half") == -2 and cover_modifier("half", prone=True) == -4
    assert cover_modifier("none", prone=True) == -2
    with pytest.raises(FullCover):
        cover_modifier("full")
    with pytest.raises(ValueError):
        cover_modifier("wall")
    assert living_cover(True, "mittel", "mittel") == "half"
    assert living_cover(False, "mittel", "mittel") == "three_quarter"
    assert living_cover(False, "gross", "mittel") == "full"
    assert living_cover(True, "klein", "mittel") == "none"


def test_aiming() -> None:
    f, change = aim(fighter("a"))
    assert f.aim == 1 and change.amount == 1
    kept, p = aim_interrupted(ScriptedRoller([2, 3]), f)
    assert kept.aim == 1 and p.success
    lost, _ = aim_interrupted(ScriptedRoller([9, 8]), f)
    assert lost.aim == 0


def test_attack_requires_able_attacker() -> None:
    with pytest.raises(ValueError):
        resolve_attack(
            ScriptedRoller([]), fighter("a", conditions=(Zustand("benommen"),)), fighter("d")
        )


# --- grid -------------------------------------------------------------------------------


def test_blockade_triggers() -> None:
    pos = {"g": (0, 0), "far": (10, 10)}
    row = [(-2, 1), (-1, 1), (0, 1), (1, 1), (2, 1)]
    t = blockade_triggers(row, pos, ["g", "far", "ghost"])
    assert [(x.figure, x.square) for x in t] == [("g", (1, 1))]
    assert blockade_triggers([(-3, 0), (-2, 0), (-1, 0)], pos, ["g"]) == []  # enter, stop
    assert blockade_triggers([(1, 0), (2, 0), (3, 0)], pos, ["g"]) == []  # leave
    assert blockade_triggers([(1, 0), (1, 1)], pos, ["g"]) == []  # move inside
    around = [(1, 0), (1, 1), (0, 1), (-1, 1), (-2, 1)]
    assert blockade_triggers(around, pos, ["g"])[0].figure == "g"
    assert blockade_triggers([(-2, 2), (0, 2), (2, 2)], pos, ["g"]) == []
    reach2 = blockade_triggers([(-2, 2), (0, 2), (2, 2)], pos, ["g"], {"g": 2})
    assert reach2 and reach2[0].figure == "g"
    assert len(threat_zone((0, 0))) == 8


# --- maneuvers and morale ---------------------------------------------------------------


def test_maneuver_size_limits() -> None:
    assert maneuver_allowed("festsetzen", "mittel", "gross")
    assert not maneuver_allowed("festsetzen", "mittel", "riesig")
    assert not maneuver_allowed("umreissen", "mittel", "gross")
    assert maneuver_allowed("wegstossen", "gross", "mittel")
    assert not maneuver_allowed("entwaffnen", "mittel", "mittel", humanoid_armed=False)
    assert MANEUVERS["mitzerren"].modifier == -2


def test_maneuvers_resolve() -> None:
    a, d = fighter("a"), fighter("d", reactions_left=0)
    r = resolve_maneuver(ScriptedRoller([2, 3]), a, d, "umreissen")
    assert r.success and r.defender.has("niedergeworfen")
    r = resolve_maneuver(ScriptedRoller([2, 3]), a, d, "festsetzen")
    assert r.defender.has("benommen")
    kinds = [c.kind for c in r.outcome.changes]
    assert "grappled" in kinds
    r = resolve_maneuver(ScriptedRoller([2, 3]), a, d, "mitzerren")
    assert Counter(c.kind for c in r.outcome.changes) == Counter({"grappled": 1, "moved": 1})
    r = resolve_maneuver(ScriptedRoller([2, 3]), a, d, "wegstossen")
    assert r.outcome.changes[0].amount == 2
    r = resolve_maneuver(ScriptedRoller([2, 3]), a, d, "entwaffnen")
    assert r.outcome.changes[0].kind == "disarmed"
    defended = resolve_maneuver(ScriptedRoller([2, 3, 4, 5]), a, fighter("d"), "umreissen")
    assert not defended.success and defended.defender.reactions_left == 1
    with pytest.raises(ValueError):
        resolve_maneuver(ScriptedRoller([]), a, fighter("d", size="riesig"), "umreissen")


def test_morale() -> None:
    f = fighter("a")
    out = morale_check(ScriptedRoller([9, 8]), f)
    assert out.figure.has("entmutigt") and out.probe is not None
    assert not morale_check(ScriptedRoller([1, 2]), f, skill="Unbeugsamkeit").figure.has(
        "entmutigt"
    )
    with pytest.raises(ValueError):
        morale_check(ScriptedRoller([]), f, skill="Glück")
    sad = [fighter(str(i), conditions=(Zustand("entmutigt"),)) for i in range(5)]
    leader = Figure("l", skills={"Interaktion": 12})
    r = rally(ScriptedRoller([5, 5]), leader, sad)  # 10 ≤ 12 − 2
    assert r.probe.target == 10 and all(not f.has("entmutigt") for f in r.figures)
    fail = rally(ScriptedRoller([6, 5]), leader, sad)
    assert all(f.has("entmutigt") for f in fail.figures)
