"""Modifier stacking and its breakdown."""

from __future__ import annotations

import pytest

from app.rules.pf2e import (
    MODIFIER_TYPES,
    IgnoreReason,
    Modifier,
    stack_modifiers,
    total_modifier,
)


def test_seed_heroism_and_sickened_both_apply() -> None:
    heroism = Modifier("Heldenmut", "status", 1)
    sickened = Modifier("Kränkelnd", "status", -2)
    assert total_modifier([heroism, sickened]) == -1
    breakdown = stack_modifiers([heroism, sickened])
    assert breakdown.applied == (heroism, sickened)
    assert breakdown.ignored == ()


def test_best_attribute_only() -> None:
    strength = Modifier("Stärke", "attribute", 1)
    dexterity = Modifier("Geschicklichkeit", "attribute", 4)
    breakdown = stack_modifiers([strength, dexterity])
    assert breakdown.total == 4
    assert breakdown.applied == (dexterity,)
    (ignored,) = breakdown.ignored
    assert ignored.modifier == strength
    assert ignored.reason is IgnoreReason.BETTER_ATTRIBUTE
    assert ignored.superseded_by == dexterity
    assert "besserer Attributsmodifikator" in ignored.label


def test_best_proficiency_only() -> None:
    a = Modifier("Kompetenzbonus (Geübt)", "proficiency", 3)
    b = Modifier("Kompetenzbonus (Experte)", "proficiency", 5)
    breakdown = stack_modifiers([a, b])
    assert breakdown.total == 5
    assert breakdown.ignored[0].reason is IgnoreReason.BETTER_PROFICIENCY


@pytest.mark.parametrize("kind", ["circumstance", "item", "status"])
def test_typed_highest_bonus_plus_worst_penalty(kind: str) -> None:
    mods = [
        Modifier("B1", kind, 1),
        Modifier("B2", kind, 2),
        Modifier("P1", kind, -1),
        Modifier("P3", kind, -3),
    ]
    breakdown = stack_modifiers(mods)
    assert breakdown.total == 2 - 3
    assert [m.source for m in breakdown.applied] == ["B2", "P3"]
    reasons = {i.modifier.source: (i.reason, i.superseded_by.source) for i in breakdown.ignored}
    assert reasons == {
        "B1": (IgnoreReason.HIGHER_BONUS, "B2"),
        "P1": (IgnoreReason.WORSE_PENALTY, "P3"),
    }


def test_different_types_stack() -> None:
    mods = [
        Modifier("Stärke", "attribute", 4),
        Modifier("Kompetenzbonus (Geübt)", "proficiency", 3),
        Modifier("Hilfe", "circumstance", 1),
        Modifier("Rune", "item", 1),
        Modifier("Segen", "status", 1),
    ]
    assert total_modifier(mods) == 10


def test_untyped_all_add_up_bonuses_too() -> None:
    mods = [
        Modifier("Malus für mehrfache Angriffe", "untyped", -5),
        Modifier("Malus für Entfernung", "untyped", -2),
        Modifier("Sonderbonus", "untyped", 1),
        Modifier("Anderer Sonderbonus", "untyped", 1),
    ]
    assert total_modifier(mods) == -5
    assert stack_modifiers(mods).ignored == ()


def test_same_source_counts_once() -> None:
    twice = [Modifier("Segen", "status", 1), Modifier("Segen", "status", 1)]
    breakdown = stack_modifiers(twice)
    assert breakdown.total == 1
    assert breakdown.ignored[0].reason is IgnoreReason.DUPLICATE_SOURCE
    # same source even across types: the largest effect wins, the earlier on a tie
    mixed = [Modifier("Fluch", "untyped", -1), Modifier("Fluch", "status", -2)]
    assert total_modifier(mixed) == -2
    untyped_twice = [Modifier("X", "untyped", 2), Modifier("X", "untyped", 2)]
    assert total_modifier(untyped_twice) == 2


def test_equal_bonuses_keep_the_first() -> None:
    first = Modifier("Heldenmut", "status", 1)
    second = Modifier("Segen", "status", 1)
    breakdown = stack_modifiers([first, second])
    assert breakdown.applied == (first,)
    assert breakdown.ignored[0].superseded_by == first


def test_empty_and_describe_and_dict() -> None:
    empty = stack_modifiers([])
    assert empty.total == 0
    assert empty.describe() == "keine Modifikatoren = +0"
    breakdown = stack_modifiers(
        [Modifier("Stärke", "attribute", 4), Modifier("Kränkelnd", "status", -2)]
    )
    assert breakdown.describe() == "Stärke +4, Kränkelnd -2 = +2"
    data = breakdown.as_dict()
    assert data["total"] == 2
    assert data["applied"][1] == {  # type: ignore[index]
        "source": "Kränkelnd",
        "type": "status",
        "value": -2,
        "label": "Kränkelnd (Zustand) -2",
    }
    twice = stack_modifiers([Modifier("A", "item", 1), Modifier("B", "item", 2)]).as_dict()
    assert twice["ignored"] == [
        {
            "source": "A",
            "type": "item",
            "value": 1,
            "reason": "higher_bonus",
            "label": "A (Gegenstand) +1 – Nur der höchste Bonus derselben Art zählt (B)",
            "superseded_by": "B",
        }
    ]


def test_type_labels() -> None:
    labels = {t: Modifier("Q", t, 0).type_label for t in MODIFIER_TYPES}
    assert labels == {
        "attribute": "Attribut",
        "proficiency": "Kompetenz",
        "circumstance": "Situation",
        "item": "Gegenstand",
        "status": "Zustand",
        "untyped": "Kategorielos",
    }


@pytest.mark.parametrize(
    ("source", "kind", "value"),
    [("", "status", 1), ("X", "luck", 1), ("X", "status", 1.5), ("X", "status", True)],
)
def test_invalid_modifiers(source: str, kind: str, value: object) -> None:
    with pytest.raises(ValueError):
        Modifier(source, kind, value)  # type: ignore[arg-type]


def test_only_modifiers_stack() -> None:
    with pytest.raises(TypeError):
        stack_modifiers([("Stärke", "attribute", 4)])  # type: ignore[list-item]
