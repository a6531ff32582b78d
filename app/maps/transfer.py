"""The battle map in the campaign document: scenes (grid, alignment, walls, doors, difficult
terrain, fog and revealed cells, the linked encounter) with their background image and tokens.

Scenes and tokens are named by refs like every other row (:mod:`app.core.transfer`), so the
log's ``scene_id`` and ``token_id`` are renumbered with them; a token's participant and
character and a scene's encounter by their refs. The image travels as the handouts' does
(base64 of the stored, already re-encoded bytes, with its ETag), so the copy serves the same
bytes. The movement a figure spent in the current turn is the fight's (its state travels
with the encounter): a document written before, whose tokens carry it (``moved``,
``moved_turn``), imports with those fields read and left. A document without ``scenes``
(written before) imports with none.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app import limits
from app.core.queries import all_rows
from app.core.transfer import Document, IdMaps, Import
from app.errors import ValidationFailed
from app.i18n import _
from app.maps.models import Scene, SceneBackground, Token, TokenPortrait
from app.media.transfer import ImageDoc, image_document, image_row

#: A cell light's radius in cells (``app.maps.light``).
LightRadius = Annotated[int, Field(ge=1, le=limits.LIGHT_RADIUS_MAX)]


class _Doc(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TokenDoc(_Doc):
    ref: limits.Int32
    participant: limits.Int32 | None
    character: limits.Int32 | None
    label: str = Field(max_length=100)
    colour: str = Field(pattern="^#[0-9a-fA-F]{6}$")
    size: int = Field(ge=1, le=limits.TOKEN_SIZE_MAX)
    hidden: bool
    x: int = Field(ge=0, lt=limits.SCENE_SIDE_MAX)
    y: int = Field(ge=0, lt=limits.SCENE_SIDE_MAX)
    #: Documents written before the fight kept the movement (0017_moveundo); not read.
    moved: int = Field(default=0, ge=0, le=limits.INT_MAX)
    moved_turn: str = Field(default="", max_length=16)
    #: The portrait (issue 28); documents written before have none.
    portrait: ImageDoc | None = None
    #: The radius of the light it carries (0018_light); documents written before: none.
    light: int = Field(default=0, ge=0, le=limits.LIGHT_RADIUS_MAX)


class SceneDoc(_Doc):
    ref: limits.Int32
    encounter: limits.Int32 | None
    name: str = Field(min_length=1, max_length=100)
    cols: int = Field(ge=1, le=limits.SCENE_SIDE_MAX)
    rows: int = Field(ge=1, le=limits.SCENE_SIDE_MAX)
    grid_x: int = Field(ge=-10_000, le=10_000)
    grid_y: int = Field(ge=-10_000, le=10_000)
    cell_px: int = Field(ge=4, le=10_000)
    walls: list[tuple[Literal["v", "h"], limits.Int32, limits.Int32]] = Field(
        max_length=limits.SCENE_EDGES_MAX
    )
    doors: list[tuple[Literal["v", "h"], limits.Int32, limits.Int32, bool]] = Field(
        max_length=limits.SCENE_EDGES_MAX
    )
    difficult: list[tuple[limits.Int32, limits.Int32]] = Field(
        max_length=limits.MAP_CELLS_PER_REQUEST
    )
    fog: bool
    revealed: list[tuple[limits.Int32, limits.Int32]] = Field(
        max_length=limits.MAP_CELLS_PER_REQUEST
    )
    #: Per-player line of sight (``app.maps.sight``); absent in exports made before it.
    line_of_sight: bool = False
    sight_radius: int | None = Field(default=None, ge=1, le=limits.SCENE_SIDE_MAX)
    #: Whether players see the scene; exports made before scenes could be hidden: shown.
    shown: bool = True
    #: Darkness and the lights on cells ``[x, y, radius]`` (0018_light); before: light.
    dark: bool = False
    lights: list[tuple[limits.Int32, limits.Int32, LightRadius]] = Field(
        default_factory=list, max_length=limits.LIGHTS_PER_SCENE
    )
    created_at: datetime
    background: ImageDoc | None
    tokens: list[TokenDoc] = Field(max_length=limits.TOKENS_PER_SCENE)

    @model_validator(mode="after")
    def _on_the_grid(self) -> SceneDoc:
        """Every edge, cell and token inside the grid (the map code relies on it)."""
        c, r = self.cols, self.rows
        for kind, x, y in [*self.walls, *(d[:3] for d in self.doors)]:
            ok = 0 <= x <= c and 0 <= y < r if kind == "v" else 0 <= x < c and 0 <= y <= r
            if not ok:
                raise ValueError("an edge lies outside the grid")
        for x, y in [*self.difficult, *self.revealed, *((lt[0], lt[1]) for lt in self.lights)]:
            if not (0 <= x < c and 0 <= y < r):
                raise ValueError("a cell lies outside the grid")
        for t in self.tokens:
            if t.x + t.size > c or t.y + t.size > r:
                raise ValueError("a token stands outside the grid")
        return self


class _Rows:
    """The campaign's scenes with their images and tokens, loaded once for the export."""

    def user_ids(self) -> set[int]:
        return set()

    def number(self, maps: IdMaps) -> None:
        number(self, maps)

    async def write(self, maps: IdMaps) -> dict[str, object]:
        return {"scenes": export(self, maps)}

    def __init__(self) -> None:
        self.scenes: list[Scene] = []
        self.images: dict[int, SceneBackground] = {}
        self.tokens: list[Token] = []
        self.portraits: dict[int, TokenPortrait] = {}


