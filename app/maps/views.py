"""The battle map as each viewer may see it: the JSON answer and the pages' one context."""

from __future__ import annotations

import functools
from typing import TypedDict

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app import limits
from app.accounts.models import User
from app.campaigns import service as campaigns
from app.campaigns.models import Campaign
from app.campaigns.permissions import Action
from app.core.viewer import Viewer
from app.encounters.systems.protocol import CombatCore, Zones, capability
from app.errors import NotFound, ValidationFailed
from app.i18n import _
from app.maps import edit, marks, service, sight
from app.maps.models import Scene
from app.rules import grid as g


async def scene_json(
    session: AsyncSession, user: User, campaign_id: int, scene_id: int
) -> sight.BoardView:
    opened = await service.open_scene(session, user, campaign_id, scene_id)
    board = await service.board(session, opened)
    view = board.view(opened.viewer, opened.tactics.metric)
    marks.overlay(view, board, opened.viewer, opened.rules)
    return view


async def member(session: AsyncSession, campaign_id: int, user_id: int) -> Viewer:
    """A member of the campaign as a viewer (the GM's «view as»); 422 at ``as`` otherwise."""
    for m in await campaigns.members(session, campaign_id):
        if m.user_id == user_id:
            return Viewer(m.user_id, m.username, m.role)
    raise ValidationFailed({"as": _("Not a member of this campaign.")})


async def view_as(
    session: AsyncSession, user: User, campaign_id: int, scene_id: int, as_id: int
) -> tuple[Viewer, sight.BoardView]:
    """The scene exactly as the member ``as_id`` gets it from ``GET …/scenes/{sid}`` (GMs
    only: 403 for other members, 404 for non-members; a member who does not see the scene
    — hidden from the players — gets its 404)."""
    opened = await service.open_for(session, user, campaign_id, scene_id, Action.manage_maps)
    viewer = await member(session, campaign_id, as_id)
    if not service.seen_by(opened.scene, campaign_id, viewer):
        raise NotFound(_("Scene not found."))
    theirs = service.Opened(opened.campaign, viewer, opened.scene)
    board = await service.board(session, theirs)
    view = board.view(viewer, theirs.tactics.metric)
    marks.overlay(view, board, viewer, theirs.rules)
    return viewer, view


async def blind(session: AsyncSession, campaign_id: int, board: sight.Board) -> list[str]:
    """The members (not GMs) who, with fog and line of sight on, are sent no cell of the
    map but their own tokens' (the GM's notice on the scene page)."""
    if not (board.scene.fog and board.scene.line_of_sight):
        return []
    return [
        m.username
        for m in await campaigns.members(session, campaign_id)
        if not m.role.is_gm and board.blind(m.user_id)
    ]


async def token_json(
    session: AsyncSession, user: User, campaign_id: int, scene_id: int, token_id: int
) -> sight.TokenJSON:
    opened = await service.open_scene(session, user, campaign_id, scene_id)
    board = await service.board(session, opened)
    for token in board.tokens:
        if token.id == token_id and (
            opened.viewer.is_gm or board.player_sees(token, opened.viewer.user_id)
        ):
            return board.token_json(token, opened.viewer.is_gm)
    raise NotFound(_("Token not found."))


#: Distances the token list gives per token: to its nearest others (a list of every pair
#: would grow with the square of the tokens: 100 tokens, 9,900 distances).
NEAREST = 5


class NearToken(TypedDict):
    """Another token near one in the screen-reader list, and how far it is."""

    label: str
    distance: float


class ListedToken(sight.TokenJSON):
    """A token in the screen-reader list with its nearest others (:func:`_listing`)."""

    others: list[NearToken]


def _listing(view: sight.BoardView, diagonal: g.Diagonal, per_cell: float) -> list[ListedToken]:
    """The tokens for the screen-reader list: position and the distance to the nearest ones."""
    tokens = view["tokens"]
    nearest = _nearest(tuple((t["x"], t["y"], t["label"]) for t in tokens), diagonal)
    out: list[ListedToken] = []
    for t, near in zip(tokens, nearest, strict=True):
        others: list[NearToken] = [
            {"label": label, "distance": cells * per_cell} for cells, label in near
        ]
        out.append({**t, "others": others})
    return out


@functools.lru_cache(maxsize=64)
def _nearest(
    points: tuple[tuple[int, int, str], ...], diagonal: g.Diagonal
) -> list[list[tuple[int, str]]]:
    """:func:`app.rules.grid.nearest` once per board and token view: viewers who see the
    same tokens (the GMs; players without line of sight) share it."""
    return g.nearest(points, diagonal, NEAREST)


def _has_zones(core: CombatCore, board: sight.Board) -> bool:
    """Whether a figure on the board threatens cells (the toggle is offered then)."""
    rules = capability(core, Zones)
    if rules is None:
        return False
    figures = board.state.get("figures", {})
    return any(
        rules.threat_cells(board.state, pid, g.footprint((t.x, t.y), t.size))
        for t in board.tokens
        if (pid := board.pid(t)) is not None and pid in figures
    )


class AreaMark(TypedDict):
    """The linked fight's area on the board while it resolves (:func:`_area`)."""

    id: int
    cells: list[list[int]]


