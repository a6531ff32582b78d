"""The docs list what the code has: every event type with its fields and visibilities
(docs/events.md), every permission `Action` with the roles allowed (docs/permissions.md).
Like Datasette's documentation tests: adding a type or an action without documenting it,
or documenting one that is gone, fails here."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

from app.campaigns.permissions import Action, allowed
from app.core.viewer import Role
from app.events.payload import EVENT_TYPES

DOCS = Path(__file__).resolve().parents[1] / "docs"
HEADING = re.compile(r"^### `([a-z_]+)`$")
ROLE_COLUMNS = (Role.gm, Role.co_gm, Role.player, Role.observer)


def _names(line: str, label: str) -> list[str]:
    """The backticked names after ``label`` on a line (``Fields: `a`, `b`.``)."""
    _head, found, rest = line.partition(label)
    assert found, f"no {label!r} in {line!r}"
    return re.findall(r"`([a-z_]+)`", rest)


def documented_events() -> dict[str, tuple[str, list[str], set[str]]]:
    """Event type → (class name, fields, visibilities) as docs/events.md lists them."""
    out: dict[str, tuple[str, list[str], set[str]]] = {}
    lines = (DOCS / "events.md").read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        heading = HEADING.match(line)
        if heading is None:
            continue
        name = heading.group(1)
        assert name not in out, f"{name} documented twice"
        described, visibility = lines[i + 1], lines[i + 2]
        class_name = re.match(r"Class `(\w+)`\.", described)
        assert class_name, f"{name}: no 'Class `…`.' line"
        out[name] = (
            class_name.group(1),
            _names(described, "Fields:"),
            set(_names(visibility, "Visibility:")),
        )
    return out


def test_every_event_type_is_documented_with_its_fields_and_visibilities() -> None:
    documented = documented_events()
    assert sorted(documented) == sorted(EVENT_TYPES)
    for name, cls in EVENT_TYPES.items():
        class_name, field_list, visibilities = documented[name]
        assert class_name == cls.__name__, name
        assert field_list == [f.name for f in fields(cls)], name
        assert visibilities == set(cls.VISIBILITIES), name


def documented_actions() -> dict[str, set[Role]]:
    """Action → the roles with "yes" in docs/permissions.md's table."""
    out: dict[str, set[Role]] = {}
    for line in (DOCS / "permissions.md").read_text(encoding="utf-8").splitlines():
        row = re.match(r"^\| `([a-z_]+)` \|(.*)\|$", line)
        if row is None:
            continue
        cells = [c.strip() for c in row.group(2).split("|")]
        marks = cells[: len(ROLE_COLUMNS)]
        assert set(marks) <= {"yes", "no"}, line
        assert row.group(1) not in out, f"{row.group(1)} documented twice"
        out[row.group(1)] = {
            role for role, m in zip(ROLE_COLUMNS, marks, strict=True) if m == "yes"
        }
    return out


def test_every_permission_action_is_documented_with_its_roles() -> None:
    documented = documented_actions()
    assert sorted(documented) == sorted(a.value for a in Action)
    for action in Action:
        assert documented[action.value] == {r for r in Role if allowed(r, action)}, action.value