async def load(session: AsyncSession, campaign_id: int) -> _Rows:
    rows = _Rows()
    rows.scenes = await all_rows(
        session, select(Scene).where(Scene.campaign_id == campaign_id).order_by(Scene.id)
    )
    ids = [s.id for s in rows.scenes]
    rows.images = {
        b.scene_id: b
        for b in (
            await session.scalars(select(SceneBackground).where(SceneBackground.scene_id.in_(ids)))
        ).all()
    }
    rows.tokens = await all_rows(
        session, select(Token).where(Token.scene_id.in_(ids)).order_by(Token.id)
    )
    with_portrait = [t.id for t in rows.tokens if t.portrait_etag is not None]
    found = await session.scalars(
        select(TokenPortrait).where(TokenPortrait.token_id.in_(with_portrait))
    )
    rows.portraits = {p.token_id: p for p in found.all()}
    return rows


def number(rows: _Rows, maps: IdMaps) -> None:
    maps.by_kind["scene"] = {s.id: ref for ref, s in enumerate(rows.scenes, start=1)}
    maps.by_kind["token"] = {t.id: ref for ref, t in enumerate(rows.tokens, start=1)}


def _token(t: Token, maps: IdMaps, portrait: TokenPortrait | None) -> dict[str, object]:
    return {
        "ref": maps.id("token", t.id),
        "participant": maps.id("participant", t.participant_id),
        "character": maps.id("character", t.character_id),
        "label": t.label, "colour": t.colour, "size": t.size, "hidden": t.hidden,
        "x": t.x, "y": t.y, "light": t.light,
        "portrait": image_document(portrait),
    }  # fmt: skip


def export(rows: _Rows, maps: IdMaps) -> list[dict[str, object]]:
    return [
        {
            "ref": maps.id("scene", s.id),
            "encounter": maps.id("encounter", s.encounter_id),
            "name": s.name,
            "cols": s.cols,
            "rows": s.rows,
            "grid_x": s.grid_x,
            "grid_y": s.grid_y,
            "cell_px": s.cell_px,
            "walls": s.walls,
            "doors": s.doors,
            "difficult": s.difficult,
            "fog": s.fog,
            "revealed": s.revealed,
            "line_of_sight": s.line_of_sight,
            "sight_radius": s.sight_radius,
            "shown": s.shown,
            "dark": s.dark,
            "lights": s.lights,
            "created_at": s.created_at.isoformat(),
            "background": image_document(rows.images.get(s.id)),
            "tokens": [
                _token(t, maps, rows.portraits.get(t.id)) for t in rows.tokens if t.scene_id == s.id
            ],
        }
        for s in rows.scenes
    ]


async def import_scenes(
    session: AsyncSession, campaign_id: int, docs: list[SceneDoc], maps: IdMaps
) -> None:
    """The scenes as new rows (after the encounters, before the log: the log's ``scene_id``
    and ``token_id`` are renumbered through the maps filled here)."""
    refs = [s.ref for s in docs]
    token_refs = [t.ref for s in docs for t in s.tokens]
    if len(set(refs)) != len(refs) or len(set(token_refs)) != len(token_refs):
        raise ValidationFailed({"scenes": _("Every ref must be distinct.")})
    for s in docs:
        scene = Scene(
            campaign_id=campaign_id, encounter_id=maps.id("encounter", s.encounter),
            name=s.name, cols=s.cols, rows=s.rows, grid_x=s.grid_x, grid_y=s.grid_y,
            cell_px=s.cell_px, walls=[list(w) for w in s.walls],
            doors=[list(d) for d in s.doors], difficult=[list(c) for c in s.difficult],
            fog=s.fog, revealed=[list(c) for c in s.revealed], line_of_sight=s.line_of_sight,
            sight_radius=s.sight_radius, shown=s.shown, created_at=s.created_at, dark=s.dark,
            lights=[list(lt) for lt in s.lights],
            background_etag=None if s.background is None else s.background.etag,
        )  # fmt: skip
        session.add(scene)
        await session.flush()
        maps.by_kind["scene"][s.ref] = scene.id
        if s.background is not None:
            session.add(image_row(SceneBackground, s.background, scene_id=scene.id))
        tokens = [
            Token(
                scene_id=scene.id,
                participant_id=maps.id("participant", t.participant),
                character_id=maps.id("character", t.character),
                label=t.label,
                colour=t.colour,
                size=t.size,
                hidden=t.hidden,
                x=t.x,
                y=t.y,
                portrait_etag=None if t.portrait is None else t.portrait.etag,
                light=t.light,
            )
            for t in s.tokens
        ]
        session.add_all(tokens)
        await session.flush()
        maps.by_kind["token"] |= {t.ref: row.id for t, row in zip(s.tokens, tokens, strict=True)}
        session.add_all(
            image_row(TokenPortrait, t.portrait, token_id=row.id)
            for t, row in zip(s.tokens, tokens, strict=True)
            if t.portrait is not None
        )


class ScenesDoc(_Doc):
    """The document's fields of this part (a document written before it: none)."""

    scenes: list[SceneDoc] = Field(default_factory=list, max_length=limits.SCENES_PER_CAMPAIGN)


class ScenesPart:
    """The battle maps (after the encounters and the talk, before the log on import)."""

    tables = {"map_scene": "scenes"}  # noqa: RUF012
    model = ScenesDoc

    async def load(self, session: AsyncSession, campaign_id: int, exporter_id: int) -> _Rows:
        return await load(session, campaign_id)

    def check(self, document: Document) -> None:
        """Nothing beyond the document model's own validation of this part."""

    async def import_(self, into: Import) -> None:
        scenes = into.document.part(ScenesDoc).scenes
        await import_scenes(into.session, into.campaign_id, scenes, into.maps)


PART = ScenesPart()
