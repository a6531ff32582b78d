"""The scene editor's plain-text form (the page without JavaScript): walls, doors, difficult
cells and start areas as lines of numbers, parsed here and answered at the field.

One item per line (or separated by ``;``), numbers separated by commas or spaces: a wall
``x1,y1,x2,y2`` in grid-line coordinates, a door the same with a fifth number ``1`` when it
is open (``0`` or none: closed), a cell ``x,y`` — all counted from 0, as in the JSON API.
Whether a segment lies on the grid is the service's check (``service.set_walls``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypedDict

from app.errors import ValidationFailed
from app.i18n import _

#: The longest text a field of the form may carry (the service limits the edges and cells).
TEXT_MAX = 200_000
_SPLIT = re.compile(r"[\n;]")
_NUMBERS = re.compile(r"[\s,]+")


def _items(text: str, field: str, sizes: tuple[int, ...]) -> list[list[int]]:
    if len(text) > TEXT_MAX:
        raise ValidationFailed({field: _("This text is too long.")})
    out: list[list[int]] = []
    for n, line in enumerate(_SPLIT.split(text), start=1):
        raw = line.strip()
        if not raw:
            continue
        parts = _NUMBERS.split(raw)
        if len(parts) not in sizes or not all(re.fullmatch(r"-?\d{1,5}", p) for p in parts):
            raise ValidationFailed(
                {field: _("Entry %(n)d («%(text)s») is not valid.", n=n, text=raw[:40])}
            )
        out.append([int(p) for p in parts])
    return out


def segments(text: str, field: str = "segments") -> list[list[int]]:
    """Walls: ``x1,y1,x2,y2`` per line."""
    return _items(text, field, (4,))


def doors(text: str) -> list[tuple[list[int], bool]]:
    """Doors: ``x1,y1,x2,y2`` and optionally ``1`` (open) or ``0`` (closed) per line."""
    out = []
    for item in _items(text, "doors", (4, 5)):
        if len(item) == 5 and item[4] not in (0, 1):
            raise ValidationFailed({"doors": _("A door is open (1) or closed (0).")})
        out.append((item[:4], len(item) == 5 and item[4] == 1))
    return out


def cells(text: str, field: str) -> list[list[int]]:
    """Cells: ``x,y`` per line."""
    return _items(text, field, (2,))


def segments_text(segs: list[list[int]]) -> str:
    return "\n".join(",".join(str(v) for v in s) for s in segs)


class DoorJSON(TypedDict):
    """A door as the board shows it: its wall segment and whether it stands open."""

    segment: list[int]
    open: bool


def doors_text(found: Sequence[DoorJSON]) -> str:
    return "\n".join(
        ",".join(str(v) for v in d["segment"]) + (",1" if d["open"] else "") for d in found
    )


def cells_text(found: list[list[int]]) -> str:
    return "\n".join(f"{c[0]},{c[1]}" for c in found)
