"""Initiative order, ties and GM reordering."""

from __future__ import annotations

import pytest

from app.rules.dice import ScriptedRoller
from app.rules.pf2e import (
    Combatant,
    InvalidInitiativeOrder,
    Modifier,
    Side,
    Statistic,
    perception,
    reorder_initiative,
    roll_initiative,
    skill,
    tie_groups,
)


def stat(mod: int, name: str = "Wahrnehmung") -> Statistic:
    return Statistic(name, (Modifier("Weisheit", "attribute", mod),))


def names(order: list) -> list[str]:  # type: ignore[type-arg]
    return [e.combatant.id for e in order]


def test_higher_first_adversary_wins_ties_gm_order_within_side() -> None:
    combatants = [
        Combatant("ayla", "Ayla", Side.ADVENTURER, stat(2)),
        Combatant("gob1", "Goblin 1", Side.ADVERSARY, stat(1)),
        Combatant("bran", "Bran", Side.ADVENTURER, stat(0)),
        Combatant("gob2", "Goblin 2", Side.ADVERSARY, stat(1)),
        Combatant("cato", "Cato", Side.ADVENTURER, stat(5)),
    ]
    # results: Ayla 10+2=12, Goblin1 11+1=12, Bran 12+0=12, Goblin2 11+1=12, Cato 15+5=20
    order = roll_initiative(ScriptedRoller([10, 11, 12, 11, 15]), combatants)
    assert names(order) == ["cato", "gob1", "gob2", "ayla", "bran"]
    assert [e.result for e in order] == [20, 12, 12, 12, 12]
    assert [e.tie_group for e in order] == [None, 1, 1, 2, 2]
    assert [[e.combatant.id for e in g] for g in tie_groups(order)] == [
        ["gob1", "gob2"],
        ["ayla", "bran"],
    ]
    assert order[0].dice[0].faces == (15,)
    assert order[0].check.dc is None and order[0].check.degree is None
    # the GM may swap within a tie group
    swapped = reorder_initiative(order, ["cato", "gob2", "gob1", "bran", "ayla"])
    assert names(swapped) == ["cato", "gob2", "gob1", "bran", "ayla"]
    # but not across sides or results
    with pytest.raises(InvalidInitiativeOrder) as info:
        reorder_initiative(order, ["cato", "ayla", "gob2", "gob1", "bran"])
    assert "Ayla" in str(info.value)
    with pytest.raises(InvalidInitiativeOrder):
        reorder_initiative(order, ["gob1", "cato", "gob2", "ayla", "bran"])
    with pytest.raises(InvalidInitiativeOrder):
        reorder_initiative(order, ["cato", "gob1", "gob2", "ayla"])
    with pytest.raises(InvalidInitiativeOrder):
        reorder_initiative(order, ["cato", "gob1", "gob1", "ayla", "bran"])


def test_skill_instead_of_perception_and_fortune() -> None:
    sneaky = skill("Heimlichkeit", "dexterity", level=1, rank="trained", attribute_modifier=4)
    watcher = perception(level=1, rank="trained", wisdom_modifier=1)
    combatants = [
        Combatant("rogue", "Schurkin", "adventurer", sneaky, fortune=True),  # type: ignore[arg-type]
        Combatant("guard", "Wache", "adversary", watcher, secret=True),  # type: ignore[arg-type]
    ]
    order = roll_initiative(ScriptedRoller([2, 9, 10]), combatants)
    # rogue: fortune 2/9 → 9 + 7 = 16; guard 10 + 4 = 14
    assert names(order) == ["rogue", "guard"]
    assert order[0].check.label == "Heimlichkeit"
    assert order[0].combatant.side is Side.ADVENTURER
    assert order[1].check.secret and order[1].check.as_dict(reveal=False)["secret"] is True
    assert tie_groups(order) == []
    assert Side.ADVERSARY.label == "Gegner" and Side.ADVENTURER.label == "Abenteurer"


def test_duplicate_ids_refused_and_empty_ok() -> None:
    a = Combatant("x", "A", Side.ADVENTURER, stat(0))
    with pytest.raises(ValueError):
        roll_initiative(ScriptedRoller([1, 2]), [a, a])
    assert roll_initiative(ScriptedRoller([]), []) == []
