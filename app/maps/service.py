"""Battle map use cases: scenes, walls, fog, tokens, moves (docs/map.md).

The server is the authority: every move is checked against the grid (``app.rules.grid``)
and the movement the campaign's system allows (``Tactics.movement_allowance``); what a
viewer receives — the scene, and every map event — is cut to what they may see
(:mod:`app.maps.sight`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

from sqlalchemy import bindparam, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import make_transient_to_detached
from sqlalchemy.orm.exc import StaleDataError
from sqlalchemy.orm.util import identity_key

from app import limits
from app.accounts.models import User
from app.campaigns.models import Campaign
from app.campaigns.permissions import Action, allowed, authorize
from app.characters.models import Character
from app.core.queries import all_rows
from app.core.viewer import Viewer
from app.db import read_memo
from app.encounters import service as encounters
from app.encounters.combat import current_pid
from app.encounters.models import Encounter, Participant
from app.encounters.systems import system
from app.encounters.systems.protocol import (
    Budget,
    CombatCore,
    CountedActions,
    Tactics,
    capability,
    settings_of,
)
from app.errors import AppError, Conflict, Forbidden, NotFound, ValidationFailed
from app.events import payload
from app.events.audience import Audience, gm_only, in_scene, public
from app.events.models import CampaignEvent
from app.events.service import append_event, append_events, project
from app.i18n import _
from app.maps import batch_boards, moves, sight
from app.maps import events as map_events
from app.maps.models import (
    TOKEN_ROW_COLUMNS,
    MapToken,
    Scene,
    SceneBackground,
    Token,
    TokenPortrait,
    TokenRow,
)
from app.media.images import ImageRejected, StoredImage, process_upload
from app.rules import grid as g

Cell = g.Cell


class TooLarge(AppError):
    status_code = 413


@dataclass(frozen=True, slots=True)
class Opened:
    campaign: Campaign
    viewer: Viewer
    scene: Scene

    @property
    def rules(self) -> CombatCore:
        return system(self.campaign.system)

    @property
    def tactics(self) -> Tactics:
        return moves.map_rules(self.rules)


def rules_for(campaign: Campaign) -> CombatCore:
    return system(campaign.system)


async def open_for(
    session: AsyncSession, user: User, campaign_id: int, scene_id: int, action: Action
) -> Opened:
    campaign, viewer = await authorize(session, campaign_id, user.id, user.username, action)
    scene = await session.get(Scene, scene_id)
    if scene is None or not seen_by(scene, campaign_id, viewer):
        raise NotFound(_("Scene not found."))
    # Held while nothing is written, so the page's map, opening it again, finds it in the
    # session without a statement (the identity map holds its objects weakly).
    read_memo(session)[("scene", scene_id)] = scene
    return Opened(campaign, viewer, scene)


def seen_by(scene: Scene, campaign_id: int, viewer: Viewer) -> bool:
    """Whether the scene is one of this campaign's that ``viewer`` may see: players get
    nothing of a scene the GMs have not shown them."""
    return scene.campaign_id == campaign_id and (scene.shown or viewer.is_gm)


async def open_scene(session: AsyncSession, user: User, campaign_id: int, scene_id: int) -> Opened:
    return await open_for(session, user, campaign_id, scene_id, Action.view)


def _check_version(scene: Scene, version: int | None) -> None:
    if version is not None and version != scene.version:
        raise Conflict(_("The scene was changed meanwhile; reload it."))


def _for(opened: Opened, audience: Audience | None = None, *, announce: bool = False) -> Audience:
    """A map event's audience: by default everyone who may see the scene when it is read.
    While the scene is hidden from the players it is the GMs' alone (they prepare it in
    private), but for the one that tells the players it is hidden now (``announce``)."""
    if not (opened.scene.shown or announce):
        return gm_only()
    return audience or in_scene(opened.scene.id)


async def _event(
    session: AsyncSession,
    opened: Opened,
    user: User,
    payload: payload.EventPayload,
    audience: Audience | None = None,
    *,
    announce: bool = False,
) -> CampaignEvent:
    """Log a map event for :func:`_for`'s audience."""
    return await append_event(
        session,
        opened.campaign.id,
        payload,
        actor_id=user.id,
        audience=_for(opened, audience, announce=announce),
    )


async def scene_event(
    session: AsyncSession,
    opened: Opened,
    user: User,
    payload: payload.EventPayload,
    audience: Audience | None = None,
) -> CampaignEvent:
    """A map event about ``opened``'s scene (:func:`_event`), for the modules beside this."""
    return await _event(session, opened, user, payload, audience)


async def flush_scene(session: AsyncSession) -> None:
    """Write a changed scene; a change of it that another request wrote first is a 409."""
    try:
        await session.flush()
    except StaleDataError:
        raise Conflict(_("The scene was changed meanwhile; reload it.")) from None


#: Events to append in one go (``append_events``), each with its audience.
Batch = list[tuple[payload.EventPayload, Audience | None]]


async def token_events(
    session: AsyncSession,
    opened: Opened,
    user: User,
    b: sight.Board,
    token: Token,
    payload: payload.EventPayload,
    before: sight.Seen,
) -> list[CampaignEvent]:
    """The event about ``token`` in each view's form, then — with line of sight, when what
    a player's figures see changed — ``token_sighted`` for every other token that came into
    or went out of some view; all appended in one go, and returned."""
    revealed = _sight_reveals(opened, b)
    now = b.audiences()
    forms = sight.event_forms(b, token, payload, before, now, revealed=bool(revealed))
    events: Batch = [(payload, _for(opened, forms.audience(token)))]
    events += await _fog_revealed(session, opened, user, revealed)
    if opened.scene.line_of_sight or opened.scene.dark or revealed:
        after = b.views_of(now)
        events += _sighted(opened, user, sight.sight_changes(b, before, after, token.id))
    return await append_events(session, opened.campaign.id, events, actor_id=user.id)


