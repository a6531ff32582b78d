"""Kampfwerte with breakdowns, class armour, validation, Stufen and the starter data."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.rules.ds4 import (
    ARMOUR,
    WEAPONS,
    Attributes,
    Character,
    Eigenschaft,
    Equipment,
    Klasse,
    Material,
    Problem,
    Slot,
    Traits,
    Volk,
    armour,
    armour_allowed,
    combat_values,
    ep_for_stufe,
    ep_to_next_stufe,
    fighter_from_character,
    has_errors,
    stufe_for_ep,
    validate_character,
    validate_creation,
    weapon,
    with_zauberbonus,
)

E = Eigenschaft

DWARF = Character(
    attributes=Attributes(koerper=8, agilitaet=6, geist=6),
    traits=Traits(staerke=3, haerte=3, bewegung=1, geschick=1, verstand=0, aura=0),
    volk=Volk.ZWERG,
    volk_bonus=E.HAERTE,
    klasse=Klasse.KRIEGER,
    klasse_bonus=E.STAERKE,
    equipment=Equipment(
        melee_weapon=weapon("axt"),
        armour=(armour("kettenpanzer"), armour("metallhelm"), armour("holzschild")),
    ),
)

ELF_MAGE = Character(
    attributes=Attributes(koerper=4, agilitaet=8, geist=8),
    traits=Traits(staerke=0, haerte=1, bewegung=2, geschick=1, verstand=2, aura=2),
    volk=Volk.ELF,
    volk_bonus=E.AURA,
    klasse=Klasse.ZAUBERER,
    klasse_bonus=E.VERSTAND,
    equipment=Equipment(melee_weapon=weapon("kampfstab"), armour=(armour("kettenpanzer"),)),
)


def codes(problems: list[Problem]) -> list[tuple[str, str]]:
    return [(p.code, p.severity) for p in problems]


def with_eq(c: Character, **kw: object) -> Character:
    return replace(c, equipment=replace(c.equipment, **kw))  # type: ignore[arg-type]


# --- Kampfwerte ----------------------------------------------------------------------------


def test_dwarf_warrior_values_and_breakdowns() -> None:
    cv = combat_values(DWARF)
    assert cv.lebenskraft.value == 22
    assert cv.lebenskraft.breakdown == (
        ("attribute:koerper", 8),
        ("trait:haerte", 4),
        ("constant", 10),
    )
    assert cv.abwehr.value == 17
    assert cv.abwehr.breakdown == (
        ("attribute:koerper", 8),
        ("trait:haerte", 4),
        ("armour:kettenpanzer", 2),
        ("armour:metallhelm", 1),
        ("armour:holzschild", 1),
        ("volk:zwerg_zaeh", 1),
    )
    assert cv.initiative.value == 6
    assert ("armour:metallhelm", -1) in cv.initiative.breakdown
    assert cv.laufen.value == 3.5
    assert cv.laufen.breakdown == (
        ("attribute:agilitaet/2", 3.0),
        ("constant", 1.0),
        ("armour:kettenpanzer", -0.5),
    )
    assert cv.schlagen.value == 13
    assert cv.schlagen.breakdown[-1] == ("weapon:axt", 1)
    assert cv.schiessen.value == 7
    assert cv.zaubern.value == 2
    assert cv.zielzauber.value == 3


def test_klassenfremde_ruestung_quadruples_spell_malus_and_lowers_agi() -> None:
    cv = combat_values(ELF_MAGE)
    assert cv.initiative.value == 8 - 2 + 2
    assert ("klassenfremd:kettenpanzer", -2) in cv.initiative.breakdown
    assert cv.laufen.value == 4 - 1 + 1 - 0.5
    assert ("klassenfremd:kettenpanzer", -1.0) in cv.laufen.breakdown
    assert cv.schiessen.value == 8 - 2 + 1
    assert cv.zaubern.value == 8 + 3 - 8
    assert cv.zaubern.breakdown[-2:] == (
        ("armour:kettenpanzer", -2),
        ("klassenfremd:kettenpanzer", -6),
    )
    assert cv.zielzauber.value == 8 + 1 - 8 + 1
    assert cv.zielzauber.breakdown[-1] == ("weapon:kampfstab", 1)
    assert cv.abwehr.value == 4 + 1 + 2
    assert codes(validate_character(ELF_MAGE)) == [("armour_not_allowed_for_class", "warning")]
    assert validate_character(ELF_MAGE)[0].params == {
        "armour": "kettenpanzer",
        "klasse": "zauberer",
        "pa": 2,
    }


def test_mage_in_a_robe_has_no_penalties() -> None:
    mage = with_eq(ELF_MAGE, armour=(armour("robe"),))
    cv = combat_values(mage)
    assert cv.zaubern.value == 11 and cv.zielzauber.value == 10
    assert cv.initiative.value == 10 and cv.laufen.value == 5.0
    assert validate_character(mage) == []


def test_unarmed_and_ranged_weapon_in_hand() -> None:
    c = with_eq(DWARF, melee_weapon=None, ranged_weapon=weapon("armbrust_schwer"), in_hand="ranged")
    cv = combat_values(c)
    assert cv.schlagen.breakdown[-1] == ("weapon:waffenlos", 0)
    assert cv.schiessen.value == 6 + 1 + 3
    assert ("weapon:armbrust_schwer", -4) in cv.initiative.breakdown
    assert cv.initiative.value == 6 + 1 - 1 - 4


def test_zauberbonus_for_a_spell() -> None:
    z = with_zauberbonus(combat_values(ELF_MAGE).zielzauber, 3, "feuerstrahl")
    assert z.value == 5 and z.breakdown[-1] == ("spell:feuerstrahl", 3)


def test_fighter_from_character() -> None:
    f = fighter_from_character("gruffneck", DWARF)
    assert (f.lebenskraft, f.koerper, f.abwehr, f.schlagen) == (22, 8, 17, 13)
    assert f.can_defend and not f.prone
    down = fighter_from_character("gruffneck", DWARF, lebenskraft=-2)
    assert down.lebenskraft == -2 and not down.can_defend


# --- class armour table --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("klasse", "allowed"),
    [
        (Klasse.KRIEGER, set(ARMOUR)),
        (Klasse.SPAEHER, set(ARMOUR) - {"plattenpanzer"}),
        (
            Klasse.HEILER,
            {"robe", "lederpanzer", "lederschienen", "holzschild", "metallschild", "turmschild"},
        ),
        (Klasse.ZAUBERER, {"robe", "holzschild", "metallschild", "turmschild"}),
        (Klasse.SCHWARZMAGIER, {"robe", "holzschild", "metallschild", "turmschild"}),
    ],
)
def test_class_armour_table(klasse: Klasse, allowed: set[str]) -> None:
    assert {a.id for a in ARMOUR.values() if armour_allowed(klasse, a)} == allowed


# --- equipment validation ------------------------------------------------------------------


@pytest.mark.parametrize("wid", ["bihaender", "schlachtbeil"])
def test_dwarf_weapon_ban_melee(wid: str) -> None:
    problems = validate_character(with_eq(DWARF, melee_weapon=weapon(wid), armour=()))
    assert codes(problems) == [("weapon_not_for_dwarves", "error")]
    assert problems[0].params == {"weapon": wid}


@pytest.mark.parametrize("wid", ["langbogen", "elfenbogen"])
def test_dwarf_weapon_ban_ranged(wid: str) -> None:
    problems = validate_character(with_eq(DWARF, ranged_weapon=weapon(wid)))
    assert codes(problems) == [("weapon_not_for_dwarves", "error")]


def test_elf_may_use_a_longbow() -> None:
    assert validate_character(with_eq(ELF_MAGE, ranged_weapon=weapon("langbogen"))) != []
    elf = with_eq(ELF_MAGE, ranged_weapon=weapon("langbogen"), armour=())
    assert validate_character(elf) == []


def test_shield_with_two_handed_weapon_in_hand() -> None:
    c = with_eq(DWARF, melee_weapon=weapon("streitaxt"))
    assert codes(validate_character(c)) == [("shield_with_two_handed_weapon", "error")]
    bow_on_back = with_eq(DWARF, ranged_weapon=weapon("kurzbogen"))
    assert validate_character(bow_on_back) == []
    bow_in_hand = replace(bow_on_back, equipment=replace(bow_on_back.equipment, in_hand="ranged"))
    assert codes(validate_character(bow_in_hand)) == [("shield_with_two_handed_weapon", "error")]


def test_weapon_in_the_wrong_slot() -> None:
    c = with_eq(DWARF, melee_weapon=weapon("kurzbogen"), ranged_weapon=weapon("dolch"), armour=())
    problems = validate_character(c)
    assert codes(problems) == [("weapon_wrong_slot", "error")] * 2
    assert [p.params["slot"] for p in problems] == ["melee", "ranged"]


def test_one_piece_per_slot() -> None:
    c = with_eq(DWARF, armour=(armour("metallhelm"), armour("metallhelm")))
    problems = validate_character(c)
    assert codes(problems) == [("slot_used_twice", "error")]
    assert problems[0].params == {"slot": "helmet", "items": "metallhelm, metallhelm"}
    mixed = with_eq(DWARF, armour=(armour("lederschienen"), armour("plattenbeinschienen")))
    assert [p.params["slot"] for p in validate_character(mixed)] == ["leg"]
    plate = with_eq(DWARF, armour=(armour("plattenarmschienen"), armour("plattenbeinschienen")))
    assert validate_character(plate) == []
    two_bodies = with_eq(DWARF, armour=(armour("robe"), armour("lederpanzer")))
    assert [p.params["slot"] for p in validate_character(two_bodies)] == ["body"]
    two_shields = with_eq(DWARF, armour=(armour("holzschild"), armour("turmschild")))
    assert [p.params["slot"] for p in validate_character(two_shields)] == ["shield"]


def test_healer_restrictions_are_warnings() -> None:
    healer = replace(
        ELF_MAGE,
        klasse=Klasse.HEILER,
        equipment=Equipment(armour=(armour("lederpanzer"), armour("metallhelm"))),
    )
    problems = validate_character(healer)
    assert codes(problems) == [("armour_not_allowed_for_class", "warning")]
    assert not has_errors(problems)
    assert problems[0].params["armour"] == "metallhelm"


# --- creation ------------------------------------------------------------------------------


def test_valid_creation() -> None:
    assert validate_creation(DWARF) == []
    assert validate_character(DWARF, creation=True) == []


def test_creation_limits() -> None:
    c = replace(
        DWARF,
        attributes=Attributes(koerper=9, agilitaet=8, geist=4),
        traits=Traits(staerke=5, haerte=1, bewegung=1, geschick=1, verstand=0, aura=-1),
    )
    assert codes(validate_creation(c)) == [
        ("attribute_above_max", "error"),
        ("attribute_points_exceeded", "error"),
        ("trait_above_max", "error"),
        ("trait_negative", "error"),
        ("trait_points_unspent", "warning"),
    ]


def test_trait_max_is_before_bonuses() -> None:
    c = replace(
        DWARF, traits=Traits(staerke=4, haerte=4, bewegung=0, geschick=0, verstand=0, aura=0)
    )
    assert validate_creation(c) == []
    assert c.trait(E.STAERKE) == 5 and c.trait(E.HAERTE) == 5


def test_creation_other_limits() -> None:
    c = replace(
        DWARF,
        attributes=Attributes(koerper=8, agilitaet=8, geist=2),
        volk_bonus=E.AURA,
        klasse_bonus=E.GESCHICK,
        ep=50,
    )
    problems = validate_creation(c)
    assert codes(problems) == [
        ("attribute_points_unspent", "warning"),
        ("volk_bonus_not_allowed", "error"),
        ("klasse_bonus_not_allowed", "error"),
        ("creation_ep_not_zero", "error"),
    ]
    assert problems[1].params == {"volk": "zwerg", "trait": "aura"}
    assert has_errors(problems)


def test_mensch_may_raise_any_trait() -> None:
    for e in Eigenschaft:
        human = replace(DWARF, volk=Volk.MENSCH, volk_bonus=e, equipment=Equipment())
        assert validate_creation(human) == []


def test_validate_character_after_creation() -> None:
    c = replace(DWARF, ep=-1, klasse_bonus=E.AURA)
    assert codes(validate_character(c)) == [
        ("klasse_bonus_not_allowed", "error"),
        ("ep_negative", "error"),
    ]
    veteran = replace(DWARF, ep=650, attributes=Attributes(koerper=9, agilitaet=7, geist=6))
    assert validate_character(veteran) == []
    assert veteran.stufe == 4


# --- Stufen --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ep", "stufe"),
    [(0, 1), (99, 1), (100, 2), (299, 2), (300, 3), (19999, 19), (20000, 20), (10**6, 20)],
)
def test_stufe_for_ep(ep: int, stufe: int) -> None:
    assert stufe_for_ep(ep) == stufe


def test_ep_for_stufe_and_next() -> None:
    assert [ep_for_stufe(s) for s in (1, 2, 10, 20)] == [0, 100, 4500, 20000]
    assert ep_to_next_stufe(0) == 100
    assert ep_to_next_stufe(17800) == 2200
    assert ep_to_next_stufe(20000) is None
    for bad in (0, 21):
        with pytest.raises(ValueError, match="Stufe"):
            ep_for_stufe(bad)
    with pytest.raises(ValueError, match="negative"):
        stufe_for_ep(-1)


# --- starter data --------------------------------------------------------------------------

# id: (WB, INI, GA, 2h, not for dwarves, ranged)
WEAPON_TABLE = {
    "axt": (1, 0, 0, False, False, False),
    "armbrust_leicht": (2, -2, 0, True, False, True),
    "armbrust_schwer": (3, -4, -2, True, False, True),
    "bihaender": (3, -2, -4, True, True, False),
    "elfenbogen": (3, 1, 0, True, True, True),
    "kurzbogen": (1, 1, 0, True, False, True),
    "langbogen": (2, 1, 0, True, True, True),
    "dolch": (0, 1, 0, False, False, False),
    "flegel": (2, -2, 0, False, False, False),
    "hammer": (1, 0, -1, False, False, False),
    "hellebarde": (2, -2, 0, True, False, False),
    "kampfstab": (1, 0, 0, True, False, False),
    "keule": (1, 0, 0, False, False, False),
    "schlachtbeil": (4, -6, -4, True, True, False),
    "breitschwert": (1, 0, -2, False, False, False),
    "kurzschwert": (1, 0, 0, False, False, False),
    "langschwert": (2, 0, 0, False, False, False),
    "speer": (1, 0, 0, False, False, False),
    "streitaxt": (3, -2, 0, True, False, False),
    "streitkolben": (1, 0, -1, False, False, False),
    "waffenlos": (0, 0, 5, False, False, False),
}

# id: (PA, material, slots, INI, Laufen)
ARMOUR_TABLE = {
    "robe": (0, Material.STOFF, {Slot.BODY}, 0, 0.0),
    "lederpanzer": (1, Material.LEDER, {Slot.BODY}, 0, 0.0),
    "lederschienen": (1, Material.LEDER, {Slot.ARM, Slot.LEG}, 0, 0.0),
    "kettenpanzer": (2, Material.KETTE, {Slot.BODY}, 0, -0.5),
    "plattenarmschienen": (1, Material.PLATTE, {Slot.ARM}, 0, -0.5),
    "plattenbeinschienen": (1, Material.PLATTE, {Slot.LEG}, 0, -0.5),
    "plattenpanzer": (3, Material.PLATTE, {Slot.BODY}, 0, -1.0),
    "metallhelm": (1, None, {Slot.HELMET}, -1, 0.0),
    "holzschild": (1, None, {Slot.SHIELD}, 0, 0.0),
    "metallschild": (1, None, {Slot.SHIELD}, 0, -0.5),
    "turmschild": (2, None, {Slot.SHIELD}, 0, -1.0),
}


def test_weapon_table() -> None:
    got = {
        w.id: (w.wb, w.ini, w.ga, w.two_handed, w.not_for_dwarves, w.ranged)
        for w in WEAPONS.values()
    }
    assert got == WEAPON_TABLE
    assert weapon("kampfstab").zielzauber == 1
    assert {w.id for w in WEAPONS.values() if w.wooden} == {
        "kampfstab",
        "keule",
        "kurzbogen",
        "langbogen",
        "elfenbogen",
    }


def test_armour_table() -> None:
    got = {a.id: (a.pa, a.material, set(a.slots), a.ini, a.laufen) for a in ARMOUR.values()}
    assert got == ARMOUR_TABLE
    assert armour("robe").is_cloth and not armour("lederpanzer").is_cloth


def test_unknown_ids() -> None:
    with pytest.raises(KeyError):
        weapon("lichtschwert")
    with pytest.raises(KeyError):
        armour("mithril")
