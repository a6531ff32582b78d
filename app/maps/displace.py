"""Tokens the rules of a fight move (``Report.displacements``: H&H Wegstossen pushes the
defender back, Fehltritt slides the attacker past the defender): after the combat
operation, in its transaction, each such figure's token on the scene linked to the fight
goes that way, cell by cell, until a wall, a closed door, the grid's edge or another token
stops it — an ordinary ``token_moved`` (``pushed``: the rule), projected like every move.
The fight keeps where each such token stood (``combat.map_moves``): the GM's undo of the
operation puts it back, and so every token the undone operation moved (:func:`move_back`),
each an ordinary ``token_moved`` with ``undo``. ``app.wiring`` hooks both into the fight's
``AFTER_OPERATION`` and ``AFTER_UNDO``."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.accounts.models import User
from app.encounters import service as encounters
from app.encounters.combat import Displacement, Report, map_moved
from app.encounters.state import dump_state, read_state
from app.maps import events as map_events
from app.maps import service, sight
from app.maps.models import MapToken, Scene, Token
from app.rules import grid as g


def _sign(value: float) -> int:
    return (value > 0) - (value < 0)


def _centre(token: MapToken) -> tuple[float, float]:
    return (token.x + token.size / 2, token.y + token.size / 2)


def _end(
    b: sight.Board, moving: MapToken, origin: MapToken, toward: MapToken, d: Displacement
) -> g.Cell:
    (ox, oy), (tx, ty) = _centre(origin), _centre(toward)
    direction = (_sign(tx - ox), _sign(ty - oy))
    if direction == (0, 0):
        return (moving.x, moving.y)
    others = [t for t in b.tokens if t.id != moving.id]
    past = toward if d.past else None
    taken = frozenset(c for t in others if t is not past for c in g.footprint((t.x, t.y), t.size))
    passable = frozenset(g.footprint((toward.x, toward.y), toward.size)) if d.past else frozenset()
    return g.push_end(
        b.grid, (moving.x, moving.y), moving.size, direction, d.steps, taken, passable
    )


async def move_displaced(
    session: AsyncSession, user: User, loaded: encounters.Loaded, report: Report
) -> None:
    if not report.displacements:
        return
    scene = await session.scalar(
        select(Scene)
        .where(Scene.campaign_id == loaded.campaign.id, Scene.encounter_id == loaded.encounter.id)
        .order_by(Scene.id)
        .limit(1)
    )
    if scene is None:
        return
    opened = service.Opened(loaded.campaign, loaded.viewer, scene)
    for d in report.displacements:
        b = await service.board(session, opened)
        by_pid = {str(t.participant_id): t for t in b.tokens if t.participant_id is not None}
        moving, origin, toward = (by_pid.get(p) for p in (d.pid, d.origin, d.toward))
        if moving is None or origin is None or toward is None:
            continue
        end = _end(b, moving, origin, toward, d)
        if end == (moving.x, moving.y):
            continue
        moving = service.held(session, b, moving.id)
        before = b.seen()
        state = read_state(loaded.encounter.state).copy()
        state["map_moves"] = list(state.get("map_moves") or [])
        map_moved(state, moving.id, (moving.x, moving.y))
        loaded.encounter.state = dump_state(state)
        moving.x, moving.y = end
        await service.flush_token(session)
        payload = map_events.TokenMoved(
            actor_name=user.username, scene_id=scene.id, token_id=moving.id, x=end[0],
            y=end[1], pushed=d.reason,
        )  # fmt: skip
        await service.token_events(session, opened, user, b, moving, payload, before)


async def move_back(
    session: AsyncSession,
    user: User,
    loaded: encounters.Loaded,
    moved: list[tuple[int, g.Cell]],
) -> None:
    """After an undo: every token the undone operation moved goes back where it stood (the
    map and the fight never disagree), one ``token_moved`` with ``undo`` each. A token
    since removed stays removed, and one whose cell the scene no longer has (it shrank)
    stays where it is."""
    for token_id, cell in moved:
        token = await session.get(Token, token_id)
        if token is None or (token.x, token.y) == cell:
            continue
        scene = await session.get(Scene, token.scene_id)
        if scene is None or scene.campaign_id != loaded.campaign.id:
            continue
        if cell[0] + token.size > scene.cols or cell[1] + token.size > scene.rows:
            continue
        opened = service.Opened(loaded.campaign, loaded.viewer, scene)
        b = await service.board(session, opened)
        moving = service.held(session, b, token.id)
        before = b.seen()
        moving.x, moving.y = cell
        await service.flush_token(session)
        payload = map_events.TokenMoved(
            actor_name=user.username, scene_id=scene.id, token_id=moving.id, x=cell[0],
            y=cell[1], undo=True,
        )  # fmt: skip
        await service.token_events(session, opened, user, b, moving, payload, before)
