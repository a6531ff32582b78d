"""Concurrent edits of one sheet, merged per field.

The sheet form carries, for every field, the value it was built from (``_base.<key>``, the
stored value when the page or the last save rendered it). A save compares, per field, three
values: the user's (``mine``), the form's base and the stored one now:

- ``mine`` equals the base: the user did not edit the field; whatever is stored stays (someone
  else's change to it survives);
- the base equals the stored value: nobody else changed it; ``mine`` is saved;
- all three differ: both changed the same field — a :class:`FieldConflict`, shown with both
  values; the user chooses (their value stays in the input, the stored one is offered).

Fields edited but not saved yet (a refused value still in its input, its base unchanged) are
saved together with the field that triggered the save, so validation does not depend on the
order in which fields were filled (LP 24 and LP max 24 go together). Without base values
(JSON API clients) the version check of :func:`app.characters.service.update_fields` applies.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.characters import sheets
from app.characters.service import META_FIELDS, Opened
from app.characters.systems.registry import character_system

#: A value that could not be parsed (the save reports it at its field).
_INVALID = object()


@dataclass(frozen=True, slots=True)
class FieldConflict:
    """The same field changed by the user and by someone else since the form was built."""

    key: str
    #: The user's value, as typed.
    mine: str
    #: The stored value now, as the form shows it.
    theirs: str


def _meta(key: str, raw: Any) -> Any:
    if key == "hidden_from_players":
        return raw if isinstance(raw, bool) else str(raw).lower() in ("1", "true", "on", "yes")
    if key == "owner_id":
        return str(raw or "") or None
    return str(raw if raw is not None else "").strip()


def _parsed(specs: Mapping[str, sheets.FieldSpec], key: str, raw: Any) -> Any:
    if key in META_FIELDS:
        return _meta(key, raw)
    try:
        return sheets.parse_field(specs[key], raw)
    except sheets.FieldError:
        return _INVALID


def _stored(opened: Opened, key: str) -> Any:
    if key in META_FIELDS:
        return _meta(key, getattr(opened.character, key))
    return sheets.get_value(opened.character.data, key)


def _shown(specs: Mapping[str, sheets.FieldSpec], key: str, value: Any) -> str:
    if key in META_FIELDS:
        return "" if value is None else str(value)
    return sheets.format_value(specs[key], value)


def merge_edits(
    opened: Opened,
    posted: Mapping[str, str],
    base: Mapping[str, str],
    trigger: str | None = None,
) -> tuple[dict[str, str], list[FieldConflict]]:
    """The fields to save (as posted) and the conflicts, for a sheet form post.

    ``trigger``: the field whose change sent the form (HTMX); it counts as edited."""
    character = opened.character
    specs = sheets.by_key(character_system(character.system).fields(character.kind))
    changes: dict[str, str] = {}
    conflicts: list[FieldConflict] = []
    for key, raw in posted.items():
        if key not in specs and key not in META_FIELDS:
            continue
        mine = _parsed(specs, key, raw)
        seen = _parsed(specs, key, base[key]) if key in base else _INVALID
        now = _stored(opened, key)
        if mine is _INVALID or seen is _INVALID:
            if key == trigger or raw != base.get(key):
                changes[key] = raw  # refused at its field, or saved as without a base
            continue
        if mine in (now, seen):
            continue
        if seen != now:
            conflicts.append(FieldConflict(key, raw, _shown(specs, key, now)))
            continue
        changes[key] = raw
    return changes, conflicts
