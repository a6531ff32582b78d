"""The battle map in the fight: placing an encounter's figures, attacks chosen on the map
(range and a cover suggestion), and the figures' Gefährdungsbereich (docs/map.md).

Everything answered here is cut to what the viewer may see (:mod:`app.maps.sight`): a
player's answer is computed from the tokens and walls they see, so it cannot tell them of
a hidden figure or of a wall behind the fog.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import TypedDict

from sqlalchemy import ColumnElement, bindparam, exists, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.accounts.models import User
from app.campaigns.permissions import Action
from app.encounters import board as fight
from app.encounters.board import Snapshot
from app.encounters.models import Participant
from app.encounters.systems.protocol import RangeNote, Zones, capability
from app.errors import ValidationFailed
from app.i18n import _
from app.maps import service, sight
from app.maps.models import MapToken, Scene, Token
from app.rules import grid as g

#: The sides of an encounter a start area may be given for.
SIDES = ("abenteurer", "gegner", "neutral")


def default_area(side: str, cols: int, rows: int) -> list[g.Cell]:
    """Where a side starts unless the GM marks an area: the Abenteurer on the west edge,
    their foes on the east edge, neutral figures in the middle column; each column from
    its middle outwards, so that a few figures stand together."""
    x = {"abenteurer": 0, "gegner": cols - 1}.get(side, cols // 2)
    middle = (rows - 1) / 2
    return [(x, y) for y in sorted(range(rows), key=lambda y: (abs(y - middle), y))]


def _areas(
    raw: Mapping[str, Sequence[Sequence[int]]] | None, cols: int, rows: int
) -> dict[str, list[g.Cell]]:
    for side in raw or {}:
        if side not in SIDES:
            raise ValidationFailed({"areas": _("A start area is given per side.")})
    return {
        side: (
            service.cells_in(raw[side], cols, rows, "areas")
            if raw and raw.get(side)
            else default_area(side, cols, rows)
        )
        for side in SIDES
    }


async def place_participants(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    scene_id: int,
    areas: Mapping[str, Sequence[Sequence[int]]] | None = None,
) -> list[Token]:
    """A token for every participant of the linked encounter that has none on the scene,
    on the free cells nearest its side's start area (reachable from it past walls and
    closed doors, never on another token). All or nothing: without room for everyone
    nothing is placed. Each token is an ordinary ``token_added`` (hidden participants'
    tokens start hidden and reach players not at all)."""
    opened = await service.open_for(session, user, campaign_id, scene_id, Action.manage_maps)
    scene = opened.scene
    if scene.encounter_id is None:
        raise ValidationFailed({"encounter_id": _("Link the scene to an encounter first.")})
    by_side = _areas(areas, scene.cols, scene.rows)
    rows = await session.scalars(
        select(Participant)
        .where(Participant.encounter_id == scene.encounter_id)
        .order_by(Participant.position, Participant.id)
    )
    board = await service.board(session, opened)
    placed = {t.participant_id for t in board.tokens}
    waiting = [p for p in rows.all() if p.id not in placed]
    grid = sight.grid_of(scene)
    taken = {c for t in board.tokens for c in g.footprint((t.x, t.y), t.size)}
    plan: list[tuple[Participant, g.Cell]] = []
    for side in SIDES:
        group = [p for p in waiting if (p.side if p.side in SIDES else "gegner") == side]
        cells = g.free_cells_near(grid, by_side[side], taken, len(group))
        if len(cells) < len(group):
            raise ValidationFailed({"areas": _("There is no room for every figure there.")})
        taken.update(cells)
        plan += zip(group, cells, strict=True)
    tokens = []
    for p, cell in plan:
        spec = service.TokenIn(x=cell[0], y=cell[1], participant_id=p.id)
        tokens.append(await service.add_token(session, user, campaign_id, scene_id, spec))
    return tokens


# --- attacks chosen on the map --------------------------------------------------------------


def _snapshot(scene: Scene, cells: frozenset[g.Cell] | None, seen: Sequence[MapToken]) -> Snapshot:
    """The board as one viewer knows it (``cells`` ``None``: the GM, the true board): the
    walls they see and the seen figures' tokens."""
    return Snapshot(
        sight.grid_seen(scene, cells),
        {
            str(t.participant_id): tuple(g.footprint((t.x, t.y), t.size))
            for t in seen
            if t.participant_id is not None
        },
    )


#: The scene of a fight: read with every combat action, so built once (its tokens:
#: ``service.board_rows``).
_FIGHT_SCENE = (
    select(Scene).where(Scene.encounter_id == bindparam("encounter_id")).order_by(Scene.id).limit(1)
)


def scene_linked(encounter_id: ColumnElement[int]) -> ColumnElement[bool]:
    """Whether a scene is linked to the encounter (:func:`fight_board` finds one); one of
    the fight's ``LINKS`` (``app.wiring``)."""
    return exists().where(Scene.encounter_id == encounter_id)


async def fight_board(session: AsyncSession, encounter_id: int) -> Snapshot | None:
    """The true board of the scene linked to the encounter, for its attacks (issue 27); one
    of the fight's ``SOURCES`` (``app.wiring``)."""
    scene = await session.scalar(_FIGHT_SCENE, {"encounter_id": encounter_id})
    service.remember_fight_scene(session, encounter_id, scene)
    if scene is None:
        return None
    tokens = [token for token, _p, _o in await service.board_rows(session, scene.id)]
    return replace(_snapshot(scene, None, tokens), scene_id=scene.id)


