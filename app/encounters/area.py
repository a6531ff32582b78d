"""Areas on the map (issue 27): an area placed on the board of the scene linked to a fight
hits every figure whose token stands in its cells, and each system resolves it
(:meth:`~app.encounters.systems.protocol.Areas.area`).

The request (``POST …/actions/area``, or the combat page's form): ``shape`` (``circle``,
``cone``, ``line``), ``origin`` ``[col, row]``, ``size`` (radius or length in the system's
unit, converted to cells by its :class:`~app.rules.grid.Metric`), ``toward`` (cones and
lines) and ``source`` (``{kind: attack | spell | save | free, …}``). The cells are the pure
:func:`app.rules.grid.area_cells` on the true board; the figures hit are the server's, never
the form's. While it resolves the area is ``state["area"]`` (with ``resolved`` false); the
service writes one ``area_placed`` and one ``area_resolved`` event per area.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, cast

from app.characters.sheets import COMPANION_KEY
from app.encounters import service
from app.encounters.board import Snapshot
from app.encounters.combat import CombatError, Report, State, current_pid
from app.encounters.systems import system
from app.encounters.systems.play import Play
from app.encounters.systems.protocol import Areas, AreaSource, Tactics, area_sources, need
from app.errors import Forbidden, ValidationFailed
from app.i18n import N_, _
from app.rules import grid as g
from app.rules.dice import Roller
from app.rules.expression import ExpressionError, parse
from app.rules.expression import roll as roll_expression

SHAPES = ("circle", "cone", "line")
#: The log line of a placed area, per shape.
PLACED = {
    "circle": N_("A circular area is placed: %(count)d figures in it."),
    "cone": N_("A cone is placed: %(count)d figures in it."),
    "line": N_("A line is placed: %(count)d figures in it."),
}
KINDS = ("attack", "spell", "save", "free")
#: The largest radius or length, in cells (a board is at most a few hundred cells across).
MAX_CELLS = 60


@dataclass(frozen=True, slots=True)
class AreaRequest:
    shape: g.AreaShape
    origin: g.Cell
    size: Fraction
    toward: g.Cell | None
    source: AreaSource


def _cell(raw: object, key: str) -> g.Cell:
    """``[col, row]`` (JSON) or ``"col,row"`` (a form field)."""
    items = raw.split(",") if isinstance(raw, str) else raw
    try:
        if not isinstance(items, (list, tuple)) or len(items) != 2:
            raise ValueError
        col, row = (int(str(v).strip()) for v in items)
    except ValueError:
        raise ValidationFailed({key: _("Give a cell as column and row, e.g. 3,4.")}) from None
    return col, row


def _size(raw: object) -> Fraction:
    try:
        size = Fraction(str(raw).strip().replace(",", "."))
    except (ValueError, ZeroDivisionError):
        raise ValidationFailed({"size": _("Enter a number.")}) from None
    if size <= 0:
        raise ValidationFailed({"size": _("The size must be more than 0.")})
    return size


def _source(data: Mapping[str, Any]) -> AreaSource:
    """``source`` as ``{kind, …}`` (JSON) or its kind with the other fields beside it (form)."""
    raw = data.get("source", "free")
    if isinstance(raw, Mapping):
        fields = {str(k): v for k, v in raw.items()}
    else:
        fields = {k: v for k, v in data.items() if k not in ("shape", "origin", "size", "toward")}
        fields["kind"] = raw
    kind = str(fields.pop("kind", "") or "")
    if kind not in KINDS:
        raise ValidationFailed({"source": _("Choose attack, spell, save or free.")})
    return AreaSource(kind, {k: v for k, v in fields.items() if k not in ("version", "source")})


def read(data: Mapping[str, Any]) -> AreaRequest:
    """The request's fields, each refused at its own key (nothing is loaded yet)."""
    shape = str(data.get("shape") or "")
    if shape not in SHAPES:
        raise ValidationFailed({"shape": _("Choose circle, cone or line.")})
    origin = _cell(data.get("origin"), "origin")
    size = _size(data.get("size"))
    raw_toward = data.get("toward")
    toward = None if raw_toward in (None, "", []) else _cell(raw_toward, "toward")
    if shape != "circle" and (toward is None or toward == origin):
        raise ValidationFailed({"toward": _("A cone or a line needs a direction cell.")})
    return AreaRequest(cast(g.AreaShape, shape), origin, size, toward, _source(data))


def cells(board: Snapshot, metric: g.Metric, req: AreaRequest) -> list[g.Cell]:
    """The area's cells on the board, or 422 at the field that leaves it."""
    grid = board.grid
    if not grid.inside(req.origin):
        raise ValidationFailed({"origin": _("This cell is not on the map.")})
    if req.toward is not None and not grid.inside(req.toward):
        raise ValidationFailed({"toward": _("This cell is not on the map.")})
    size = req.size / metric.per_cell
    if size > MAX_CELLS:
        raise ValidationFailed({"size": _("The area is larger than the map.")})
    return sorted(g.area_cells(grid, req.shape, req.origin, size, req.toward))


