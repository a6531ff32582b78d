"""HTML pages of the battle map: the scene list, a scene with its live board, and the forms
that work without JavaScript (create, background, fog, token, move)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, File, Form, Query, Request, UploadFile
from fastapi.responses import HTMLResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from app import limits
from app.campaigns import service as campaigns
from app.campaigns.models import Campaign
from app.core.viewer import Viewer
from app.encounters import service as encounters
from app.errors import AppError, Conflict, ValidationFailed
from app.i18n import _
from app.maps import edit, light, service, tactics, views
from app.maps.live import SCENE_PAGE, ScenePage
from app.media.images import UPLOAD_BODY_BYTES, StoredImage
from app.web.calls import CampaignAt, CampaignCall
from app.web.deps import CurrentUser, Session, attempt
from app.web.idempotency import IDEMPOTENT, IdempotentRoute
from app.web.ids import MAX_ROW_ID, PathId
from app.web.pages import FormPage, page_route
from app.web.routers import Router
from app.web.sse import LiveStream
from app.web.streams import LiveStreams
from app.web.templating import page, redirect

router = Router(include_in_schema=False, route_class=IdempotentRoute)


async def _scenes(session: AsyncSession, viewer: Viewer, campaign: Campaign) -> dict[str, object]:
    """The scenes the viewer may see (players: the shown ones)."""
    scenes = await service.scenes_for(session, viewer, campaign.id)
    return {
        "campaign": campaign,
        "campaign_id": campaign.id,
        "scenes": scenes,
        "is_gm": viewer.is_gm,
    }


_INDEX = FormPage("maps/index.html", campaigns.open_campaign, _scenes, {"errors": {}})
index = page_route(router, "/campaigns/{campaign_id}/scenes", "index", _INDEX.render)


@router.post("/campaigns/{campaign_id}/scenes", dependencies=[IDEMPOTENT])
async def create(
    request: Request,
    campaign_id: PathId,
    session: Session,
    user: CurrentUser,
    name: Annotated[str, Form(max_length=1000)] = "",
    cols: Annotated[int, Form(ge=-10_000, le=10_000)] = 20,
    rows: Annotated[int, Form(ge=-10_000, le=10_000)] = 15,
) -> Response:
    try:
        async with attempt(session):
            new = service.NewScene(name, cols, rows)
            scene = await service.create_scene(session, user, campaign_id, new)
    except ValidationFailed as exc:
        call = CampaignCall(request, session, user, campaign_id)
        return await _INDEX.render(call, {"errors": exc.fields}, 422)
    return redirect(request, f"/campaigns/{campaign_id}/scenes/{scene.id}")


@dataclass(frozen=True, slots=True)
class SceneCall(CampaignCall):
    """A request about the scene in its path: what every scene route and form answer needs."""

    scene_id: int

    @property
    def url(self) -> str:
        return f"/campaigns/{self.campaign_id}/scenes/{self.scene_id}"


async def _scene_call(call: CampaignAt, scene_id: PathId) -> SceneCall:
    return SceneCall(call.request, call.session, call.user, call.campaign_id, scene_id)


#: A scene route's parameter: the request, the session, the user and the scene's path.
SceneAt = Annotated[SceneCall, Depends(_scene_call)]


async def _scene_page(
    call: SceneCall,
    errors: dict[str, str] | None = None,
    status_code: int = 200,
    typed: dict[str, str] | None = None,
    as_id: int | None = None,
) -> HTMLResponse:
    """The scene page; ``typed``: the editor's texts as submitted (kept on a refusal);
    ``as_id``: a GM's «view as» that member (the board as they get it, not live)."""
    session, user, campaign_id, scene_id = call.session, call.user, call.campaign_id, call.scene_id
    campaign, viewer = await campaigns.open_campaign(session, user, campaign_id)
    await service.open_scene(session, user, campaign_id, scene_id)
    extra: dict[str, object] = {"campaign": campaign, "errors": errors or {}}
    if as_id is not None:
        member, _view = await views.view_as(session, user, campaign_id, scene_id, as_id)
        context = await views.map_context(session, member, campaign_id, scene_id)
        assert context is not None
        extra["viewing_as"] = member.username
        return page(call.request, "maps/scene.html", {**context, **extra})
    context = await views.map_context(session, viewer, campaign_id, scene_id)
    assert context is not None
    if viewer.is_gm:
        extra["members"] = [
            m for m in await campaigns.members(session, campaign_id) if not m.role.is_gm
        ]
        extra["encounters"] = await encounters.encounters(session, user, campaign_id)
        extra["edit"] = {**views.edit_texts(context["scene"]), **(typed or {})}
    return page(call.request, "maps/scene.html", {**context, **extra}, status_code=status_code)