def _sighted(opened: Opened, user: User, changes: list[tuple[MapToken, sight.Forms]]) -> Batch:
    """A ``token_sighted`` per token that came into or went out of some view."""
    return [
        (
            map_events.TokenSighted(actor_name=user.username, scene_id=opened.scene.id,
                                    token_id=other.id),
            _for(opened, found.audience(other)),
        )
        for other, found in changes
    ]  # fmt: skip


def _sight_reveals(opened: Opened, b: sight.Board) -> list[Cell]:
    """Sight reveals (docs/map.md): with fog and line of sight on, the fogged cells the
    party's tokens see now join the scene's revealed cells for good. The cells revealed."""
    new = sorted(b.unrevealed_sight())
    if new:
        scene = opened.scene
        scene.revealed = [list(c) for c in sorted({tuple(c) for c in scene.revealed} | set(new))]
    return new


async def _fog_revealed(
    session: AsyncSession, opened: Opened, user: User, cells: list[Cell]
) -> Batch:
    """The usual ``fog_changed`` for cells sight revealed, to append (the scene's
    ``version`` guards them: another change of the scene written first is a 409, nothing
    of this one kept)."""
    if not cells:
        return []
    await flush_scene(session)
    scene = opened.scene
    fog = map_events.FogChanged(
        actor_name=user.username,
        scene_id=scene.id,
        revealed=[list(c) for c in cells],
        hidden=[],
        fog=scene.fog,
    )
    return [(fog, _for(opened))]


async def sight_followup(
    session: AsyncSession,
    opened: Opened,
    user: User,
    b: sight.Board,
    before: sight.Seen,
    *,
    reveal: bool = True,
) -> None:
    """After a change of the scene that changes what players see (fog, walls and doors,
    the switches; ``b``: the board loaded before it, ``before``: its ``seen()``): sight
    reveals (unless the GM just hid cells: ``reveal`` false), then a ``token_sighted``
    per token that came into or went out of some view — ``token_added`` /
    ``token_removed`` to exactly those views. All appended in one go."""
    now = replace(b)  # the grid and owners again, from the changed scene
    events = (
        await _fog_revealed(session, opened, user, _sight_reveals(opened, now)) if reveal else []
    )
    events += _sighted(opened, user, sight.sight_changes(now, before, now.seen()))
    await append_events(session, opened.campaign.id, events, actor_id=user.id)


# --- scenes ---------------------------------------------------------------------------------


def _size(value: int, field: str) -> int:
    if not 1 <= value <= limits.SCENE_SIDE_MAX:
        raise ValidationFailed(
            {field: _("Between 1 and %(max)d cells.", max=limits.SCENE_SIDE_MAX)}
        )
    return value


async def scenes(session: AsyncSession, user: User, campaign_id: int) -> list[Scene]:
    """The campaign's scenes the user may see (players: the shown ones)."""
    _campaign, viewer = await authorize(session, campaign_id, user.id, user.username, Action.view)
    return await scenes_for(session, viewer, campaign_id)


async def scenes_for(session: AsyncSession, viewer: Viewer, campaign_id: int) -> list[Scene]:
    """The campaign's scenes ``viewer`` (a member, checked by the caller) may see."""
    query = select(Scene).where(Scene.campaign_id == campaign_id)
    if not viewer.is_gm:
        query = query.where(Scene.shown.is_(True))
    return await all_rows(session, query.order_by(Scene.id))


async def _encounter_id(session: AsyncSession, campaign_id: int, encounter_id: int | None) -> None:
    if encounter_id is None:
        return
    found = await session.scalar(
        select(Encounter.id).where(
            Encounter.id == encounter_id, Encounter.campaign_id == campaign_id
        )
    )
    if found is None:
        raise ValidationFailed({"encounter_id": _("No such encounter in this campaign.")})


@dataclass(frozen=True, slots=True)
class NewScene:
    """A scene to create: its name and size in cells, the encounter it links, and whether the
    players see it at once."""

    name: str
    cols: int
    rows: int
    encounter_id: int | None = None
    shown: bool = False


async def create_scene(session: AsyncSession, user: User, campaign_id: int, new: NewScene) -> Scene:
    """A new scene, hidden from the players until a GM shows it (unless ``shown``)."""
    campaign, viewer = await authorize(
        session, campaign_id, user.id, user.username, Action.manage_maps
    )
    name = limits.check_name(new.name)
    _size(new.cols, "cols")
    _size(new.rows, "rows")
    count = await session.scalar(
        select(func.count()).select_from(Scene).where(Scene.campaign_id == campaign_id)
    )
    limits.check_room(int(count or 0), limits.SCENES_PER_CAMPAIGN, "name")
    await _encounter_id(session, campaign_id, new.encounter_id)
    scene = Scene(
        campaign_id=campaign_id, name=name, cols=new.cols, rows=new.rows,
        encounter_id=new.encounter_id, walls=[], doors=[], difficult=[], revealed=[],
        shown=new.shown,
    )  # fmt: skip
    session.add(scene)
    await session.flush()
    opened = Opened(campaign, viewer, scene)
    await _event(session, opened, user, _scene_updated(opened, user, "created"))
    return scene


@dataclass(frozen=True, slots=True)
class SceneChange:
    """A PATCH of a scene: ``None`` leaves a value as it is (``encounter_id`` 0 unlinks)."""

    name: str | None = None
    cols: int | None = None
    rows: int | None = None
    grid_x: int | None = None
    grid_y: int | None = None
    cell_px: int | None = None
    fog: bool | None = None
    encounter_id: int | None = None
    version: int | None = None
    line_of_sight: bool | None = None
    #: Cells a token sees at most; 0: no limit.
    sight_radius: int | None = None
    #: Show the scene to the players, or hide it from them again.
    shown: bool | None = None
    #: Make the scene dark (players see tokens on lit cells only), or light again.
    dark: bool | None = None


