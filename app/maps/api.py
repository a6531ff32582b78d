"""JSON API of the battle map (issue 15; stable: other clients and tests depend on it)."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from fastapi import Depends, File, Path, Query, Request, Response, UploadFile
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from app import limits
from app.encounters.systems.protocol import Budget
from app.errors import Conflict, ValidationFailed
from app.i18n import _
from app.limits import RowId, Version
from app.maps import light, service, tactics, views
from app.maps.events import MoveReaction
from app.maps.models import Scene
from app.maps.sight import SceneHeading, scene_heading
from app.media.images import UPLOAD_BODY_BYTES, StoredImage
from app.web.answers import no_content
from app.web.deps import CurrentUser, Session
from app.web.idempotency import IDEMPOTENT, IdempotentRoute
from app.web.ids import MAX_ROW_ID, PathId
from app.web.media import image_response
from app.web.routers import Router

router = Router(
    prefix="/api/v1/campaigns/{campaign_id}/scenes", tags=["maps"], route_class=IdempotentRoute
)

#: Coordinates in a body: far beyond any grid, so the services answer at the field.
Coord = Annotated[int, Field(ge=-10_000, le=10_000)]
Pair = Annotated[list[Coord], Field(min_length=2, max_length=2)]
Quad = Annotated[list[Coord], Field(min_length=4, max_length=4)]
#: Lists are cut off well above the services' own limits (which answer at the field).
LIST_MAX = 20_000


class SceneIn(BaseModel):
    name: str = Field(max_length=1000)
    cols: int = Field(ge=-10_000, le=10_000)
    rows: int = Field(ge=-10_000, le=10_000)
    encounter_id: RowId | None = None
    #: Place the linked encounter's participants at once (``POST …/place``).
    place: bool = False
    #: Show it to the players at once (else a GM prepares it hidden and shows it later).
    shown: bool = False


class ScenePatch(BaseModel):
    name: str | None = Field(default=None, max_length=1000)
    cols: int | None = Field(default=None, ge=-10_000, le=10_000)
    rows: int | None = Field(default=None, ge=-10_000, le=10_000)
    grid_x: int | None = Field(default=None, ge=-100_000, le=100_000)
    grid_y: int | None = Field(default=None, ge=-100_000, le=100_000)
    cell_px: int | None = Field(default=None, ge=-100_000, le=100_000)
    fog: bool | None = None
    #: Per-player line of sight (docs/map.md).
    line_of_sight: bool | None = None
    #: Cells a token sees at most; 0: no limit.
    sight_radius: int | None = Field(default=None, ge=-10_000, le=10_000)
    #: 0 unlinks the encounter.
    encounter_id: int | None = Field(default=None, ge=0, le=MAX_ROW_ID)
    #: Show the scene to the players, or hide it from them again.
    shown: bool | None = None
    #: A dark scene: players see tokens on lit cells only (docs/map.md «Light»).
    dark: bool | None = None
    version: Version | None = None
    #: Place the linked encounter's participants after the change (``POST …/place``).
    place: bool = False


class PlaceBody(BaseModel):
    """Start areas per side (``abenteurer``, ``gegner``, ``neutral``); a side without one
    starts at its default edge."""

    areas: dict[str, list[Pair]] | None = Field(default=None, max_length=3)


class DoorIn(BaseModel):
    segment: Quad
    open: bool = False


class WallsBody(BaseModel):
    segments: list[Quad] = Field(max_length=LIST_MAX)
    doors: list[DoorIn] | None = Field(default=None, max_length=LIST_MAX)
    difficult: list[Pair] | None = Field(default=None, max_length=LIST_MAX)
    version: Version | None = None


class FogBody(BaseModel):
    reveal: list[Pair] = Field(default_factory=list, max_length=LIST_MAX)
    hide: list[Pair] = Field(default_factory=list, max_length=LIST_MAX)


class TokenBody(BaseModel):
    x: Coord
    y: Coord
    label: str | None = Field(default=None, max_length=1000)
    size: int = Field(default=1, ge=-100, le=100)
    colour: str | None = Field(default=None, max_length=20)
    participant_id: RowId | None = None
    character_id: RowId | None = None
    hidden: bool | None = None


class TokenPatch(BaseModel):
    label: str | None = Field(default=None, max_length=1000)
    colour: str | None = Field(default=None, max_length=20)
    size: int | None = Field(default=None, ge=-100, le=100)
    hidden: bool | None = None
    version: Version | None = None
    #: The radius of the light the token carries, in cells (0: none).
    light: int | None = Field(default=None, ge=-10_000, le=10_000)


class LightBody(BaseModel):
    """A light on a cell: its column, row and radius in cells."""

    x: Coord
    y: Coord
    radius: int = Field(ge=-10_000, le=10_000)


class PointerBody(BaseModel):
    kind: str = Field(max_length=10)
    cells: list[Pair] = Field(default_factory=list, max_length=1000)


class MoveBody(BaseModel):
    to: Pair
    path: list[Pair] | None = Field(default=None, max_length=1000)
    override: bool = False
    #: Waypoints: the server takes the cheapest leg between each two (instead of ``path``).
    via: list[Pair] | None = Field(default=None, max_length=1000)


class ShortJSON(SceneHeading):
    """A scene in ``GET …/scenes`` and the answer of ``POST …/scenes``."""

    shown: bool


class ActionsLeftJSON(TypedDict):
    """The mover's actions left after a move that was one of them (PF2e's Stride)."""

    left: int
    total: int
    symbols: str
    text: str


class MoveJSON(TypedDict):
    """The answer of ``POST …/tokens/{tid}/move``."""

    x: int | None
    y: int | None
    cost: int | None
    allowance: int | None
    stopped_at: list[int] | None
    reactions: list[MoveReaction]
    blocked: bool
    message: str | None
    actions: ActionsLeftJSON | None


def _short(scene: Scene) -> ShortJSON:
    return {**scene_heading(scene), "shown": scene.shown}


@router.post("", status_code=201, dependencies=[IDEMPOTENT])
async def create(
    campaign_id: PathId, body: SceneIn, session: Session, user: CurrentUser
) -> dict[str, object]:
    new = service.NewScene(**body.model_dump(exclude={"place"}))
    scene = await service.create_scene(session, user, campaign_id, new)
    if body.place:
        await tactics.place_participants(session, user, campaign_id, scene.id)
    return dict(_short(scene))


@router.get("")
async def list_scenes(
    campaign_id: PathId, session: Session, user: CurrentUser
) -> dict[str, object]:
    return {"scenes": [dict(_short(s)) for s in await service.scenes(session, user, campaign_id)]}


@router.get("/{scene_id}")
async def show(
    campaign_id: PathId, scene_id: PathId, session: Session, user: CurrentUser
) -> dict[str, object]:
    """The scene as the caller may see it (hidden and fogged tokens are absent)."""
    return dict(await views.scene_json(session, user, campaign_id, scene_id))


@router.get("/{scene_id}/view")
async def view_as(
    campaign_id: PathId,
    scene_id: PathId,
    session: Session,
    user: CurrentUser,
    as_: Annotated[int, Query(alias="as", ge=1, le=MAX_ROW_ID)],
) -> dict[str, object]:
    """«View as …» (GMs only): the scene exactly as the member ``as`` (a user id) gets it
    from ``GET …/scenes/{sid}``."""
    return dict((await views.view_as(session, user, campaign_id, scene_id, as_))[1])


@router.patch("/{scene_id}")
async def update(
    campaign_id: PathId, scene_id: PathId, body: ScenePatch, session: Session, user: CurrentUser
) -> dict[str, object]:
    change = service.SceneChange(**body.model_dump(exclude={"place"}))
    await service.update_scene(session, user, campaign_id, scene_id, change)
    if body.place:
        await tactics.place_participants(session, user, campaign_id, scene_id)
    return dict(await views.scene_json(session, user, campaign_id, scene_id))


@router.delete("/{scene_id}", status_code=204)
async def delete(
    campaign_id: PathId, scene_id: PathId, session: Session, user: CurrentUser
) -> Response:
    return await no_content(service.delete_scene(session, user, campaign_id, scene_id))


async def _uploaded_image(
    campaign_id: PathId,
    scene_id: PathId,
    session: Session,
    user: CurrentUser,
    file: Annotated[UploadFile | None, File()] = None,
) -> StoredImage:
    """An uploaded picture for the scene, validated and re-encoded, once the caller may open
    the scene (422 no file)."""
    if file is None:
        raise ValidationFailed({"file": _("Choose an image file.")})
    await service.open_scene(session, user, campaign_id, scene_id)
    return await service.image(await file.read(limits.IMAGE_UPLOAD_BYTES + 1))


#: An upload route's ``file``: a PNG, JPEG or WebP image, re-encoded (413 too large).
Uploaded = Annotated[StoredImage, Depends(_uploaded_image)]


@router.put("/{scene_id}/background", max_body_size=UPLOAD_BODY_BYTES)
async def put_background(
    campaign_id: PathId, scene_id: PathId, image: Uploaded, session: Session, user: CurrentUser
) -> dict[str, object]:
    """A PNG, JPEG or WebP image, validated and re-encoded (413 too large, 422 no image)."""
    await service.set_background(session, user, campaign_id, scene_id, image)
    return dict(await views.scene_json(session, user, campaign_id, scene_id))


@router.get("/{scene_id}/background")
async def get_background(
    campaign_id: PathId, scene_id: PathId, request: Request, session: Session, user: CurrentUser
) -> Response:
    row = await service.background(session, user, campaign_id, scene_id)
    return image_response(request, row.data, row.mime, row.etag)


@router.put("/{scene_id}/tokens/{token_id}/portrait", max_body_size=UPLOAD_BODY_BYTES)
async def put_portrait(
    campaign_id: PathId,
    scene_id: PathId,
    token_id: PathId,
    image: Uploaded,
    session: Session,
    user: CurrentUser,
) -> dict[str, object]:
    """The token's portrait: a PNG, JPEG or WebP image, validated and re-encoded like a
    background (413 too large, 422 no image); the token back."""
    await service.set_portrait(session, user, campaign_id, scene_id, token_id, image)
    return dict(await views.token_json(session, user, campaign_id, scene_id, token_id))


@router.delete("/{scene_id}/tokens/{token_id}/portrait")
async def delete_portrait(
    campaign_id: PathId, scene_id: PathId, token_id: PathId, session: Session, user: CurrentUser
) -> dict[str, object]:
    await service.set_portrait(session, user, campaign_id, scene_id, token_id, None)
    return dict(await views.token_json(session, user, campaign_id, scene_id, token_id))


@router.get("/{scene_id}/tokens/{token_id}/portrait")
async def get_portrait(
    campaign_id: PathId,
    scene_id: PathId,
    token_id: PathId,
    request: Request,
    session: Session,
    user: CurrentUser,
) -> Response:
    row = await service.portrait(session, user, campaign_id, scene_id, token_id)
    return image_response(request, row.data, row.mime, row.etag)


@router.put("/{scene_id}/walls")
async def put_walls(
    campaign_id: PathId, scene_id: PathId, body: WallsBody, session: Session, user: CurrentUser
) -> Any:
    """The whole set of walls (and doors and difficult cells when given); a stale
    ``version`` is a 409 carrying the current ``scene``."""
    walls = service.WallsIn(
        segments=body.segments,
        doors=None if body.doors is None else [(d.segment, d.open) for d in body.doors],
        difficult=body.difficult,
        version=body.version,
    )
    try:
        await service.set_walls(session, user, campaign_id, scene_id, walls)
    except Conflict as exc:
        # The editor shows what is there now instead of what it drew on a stale copy.
        fresh = await views.scene_json(session, user, campaign_id, scene_id)
        return JSONResponse({"detail": exc.message, "scene": fresh}, status_code=409)
    return dict(await views.scene_json(session, user, campaign_id, scene_id))


@router.post("/{scene_id}/fog")
async def fog(
    campaign_id: PathId, scene_id: PathId, body: FogBody, session: Session, user: CurrentUser
) -> dict[str, object]:
    await service.change_fog(session, user, campaign_id, scene_id, body.reveal, body.hide)
    return dict(await views.scene_json(session, user, campaign_id, scene_id))


@router.post("/{scene_id}/lights", status_code=201, dependencies=[IDEMPOTENT])
async def add_light(
    campaign_id: PathId, scene_id: PathId, body: LightBody, session: Session, user: CurrentUser
) -> dict[str, object]:
    """Place a light on a cell (a light already there takes the new radius); GMs only."""
    await light.add_light(session, user, campaign_id, scene_id, body.x, body.y, body.radius)
    return dict(await views.scene_json(session, user, campaign_id, scene_id))


@router.delete("/{scene_id}/lights/{x}/{y}")
async def remove_light(
    campaign_id: PathId,
    scene_id: PathId,
    x: Annotated[int, Path(ge=-10_000, le=10_000)],
    y: Annotated[int, Path(ge=-10_000, le=10_000)],
    session: Session,
    user: CurrentUser,
) -> dict[str, object]:
    """Take away the light on the cell ``(x, y)``; GMs only."""
    await light.remove_light(session, user, campaign_id, scene_id, x, y)
    return dict(await views.scene_json(session, user, campaign_id, scene_id))


@router.post("/{scene_id}/tokens", status_code=201, dependencies=[IDEMPOTENT])
async def add_token(
    campaign_id: PathId, scene_id: PathId, body: TokenBody, session: Session, user: CurrentUser
) -> dict[str, object]:
    token = await service.add_token(
        session, user, campaign_id, scene_id, service.TokenIn(**body.model_dump())
    )
    return dict(await views.token_json(session, user, campaign_id, scene_id, token.id))


@router.post("/{scene_id}/place", dependencies=[IDEMPOTENT])
async def place(
    campaign_id: PathId, scene_id: PathId, body: PlaceBody, session: Session, user: CurrentUser
) -> dict[str, object]:
    """A token for every participant of the linked encounter without one, on free cells
    near its side's start area; 422 at ``areas`` when they do not all fit (nothing placed)."""
    areas = None if body.areas is None else {k: [list(c) for c in v] for k, v in body.areas.items()}
    tokens = await tactics.place_participants(session, user, campaign_id, scene_id, areas)
    return {"tokens": [await views.token_json(session, user, campaign_id, scene_id, t.id)
                       for t in tokens]}  # fmt: skip


