"""The battle map as the fight sees it (issue 27): a snapshot of the linked scene's grid
and of where each participant's token stands, and what the rules measure on it.

``app.maps`` sits above this package, so the fight cannot ask the map: ``app.wiring``
registers the map's :data:`SOURCES` loader (``app.maps.tactics``) that reads the scene linked to an
encounter; an attack on a linked scene then measures distance, line of effect and cover on
the *true* board here, and the map's attack suggestion (``app.maps.tactics``) uses the same
functions on the board a player sees.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from typing import Any

from sqlalchemy import ColumnElement, false, or_
from sqlalchemy.ext.asyncio import AsyncSession

from app.encounters.combat import Report, State
from app.encounters.systems.protocol import COVER_FROM, AttackLine, CombatCore, Tactics, capability
from app.errors import ValidationFailed
from app.i18n import N_, _, number
from app.rules import grid as g

#: The attack form's fields the board decides on a linked scene (H&H ``cover`` and
#: ``covering``, DS4 and PF2e ``distance``): a player's are ignored there.
GEOMETRY = ("cover", "covering", "distance")
#: A GM's parameter that keeps the posted geometry fields instead (logged).
OVERRIDE = "override_geometry"


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A scene as the rules use it: its grid (walls and closed doors) and each placed
    participant's cells (participant id → the cells its token covers)."""

    grid: g.Grid
    cells: Mapping[str, tuple[g.Cell, ...]]
    #: The linked scene (``None`` for a viewer's own board, which needs none).
    scene_id: int | None = None


#: Loaders of the snapshot of the scene linked to an encounter (by its id); ``None``: none.
BoardSource = Callable[[AsyncSession, int], Awaitable[Snapshot | None]]
SOURCES: list[BoardSource] = []
#: Each source's SQL test whether it has a board for the encounter whose id column is
#: given, read along with the encounter row (``app.encounters.service``): a fight in
#: theatre of the mind then asks no source.
BoardLink = Callable[[ColumnElement[int]], ColumnElement[bool]]
LINKS: list[BoardLink] = []


def linked(links: Sequence[BoardLink], encounter_id: ColumnElement[int]) -> ColumnElement[bool]:
    """Whether any of ``links`` has a board for the encounter (false without any)."""
    return or_(false(), *(link(encounter_id) for link in links))


async def snapshot(session: AsyncSession, encounter_id: int) -> Snapshot | None:
    """The board of the scene linked to the encounter, ``None`` in theatre of the mind."""
    for source in SOURCES:
        found = await source(session, encounter_id)
        if found is not None:
            return found
    return None


def nearest(a: tuple[g.Cell, ...], b: tuple[g.Cell, ...]) -> tuple[g.Cell, g.Cell]:
    """The closest pair of cells of two tokens (larger tokens cover several)."""
    return min(product(a, b), key=lambda p: (g.distance(p[0], p[1], "one"), p))


def between(board: Snapshot, a: g.Cell, b: g.Cell, skip: set[str]) -> tuple[str, ...]:
    """The participants whose tokens the line from ``a`` to ``b`` passes, nearest ``a``
    first (``skip``: attacker and target)."""
    out: list[str] = []
    for cell in g.cells_on_line(a, b):
        for pid, cells in board.cells.items():
            if pid not in skip and pid not in out and cell in cells:
                out.append(pid)
    return tuple(out)


def measure(board: Snapshot, attacker: str, target: str, metric: g.Metric) -> AttackLine | None:
    """Distance, wall cover and the figures on the line from ``attacker`` to ``target``
    (their nearest cells); ``None`` when either has no token on the scene."""
    mine, theirs = board.cells.get(attacker), board.cells.get(target)
    if not mine or not theirs:
        return None
    a, b = nearest(mine, theirs)
    blocked, lines = g.cover_lines(board.grid, a, b)
    n = g.distance(a, b, metric.diagonal)
    on_line = between(board, a, b, {attacker, target})
    return AttackLine(Fraction(n) * metric.per_cell, n, blocked, lines, on_line)