@router.get("/campaigns/{campaign_id}/scenes/{scene_id}", response_class=HTMLResponse)
async def scene(
    call: SceneAt,
    as_: Annotated[int | None, Query(alias="as", ge=1, le=MAX_ROW_ID)] = None,
) -> Response:
    try:
        return await _scene_page(call, as_id=as_)
    except ValidationFailed as exc:
        return await _scene_page(call, exc.fields, 422)


@router.get("/campaigns/{campaign_id}/scenes/{scene_id}/live")
async def live(
    campaign_id: PathId,
    scene_id: PathId,
    session: Session,
    user: CurrentUser,
    stream: LiveStreams,
) -> LiveStream:
    """The scene's board and pointer as HTML, for the HTMX SSE extension."""
    opened = await service.open_scene(session, user, campaign_id, scene_id)
    return stream(campaign_id, opened.viewer, SCENE_PAGE.stream(ScenePage(campaign_id, scene_id)))


@router.post("/campaigns/{campaign_id}/scenes/{scene_id}/move")
async def move(
    call: SceneAt,
    token_id: Annotated[int, Form(ge=1, le=2**31 - 1)],
    x: Annotated[int, Form(ge=-10_000, le=10_000)],
    y: Annotated[int, Form(ge=-10_000, le=10_000)],
) -> Response:
    """Move a token without JavaScript: the page again, with the refusal at the field (or,
    when something the mover cannot see blocked the way, with that at the field)."""
    try:
        async with attempt(call.session):
            moved = await service.move_token(
                call.session, call.user, call.campaign_id, call.scene_id, token_id, (x - 1, y - 1)
            )
    except ValidationFailed as exc:
        return await _scene_page(call, exc.fields, 422)
    if moved.message is not None:
        return await _scene_page(call, {"to": moved.message})
    return redirect(call.request, call.url)


#: Stores a re-encoded upload (a background, a token's portrait).
Store = Callable[[StoredImage], Awaitable[object]]


async def _upload(call: SceneCall, file: UploadFile | None, store: Store, field: str) -> Response:
    """An image form's upload, re-encoded and stored; a refusal at ``field`` on the page."""
    try:
        if file is None or not file.filename:
            raise ValidationFailed({field: _("Choose an image file.")})
        await service.open_scene(call.session, call.user, call.campaign_id, call.scene_id)
        try:
            image = await service.image(await file.read(limits.IMAGE_UPLOAD_BYTES + 1))
        except ValidationFailed as exc:
            raise ValidationFailed({field: exc.fields["file"]}) from None
        async with attempt(call.session):
            await store(image)
    except ValidationFailed as exc:
        return await _scene_page(call, exc.fields, 422)
    except AppError as exc:
        if exc.status_code != 413:
            raise
        errors = {field: exc.message}
        return await _scene_page(call, errors, 413)
    return redirect(call.request, call.url)


@router.post(
    "/campaigns/{campaign_id}/scenes/{scene_id}/background", max_body_size=UPLOAD_BODY_BYTES
)
async def background(call: SceneAt, file: Annotated[UploadFile | None, File()] = None) -> Response:
    async def store(image: StoredImage) -> object:
        return await service.set_background(
            call.session, call.user, call.campaign_id, call.scene_id, image
        )

    return await _upload(call, file, store, "file")


@router.post("/campaigns/{campaign_id}/scenes/{scene_id}/portrait", max_body_size=UPLOAD_BODY_BYTES)
async def portrait(
    call: SceneAt,
    token_id: Annotated[str, Form(max_length=12)] = "",
    file: Annotated[UploadFile | None, File()] = None,
) -> Response:
    """A token's portrait from the GM's form (``token_id``, ``file``)."""
    tid = int(token_id) if token_id.isdigit() else 0

    async def store(image: StoredImage) -> object:
        return await service.set_portrait(
            call.session, call.user, call.campaign_id, call.scene_id, tid, image
        )

    return await _upload(call, file, store, "portrait")