async def update_scene(
    session: AsyncSession, user: User, campaign_id: int, scene_id: int, change: SceneChange
) -> Scene:
    opened = await open_for(session, user, campaign_id, scene_id, Action.manage_maps)
    scene = opened.scene
    _check_version(scene, change.version)
    if change.name is not None:
        scene.name = limits.check_name(change.name)
    cols = _size(change.cols, "cols") if change.cols is not None else scene.cols
    rows = _size(change.rows, "rows") if change.rows is not None else scene.rows
    if (cols, rows) != (scene.cols, scene.rows):
        await _check_shrink(session, scene, cols, rows)
        scene.cols, scene.rows = cols, rows
    for key in ("grid_x", "grid_y", "cell_px"):
        value = getattr(change, key)
        if value is not None:
            low = 4 if key == "cell_px" else -10_000
            if not low <= value <= 10_000:
                raise ValidationFailed({key: _("Out of range.")})
            setattr(scene, key, value)
    if change.encounter_id is not None:
        linked = change.encounter_id or None
        await _encounter_id(session, campaign_id, linked)
        scene.encounter_id = linked
    sees = change.fog is not None or change.line_of_sight is not None
    sees = sees or change.sight_radius is not None or change.dark is not None
    b = await board(session, opened) if sees else None
    seen = b.seen() if b is not None else None
    before = (scene.fog, scene.shown, scene.dark)
    if change.fog is not None:
        scene.fog = change.fog
    if change.dark is not None:
        scene.dark = change.dark
    if change.shown is not None:
        scene.shown = change.shown
    _sight_settings(scene, change)
    await session.flush()
    await _event(session, opened, user, _scene_updated(opened, user, "changed"))
    await _announce_switches(session, opened, user, *before)
    if b is not None and seen is not None:
        await sight_followup(session, opened, user, b, seen)
    return scene


async def _announce_switches(
    session: AsyncSession, opened: Opened, user: User, fog: bool, shown: bool, dark: bool
) -> None:
    """The events of a change of the fog (``fog_changed``), of the darkness
    (``light_changed``) or of whether players see the scene (``scene_updated`` ``shown``,
    and ``hidden``: for everyone, naming no more than the scene's id, so that a player's
    open page learns of it)."""
    scene = opened.scene
    if scene.dark != dark:
        await _event(
            session, opened, user,
            map_events.LightChanged(actor_name=user.username, scene_id=scene.id, change="dark",
                               dark=scene.dark),
        )  # fmt: skip
    if scene.fog != fog:
        await _event(
            session, opened, user,
            map_events.FogChanged(actor_name=user.username, scene_id=scene.id, revealed=[],
                             hidden=[], fog=scene.fog),
        )  # fmt: skip
    if scene.shown != shown:
        if scene.shown:
            await _event(session, opened, user, _scene_updated(opened, user, "shown"))
        else:
            hidden = _scene_updated(opened, user, "hidden")
            await _event(session, opened, user, hidden, public(), announce=True)


def _sight_settings(scene: Scene, change: SceneChange) -> None:
    if change.line_of_sight is not None:
        scene.line_of_sight = change.line_of_sight
    if change.sight_radius is not None:
        if not 0 <= change.sight_radius <= limits.SCENE_SIDE_MAX:
            raise ValidationFailed(
                {"sight_radius": _("Between 0 (no limit) and %(max)d cells.",
                                   max=limits.SCENE_SIDE_MAX)}
            )  # fmt: skip
        scene.sight_radius = change.sight_radius or None


async def _check_shrink(session: AsyncSession, scene: Scene, cols: int, rows: int) -> None:
    """A smaller grid may not cut off a token or a wall."""
    tokens = await _tokens(session, scene.id)
    if any(t.x + t.size > cols or t.y + t.size > rows for t in tokens):
        raise ValidationFailed({"cols": _("A token stands outside the smaller grid.")})
    for kind, x, y, *_rest in [*scene.walls, *scene.doors]:
        if (kind == "v" and (x > cols or y >= rows)) or (kind == "h" and (x >= cols or y > rows)):
            raise ValidationFailed({"cols": _("A wall lies outside the smaller grid.")})


def _scene_updated(opened: Opened, user: User, change: str) -> map_events.SceneUpdated:
    """The ``scene_updated`` of a ``change`` of ``opened``'s scene, at its version now."""
    return map_events.SceneUpdated(
        actor_name=user.username, scene_id=opened.scene.id, change=change,
        version=opened.scene.version,
    )  # fmt: skip


async def delete_scene(session: AsyncSession, user: User, campaign_id: int, scene_id: int) -> None:
    opened = await open_for(session, user, campaign_id, scene_id, Action.manage_maps)
    # The scene is gone when its event is read: who may see it is decided now.
    await _event(session, opened, user, _scene_updated(opened, user, "deleted"), public())
    await session.delete(opened.scene)
    await session.flush()


# --- background -----------------------------------------------------------------------------


async def image(raw: bytes) -> StoredImage:
    """An upload validated and re-encoded (in a worker thread); 413 / 422 at ``file``."""
    try:
        return await process_upload(raw)
    except ImageRejected as exc:
        if exc.status == 413:
            raise TooLarge(exc.message) from None
        raise ValidationFailed({"file": exc.message}) from None


