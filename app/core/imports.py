"""What an import from another tool took, converted and left out: the report the importer
shows, item by item, in the caller's language (``docs/imports.md``).

Every converter of a foreign file (Pathbuilder, Foundry actors) fills one :class:`Report`;
the labels are translated when the item is added, in the request's locale.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

#: A foreign file's bounds before any conversion: entries (keys and list items) and nesting.
#: Real exports (a Foundry actor with its items and flags) stay far below.
FOREIGN_ENTRIES_MAX = 50_000
FOREIGN_DEPTH_MAX = 40


@dataclass(frozen=True, slots=True)
class Note:
    """One line of the report: the file's field, its label, and what became of it."""

    field: str
    label: str
    source: str | None = None
    target: str | None = None
    reason: str | None = None

    def as_dict(self) -> dict[str, str]:
        out = {"field": self.field, "label": self.label}
        if self.source is not None:
            out["from"] = self.source
        if self.target is not None:
            out["to"] = self.target
        if self.reason is not None:
            out["reason"] = self.reason
        return out


@dataclass(slots=True)
class Report:
    """Taken as they are, converted (``from`` → ``to``), skipped (with the reason)."""

    taken: list[Note] = field(default_factory=list)
    converted: list[Note] = field(default_factory=list)
    skipped: list[Note] = field(default_factory=list)

    def take(self, field_: str, label: str, value: object) -> None:
        self.taken.append(Note(field_, label, target=_text(value)))

    def convert(self, field_: str, label: str, source: object, target: object) -> None:
        self.converted.append(Note(field_, label, source=_text(source), target=_text(target)))

    def skip(self, field_: str, label: str, reason: str) -> None:
        self.skipped.append(Note(field_, label, reason=reason))

    def as_dict(self) -> dict[str, list[dict[str, str]]]:
        return {
            "taken": [n.as_dict() for n in self.taken],
            "converted": [n.as_dict() for n in self.converted],
            "skipped": [n.as_dict() for n in self.skipped],
        }


def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def within_bounds(document: Any) -> bool:
    """Whether a document is no larger or deeper than any real export: checked before
    anything walks it recursively, and iteratively, so a hostile nesting cannot exhaust the
    stack."""
    for entries, (depth, _value) in enumerate(_walk(document), start=1):
        if depth > FOREIGN_DEPTH_MAX or entries > FOREIGN_ENTRIES_MAX:
            return False
    return True


def _walk(document: Any) -> Iterator[tuple[int, Any]]:
    stack: list[tuple[int, Any]] = [(0, document)]
    while stack:
        depth, value = stack.pop()
        yield depth, value
        if isinstance(value, dict):
            stack.extend((depth + 1, v) for v in value.values())
        elif isinstance(value, list):
            stack.extend((depth + 1, v) for v in value)