@router.post("/campaigns/{campaign_id}/scenes/{scene_id}/tokens", dependencies=[IDEMPOTENT])
async def add_token(
    call: SceneAt,
    label: Annotated[str, Form(max_length=1000)] = "",
    x: Annotated[int, Form(ge=-10_000, le=10_000)] = 0,
    y: Annotated[int, Form(ge=-10_000, le=10_000)] = 0,
    participant_id: Annotated[str, Form(max_length=12)] = "",
    hidden: Annotated[bool, Form()] = False,
) -> Response:
    pid = int(participant_id) if participant_id.isdigit() else None
    spec = service.TokenIn(x=x, y=y, label=label or None, participant_id=pid, hidden=hidden)

    async def change() -> None:
        await service.add_token(call.session, call.user, call.campaign_id, call.scene_id, spec)

    return await _scene_form(call, change)


@router.post("/campaigns/{campaign_id}/scenes/{scene_id}/link", dependencies=[IDEMPOTENT])
async def link(
    call: SceneAt,
    encounter_id: Annotated[str, Form(max_length=12)] = "",
    place: Annotated[bool, Form()] = False,
) -> Response:
    """Link the scene to an encounter (``0``: unlink) and, if asked, place its figures —
    both or neither."""
    linked = int(encounter_id) if encounter_id.isdigit() else 0

    async def change() -> None:
        link = service.SceneChange(encounter_id=linked)
        await service.update_scene(call.session, call.user, call.campaign_id, call.scene_id, link)
        if place and linked:
            await tactics.place_participants(
                call.session, call.user, call.campaign_id, call.scene_id
            )

    return await _scene_form(call, change)


@router.post("/campaigns/{campaign_id}/scenes/{scene_id}/place", dependencies=[IDEMPOTENT])
async def place(
    call: SceneAt,
    area_abenteurer: Annotated[str, Form(max_length=edit.TEXT_MAX)] = "",
    area_gegner: Annotated[str, Form(max_length=edit.TEXT_MAX)] = "",
    area_neutral: Annotated[str, Form(max_length=edit.TEXT_MAX)] = "",
) -> Response:
    """Place the linked encounter's participants in the start areas painted in the editor
    (cells ``x,y`` per side); a side without one starts at its default edge."""
    typed = {"area_abenteurer": area_abenteurer, "area_gegner": area_gegner}
    typed["area_neutral"] = area_neutral

    async def change() -> None:
        areas = {
            side: edit.cells(text, "areas")
            for side, text in (("abenteurer", area_abenteurer), ("gegner", area_gegner),
                               ("neutral", area_neutral))
            if text.strip()
        }  # fmt: skip
        await tactics.place_participants(
            call.session, call.user, call.campaign_id, call.scene_id, areas or None
        )

    return await _scene_form(call, change, typed)


@router.post("/campaigns/{campaign_id}/scenes/{scene_id}/walls")
async def walls(
    call: SceneAt,
    segments: Annotated[str, Form(max_length=edit.TEXT_MAX)] = "",
    doors: Annotated[str, Form(max_length=edit.TEXT_MAX)] = "",
    difficult: Annotated[str, Form(max_length=edit.TEXT_MAX)] = "",
    version: Annotated[int | None, Form(ge=0, le=2**31 - 1)] = None,
) -> Response:
    """The whole set of walls, doors and difficult cells as text (the editor without
    JavaScript): a bad entry is a 422 at its field with the text kept; a stale version a
    409 with the current walls and a note."""
    typed = {"segments": segments, "doors": doors, "difficult": difficult}

    async def save() -> None:
        change = service.WallsIn(
            segments=edit.segments(segments), doors=edit.doors(doors),
            difficult=edit.cells(difficult, "difficult"), version=version,
        )  # fmt: skip
        await service.set_walls(call.session, call.user, call.campaign_id, call.scene_id, change)

    return await _saved(call, save, typed)


#: A form's change of the scene, run in one SAVEPOINT (``attempt``).
Change = Callable[[], Awaitable[None]]


async def _scene_form(
    call: SceneCall,
    change: Change,
    typed: dict[str, str] | None = None,
    at: Callable[[dict[str, str]], dict[str, str]] | None = None,
) -> Response:
    """A scene form's answer: back to the scene when ``change`` worked, else the scene page
    with the typed values and the errors (422), ``at`` the form's fields when given."""
    try:
        async with attempt(call.session):
            await change()
    except ValidationFailed as exc:
        errors = exc.fields if at is None else at(exc.fields)
        return await _scene_page(call, errors, 422, typed)
    return redirect(call.request, call.url)