def _store(row: SceneBackground | TokenPortrait, image: StoredImage) -> None:
    """Put an already re-encoded image in its row (a scene's background, a token's portrait)."""
    row.data, row.mime, row.width, row.height, row.etag = (
        image.data, image.mime, image.width, image.height, image.etag,
    )  # fmt: skip


async def set_background(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    scene_id: int,
    image: StoredImage,
) -> Scene:
    """Store an already re-encoded image (``app.media.images``) as the scene's background."""
    opened = await open_for(session, user, campaign_id, scene_id, Action.manage_maps)
    row = await session.get(SceneBackground, scene_id)
    if row is None:
        row = SceneBackground(scene_id=scene_id)
        session.add(row)
    _store(row, image)
    opened.scene.background_etag = image.etag
    await session.flush()
    await _event(session, opened, user, _scene_updated(opened, user, "background"))
    return opened.scene


async def background(
    session: AsyncSession, user: User, campaign_id: int, scene_id: int
) -> SceneBackground:
    await open_for(session, user, campaign_id, scene_id, Action.view)
    row = await session.get(SceneBackground, scene_id)
    if row is None:
        raise NotFound(_("This scene has no background image."))
    return row


# --- walls, doors, terrain, fog -------------------------------------------------------------


def _cells(raw: Sequence[Sequence[int]], scene: Scene, field: str) -> list[Cell]:
    return cells_in(raw, scene.cols, scene.rows, field)


def cells_in(raw: Sequence[Sequence[int]], cols: int, rows: int, field: str) -> list[Cell]:
    """Cells ``[x, y]`` of a request on a ``cols`` × ``rows`` grid; bad ones 422 at ``field``."""
    if len(raw) > limits.MAP_CELLS_PER_REQUEST:
        raise ValidationFailed(
            {field: _("At most %(max)d cells at once.", max=limits.MAP_CELLS_PER_REQUEST)}
        )
    cells: list[Cell] = []
    for item in raw:
        if len(item) != 2:
            raise ValidationFailed({field: _("A cell is a pair [x, y].")})
        cell = (int(item[0]), int(item[1]))
        if not (0 <= cell[0] < cols and 0 <= cell[1] < rows):
            raise ValidationFailed({field: _("A cell lies outside the grid.")})
        cells.append(cell)
    return cells


def _edges(raw: Sequence[Sequence[int]], scene: Scene, field: str) -> list[g.Edge]:
    out: list[g.Edge] = []
    for seg in raw:
        if len(seg) != 4:
            raise ValidationFailed({field: _("A segment is [x1, y1, x2, y2].")})
        try:
            out.extend(g.segment_edges((seg[0], seg[1], seg[2], seg[3]), scene.cols, scene.rows))
        except g.GridError:
            raise ValidationFailed(
                {field: _("A segment must run along one grid line inside the grid.")}
            ) from None
    return out


@dataclass(frozen=True, slots=True)
class WallsIn:
    """A PUT of the walls: ``None`` keeps doors or terrain as they are."""

    segments: list[list[int]]
    doors: list[tuple[list[int], bool]] | None = None
    difficult: list[list[int]] | None = None
    version: int | None = None


async def set_walls(
    session: AsyncSession, user: User, campaign_id: int, scene_id: int, walls: WallsIn
) -> Scene:
    opened = await open_for(session, user, campaign_id, scene_id, Action.manage_maps)
    scene = opened.scene
    _check_version(scene, walls.version)
    b = await board(session, opened)
    before = b.seen()
    edges = sorted(set(_edges(walls.segments, scene, "segments")))
    doors = scene.doors
    if walls.doors is not None:
        found: dict[g.Edge, bool] = {}
        for seg, is_open in walls.doors:
            for edge in _edges([seg], scene, "doors"):
                found[edge] = is_open
        doors = [[*edge, is_open] for edge, is_open in sorted(found.items())]
    if len(edges) + len(doors) > limits.SCENE_EDGES_MAX:
        raise ValidationFailed(
            {"segments": _("At most %(max)d wall edges.", max=limits.SCENE_EDGES_MAX)}
        )
    scene.walls = [list(e) for e in edges]
    scene.doors = doors
    if walls.difficult is not None:
        scene.difficult = [
            list(c) for c in sorted(set(_cells(walls.difficult, scene, "difficult")))
        ]
    await session.flush()
    await _event(session, opened, user, _scene_updated(opened, user, "walls"))
    await sight_followup(session, opened, user, b, before)
    return scene


async def change_fog(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    scene_id: int,
    reveal: list[list[int]],
    hide: list[list[int]],
) -> Scene:
    opened = await open_for(session, user, campaign_id, scene_id, Action.manage_maps)
    scene = opened.scene
    shown = set(_cells(reveal, scene, "reveal"))
    hidden = set(_cells(hide, scene, "hide"))
    b = await board(session, opened)
    before = b.seen()
    now = ({tuple(c) for c in scene.revealed} | shown) - hidden
    scene.revealed = [list(c) for c in sorted(now)]
    await session.flush()
    await _event(
        session, opened, user,
        map_events.FogChanged(actor_name=user.username, scene_id=scene.id,
                         revealed=[list(c) for c in sorted(shown)],
                         hidden=[list(c) for c in sorted(hidden)], fog=scene.fog),
    )  # fmt: skip
    # The GM's hand wins over sight until the party's sight changes again.
    await sight_followup(session, opened, user, b, before, reveal=False)
    return scene


