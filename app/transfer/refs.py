"""Renumbering of the ids a campaign's rows and JSON documents name.

An export names every row by a *ref* (its position in the document, from 1) instead of its
database id; an import maps the refs to the new rows' ids. Both directions walk the same
JSON with :func:`remap`, so a round trip is exact whenever the walk is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Keys whose integer values are ids, and which kind of row they name.
ID_KEYS = {
    "character_id": "character",
    "to_character_id": "character",
    "from_character_id": "character",
    "owner_id": "user",
    "user_id": "user",
    "item_id": "item",
    "encounter_id": "encounter",
    "source_id": "encounter",
    "entry_id": "bestiary",
    "bestiary_entry_id": "bestiary",
    "participant_id": "participant",
    "message_id": "message",
    "handout_id": "handout",
    "note_id": "note",
    "fact_id": "fact",
    "scene_id": "scene",
    "token_id": "token",
}
#: Keys whose values are lists of ids (a whisper's or a reveal's members); ids of rows the
#: import does not have are left out.
ID_LIST_KEYS = {"to": "user"}
#: Keys whose values are rows written whole, whose ``id`` names that kind (the map events'
#: ``token``).
ROW_KEYS = {"token": "token"}
_SUBJECT_KINDS = ("character", "encounter")


@dataclass
class IdMaps:
    """Old id → new id per kind of row. An id not in its map (a deleted row) becomes None."""

    by_kind: dict[str, dict[int, int]] = field(
        default_factory=lambda: {kind: {} for kind in set(ID_KEYS.values())}
    )

    def id(self, kind: str, old: int | None) -> int | None:
        return None if old is None else self.by_kind[kind].get(old)

    def pid(self, old: str) -> str:
        """A participant id as the combat state writes it (a string); others pass through."""
        if old.isdigit():
            new = self.by_kind["participant"].get(int(old))
            if new is not None:
                return str(new)
        return old

    def subject(self, subject: str | None) -> str | None:
        if subject is None:
            return None
        kind, _, raw = subject.partition(":")
        new = self.id(kind, int(raw)) if kind in _SUBJECT_KINDS and raw.isdigit() else None
        return None if new is None else f"{kind}:{new}"


def _ints(items: list[Any]) -> bool:
    return all(isinstance(x, int) and not isinstance(x, bool) for x in items)


def remap(value: Any, maps: IdMaps, *, pids: bool) -> Any:
    """``value`` with every id renumbered: ints under :data:`ID_KEYS`, and with ``pids``
    (combat state and combat events) every string key or value that is a participant id."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            new_key = maps.pid(key) if pids else key
            kind = ID_KEYS.get(key)
            listed = ID_LIST_KEYS.get(key)
            row = ROW_KEYS.get(key)
            if kind is not None and isinstance(item, int) and not isinstance(item, bool):
                out[new_key] = maps.id(kind, item)
            elif row is not None and isinstance(item, dict) and isinstance(item.get("id"), int):
                out[new_key] = {**remap(item, maps, pids=pids), "id": maps.id(row, item["id"])}
            elif listed is not None and isinstance(item, list) and _ints(item):
                out[new_key] = [i for i in (maps.id(listed, x) for x in item) if i is not None]
            else:
                out[new_key] = remap(item, maps, pids=pids)
        return out
    if isinstance(value, list):
        return [remap(item, maps, pids=pids) for item in value]
    if pids and isinstance(value, str):
        return maps.pid(value)
    return value
