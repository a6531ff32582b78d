"""Magie (hh.md §9): Güteklassen, Fokus, Kontrollprobe, Wirkprobe, Kontrollverlust."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.dice import ScriptedRoller
from app.rules.hh.magic import (
    GRADES,
    Caster,
    Focus,
    KnownSpell,
    Spell,
    add_focus,
    cast_spell,
    check_cast,
    focus_qs_bonus,
    grade_rank,
    interrupt,
    kontrollprobe_modifier,
    kontrollprobe_target,
    kontrollverlust_value,
    range_modifier,
    roll_kontrollverlust,
    weaker_grade_bonus,
)
from app.rules.hh.options import RuleOptions
from app.rules.hh.probe import success_probability
from app.rules.hh.state import Figure, Zustand
from app.rules.hh.tables import table_entry

FEUERBALL = Spell("feuerball", focus=2)
LICHT = Spell("licht")


def mage(
    *,
    magiekunde: int = 14,
    willenskraft: int = 12,
    rs: int = 0,
    conditions: tuple[Zustand, ...] = (),
    focus: Focus | None = None,
    free_hand: bool = True,
    zauberfokus: bool = False,
    spellbook: tuple[KnownSpell, ...] = (),
) -> Caster:
    figure = Figure(
        "mira",
        skills={"Magiekunde": magiekunde, "Willenskraft": willenskraft},
        rs=rs,
        conditions=conditions,
    )
    return Caster(
        figure,
        learned=(KnownSpell("feuerball", "B"), KnownSpell("licht", "C")),
        spellbook=spellbook,
        free_hand=free_hand,
        zauberfokus=zauberfokus,
        focus=focus,
    )


# --- Güteklassen and range ------------------------------------------------------------


def test_grades_ordered() -> None:
    assert GRADES == ("C", "B", "A", "S")
    assert [grade_rank(g) for g in GRADES] == [0, 1, 2, 3]
    with pytest.raises(ValueError):
        grade_rank("D")  # type: ignore[arg-type]


def test_weaker_grade_bonus_two_per_grade() -> None:
    assert weaker_grade_bonus("S", "S") == 0
    assert weaker_grade_bonus("S", "C") == 6
    assert weaker_grade_bonus("A", "B") == 2
    with pytest.raises(ValueError):
        weaker_grade_bonus("C", "B")


@pytest.mark.parametrize(
    ("distance", "modifier"),
    [
        ("beruehrung", 2),
        (0, 0),
        (10, 0),
        (11, -2),
        (25, -2),
        (26, -4),
        (100, -4),
        (101, -6),
        (250, -6),
        (251, None),
    ],
)
def test_range_modifier(distance: int | str, modifier: int | None) -> None:
    assert range_modifier(distance) == modifier  # type: ignore[arg-type]


def test_range_negative() -> None:
    with pytest.raises(ValueError):
        range_modifier(-1)


# --- focus ------------------------------------------------------------------------------


def test_add_focus_accumulates_per_spell() -> None:
    f = add_focus(None, "feuerball")
    assert f == Focus("feuerball", 1)
    f = add_focus(f, "feuerball")
    assert f == Focus("feuerball", 2)
    assert add_focus(f, "licht") == Focus("licht", 1)


def test_mastered_grade_from_talent_and_book() -> None:
    caster = mage(spellbook=(KnownSpell("feuerball", "A"), KnownSpell("blitz", "C")))
    assert caster.mastered_grade("feuerball") == "A"
    assert caster.mastered_grade("blitz") == "C"
    assert caster.mastered_grade("nebel") is None


def test_focus_qs_bonus_variants() -> None:
    per_focus = RuleOptions(focus_qs="per_focus")
    assert focus_qs_bonus(0) == 0
    assert focus_qs_bonus(3) == 1
    assert focus_qs_bonus(3, per_focus) == 3
    assert focus_qs_bonus(0, per_focus) == 0


def test_kontrollprobe_two_per_focus() -> None:
    assert kontrollprobe_modifier(0) == 0
    assert kontrollprobe_modifier(3) == -6
    assert kontrollprobe_target(12, 2) == 8
    assert kontrollprobe_target(12, 2, modifier=1) == 9


@settings(deadline=None)
@given(st.integers(0, 25), st.integers(0, 8))
def test_more_focus_never_makes_kontrollprobe_easier(willenskraft: int, focus: int) -> None:
    assert kontrollprobe_target(willenskraft, focus + 1) < kontrollprobe_target(willenskraft, focus)
    easier = success_probability(willenskraft, kontrollprobe_modifier(focus))
    harder = success_probability(willenskraft, kontrollprobe_modifier(focus + 1))
    assert harder <= easier


@settings(deadline=None)
@given(st.integers(2, 20), st.integers(0, 8), st.booleans())
def test_more_focus_never_raises_kontrollverlust_roll(total: int, focus: int, patzer: bool) -> None:
    assert kontrollverlust_value(total, focus + 1, patzer) < kontrollverlust_value(
        total, focus, patzer
    )
    assert kontrollverlust_value(total, focus, True) == kontrollverlust_value(total, focus) - 4


# --- Kontrollverlust --------------------------------------------------------------------

# 2W10 − focus (− 4) → expected entry key, straight from the seed table
KV_BANDS = [
    (0, "arkane_implosion"),
    (1, "arkane_explosion"),
    (2, "arkane_explosion"),
    (3, "manabrand"),
    (4, "manabrand"),
    (5, "fehlzauber"),
    (6, "fehlzauber"),
    (7, "rueckkopplung"),
    (9, "rueckkopplung"),
    (10, "innere_verwerfung"),
    (14, "innere_verwerfung"),
    (15, "harmlos_verpufft"),
]


def _expected_key(value: int) -> str:
    if value <= 0:
        return "arkane_implosion"
    return [k for v, k in KV_BANDS if v <= value][-1]


def test_kontrollverlust_exhaustive_over_faces() -> None:
    """Every face pair, focus 0..3, with and without Kontrollprobe Patzer."""
    caster = Figure("mira", rs=0)
    for (a, b), focus, patzer in itertools.product(
        itertools.product(range(1, 11), repeat=2), range(4), (False, True)
    ):
        value = a + b - focus - (4 if patzer else 0)
        roller = ScriptedRoller([a, b, *[1] * 10])
        result = roll_kontrollverlust(roller, caster, focus, kontrollprobe_patzer=patzer)
        assert result.value == value
        assert result.key == _expected_key(value)
        assert result.dice.faces == (a, b)
        assert not result.glueck_reroll_allowed


def test_arkane_implosion_focus_plus_one_dice_brechend() -> None:
    # focus 2: 2W10 = 1 + 1 = 2 − 2 = 0 → implosion: 3W10 (6, 3, 1), RS 4 → brechend RS 2
    caster = Figure("mira", rs=4)
    result = roll_kontrollverlust(ScriptedRoller([1, 1, 6, 3, 1]), caster, 2)
    assert result.key == "arkane_implosion"
    assert result.effect_rolls[0].faces == (6, 3, 1)
    assert [c.as_dict() for c in result.changes] == [
        {"figure": "mira", "kind": "lp", "amount": -5, "condition": "", "detail": "brechend"}
    ]
    assert [r.faces for r in result.rolls] == [(1, 1), (6, 3, 1)]


def test_arkane_explosion_radius_and_area_roll() -> None:
    caster = Figure("mira", rs=2)
    result = roll_kontrollverlust(ScriptedRoller([2, 2, 7]), caster, 2)  # 4 − 2 = 2
    assert result.key == "arkane_explosion"
    assert result.area_radius == 15
    assert result.area_damage_roll is not None and result.area_damage_roll.faces == (7,)
    assert result.changes[0].kind == "lp" and result.changes[0].amount == -6


def test_manabrand_fehlzauber_rueckkopplung_verwerfung_verpufft() -> None:
    caster = Figure("mira")
    mana = roll_kontrollverlust(ScriptedRoller([2, 1]), caster, 0)
    assert mana.key == "manabrand"
    assert (mana.changes[0].kind, mana.changes[0].condition) == ("condition_added", "zehrend")
    assert mana.changes[0].detail == "WP, Mana"
    fehl = roll_kontrollverlust(ScriptedRoller([3, 2]), caster, 0)
    assert fehl.key == "fehlzauber" and fehl.changes[0].kind == "complication"
    rueck = roll_kontrollverlust(ScriptedRoller([4, 4, 6]), caster, 0)
    assert rueck.key == "rueckkopplung"
    assert [(c.kind, c.amount, c.condition) for c in rueck.changes] == [
        ("wp", -6, ""),
        ("condition_added", 0, "angeschlagen"),
    ]
    verw = roll_kontrollverlust(ScriptedRoller([6, 6]), caster, 0)
    assert verw.key == "innere_verwerfung" and verw.changes[0].condition == "verwirrt"
    puff = roll_kontrollverlust(ScriptedRoller([9, 8]), caster, 0)
    assert puff.key == "harmlos_verpufft" and puff.changes == ()


def test_kontrollverlust_custom_lookup() -> None:
    seen: list[tuple[str, int]] = []

    def lookup(table: str, roll: int):  # type: ignore[no-untyped-def]
        seen.append((table, roll))
        return table_entry(table, 20)

    result = roll_kontrollverlust(ScriptedRoller([1, 1]), Figure("x"), 1, lookup=lookup)
    assert seen == [("kontrollverlust", 1)] and result.key == "harmlos_verpufft"


# --- interruption -----------------------------------------------------------------------


def test_interrupt_without_focus_does_nothing() -> None:
    result = interrupt(ScriptedRoller([]), mage())
    assert result.probe is None and result.focus_lost == 0 and not result.spell_failed
    assert result.rolls == () and result.changes == ()


def test_interrupt_success_loses_focus_safely() -> None:
    # Willenskraft 12 − 2 × 2 = 8; roll 3 + 4 = 7 → success
    result = interrupt(ScriptedRoller([3, 4]), mage(focus=Focus("feuerball", 2)))
    assert result.probe is not None and result.probe.target == 8 and result.probe.success
    assert result.focus_lost == 2 and result.focus_after is None and not result.spell_failed


def test_interrupt_failure_kontrollverlust() -> None:
    # target 8; roll 5 + 4 = 9 → failure; Kontrollverlust 2W10 = 6 + 5 = 11 − 2 = 9
    caster = mage(focus=Focus("feuerball", 2))
    result = interrupt(ScriptedRoller([5, 4, 6, 5, 3]), caster)
    assert result.spell_failed
    assert result.kontrollverlust is not None
    assert result.kontrollverlust.value == 9 and result.kontrollverlust.key == "rueckkopplung"
    assert [r.faces for r in result.rolls] == [(5, 4), (6, 5), (3,)]
    assert result.changes[0].amount == -3


def test_interrupt_patzer_minus_four_more() -> None:
    # target 8; roll 5 + 5 = 10 → Patzer; Kontrollverlust 7 + 7 = 14 − 2 − 4 = 8
    caster = mage(focus=Focus("feuerball", 2))
    result = interrupt(ScriptedRoller([5, 5, 7, 7, 1]), caster)
    assert result.probe is not None and result.probe.patzer
    assert result.kontrollverlust is not None
    assert result.kontrollverlust.kontrollprobe_patzer
    assert result.kontrollverlust.value == 8


def test_interrupt_not_modified_by_conditions() -> None:
    caster = mage(focus=Focus("feuerball", 1), conditions=(Zustand("verwirrt"),))
    result = interrupt(ScriptedRoller([5, 5]), caster)
    assert result.probe is not None and result.probe.target == 10


# --- casting ----------------------------------------------------------------------------


def test_check_cast_errors() -> None:
    assert check_cast(mage(), LICHT) is None
    stunned = mage(conditions=(Zustand("benommen"),))
    assert check_cast(stunned, LICHT) == ("cannot_act", {})
    assert check_cast(mage(), Spell("nebel")) == ("spell_unknown", {"spell": "nebel"})
    assert check_cast(mage(), LICHT, grade="B") == (
        "grade_too_high",
        {"grade": "B", "mastered": "C"},
    )
    assert check_cast(mage(free_hand=False), LICHT) == ("no_free_hand", {})
    assert check_cast(mage(free_hand=False, zauberfokus=True), LICHT) is None
    assert check_cast(mage(), LICHT, distance=300) == (
        "out_of_range",
        {"distance": 300, "max": 250},
    )
    assert check_cast(mage(), FEUERBALL) == ("focus_required", {"needed": 2, "have": 0})
    other = mage(focus=Focus("licht", 3))
    assert check_cast(other, FEUERBALL) == ("focus_required", {"needed": 2, "have": 0})
    assert check_cast(mage(focus=Focus("feuerball", 2)), FEUERBALL) is None


def test_cast_refused_rolls_nothing() -> None:
    result = cast_spell(ScriptedRoller([]), mage(), FEUERBALL)
    assert not result.ok and result.error == "focus_required"
    assert dict(result.params) == {"needed": 2, "have": 0}
    assert result.rolls == () and result.wirkprobe is None


def test_touch_cannot_be_defended() -> None:
    result = cast_spell(ScriptedRoller([]), mage(), LICHT, distance="beruehrung", defence=10)
    assert result.error == "touch_needs_willing_target"


def test_cast_unfocused_spell() -> None:
    # Magiekunde 14, 5 Schritt ±0: roll 3 + 4 = 7 → QS 2
    result = cast_spell(ScriptedRoller([3, 4]), mage(), LICHT, distance=5)
    assert result.ok and result.success and result.qs == 2 and result.grade == "C"
    assert result.wirkprobe is not None and result.wirkprobe.target == 14
    assert result.focus_used == 0 and result.focus_bonus == 0 and result.focus_after is None
    assert [r.faces for r in result.rolls] == [(3, 4)]


def test_cast_range_touch_and_weaker_grade() -> None:
    caster = mage(spellbook=(KnownSpell("licht", "A"),))
    result = cast_spell(ScriptedRoller([3, 4]), caster, LICHT, grade="C", distance="beruehrung")
    # 14 + 2 (touch) + 4 (two grades lower)
    assert result.wirkprobe is not None and result.wirkprobe.target == 20
    far = cast_spell(ScriptedRoller([3, 4]), mage(), LICHT, distance=200, modifier=-1)
    assert far.wirkprobe is not None and far.wirkprobe.target == 7


def test_focused_spell_gets_one_qs_on_success() -> None:
    caster = mage(focus=Focus("feuerball", 2))
    result = cast_spell(ScriptedRoller([3, 4]), caster, FEUERBALL, distance=20)
    # 14 − 2 = 12; roll 7 → QS 2 + 1
    assert result.success and result.qs == 3 and result.focus_bonus == 1
    assert result.focus_used == 2 and result.focus_after is None
    per_focus = cast_spell(
        ScriptedRoller([3, 4]), caster, FEUERBALL, RuleOptions(focus_qs="per_focus"), distance=20
    )
    assert per_focus.qs == 4 and per_focus.focus_bonus == 2


def test_focus_bonus_only_on_success() -> None:
    caster = mage(focus=Focus("feuerball", 2))
    result = cast_spell(ScriptedRoller([9, 8]), caster, FEUERBALL)
    assert not result.success and result.qs == 0 and result.focus_bonus == 0
    assert result.focus_used == 2 and result.kontrollverlust is None


def test_wirkprobe_patzer_kontrollverlust_without_extra_penalty() -> None:
    # roll 8 + 8 = 16 > 14 → Patzer; Kontrollverlust 2W10 = 2 + 1 = 3 − 2 focus = 1
    caster = mage(focus=Focus("feuerball", 2))
    result = cast_spell(ScriptedRoller([8, 8, 2, 1, 5]), caster, FEUERBALL)
    assert result.wirkprobe is not None and result.wirkprobe.patzer
    assert result.kontrollverlust is not None
    assert result.kontrollverlust.value == 1 and result.kontrollverlust.key == "arkane_explosion"
    assert result.kontrollverlust.area_radius == 15
    assert result.changes == result.kontrollverlust.changes
    assert [r.faces for r in result.rolls] == [(8, 8), (2, 1), (5,)]


def test_conditions_modify_wirkprobe_as_magical_action() -> None:
    confused = mage(conditions=(Zustand("verwirrt"),))
    result = cast_spell(ScriptedRoller([3, 4]), confused, LICHT)
    assert result.wirkprobe is not None and result.wirkprobe.target == 12
    raw = cast_spell(ScriptedRoller([3, 4]), confused, LICHT, apply_conditions=False)
    assert raw.wirkprobe is not None and raw.wirkprobe.target == 14
    shaken = mage(conditions=(Zustand("angeschlagen"),))  # physical only
    result = cast_spell(ScriptedRoller([3, 4]), shaken, LICHT)
    assert result.wirkprobe is not None and result.wirkprobe.target == 14


def test_opposed_by_defence_caster_wins_with_focus_bonus() -> None:
    # Wirkprobe 6 + 5 = 11 ≤ 12, defence 5 + 3 = 8 ≤ 10 → diff 3 → QS 1, +1 for the focus
    caster = mage(focus=Focus("feuerball", 2))
    result = cast_spell(ScriptedRoller([6, 5, 5, 3]), caster, FEUERBALL, distance=20, defence=10)
    assert result.defence is not None and result.defence.roll == 8
    assert result.opposed is not None and result.opposed.winner == "attacker"
    assert result.success and result.qs == 2
    assert [r.faces for r in result.rolls] == [(6, 5), (5, 3)]


def test_opposed_by_defence_defender_wins() -> None:
    caster = mage()
    result = cast_spell(ScriptedRoller([3, 4, 5, 4]), caster, LICHT, defence=10)
    assert result.opposed is not None and result.opposed.winner == "defender"
    assert not result.success and result.qs == 0


def test_exhaustive_wirkprobe_faces() -> None:
    """For every face pair: success/QS follow the Probe, +1 QS when focused, Patzer → loss."""
    caster = mage(focus=Focus("feuerball", 1))
    for a, b in itertools.product(range(1, 11), repeat=2):
        result = cast_spell(ScriptedRoller([a, b, 10, 10]), caster, Spell("feuerball", 1))
        probe = result.wirkprobe
        assert probe is not None and probe.faces == (a, b)
        assert result.success == probe.success
        assert result.qs == (probe.qs if probe.success else 0)
        if probe.success:
            assert probe.extra_qs == 1
        assert (result.kontrollverlust is not None) == probe.patzer
