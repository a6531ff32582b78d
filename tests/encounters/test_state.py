"""The combat state's codec (issue 26): a stored row is checked where it is read."""

from __future__ import annotations

import pytest

from app.encounters.combat import fresh_state
from app.encounters.state import StateError, check_state, dump_state, load_state, read_state


def test_fresh_state_loads_as_a_copy() -> None:
    raw = dump_state(fresh_state("hh"))
    state = load_state(raw)
    assert state == raw and state is not raw
    state["figures"]["1"] = {"name": "Alrik"}
    assert raw["figures"] == {}


def test_an_unstarted_fight_reads_as_an_empty_one() -> None:
    state = read_state({})
    assert state["order"] == [] and state["figures"] == {} and state["round"] == 0


@pytest.mark.parametrize(
    "change",
    [
        {"round": "1"},
        {"turn": True},
        {"order": {}},
        {"order": [{"step": 1}]},
        {"figures": {"1": []}},
        {"pending": {"kind": "save"}},
        {"pending": {"kind": "defence", "attacker": "1"}},
        {"map_moves": {}},
    ],
)
def test_a_row_of_another_shape_is_refused(change: dict[str, object]) -> None:
    with pytest.raises(StateError):
        check_state({**dump_state(fresh_state("hh")), **change})


def test_a_missing_key_or_no_object_is_refused() -> None:
    raw = dump_state(fresh_state("ds4"))
    del raw["figures"]
    bad_rows: tuple[object, ...] = (raw, [], "state")
    for bad in bad_rows:
        with pytest.raises(StateError):
            check_state(bad)