def _area(board: sight.Board, scene_id: int) -> AreaMark | None:
    """The linked fight's area while it resolves (issue 27), drawn on the board for every
    viewer: its cells name no figure."""
    area = board.state.get("area")
    if not area or area.get("resolved") or area.get("scene_id") != scene_id:
        return None
    return {"id": area["id"], "cells": area["cells"]}


class MapContext(TypedDict):
    """What the map block renders from, for one viewer (:func:`map_context`)."""

    area: AreaMark | None
    fogged: list[g.Cell]
    explored: list[g.Cell]
    scene: sight.BoardView
    campaign_id: int
    is_gm: bool
    mine: list[int]
    listing: list[ListedToken]
    zones: bool
    blind: list[str]
    walls_v: list[list[int]]
    walls_h: list[list[int]]
    light_max: int
    #: The tokens the viewer sees that stand for each character: its own token, or its
    #: figure's in the linked fight (a sheet change redraws them: ``app.maps.live``).
    characters: dict[int, list[int]]


#: A scene as read for any viewer: its campaign, the scene and its board.
SceneRead = tuple[Campaign, Scene, sight.Board]


async def read_scene(session: AsyncSession, campaign_id: int, scene_id: int) -> SceneRead | None:
    """What :func:`map_context` reads, the same for every viewer: a live push reads it once
    for all of them (``app.web.regions.shared_load``). ``None``: no such scene."""
    campaign = await session.get(Campaign, campaign_id)
    scene = await session.get(Scene, scene_id)
    if campaign is None or scene is None or scene.campaign_id != campaign_id:
        return None
    return campaign, scene, await service.board_of(session, scene)


async def map_context(
    session: AsyncSession, viewer: Viewer, campaign_id: int, scene_id: int
) -> MapContext | None:
    """Everything the map block renders from, for ``viewer`` (``None``: no such scene)."""
    return await context_of(session, viewer, await read_scene(session, campaign_id, scene_id))


async def context_of(
    session: AsyncSession, viewer: Viewer, read: SceneRead | None
) -> MapContext | None:
    """:func:`map_context` from the scene as read (``None``: gone, or not for ``viewer``)."""
    if read is None:
        return None
    campaign, scene, board = read
    campaign_id = campaign.id
    if not service.seen_by(scene, campaign_id, viewer):
        return None
    opened = service.Opened(campaign, viewer, scene)
    metric = opened.tactics.metric
    view = board.view(viewer, metric)
    marks.overlay(view, board, viewer, opened.rules)
    mine = [t.id for t in board.tokens if board.controls(viewer, t) or viewer.is_gm]
    known = board.fog_cells() if viewer.is_gm else board.known_for(viewer.user_id)
    fogged = (
        []
        if known is None
        else [(x, y) for x in range(scene.cols) for y in range(scene.rows) if (x, y) not in known]
    )
    return {
        "area": _area(board, opened.scene.id),
        "fogged": fogged,
        "explored": view["explored"] or [],
        "scene": view,
        "campaign_id": campaign_id,
        "is_gm": viewer.is_gm,
        "mine": mine,
        "listing": _listing(view, metric.diagonal, float(metric.per_cell)),
        "zones": _has_zones(opened.rules, board),
        "blind": await blind(session, campaign_id, board) if viewer.is_gm else [],
        "walls_v": [s for s in view["walls"] if s[0] == s[2]],
        "walls_h": [s for s in view["walls"] if s[1] == s[3]],
        "light_max": limits.LIGHT_RADIUS_MAX,
        "characters": _characters(view, board),
    }


def _characters(view: sight.BoardView, board: sight.Board) -> dict[int, list[int]]:
    """The tokens of ``view`` by the character they stand for (:attr:`MapContext.characters`)."""
    out: dict[int, list[int]] = {}
    tokens = {t.id: t for t in board.tokens}
    for t in view["tokens"]:
        character = board.character_of(tokens[t["id"]])
        if character is not None:
            out.setdefault(character, []).append(t["id"])
    return out


async def scene_for_encounter(
    session: AsyncSession, campaign_id: int, encounter_id: int
) -> int | None:
    """The first scene linked to an encounter (the combat page shows it); the fight's
    own read of it if this transaction made one (:func:`service.fight_scene_known`)."""
    known = service.fight_scene_known(session, encounter_id)
    if known is not None:
        scene = known[0]
        return None if scene is None or scene.campaign_id != campaign_id else scene.id
    found = await session.scalar(
        select(Scene.id)
        .where(Scene.campaign_id == campaign_id, Scene.encounter_id == encounter_id)
        .order_by(Scene.id)
        .limit(1)
    )
    return None if found is None else int(found)


def edit_texts(view: sight.BoardView) -> dict[str, str]:
    """The GM's editor form filled from the scene (walls, doors, terrain, grid alignment)."""
    grid = view["grid"]
    return {
        "segments": edit.segments_text(view["walls"]),
        "doors": edit.doors_text(view["doors"]),
        "difficult": edit.cells_text(view["difficult"]),
        "grid_x": str(grid["x"]),
        "grid_y": str(grid["y"]),
        "cell_px": str(grid["cell_px"]),
    }