@router.patch("/{scene_id}/tokens/{token_id}")
async def change_token(
    campaign_id: PathId,
    scene_id: PathId,
    token_id: PathId,
    body: TokenPatch,
    session: Session,
    user: CurrentUser,
) -> dict[str, object]:
    change = service.TokenChange(**body.model_dump())
    await service.change_token(session, user, campaign_id, scene_id, token_id, change)
    return dict(await views.token_json(session, user, campaign_id, scene_id, token_id))


@router.delete("/{scene_id}/tokens/{token_id}", status_code=204)
async def remove_token(
    campaign_id: PathId, scene_id: PathId, token_id: PathId, session: Session, user: CurrentUser
) -> Response:
    return await no_content(service.remove_token(session, user, campaign_id, scene_id, token_id))


@router.post("/{scene_id}/tokens/{token_id}/move")
async def move(
    campaign_id: PathId,
    scene_id: PathId,
    token_id: PathId,
    body: MoveBody,
    session: Session,
    user: CurrentUser,
) -> dict[str, object]:
    """Move a token; 422 at ``to``/``path`` when the rules refuse, 403 for a player's
    override, 409 when another request moved it meanwhile. The answer is the caller's form
    of the move's ``token_moved``."""
    path = None if body.path is None else [list(p) for p in body.path]
    result = await service.move_token(
        session, user, campaign_id, scene_id, token_id, (body.to[0], body.to[1]), path,
        body.override, None if body.via is None else [list(p) for p in body.via],
    )  # fmt: skip
    answer: MoveJSON = {
        "x": result.x,
        "y": result.y,
        "cost": result.cost,
        "allowance": result.allowance,
        "stopped_at": None if result.stopped_at is None else list(result.stopped_at),
        "reactions": result.reactions,
        "blocked": result.blocked,
        "message": result.message,
        "actions": _actions(result.actions),
    }
    return dict(answer)


