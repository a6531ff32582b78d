"""``copy_json``: a deep copy of JSON values, equal to the original and sharing nothing that
can change (the fight's state is copied by it before every operation)."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from app.core.jsoncopy import copy_json

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=5), inner, max_size=4)
        | st.tuples(inner, inner)
    ),
    max_leaves=30,
)


def _containers(value: Any) -> list[Any]:
    """Every dict and list inside ``value`` (``value`` included)."""
    found: list[Any] = []
    todo = [value]
    while todo:
        v = todo.pop()
        if isinstance(v, dict):
            found.append(v)
            todo.extend(v.values())
        elif isinstance(v, list):
            found.append(v)
            todo.extend(v)
        elif isinstance(v, tuple):
            todo.extend(v)
    return found


@given(JSON)
def test_a_copy_equals_the_original_and_shares_no_container(value: Any) -> None:
    copied = copy_json(value)
    assert copied == value
    assert type(copied) is type(value)
    originals = {id(c) for c in _containers(value)}
    assert not originals & {id(c) for c in _containers(copied)}


def test_changing_the_copy_leaves_the_original() -> None:
    state: dict[str, Any] = {
        "figures": {"5": {"lp": 12, "conditions": ["angeschlagen"]}},
        "order": [{"pid": "5"}],
    }
    copied = copy_json(state)
    copied["figures"]["5"]["conditions"].append("benommen")
    copied["order"][0]["pid"] = "6"
    assert state == {"figures": {"5": {"lp": 12, "conditions": ["angeschlagen"]}},
                     "order": [{"pid": "5"}]}  # fmt: skip


def test_other_values_are_deep_copied_as_before() -> None:
    marks = {1, 2}
    copied = copy_json({"marks": marks})
    assert copied == {"marks": marks} and copied["marks"] is not marks
    assert copy.deepcopy(marks) == copied["marks"]