def line_of_effect(board: Snapshot, attacker: str, target: str) -> bool:
    """Whether any line from a cell of the attacker to a cell of the target passes the
    walls and closed doors (no line at all: geometric full cover, no direct attack)."""
    for a, b in product(board.cells.get(attacker, ()), board.cells.get(target, ())):
        blocked, lines = g.cover_lines(board.grid, a, b)
        if blocked < lines or lines == 0:
            return True
    return False


def _measured(
    board: Snapshot | None,
    rules: Tactics | None,
    report: Report,
    actor: str,
    target: str,
    params: Mapping[str, Any],
    *,
    is_gm: bool,
) -> tuple[dict[str, object], AttackLine | None]:
    """The parameters to keep and the line measured on the board (``None``: the form's
    values stand — theatre of the mind, a system without map rules, a figure without a
    token, the GM's override)."""
    override = str(params.get(OVERRIDE, "")).lower() in ("1", "true", "on")
    posted = {k: v for k, v in params.items() if k not in (OVERRIDE, COVER_FROM)}
    if board is None or rules is None:
        return posted, None
    if override and is_gm:
        values = ", ".join(f"{k} {posted[k]}" for k in GEOMETRY if posted.get(k) not in (None, ""))
        report.add(N_("The GM sets the geometry by hand: %(values)s."), values=values or "–")
        return posted, None
    line = measure(board, actor, target, rules.metric)
    if line is None:
        return posted, None
    if not line_of_effect(board, actor, target):
        raise ValidationFailed({"target": _("Full cover: no line of effect to the target.")})
    return {k: v for k, v in posted.items() if k not in GEOMETRY}, line


def attack_params(
    board: Snapshot | None,
    core: CombatCore,
    state: State,
    report: Report,
    attacker: str,
    target: str,
    params: Mapping[str, Any],
    *,
    is_gm: bool,
) -> dict[str, object]:
    """The attack's parameters with the board's cover and distance (issue 27).

    In theatre of the mind (no linked scene) and for a figure without a token the form's
    values stand. On a linked scene the board decides: no line of effect or out of the
    attack's reach or range is refused at ``target`` (nothing rolled), otherwise the
    system's ``map_attack`` fills the geometry fields. A GM may keep the posted fields
    with ``override_geometry``, and the log names that."""
    rules = capability(core, Tactics)
    kept, line = _measured(board, rules, report, attacker, target, params, is_gm=is_gm)
    if line is None or rules is None:
        return kept
    found = rules.map_attack(state, attacker, target, line)
    note = rules.attack_range(state, attacker, kept, found)
    if note is not None and note.modifier is None:
        message = _(
            "The target is %(distance)s %(unit)s away, out of reach or range of %(label)s "
            "(%(reach)s %(unit)s).",
            distance=number(float(line.distance)),
            unit=rules.metric.unit,
            label=note.label,
            reach=number(note.reach) if note.reach is not None else "–",
        )
        raise ValidationFailed({"target": message})
    if note is not None and note.modifier:
        report.add(
            N_("On the map: %(label)s at %(distance)s %(unit)s, range %(modifier)+d."),
            who={attacker, target},
            label=note.label,
            distance=f"{float(line.distance):g}",
            unit=rules.metric.unit,
            modifier=note.modifier,
        )
    return {**kept, **found.fill}


def cast_params(
    board: Snapshot | None,
    rules: CombatCore,
    report: Report,
    caster: str,
    params: Mapping[str, Any],
    *,
    is_gm: bool,
) -> dict[str, object]:
    """A spell on a target: the board's distance (whole units, rounded up) instead of the
    form's, no line of effect refused; the spell's range is the engine's check."""
    target = str(params.get("target") or "")
    if not target:
        return {k: v for k, v in params.items() if k not in (OVERRIDE, COVER_FROM)}
    tactics = capability(rules, Tactics)
    kept, line = _measured(board, tactics, report, caster, target, params, is_gm=is_gm)
    return kept if line is None else {**kept, "distance": math.ceil(line.distance)}