async def fog_whole(
    session: AsyncSession, user: User, campaign_id: int, scene_id: int, action: str
) -> None:
    """The scene page's switches: fog ``on`` or ``off``, ``reveal`` or ``hide`` all,
    line of sight ``sight_on`` or ``sight_off``, ``show`` the scene to the players or
    ``unshow`` it."""
    opened = await open_for(session, user, campaign_id, scene_id, Action.manage_maps)
    scene = opened.scene
    cells = [[x, y] for x in range(scene.cols) for y in range(scene.rows)]
    if action in ("on", "off"):
        await update_scene(session, user, campaign_id, scene_id, SceneChange(fog=action == "on"))
    elif action in ("sight_on", "sight_off"):
        change = SceneChange(line_of_sight=action == "sight_on")
        await update_scene(session, user, campaign_id, scene_id, change)
    elif action in ("dark_on", "dark_off"):
        change = SceneChange(dark=action == "dark_on")
        await update_scene(session, user, campaign_id, scene_id, change)
    elif action in ("show", "unshow"):
        change = SceneChange(shown=action == "show")
        await update_scene(session, user, campaign_id, scene_id, change)
    elif action in ("reveal", "hide"):
        reveal, hide = (cells, []) if action == "reveal" else ([], cells)
        await change_fog(session, user, campaign_id, scene_id, reveal, hide)
    else:
        raise ValidationFailed({"action": _("Out of range.")})


# --- tokens ---------------------------------------------------------------------------------


#: A scene's tokens in order: built once.
_TOKENS = select(Token).where(Token.scene_id == bindparam("scene_id")).order_by(Token.id)
#: The board's tokens, each with its participant (a fight's figure) and its character's
#: owner, in one statement: a token has at most one of each. The tokens' columns come as
#: plain values (:class:`TokenRow`), the participant as the session's object.
_BOARD_TOKENS = (
    select(*TOKEN_ROW_COLUMNS, Participant, Character.owner_id)
    .outerjoin(Participant, Participant.id == Token.participant_id)
    .outerjoin(Character, Character.id == Token.character_id)
    .where(Token.scene_id == bindparam("scene_id"))
    .order_by(Token.id)
)
_TOKEN_FIELDS = len(TOKEN_ROW_COLUMNS)
_BACKGROUND_SIZE = select(SceneBackground.width, SceneBackground.height).where(
    SceneBackground.scene_id == bindparam("scene_id")
)


async def _tokens(session: AsyncSession, scene_id: int) -> list[Token]:
    return list((await session.scalars(_TOKENS, {"scene_id": scene_id})).all())


#: A board's tokens, each with its participant and its character's owner (or ``None``).
BoardRows = list[tuple[TokenRow, Participant | None, int | None]]


async def board_rows(session: AsyncSession, scene_id: int) -> BoardRows:
    """The scene's tokens with their participants and owners (:data:`_BOARD_TOKENS`), read
    once per transaction while nothing is written (:func:`app.db.read_memo`): the combat
    page's fight and its map region read the same board. The rows hold the participants,
    so the session's identity map keeps them meanwhile."""
    memo = read_memo(session)
    key = ("map board rows", scene_id)
    known: BoardRows | None = memo.get(key)
    if known is None:
        rows = await session.execute(_BOARD_TOKENS, {"scene_id": scene_id})
        n = _TOKEN_FIELDS
        known = [(TokenRow._make(row[:n]), row[n], row[n + 1]) for row in rows]
        memo[key] = known
    return known


def held(session: AsyncSession, b: sight.Board, token_id: int) -> Token:
    """The board's token ``token_id`` as the session's :class:`Token`, to change or delete
    (404 when it is not on the board): the session's own object if it has one, else one
    made from the row without a statement, as loaded (its write checks the row's
    ``version``). It takes the row's place on the board, so the board sees the change."""
    index = next((i for i, t in enumerate(b.tokens) if t.id == token_id), None)
    if index is None:
        raise NotFound(_("Token not found."))
    found = b.tokens[index]
    if isinstance(found, Token):
        return found
    token = session.identity_map.get(identity_key(Token, found.id))
    if not isinstance(token, Token):
        token = Token(**found._asdict())
        make_transient_to_detached(token)
        session.add(token)
    b.tokens[index] = token
    return token


def remember_fight_scene(session: AsyncSession, encounter_id: int, scene: Scene | None) -> None:
    """Note the scene linked to a fight, as read (``None``: none), for the rest of the
    transaction while nothing is written (:func:`fight_scene_known`); held, so
    ``session.get`` finds it without a statement."""
    read_memo(session)[("fight scene", encounter_id)] = (scene,)


def fight_scene_known(session: AsyncSession, encounter_id: int) -> tuple[Scene | None] | None:
    """The scene linked to a fight if read in this transaction (a one-tuple), else ``None``."""
    known: tuple[Scene | None] | None = read_memo(session).get(("fight scene", encounter_id))
    return known


async def board(session: AsyncSession, opened: Opened) -> sight.Board:
    """Everything the scene's views and checks read (:func:`board_of`)."""
    return await board_of(session, opened.scene)


async def board_of(session: AsyncSession, scene: Scene) -> sight.Board:
    """Everything the scene's views and checks read: tokens, their participants and owners
    (one statement, :func:`board_rows`), the fight, the background's size."""
    rows = await board_rows(session, scene.id)
    tokens: list[MapToken] = [token for token, _p, _o in rows]
    participants = {p.id: p for _t, p, _o in rows if p is not None}
    owners = {
        t.character_id: o for t, _p, o in rows if t.character_id is not None and o is not None
    }
    encounter = (
        await session.get(Encounter, scene.encounter_id) if scene.encounter_id is not None else None
    )
    size = None
    if scene.background_etag is not None:
        row = (await session.execute(_BACKGROUND_SIZE, {"scene_id": scene.id})).first()
        size = None if row is None else (int(row[0]), int(row[1]))
    return sight.Board(scene, tokens, participants, encounter, owners, size)


def _place(scene: Scene, x: int, y: int, size: int, field: str = "to") -> None:
    if not (x >= 0 and y >= 0 and x + size <= scene.cols and y + size <= scene.rows):
        raise ValidationFailed({field: _("That is outside the grid.")})