def _actions(left: Budget | None) -> ActionsLeftJSON | None:
    """The mover's actions left after a move that was one (PF2e's Stride), else ``None``."""
    if left is None:
        return None
    text = _("Actions left: %(symbols)s (%(left)d of %(total)d)", symbols=left.symbols,
             left=left.left, total=left.total)  # fmt: skip
    return {"left": left.left, "total": left.total, "symbols": left.symbols, "text": text}


def _cell(raw: str, field: str) -> tuple[int, int]:
    try:
        x, y = (int(v) for v in raw.split(","))
    except ValueError:
        raise ValidationFailed({field: _("A cell as x,y.")}) from None
    return x, y


@router.get("/{scene_id}/distance")
async def distance(
    campaign_id: PathId,
    scene_id: PathId,
    session: Session,
    user: CurrentUser,
    from_: Annotated[str, Query(alias="from", max_length=30)],
    to: Annotated[str, Query(max_length=30)],
) -> dict[str, object]:
    """The distance between two cells in the system's unit (walls ignored: a range)."""
    value, unit, cells = await service.distance(
        session, user, campaign_id, scene_id, _cell(from_, "from"), _cell(to, "to")
    )
    return {"distance": value, "unit": unit, "cells": cells}


@router.get("/{scene_id}/attack")
async def attack(
    campaign_id: PathId,
    scene_id: PathId,
    session: Session,
    user: CurrentUser,
    attacker: Annotated[int, Query(ge=1, le=MAX_ROW_ID)],
    target: Annotated[int, Query(ge=1, le=MAX_ROW_ID)],
) -> dict[str, object]:
    """An attack chosen on the map (participant ids): distance, whether each weapon reaches
    and its range modifier, the suggested cover and covering figure, and the attack form's
    fields to pre-fill — from what the caller may see."""
    return dict(await tactics.attack_line(session, user, campaign_id, scene_id, attacker, target))


