"""Inventar (hh.md §11): slots, Rucksack places, encumbrance, taking things out."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.dice import ScriptedRoller
from app.rules.hh.inventory import (
    RUCKSACK_RETRIEVE_ACTIONS,
    SLOT_CAPACITY,
    SLOTS,
    Item,
    check_carrier_add,
    check_equip,
    check_equipment,
    check_rucksack_add,
    inventory_state,
    places_needed,
    retrieve_from_rucksack,
    rucksack_capacity,
    rucksack_load,
)

SWORD = Item("schwert", "medium", slots=frozenset({"waffenhand", "schildhand", "waffengurt"}))
POTION = Item("heiltrank", "small", slots=frozenset({"guerteltasche"}))
ARROWS = Item("pfeile", "bundle", 20, slots=frozenset({"koecher"}))
RING = Item("ring", "medium", slots=frozenset({"finger"}))


def test_slot_capacities_follow_hh_md() -> None:
    assert dict(SLOT_CAPACITY) == {
        "waffenhand": 1,
        "schildhand": 1,
        "waffengurt": 1,
        "guerteltasche": 3,
        "koecher": 20,
        "koerper": 1,
        "tattoos": 3,
        "kopf": 1,
        "ohren": 1,
        "hals": 1,
        "ruecken": 1,
        "arme": 2,
        "finger": 4,
        "huefte": 1,
        "fuesse": 1,
    }
    assert set(SLOTS) == set(SLOT_CAPACITY)


def test_places_medium_small_bundle() -> None:
    assert places_needed([]) == 0
    assert places_needed([SWORD]) == 1
    assert places_needed([Item("seil", quantity=3)]) == 3
    # 5 small items share a place; the 6th starts a new one
    assert places_needed([Item("heiltrank", "small", 5)]) == 1
    assert places_needed([Item("heiltrank", "small", 6)]) == 2
    # small items are pooled over kinds
    assert places_needed([Item("heiltrank", "small", 3), Item("gift", "small", 2)]) == 1
    # bundles: 20 units per place, per kind
    assert places_needed([Item("pfeile", "bundle", 20)]) == 1
    assert places_needed([Item("pfeile", "bundle", 21)]) == 2
    assert places_needed([Item("pfeile", "bundle", 15), Item("pfeile", "bundle", 5)]) == 1
    assert places_needed([Item("pfeile", "bundle", 15), Item("nahrung", "bundle", 5)]) == 2


def test_item_validation() -> None:
    with pytest.raises(ValueError):
        Item("x", quantity=0)
    with pytest.raises(ValueError):
        Item("x", "large")  # type: ignore[arg-type]


def test_rucksack_capacity_is_reisekunde_plus_five() -> None:
    assert rucksack_capacity(0) == 5
    assert rucksack_capacity(8) == 13
    with pytest.raises(ValueError):
        rucksack_capacity(-1)


def test_rucksack_load_and_encumbrance() -> None:
    # Reisekunde 3: 3 free places, places 4..8 give «eingeschränkt»
    load = rucksack_load([Item("seil", quantity=3)], 3)
    assert (load.used, load.capacity, load.free_capacity, load.free) == (3, 8, 3, 5)
    assert not load.encumbered
    load = rucksack_load([Item("seil", quantity=4)], 3)
    assert load.encumbered and not load.over_capacity
    assert load.as_dict() == {
        "used": 4,
        "capacity": 8,
        "free_capacity": 3,
        "free": 4,
        "encumbered": True,
    }
    over = rucksack_load([Item("seil", quantity=9)], 3)
    assert over.over_capacity and over.free == 0


def test_inventory_state_reports_condition() -> None:
    state = inventory_state([Item("seil", quantity=4)], 3)
    assert state.encumbered and state.conditions == ("eingeschränkt",)
    assert state.wears_rucksack
    assert inventory_state([], 3).conditions == ()


def test_check_rucksack_add() -> None:
    contents = [Item("seil", quantity=7)]
    ok = check_rucksack_add(contents, SWORD, 3)
    assert ok.ok and ok.encumbered and ok.error is None
    full = check_rucksack_add([Item("seil", quantity=8)], SWORD, 3)
    assert not full.ok
    assert full.error == "rucksack_full"
    assert dict(full.params) == {"used": 8, "capacity": 8, "needed": 1}
    # a 5th small item fits into the place the first four already use
    potions = [Item("heiltrank", "small", 4), Item("seil", quantity=7)]
    assert check_rucksack_add(potions, POTION, 3).ok
    fine = check_rucksack_add([], SWORD, 3)
    assert fine.ok and not fine.encumbered
    no_pack = check_rucksack_add([], SWORD, 3, wears_rucksack=False)
    assert (no_pack.ok, no_pack.error) == (False, "no_rucksack")


def test_check_carrier_add() -> None:
    assert check_carrier_add([], SWORD, 1).ok
    full = check_carrier_add([SWORD], SWORD, 1)
    assert full.error == "carrier_full"
    assert dict(full.params) == {"used": 1, "capacity": 1, "needed": 1}


def test_check_equip() -> None:
    assert check_equip({}, SWORD, "waffenhand").ok
    assert check_equip({}, SWORD, "tasche").error == "unknown_slot"
    assert check_equip({}, SWORD, "kopf").error == "slot_not_allowed"
    full = check_equip({"waffenhand": [SWORD]}, SWORD, "waffenhand")
    assert full.error == "slot_full"
    assert dict(full.params) == {"slot": "waffenhand", "capacity": 1, "used": 1, "needed": 1}
    # Gürteltasche: three small items, nothing medium
    three = [Item("heiltrank", "small", 3, frozenset({"guerteltasche"}))]
    assert check_equip({}, three[0], "guerteltasche").ok
    assert check_equip({"guerteltasche": three}, POTION, "guerteltasche").error == "slot_full"
    dagger = Item("dolch", "medium", slots=frozenset({"guerteltasche"}))
    assert check_equip({}, dagger, "guerteltasche").error == "not_small_item"
    # Köcher: 20 arrows
    assert check_equip({}, ARROWS, "koecher").ok
    more = Item("pfeile", "bundle", 1, frozenset({"koecher"}))
    assert check_equip({"koecher": [ARROWS]}, more, "koecher").error == "slot_full"
    # Finger: four rings
    assert check_equip({"finger": [RING] * 3}, RING, "finger").ok
    assert check_equip({"finger": [RING] * 4}, RING, "finger").error == "slot_full"


def test_check_equipment_lists_problems() -> None:
    assert check_equipment({"waffenhand": [SWORD], "finger": [RING, RING]}) == ()
    problems = check_equipment({"waffenhand": [SWORD, SWORD], "kopf": [SWORD]})
    assert [p.error for p in problems] == ["slot_full", "slot_not_allowed"]


def test_retrieve_in_combat_takes_two_actions_on_success() -> None:
    result = retrieve_from_rucksack(ScriptedRoller([3, 4]), 10)
    assert result.found and result.actions == RUCKSACK_RETRIEVE_ACTIONS == 2
    assert result.probe is not None and result.probe.roll == 7
    assert result.rolls[0].faces == (3, 4)


def test_retrieve_in_combat_failure_spends_one_action() -> None:
    result = retrieve_from_rucksack(ScriptedRoller([9, 8]), 10)
    assert not result.found and result.actions == 1


def test_retrieve_outside_combat_needs_no_roll() -> None:
    result = retrieve_from_rucksack(ScriptedRoller([]), 10, in_combat=False)
    assert result.found and result.actions == 0 and result.probe is None and result.rolls == ()


items = st.builds(
    Item,
    key=st.sampled_from(["a", "b", "c"]),
    size=st.sampled_from(["small", "medium", "bundle"]),
    quantity=st.integers(1, 60),
)


@settings(deadline=None)
@given(st.lists(items, max_size=12))
def test_places_never_exceed_units_added(contents: list[Item]) -> None:
    used = places_needed(contents)
    assert 0 <= used <= sum(i.quantity for i in contents)
    # order does not matter
    assert places_needed(list(reversed(contents))) == used


@settings(deadline=None)
@given(st.lists(items, max_size=8), items)
def test_adding_never_frees_places(contents: list[Item], extra: Item) -> None:
    assert places_needed([*contents, extra]) >= places_needed(contents)
    assert places_needed([*contents, extra]) <= places_needed(contents) + places_needed([extra])


@settings(deadline=None)
@given(st.lists(items, max_size=8), st.integers(0, 20))
def test_encumbered_exactly_beyond_reisekunde(contents: list[Item], reisekunde: int) -> None:
    load = rucksack_load(contents, reisekunde)
    assert load.encumbered == (load.used > reisekunde)
    assert load.capacity - load.free_capacity == 5