@dataclass(frozen=True, slots=True)
class TokenIn:
    x: int
    y: int
    label: str | None = None
    size: int = 1
    colour: str | None = None
    participant_id: int | None = None
    character_id: int | None = None
    hidden: bool | None = None


async def _token_owner(session: AsyncSession, opened: Opened, spec: TokenIn) -> tuple[str, bool]:
    """The label and hidden flag a token takes from its participant or character."""
    if spec.participant_id is not None:
        participant = await session.get(Participant, spec.participant_id)
        if participant is None or participant.encounter_id != opened.scene.encounter_id:
            raise ValidationFailed(
                {"participant_id": _("Not a participant of the scene's encounter.")}
            )
        return participant.name, participant.hidden
    if spec.character_id is not None:
        character = await session.get(Character, spec.character_id)
        if character is None or character.campaign_id != opened.campaign.id:
            raise ValidationFailed({"character_id": _("No such character in this campaign.")})
        return character.name, bool(character.hidden_from_players)
    return "", False


async def add_token(
    session: AsyncSession, user: User, campaign_id: int, scene_id: int, spec: TokenIn
) -> Token:
    opened = await open_for(session, user, campaign_id, scene_id, Action.manage_maps)
    if not 1 <= spec.size <= limits.TOKEN_SIZE_MAX:
        raise ValidationFailed(
            {"size": _("Between 1 and %(max)d cells.", max=limits.TOKEN_SIZE_MAX)}
        )
    _place(opened.scene, spec.x, spec.y, spec.size, "x")
    count = await session.scalar(
        select(func.count()).select_from(Token).where(Token.scene_id == scene_id)
    )
    limits.check_room(int(count or 0), limits.TOKENS_PER_SCENE, "x")
    name, hidden = await _token_owner(session, opened, spec)
    label = limits.check_name(spec.label if spec.label else name or "?", "label")
    token = Token(
        scene_id=scene_id, x=spec.x, y=spec.y, size=spec.size, label=label,
        colour=sight.colour(spec.colour), participant_id=spec.participant_id,
        character_id=spec.character_id, hidden=hidden if spec.hidden is None else spec.hidden,
    )  # fmt: skip
    b = await board(session, opened)
    before = b.seen()
    session.add(token)
    await session.flush()
    b = await board(session, opened)  # with the new token's participant or owner
    return await _token_state(session, opened, user, b, token, before, map_events.TokenAdded)


async def _token_state(
    session: AsyncSession,
    opened: Opened,
    user: User,
    b: sight.Board,
    token: Token,
    before: sight.Seen,
    kind: type[map_events.TokenStateEvent],
) -> Token:
    """Announce ``token`` as it is now (placed or changed), in each view's form."""
    payload = kind(
        actor_name=user.username, scene_id=opened.scene.id, token=dict(b.token_json(token))
    )
    await token_events(session, opened, user, b, token, payload, before)
    return token


async def _on_board(
    session: AsyncSession, user: User, ids: tuple[int, int, int], action: Action
) -> tuple[Opened, MapToken, sight.Board]:
    """The scene (``ids``: campaign, scene, token) opened for ``action``, the token on it as
    the board read it, and the board (404 when the token is not on it)."""
    campaign_id, scene_id, token_id = ids
    opened = await open_for(session, user, campaign_id, scene_id, action)
    b = await board(session, opened)
    # The board holds every token of the scene: no statement of its own for this one.
    token = next((t for t in b.tokens if t.id == token_id), None)
    if token is None:
        raise NotFound(_("Token not found."))
    return opened, token, b


async def _open_token(
    session: AsyncSession, user: User, ids: tuple[int, int, int], action: Action
) -> tuple[Opened, Token, sight.Board]:
    """As :func:`_on_board`, the token held to change or delete (:func:`held`): the board
    before a change of the token."""
    opened, token, b = await _on_board(session, user, ids, action)
    return opened, held(session, b, token.id), b


async def remove_token(
    session: AsyncSession, user: User, campaign_id: int, scene_id: int, token_id: int
) -> None:
    ids = (campaign_id, scene_id, token_id)
    opened, token, b = await _open_token(session, user, ids, Action.manage_maps)
    before = b.seen()
    await session.delete(token)
    await flush_token(session)
    b.remove(token)
    payload = map_events.TokenRemoved(
        actor_name=user.username, scene_id=scene_id, token_id=token_id
    )
    await token_events(session, opened, user, b, token, payload, before)


@dataclass(frozen=True, slots=True)
class TokenChange:
    label: str | None = None
    colour: str | None = None
    size: int | None = None
    hidden: bool | None = None
    version: int | None = None
    #: The radius of the light it carries, in cells (0: none).
    light: int | None = None


async def change_token(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    scene_id: int,
    token_id: int,
    change: TokenChange,
) -> Token:
    ids = (campaign_id, scene_id, token_id)
    opened, token, b = await _open_token(session, user, ids, Action.manage_maps)
    if change.version is not None and change.version != token.version:
        raise Conflict(_("The token was changed meanwhile; reload the scene."))
    before = b.seen()
    if change.size is not None:
        if not 1 <= change.size <= limits.TOKEN_SIZE_MAX:
            raise ValidationFailed(
                {"size": _("Between 1 and %(max)d cells.", max=limits.TOKEN_SIZE_MAX)}
            )
        _place(opened.scene, token.x, token.y, change.size, "size")
        token.size = change.size
    if change.label is not None:
        token.label = limits.check_name(change.label, "label")
    if change.colour is not None:
        token.colour = sight.colour(change.colour)
    if change.hidden is not None:
        token.hidden = change.hidden
    if change.light is not None:
        token.light = light_radius(change.light, "light", low=0)
    await flush_token(session)
    return await _token_state(session, opened, user, b, token, before, map_events.TokenChanged)