async def _saved(call: SceneCall, save: Change, typed: dict[str, str]) -> Response:
    """An editor form's answer (``_scene_form``); a stale version: the current scene (409)."""
    try:
        return await _scene_form(call, save, typed)
    except Conflict as exc:
        errors = {"version": exc.message}
        return await _scene_page(call, errors, 409)


@router.post("/campaigns/{campaign_id}/scenes/{scene_id}/grid")
async def grid(
    call: SceneAt,
    grid_x: Annotated[int, Form(ge=-100_000, le=100_000)] = 0,
    grid_y: Annotated[int, Form(ge=-100_000, le=100_000)] = 0,
    cell_px: Annotated[int, Form(ge=-100_000, le=100_000)] = 50,
    version: Annotated[int | None, Form(ge=0, le=2**31 - 1)] = None,
) -> Response:
    """Align the grid on the background: its offset and one cell's side in image pixels."""
    change = service.SceneChange(grid_x=grid_x, grid_y=grid_y, cell_px=cell_px, version=version)
    typed = {"grid_x": str(grid_x), "grid_y": str(grid_y), "cell_px": str(cell_px)}

    async def save() -> None:
        await service.update_scene(call.session, call.user, call.campaign_id, call.scene_id, change)

    return await _saved(call, save, typed)


@router.post("/campaigns/{campaign_id}/scenes/{scene_id}/fog")
async def fog(call: SceneAt, action: Annotated[str, Form(max_length=10)] = "") -> Response:
    """Fog for the whole scene without JavaScript (on, off, reveal all, hide all), line of
    sight on or off, the scene shown to the players or hidden from them."""
    await service.fog_whole(call.session, call.user, call.campaign_id, call.scene_id, action)
    return redirect(call.request, call.url)


def _fields_of(prefix: str) -> Callable[[dict[str, str]], dict[str, str]]:
    """A service's refusal at ``x``, ``y``, ``radius``, ``light`` as the form's fields."""
    return lambda errors: {f"{prefix}_{k}": v for k, v in errors.items()}


def _one_field(name: str) -> Callable[[dict[str, str]], dict[str, str]]:
    """A refusal as a message at the form's one field ``name``."""
    return lambda errors: {name: next(iter(errors.values()))}


@router.post("/campaigns/{campaign_id}/scenes/{scene_id}/lights", dependencies=[IDEMPOTENT])
async def add_light(
    call: SceneAt,
    x: Annotated[int, Form(ge=-10_000, le=10_000)] = 0,
    y: Annotated[int, Form(ge=-10_000, le=10_000)] = 0,
    radius: Annotated[int, Form(ge=-10_000, le=10_000)] = 4,
) -> Response:
    """A light on a cell without JavaScript (column and row counted from 0, radius in
    cells); a refusal at its field (``light_x``, ``light_y``, ``light_radius``)."""

    async def change() -> None:
        await light.add_light(
            call.session, call.user, call.campaign_id, call.scene_id, x, y, radius
        )

    return await _scene_form(call, change, at=_fields_of("light"))


@router.post("/campaigns/{campaign_id}/scenes/{scene_id}/lights/remove")
async def remove_light(call: SceneAt, cell: Annotated[str, Form(max_length=20)] = "") -> Response:
    """Take away the light on the cell ``x,y`` chosen in the list; 422 at ``light_cell``."""
    x, _sep, y = cell.partition(",")

    async def change() -> None:
        if not (x.strip().isdigit() and y.strip().isdigit()):
            raise ValidationFailed({"cell": _("Choose a light.")})
        await light.remove_light(
            call.session, call.user, call.campaign_id, call.scene_id, int(x), int(y)
        )

    return await _scene_form(call, change, at=_one_field("light_cell"))


@router.post("/campaigns/{campaign_id}/scenes/{scene_id}/token-light")
async def token_light(
    call: SceneAt,
    token_id: Annotated[str, Form(max_length=12)] = "",
    radius: Annotated[int, Form(ge=-10_000, le=10_000)] = 0,
) -> Response:
    """The light a token carries (radius in cells, 0: none); a refusal at ``token_light``."""
    tid = int(token_id) if token_id.isdigit() else 0

    async def change() -> None:
        carried = service.TokenChange(light=radius)
        await service.change_token(
            call.session, call.user, call.campaign_id, call.scene_id, tid, carried
        )

    return await _scene_form(call, change, at=_one_field("token_light"))
