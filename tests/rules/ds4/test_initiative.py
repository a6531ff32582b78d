"""Initiative order, surprise, and the Stechen kept for the whole combat."""

from __future__ import annotations

import pytest

from app.rules.dice import ScriptedRoller
from app.rules.ds4 import InitiativeCombatant as C
from app.rules.ds4 import roll_initiative


def test_highest_initiative_first_without_rolls() -> None:
    roller = ScriptedRoller([])
    res = roll_initiative(roller, [C("a", 8, "pc"), C("b", 12, "npc"), C("c", 10, "pc")], {})
    assert res.ids == ("b", "c", "a")
    assert res.rolls == () and res.tiebreaks == {}
    assert all(e.stechen == () for e in res.order)


def test_tie_is_broken_by_a_stechen_and_stored() -> None:
    roller = ScriptedRoller([7, 15])
    res = roll_initiative(roller, [C("a", 10, "pc"), C("b", 10, "npc"), C("c", 3, "pc")], {})
    assert res.ids == ("b", "a", "c")
    assert res.tiebreaks == {"a": (7,), "b": (15,)}
    assert [(r.combatant_id, r.roll.faces) for r in res.rolls] == [("a", (7,)), ("b", (15,))]
    assert res.order[0].stechen == (15,)


def test_stored_stechen_is_reused_in_later_rounds() -> None:
    people = [C("a", 10, "pc"), C("b", 10, "npc")]
    first = roll_initiative(ScriptedRoller([7, 15]), people, {})
    roller = ScriptedRoller([])
    second = roll_initiative(roller, people, first.tiebreaks, round=2)
    assert second.ids == ("b", "a") and second.rolls == ()
    assert second.tiebreaks == first.tiebreaks


def test_equal_stechen_rolls_again() -> None:
    res = roll_initiative(ScriptedRoller([9, 9, 4, 11]), [C("a", 10, "x"), C("b", 10, "y")], {})
    assert res.ids == ("b", "a")
    assert res.tiebreaks == {"a": (9, 4), "b": (9, 11)}


def test_new_tie_partner_rolls_only_for_itself() -> None:
    stored = {"a": (12,)}
    roller = ScriptedRoller([5])
    res = roll_initiative(roller, [C("a", 10, "x"), C("d", 10, "y")], stored)
    assert res.ids == ("a", "d")
    assert res.tiebreaks == {"a": (12,), "d": (5,)}
    assert len(res.rolls) == 1


def test_prefix_tie_rolls_the_shorter_again() -> None:
    stored = {"a": (12, 3)}
    res = roll_initiative(ScriptedRoller([12, 8]), [C("a", 10, "x"), C("d", 10, "y")], stored)
    assert res.ids == ("d", "a")
    assert res.tiebreaks["d"] == (12, 8)


def test_surprise_bonus_only_in_round_one() -> None:
    people = [C("a", 5, "ambush"), C("b", 12, "party")]
    r1 = roll_initiative(ScriptedRoller([]), people, {}, surprising_side="ambush")
    assert r1.ids == ("a", "b")
    assert r1.order[0].initiative == 15 and r1.order[0].base == 5
    assert r1.order[0].surprise_bonus == 10
    r2 = roll_initiative(ScriptedRoller([]), people, {}, surprising_side="ambush", round=2)
    assert r2.ids == ("b", "a") and r2.order[1].surprise_bonus == 0


def test_surprise_can_create_a_tie() -> None:
    people = [C("a", 2, "ambush"), C("b", 12, "party")]
    res = roll_initiative(ScriptedRoller([3, 4]), people, {}, surprising_side="ambush")
    assert res.ids == ("b", "a")


def test_duplicate_ids_are_refused() -> None:
    with pytest.raises(ValueError, match="unique"):
        roll_initiative(ScriptedRoller([]), [C("a", 1, "x"), C("a", 2, "y")], {})