def _fighter(tokens: Mapping[int, MapToken], pid: int, field: str) -> MapToken:
    token = tokens.get(pid)
    if token is None:
        raise ValidationFailed({field: _("This figure has no token on the map.")})
    return token


class WallJSON(TypedDict):
    """The walls on an attack's line: whether they block it and how many lines cross it."""

    blocked: int
    lines: int


class RangeJSON(TypedDict):
    label: str
    modifier: int | None
    in_range: bool


class AttackLineJSON(TypedDict):
    """Range and suggested cover of an attack (:func:`attack_line`)."""

    distance: float
    unit: str
    cells: int
    line: list[list[int]]
    wall: WallJSON
    ranges: list[RangeJSON]
    cover: str | None
    covering: int | None
    covering_token_id: int | None
    fill: dict[str, str]
    summary: str


async def attack_line(
    session: AsyncSession, user: User, campaign_id: int, scene_id: int, attacker: int, target: int
) -> AttackLineJSON:
    """Range and suggested cover of an attack by participant ``attacker`` on ``target``.

    Players ask for their own figures only, about tokens they see; the walls and the
    figures on the line are those they see (the GM confirms the suggestion in the form).
    """
    opened = await service.open_scene(session, user, campaign_id, scene_id)
    board = await service.board(session, opened)
    viewer = opened.viewer
    cells = None if viewer.is_gm else board.cells_for(viewer.user_id)
    seen = [t for t in board.tokens if viewer.is_gm or board.sees_in(t, cells)]
    tokens = {t.participant_id: t for t in seen if t.participant_id is not None}
    mine = _fighter(tokens, attacker, "attacker")
    _fighter(tokens, target, "target")
    if not viewer.is_gm and not board.controls(viewer, mine):
        raise ValidationFailed({"attacker": _("This is not your figure.")})
    figures = board.state.get("figures", {})
    if not board.running or str(attacker) not in figures or str(target) not in figures:
        raise ValidationFailed({"attacker": _("The scene's fight is not running.")})
    if attacker == target:
        raise ValidationFailed({"target": _("A figure cannot attack itself.")})
    known = _snapshot(opened.scene, cells, seen)
    a, b = fight.nearest(known.cells[str(attacker)], known.cells[str(target)])
    metric = opened.tactics.metric
    line = fight.measure(known, str(attacker), str(target), metric)
    assert line is not None  # both have a seen token (_fighter)
    blocked, lines = line.wall_blocked, line.wall_lines
    found = opened.tactics.map_attack(board.state, str(attacker), str(target), line)
    cover_token = next((t.id for t in seen if str(t.participant_id) == found.covering), None)
    return {
        "distance": float(line.distance), "unit": metric.unit, "cells": line.cells,
        "line": [list(c) for c in g.cells_on_line(a, b)],
        "wall": {"blocked": blocked, "lines": lines},
        "ranges": [{"label": r.label, "modifier": r.modifier, "in_range": r.modifier is not None}
                   for r in found.ranges],
        "cover": found.cover or None,
        "covering": int(found.covering) if found.covering else None,
        "covering_token_id": cover_token,
        "fill": dict(found.fill),
        "summary": _summary(line.distance, metric.unit, found.ranges),
    }  # fmt: skip


def _summary(distance: Fraction, unit: str, ranges: Sequence[RangeNote]) -> str:
    """One line for the attack form: the distance and what reaches at it."""
    parts = [
        _("%(label)s: out of range", label=r.label)
        if r.modifier is None
        else _("%(label)s: range modifier %(modifier)+d", label=r.label, modifier=r.modifier)
        for r in ranges
    ]
    head = _("Distance %(distance)s %(unit)s", distance=f"{float(distance):g}", unit=unit)
    return "; ".join([head, *parts])


# --- Gefährdungsbereich ---------------------------------------------------------------------


class ZoneJSON(TypedDict):
    """A figure's threatened cells (:func:`zones`)."""

    token_id: int
    participant_id: int | None
    side: str
    cells: list[list[int]]


async def zones(
    session: AsyncSession, user: User, campaign_id: int, scene_id: int
) -> list[ZoneJSON]:
    """Each seen figure's threatened cells (H&H: its Gefährdungsbereich), on the grid and,
    for players, on the cells they see; empty outside a fight and in systems without."""
    opened = await service.open_scene(session, user, campaign_id, scene_id)
    board = await service.board(session, opened)
    viewer = opened.viewer
    cells = None if viewer.is_gm else board.cells_for(viewer.user_id)
    figures = board.state.get("figures", {})
    out: list[ZoneJSON] = []
    rules = capability(opened.rules, Zones)
    if rules is None:
        return out
    for t in board.tokens:
        pid = board.pid(t)
        if pid is None or pid not in figures or not (viewer.is_gm or board.sees_in(t, cells)):
            continue
        own = g.footprint((t.x, t.y), t.size)
        zone = [
            list(c)
            for c in rules.threat_cells(board.state, pid, own)
            if 0 <= c[0] < opened.scene.cols
            and 0 <= c[1] < opened.scene.rows
            and (cells is None or c in cells)
        ]
        if zone:
            side = str(figures[pid].get("side", ""))
            out.append({"token_id": t.id, "participant_id": t.participant_id, "side": side,
                        "cells": zone})  # fmt: skip
    return out