async def set_portrait(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    scene_id: int,
    token_id: int,
    image: StoredImage | None,
) -> Token:
    """Give a token a portrait (already re-encoded, ``app.media.images``), or take it away
    (``None``): a ``token_changed``."""
    ids = (campaign_id, scene_id, token_id)
    opened, token, b = await _open_token(session, user, ids, Action.manage_maps)
    before = b.seen()
    row = await session.get(TokenPortrait, token_id)
    if image is None:
        if row is not None:
            await session.delete(row)
        token.portrait_etag = None
    else:
        if row is None:
            row = TokenPortrait(token_id=token_id)
            session.add(row)
        _store(row, image)
        token.portrait_etag = image.etag
    await flush_token(session)
    return await _token_state(session, opened, user, b, token, before, map_events.TokenChanged)


async def portrait(
    session: AsyncSession, user: User, campaign_id: int, scene_id: int, token_id: int
) -> TokenPortrait:
    """A token's portrait, for a viewer who sees the token (else 404, as the token)."""
    ids = (campaign_id, scene_id, token_id)
    opened, token, b = await _on_board(session, user, ids, Action.view)
    if not (opened.viewer.is_gm or b.player_sees(token, opened.viewer.user_id)):
        raise NotFound(_("Token not found."))
    row = await session.get(TokenPortrait, token_id)
    if row is None:
        raise NotFound(_("This token has no portrait."))
    return row


# --- moves ----------------------------------------------------------------------------------


def _path(
    token: MapToken, to: Cell, raw: list[list[int]] | None, scene: Scene
) -> list[Cell] | None:
    """The path as given (start cell prepended, ``to`` appended where missing)."""
    if raw is None:
        return None
    if len(raw) > limits.MOVE_PATH_MAX:
        raise ValidationFailed({"path": _("At most %(max)d steps.", max=limits.MOVE_PATH_MAX)})
    path = _cells(raw, scene, "path")
    if not path or path[0] != (token.x, token.y):
        path.insert(0, (token.x, token.y))
    if path[-1] != to:
        path.append(to)
    return path


def _route(
    token: MapToken, to: Cell, raw: list[list[int]], scene: Scene, rule: g.Diagonal
) -> list[Cell]:
    """A path through the waypoints ``raw`` to ``to``: a cheapest leg from each point to the
    next (walls and closed doors respected), joined."""
    if len(raw) > limits.MOVE_WAYPOINTS_MAX:
        raise ValidationFailed(
            {"via": _("At most %(max)d waypoints.", max=limits.MOVE_WAYPOINTS_MAX)}
        )
    points = [(token.x, token.y), *_cells(raw, scene, "via"), to]
    grid = sight.grid_of(scene)
    path = [points[0]]
    for number, (a, b) in enumerate(pairwise(points), start=1):
        leg = g.shortest_path(grid, a, b, rule)
        if leg is None:
            raise ValidationFailed({"via": _("There is no way to waypoint %(n)d.", n=number)})
        path += leg[1:]
    if len(path) - 1 > limits.MOVE_PATH_MAX:
        raise ValidationFailed({"via": _("At most %(max)d steps.", max=limits.MOVE_PATH_MAX)})
    return path


def _may_move(opened: Opened, b: sight.Board, token: MapToken, override: bool) -> None:
    """GMs move any token at any time and may override; a player only their own figure's
    token, on its turn while the scene's fight runs, and never past the rules."""
    viewer = opened.viewer
    if allowed(viewer.role, Action.manage_maps):
        return
    if override:
        raise Forbidden(_("Only a GM may override the movement rules."))
    if not allowed(viewer.role, Action.act_in_combat):
        raise Forbidden(_("Your role in this campaign does not allow this."))
    if not b.controls(viewer, token):
        raise ValidationFailed({"to": _("This is not your token.")})
    pid = b.pid(token)
    if b.running and pid is not None and current_pid(b.state) != pid:
        raise ValidationFailed({"to": _("It is not your turn.")})


async def token_reach(
    session: AsyncSession, user: User, campaign_id: int, scene_id: int, token_id: int
) -> moves.Reach:
    """Where the caller may move the token now (the cells and the movement left), for the
    caller who may move it: its player on its turn, a GM."""
    ids = (campaign_id, scene_id, token_id)
    opened, token, b = await _on_board(session, user, ids, Action.view)
    _may_move(opened, b, token, False)
    return moves.reach(b, opened.rules, settings_of(opened.campaign.settings), opened.viewer, token)


async def move_token(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    scene_id: int,
    token_id: int,
    to: Cell,
    raw_path: list[list[int]] | None = None,
    override: bool = False,
    via: list[list[int]] | None = None,
) -> moves.MoveResult:
    """Move a token to ``to``: the cheapest way, along ``raw_path`` (its steps), or through
    the waypoints ``via`` (the cheapest leg between each two). The answer is the caller's
    form of the ``token_moved`` it writes (:func:`app.maps.moves.answer`)."""
    ids = (campaign_id, scene_id, token_id)
    opened, token, b = await _open_token(session, user, ids, Action.view)
    _may_move(opened, b, token, override)
    _place(opened.scene, to[0], to[1], token.size)
    if raw_path is not None and via is not None:
        raise ValidationFailed({"via": _("Give the steps or the waypoints, not both.")})
    path = (
        _path(token, to, raw_path, opened.scene)
        if via is None
        else _route(token, to, via, opened.scene, opened.tactics.metric.diagonal)
    )
    asked = moves.MoveAsked(token, to, path, override)
    plan = moves.plan_move(
        b, opened.rules, settings_of(opened.campaign.settings), opened.viewer, asked
    )
    actions = await _in_fight(session, user, opened, b, token, plan)
    before = b.seen()
    token.x, token.y = plan.end
    await flush_token(session)
    payload = map_events.TokenMoved(
        actor_name=user.username, scene_id=opened.scene.id, token_id=token.id, x=token.x,
        y=token.y, cost=plan.cost, override=plan.override, reactions=plan.reactions or None,
        blocked=plan.blocked,
    )  # fmt: skip
    logged = await token_events(session, opened, user, b, token, payload, before)
    batch_boards.keep(logged[-1], b)
    seen = project(logged[:1], opened.viewer, BoardNow(b, opened.viewer))
    return moves.answer(seen, plan.allowance, actions)