@router.get("/{scene_id}/tokens/{token_id}/reach")
async def reach(
    campaign_id: PathId, scene_id: PathId, token_id: PathId, session: Session, user: CurrentUser
) -> dict[str, object]:
    """Where the token can move now (issue 28): ``left`` the cells of movement left this
    Handlung or turn (``null`` outside a fight: no limit, no cells), ``cells`` the cells
    it can end on with their cost, ``[col, row, cost]``. Its player on its turn, or a GM."""
    found = await service.token_reach(session, user, campaign_id, scene_id, token_id)
    return {"left": found.left, "cells": [[c[0], c[1], cost] for c, cost in found.cells]}


@router.get("/{scene_id}/zones")
async def zones(
    campaign_id: PathId, scene_id: PathId, session: Session, user: CurrentUser
) -> dict[str, object]:
    """Each figure's Gefährdungsbereich cells (H&H), for the tokens the caller sees."""
    return {"zones": await tactics.zones(session, user, campaign_id, scene_id)}


@router.post("/{scene_id}/pointer")
async def pointer(
    campaign_id: PathId, scene_id: PathId, body: PointerBody, session: Session, user: CurrentUser
) -> dict[str, object]:
    """Show everyone a ruler with waypoints (``ruler``), its release (``clear``) or a ping."""
    shown = await service.point(
        session, user, campaign_id, scene_id, body.kind, [list(c) for c in body.cells]
    )
    return {
        "kind": shown.kind,
        "cells": shown.cells,
        "distance": shown.distance,
        "unit": shown.unit,
    }
