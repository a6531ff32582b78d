"""Proficiency, attributes and derived statistics."""

from __future__ import annotations

import pytest

from app.rules.pf2e import (
    Attribute,
    Modifier,
    Rank,
    Save,
    Statistic,
    armor_class,
    attribute_modifier,
    attribute_modifier_of,
    dc_from_modifier,
    perception,
    proficiency_bonus,
    proficiency_modifier,
    saving_throw,
    skill,
    spellcasting,
    weapon_attack,
)


@pytest.mark.parametrize("level", [-1, 0, 1, 5, 20, 25])
def test_proficiency_table(level: int) -> None:
    assert proficiency_bonus("untrained", level) == 0
    assert proficiency_bonus("trained", level) == level + 2
    assert proficiency_bonus("expert", level) == level + 4
    assert proficiency_bonus("master", level) == level + 6
    assert proficiency_bonus("legendary", level) == level + 8


def test_rank_labels_and_modifier() -> None:
    assert [r.label for r in Rank] == ["Ungeübt", "Geübt", "Experte", "Meister", "Legende"]
    mod = proficiency_modifier("expert", 3)
    assert mod == Modifier("Kompetenzbonus (Experte)", "proficiency", 7)
    assert proficiency_bonus(Rank.MASTER, 1) == 7


@pytest.mark.parametrize(("rank", "level"), [("novice", 1), ("trained", -2), ("trained", True)])
def test_proficiency_refuses(rank: str, level: int) -> None:
    with pytest.raises(ValueError):
        proficiency_bonus(rank, level)


@pytest.mark.parametrize(
    ("score", "mod"), [(1, -5), (8, -1), (9, -1), (10, 0), (11, 0), (12, 1), (18, 4), (19, 4)]
)
def test_attribute_modifier(score: int, mod: int) -> None:
    assert attribute_modifier(score) == mod


def test_attribute_modifier_refuses_nonsense() -> None:
    for bad in (0, -3, True, 10.0):
        with pytest.raises(ValueError):
            attribute_modifier(bad)  # type: ignore[arg-type]


def test_attribute_labels() -> None:
    assert [(a.label, a.abbreviation) for a in Attribute] == [
        ("Stärke", "ST"),
        ("Geschicklichkeit", "GE"),
        ("Konstitution", "KO"),
        ("Intelligenz", "IN"),
        ("Weisheit", "WE"),
        ("Charisma", "CH"),
    ]
    assert attribute_modifier_of("wisdom", 3) == Modifier("Weisheit", "attribute", 3)


def test_seed_reflex_plus_4_gives_reflex_dc_14() -> None:
    # level 1, trained (+3), Dex +1 → Reflex +4
    reflex = saving_throw("reflex", level=1, rank="trained", attribute_modifier=1)
    assert reflex.modifier == 4
    assert reflex.dc == 14
    assert reflex.name == "Reflex"
    assert reflex.dc_name == "Reflex-SG"
    assert dc_from_modifier(4) == 14


def test_saves_use_their_attributes_and_names() -> None:
    assert [(s.label, s.dc_name, s.attribute) for s in Save] == [
        ("Zähigkeit", "Zähigkeits-SG", Attribute.CONSTITUTION),
        ("Reflex", "Reflex-SG", Attribute.DEXTERITY),
        ("Wille", "Willens-SG", Attribute.WISDOM),
    ]
    will = saving_throw(
        "will",
        level=3,
        rank="expert",
        attribute_modifier=2,
        modifiers=[Modifier("Heldenmut", "status", 1)],
    )
    assert will.breakdown.applied[0].source == "Weisheit"
    assert will.modifier == 2 + 7 + 1
    assert will.dc == 20


def test_perception_and_dc() -> None:
    p = perception(level=2, rank="trained", wisdom_modifier=3)
    assert (p.name, p.modifier, p.dc, p.dc_name) == ("Wahrnehmung", 7, 17, "Wahrnehmungs-SG")


def test_skill_with_key_attribute_and_untrained() -> None:
    athletics = skill("Athletik", "strength", level=4, rank="untrained", attribute_modifier=3)
    assert athletics.modifier == 3
    assert athletics.dc_name == "Athletik-SG"
    assert athletics.dc == 13
    assert athletics.breakdown.applied[0].source == "Stärke"


def test_armor_class_with_dex_cap() -> None:
    # RK = 10 + GE (max cap) + proficiency + armour item bonus + others
    ac = armor_class(
        level=1,
        rank="trained",
        dexterity_modifier=4,
        dex_cap=1,
        armor_bonus=4,
        armor_name="Kettenhemd",
        modifiers=[Modifier("Schild erhoben", "circumstance", 2)],
    )
    assert ac.dc == 10 + 1 + 3 + 4 + 2
    assert ac.name == "RK" and ac.dc_name == "RK"
    sources = [m.source for m in ac.breakdown.applied]
    assert sources[0] == "Geschicklichkeit (GE-Limit +1)"
    assert "Kettenhemd" in sources


def test_armor_class_cap_does_not_raise_low_dex_and_unarmoured() -> None:
    ac = armor_class(level=1, rank="trained", dexterity_modifier=-1, dex_cap=2, armor_bonus=2)
    assert ac.dc == 10 - 1 + 3 + 2
    unarmoured = armor_class(level=5, rank="expert", dexterity_modifier=4)
    assert unarmoured.dc == 10 + 4 + 9
    assert [m.type for m in unarmoured.modifiers] == ["attribute", "proficiency"]


def test_weapon_attacks_melee_finesse_ranged() -> None:
    common = {"level": 1, "rank": "trained", "strength_modifier": 1, "dexterity_modifier": 4}
    melee = weapon_attack("Langschwert", ranged=False, **common)  # type: ignore[arg-type]
    assert melee.modifier == 1 + 3
    assert melee.name == "Nahkampfangriff (Langschwert)"
    rapier = weapon_attack(
        "Rapier",
        ranged=False,
        finesse=True,
        item_bonus=1,
        **common,  # type: ignore[arg-type]
    )
    assert rapier.modifier == 4 + 3 + 1
    assert rapier.breakdown.ignored[0].modifier.source == "Stärke"
    bow = weapon_attack("Kurzbogen", ranged=True, **common)  # type: ignore[arg-type]
    assert bow.modifier == 4 + 3
    assert bow.name == "Fernkampfangriff (Kurzbogen)"


def test_spellcasting_attack_and_dc() -> None:
    spells = spellcasting(
        "wisdom",
        level=5,
        rank="expert",
        attribute_modifier=4,
        modifiers=[Modifier("Kränkelnd", "status", -1)],
    )
    assert spells.modifier == 4 + 9 - 1
    assert spells.dc == 10 + 4 + 9 - 1
    assert (spells.name, spells.dc_name) == ("Zauberangriff", "Zauber-SG")


def test_statistic_with_modifiers_and_default_dc_name() -> None:
    base = Statistic("Heimlichkeit", [Modifier("Geschicklichkeit", "attribute", 2)])  # type: ignore[arg-type]
    assert base.modifiers == (Modifier("Geschicklichkeit", "attribute", 2),)
    more = base.with_modifiers([Modifier("Nebel", "circumstance", 2)])
    assert (more.modifier, more.dc, more.dc_name) == (4, 14, "Heimlichkeit-SG")
    assert base.modifier == 2