def targets(board: Snapshot, area: list[g.Cell], state: State) -> list[str]:
    """The fighting figures with a token cell in the area, in the roster's order."""
    inside = set(area)
    hit = {pid for pid, covered in board.cells.items() if inside.intersection(covered)}
    return [pid for pid in state["figures"] if pid in hit]


def op_area(
    loaded: service.Loaded, state: State, report: Report, roller: Roller, req: AreaRequest
) -> None:
    """Place the area and let the system resolve it: an ``attack`` or ``spell`` from the
    figure whose turn it is (its player or a GM), a ``save`` or ``free`` area by a GM."""
    board = loaded.board
    if board is None:
        raise ValidationFailed(
            {"combat": _("Areas need a map: link a scene with tokens to this fight.")}
        )
    core = system(loaded.campaign.system)
    rules = need(core, Tactics)
    sources = area_sources(core)
    if req.source.kind not in sources:
        offered = ", ".join(k for k in KINDS if k in sources or k == "free")
        raise ValidationFailed(
            {"source": _("This system has no area of this kind; it offers: %(kinds)s.",
                         kinds=offered)}
        )  # fmt: skip
    actor = current_pid(state) or ""
    if req.source.kind in ("save", "free"):
        if not loaded.viewer.is_gm:
            raise Forbidden(_("Only the GM places this area."))
    else:
        if not actor:
            raise CombatError(N_("It is not your turn."))
        service.may_act(loaded, actor)
    area = cells(board, rules.metric, req)
    hit = targets(board, area, state)
    seq = int(state.get("area_seq", 0)) + 1
    state["area_seq"] = seq
    state["area"] = {
        "id": seq,
        "shape": req.shape,
        "origin": list(req.origin),
        "toward": None if req.toward is None else list(req.toward),
        "size": float(req.size),
        "cells": [list(c) for c in area],
        "targets": hit,
        "source": req.source.kind,
        "actor": actor,
        "scene_id": board.scene_id,
        "resolved": False,
    }
    report.add(
        PLACED[req.shape],
        who={actor} if actor else set(),
        count=len([p for p in hit if p not in loaded.hidden]),
    )
    if not hit:  # an empty area is placed and logged, nothing to resolve
        return
    if req.source.kind == "free":
        free_area(state, hit, req.source, roller, report, loaded)
        return
    params = {
        **req.source.params,
        "distance": origin_distance(board, rules.metric, actor, req),
        "summoner": summoner(loaded, state, actor),
    }
    source = AreaSource(req.source.kind, params)
    need(core, Areas).area(state, actor, hit, source, Play(roller, report, loaded.settings))


def summoner(loaded: service.Loaded, state: State, pid: str) -> str:
    """The figure of the hero whose Gefährte ``pid`` is (its sheet's ``companion_of``):
    its participant id; ``"-"`` when the hero is not in the fight; ``""`` for a figure bound
    to nobody. The server's, never the form's (H&H: a Gefährte's Flächenangriff costs the
    summoner 1 WP)."""
    sheet = loaded.characters.get(pid)
    hero = sheet[0].data.get(COMPANION_KEY) if sheet else None
    if not hero:
        return ""
    found = (p for p, (c, _items) in loaded.characters.items() if c.id == hero)
    return next((p for p in found if p in state["figures"]), "-")


def origin_distance(board: Snapshot, metric: g.Metric, actor: str, req: AreaRequest) -> int:
    """How far the area starts from the acting figure (its nearest token cell to the
    origin, in the system's unit, rounded up; 0 without a token): a spell's range. The
    server's, never the form's."""
    mine = board.cells.get(actor, ())
    if not mine:
        return 0
    steps = min(g.distance(c, req.origin, metric.diagonal) for c in mine)
    return math.ceil(Fraction(steps) * metric.per_cell)


def free_area(
    state: State,
    hit: list[str],
    source: AreaSource,
    roller: Roller,
    report: Report,
    loaded: service.Loaded,
) -> None:
    """A GM's area without a rule: one line per figure in it, and with ``damage`` (a dice
    expression rolled once) that damage to each, booked as the GM's LP change."""
    expression = str(source.params.get("damage") or "").strip()
    damage = 0
    if expression:
        try:
            rolled = roll_damage(expression, roller)
        except ValueError:
            raise ValidationFailed({"damage": _("Enter a dice expression such as 2W6.")}) from None
        damage = rolled
    rules = system(loaded.campaign.system)
    for pid in hit:
        name = state["figures"][pid]["name"]
        report.add(N_("%(name)s is in the area."), who={pid}, name=name)
        if damage:
            rules.adjust(state, pid, -damage, _("Area"), Play(roller, report, loaded.settings))


def roll_damage(expression: str, roller: Roller) -> int:
    try:
        return max(0, roll_expression(parse(expression), roller).total)
    except ExpressionError as exc:
        raise ValueError(str(exc)) from None