async def _in_fight(
    session: AsyncSession, user: User, opened: Opened, b: sight.Board, token: Token,
    plan: moves.Plan,
) -> Budget | None:  # fmt: skip
    """A figure's move while the linked fight runs is part of the fight (docs/map.md): it
    spends the figure's movement of this Handlung or turn, and where a move is an action
    (PF2e's Stride) by the figure whose turn it is, that action — refused at ``to`` when
    none is left — before the token moves; an undo gives both back and puts the token
    back. A GM's ``override`` is the map's alone, as a move outside a fight. The actions
    left after it (``None``: the move was no action)."""
    pid = b.pid(token)
    if (
        plan.override
        or b.encounter is None
        or not b.running
        or pid is None
        or pid not in b.state.get("figures", {})
        or plan.end == (token.x, token.y)
    ):
        return None
    budget = capability(opened.rules, CountedActions)
    stride = plan.cost > 0 and budget is not None and current_pid(b.state) == pid
    move = encounters.MapMove(pid, token.id, (token.x, token.y), plan.cost, stride)
    try:
        await encounters.move_figure(session, user, opened.campaign.id, b.encounter.id, move)
    except ValidationFailed as exc:
        raise ValidationFailed({"to": next(iter(exc.fields.values()))}) from None
    return budget.turn_budget(b.state) if budget is not None and stride else None


@dataclass(frozen=True, slots=True)
class BoardNow:
    """The scene as the mover sees it right after their move: what the projection of the
    move's own event asks (``app.events.audience.Present``), from the board in hand."""

    board: sight.Board
    viewer: Viewer

    def sees(self, scene_id: int, token_id: int | None) -> bool:
        scene = self.board.scene
        if scene_id != scene.id or not (scene.shown or self.viewer.is_gm):
            return False
        if token_id is None:
            return True
        cells = None if self.viewer.is_gm else self.board.cells_for(self.viewer.user_id)
        token = next((t for t in self.board.tokens if t.id == token_id), None)
        return token is not None and self.board.sees_in(token, cells)


async def flush_token(session: AsyncSession) -> None:
    """Write a changed, moved or removed token (its ``version`` checked): one that another
    request changed, moved or removed first, after this one read it, is a 409 — nothing of
    this request kept — not a 500."""
    try:
        await session.flush()
    except StaleDataError:
        raise Conflict(_("The token was changed meanwhile; reload the scene.")) from None


async def distance(
    session: AsyncSession, user: User, campaign_id: int, scene_id: int, a: Cell, b: Cell
) -> tuple[float, str, int]:
    """The distance between two cells in the system's unit, and in cells."""
    opened = await open_for(session, user, campaign_id, scene_id, Action.view)
    for cell, field in ((a, "from"), (b, "to")):
        if not (0 <= cell[0] < opened.scene.cols and 0 <= cell[1] < opened.scene.rows):
            raise ValidationFailed({field: _("That is outside the grid.")})
    metric = opened.tactics.metric
    cells = g.distance(a, b, metric.diagonal)
    return float(cells * metric.per_cell), metric.unit, cells


def light_radius(value: int, field: str, low: int = 1) -> int:
    """A light's radius in cells, ``low`` to ``LIGHT_RADIUS_MAX`` (422 at ``field``)."""
    if not low <= value <= limits.LIGHT_RADIUS_MAX:
        raise ValidationFailed(
            {field: _("Between %(low)d and %(max)d cells.", low=low, max=limits.LIGHT_RADIUS_MAX)}
        )
    return value


POINTER_KINDS = ("ruler", "ping", "clear")


async def point(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    scene_id: int,
    kind: str,
    cells: list[list[int]],
) -> map_events.MapPointer:
    """Show everyone a ruler (waypoints), its release or a ping: one ``map_pointer`` event."""
    opened = await open_for(session, user, campaign_id, scene_id, Action.act_in_combat)
    if kind not in POINTER_KINDS:
        raise ValidationFailed({"kind": _("A ruler, a ping or a release.")})
    if len(cells) > limits.RULER_POINTS_MAX:
        raise ValidationFailed(
            {"cells": _("At most %(max)d waypoints.", max=limits.RULER_POINTS_MAX)}
        )
    points = _cells(cells, opened.scene, "cells")
    if (kind == "ping" and len(points) != 1) or (kind == "ruler" and len(points) < 2):
        raise ValidationFailed({"cells": _("A ping names one cell, a ruler two or more.")})
    metric = opened.tactics.metric
    length = sum(
        g.distance(points[i - 1], points[i], metric.diagonal) for i in range(1, len(points))
    )
    payload = map_events.MapPointer(
        actor_name=user.username, scene_id=scene_id, kind=kind,
        cells=[list(c) for c in points] if kind != "clear" else [],
        distance=float(length * metric.per_cell) if kind == "ruler" else None,
        unit=metric.unit, cols=opened.scene.cols, rows=opened.scene.rows,
    )  # fmt: skip
    await _event(session, opened, user, payload)
    return payload
