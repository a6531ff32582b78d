"""The battle map: scenes (grid, walls, doors, difficult terrain, fog), their background
image and the tokens on them.

Walls, doors, difficult cells and revealed cells are small lists read and written with the
scene as a whole, so they are JSON columns of the scene row (guarded by its ``version``);
the background image is a row of its own, read only by the image route.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from sqlalchemy import JSON, Boolean, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.campaigns.columns import CampaignOwned, Stamped, StoredImage, Versioned
from app.db import Base, owned_by, refers_to


class Scene(CampaignOwned, Stamped, Base):
    """A map of ``cols`` × ``rows`` cells; one cell is one unit of the campaign's system
    (``Tactics.metric``: 1 Schritt, 1 m, 1.5 m).

    ``walls``: unit edges ``[kind, x, y]`` (see ``app.rules.grid``); ``doors``: ``[kind, x,
    y, open]``; ``difficult`` and ``revealed``: cells ``[x, y]``. With ``fog`` off players
    see the whole scene; with it on only the ``revealed`` cells.
    """

    __tablename__ = "map_scene"

    encounter_id: Mapped[int | None] = refers_to("encounter.id", index=True)
    name: Mapped[str] = mapped_column(String(100))
    cols: Mapped[int] = mapped_column(Integer)
    rows: Mapped[int] = mapped_column(Integer)
    #: Aligning the grid to the background: the grid's top-left corner and one cell's side,
    #: in the image's pixels.
    grid_x: Mapped[int] = mapped_column(Integer, default=0)
    grid_y: Mapped[int] = mapped_column(Integer, default=0)
    cell_px: Mapped[int] = mapped_column(Integer, default=50)
    walls: Mapped[list[Any]] = mapped_column(JSON, default=list)
    doors: Mapped[list[Any]] = mapped_column(JSON, default=list)
    difficult: Mapped[list[Any]] = mapped_column(JSON, default=list)
    fog: Mapped[bool] = mapped_column(Boolean, default=False)
    #: Whether players see the scene at all: a GM prepares it hidden, then shows it
    #: (players get nothing of a hidden scene: not in lists, no events, 404).
    shown: Mapped[bool] = mapped_column(Boolean, default=False)
    revealed: Mapped[list[Any]] = mapped_column(JSON, default=list)
    #: Per-player line of sight: each player sees only what their figures' tokens see
    #: (``app.maps.sight``), within ``sight_radius`` cells (``None``: no limit).
    line_of_sight: Mapped[bool] = mapped_column(Boolean, default=False)
    sight_radius: Mapped[int | None] = mapped_column(Integer)
    #: A dark scene: players see tokens only on lit cells (``app.maps.sight``; docs/map.md
    #: «Light»). ``lights``: light sources on cells, ``[x, y, radius]`` (radius in cells).
    dark: Mapped[bool] = mapped_column(Boolean, default=False)
    lights: Mapped[list[Any]] = mapped_column(JSON, default=list)
    #: The background's content tag (``None``: no image), part of its URL.
    background_etag: Mapped[str | None] = mapped_column(String(64))


class SceneBackground(StoredImage, Base):
    """The re-encoded background image, in the database so every process serves it."""

    __tablename__ = "map_background"

    scene_id: Mapped[int] = owned_by("map_scene.id", primary_key=True)


class Token(Versioned, Base):
    """A token on a scene: an encounter participant's, a character's or a free one.

    ``x``, ``y`` is its top-left cell; it covers ``size`` × ``size`` cells. The movement its
    figure spent in a fight's turn is the fight's (``app.encounters.combat``, ``movement``).
    """

    __tablename__ = "map_token"

    id: Mapped[int] = mapped_column(primary_key=True)
    scene_id: Mapped[int] = owned_by("map_scene.id", index=True)
    participant_id: Mapped[int | None] = owned_by("encounter_participant.id", index=True)
    character_id: Mapped[int | None] = refers_to("character.id", index=True)
    label: Mapped[str] = mapped_column(String(100))
    colour: Mapped[str] = mapped_column(String(7), default="#3a6ea5")
    size: Mapped[int] = mapped_column(Integer, default=1)
    hidden: Mapped[bool] = mapped_column(Boolean, default=False)
    x: Mapped[int] = mapped_column(Integer)
    y: Mapped[int] = mapped_column(Integer)
    #: The portrait's ETag (``TokenPortrait``); ``None``: no portrait.
    portrait_etag: Mapped[str | None] = mapped_column(String(64))
    #: The radius of the light the token carries with it (a torch), in cells; 0: none.
    light: Mapped[int] = mapped_column(Integer, default=0)


class TokenRow(NamedTuple):
    """A token as a board reads it: the row's columns, without the ORM's bookkeeping.

    A board holds every token of its scene, read for each request that looks at the map
    (a move, a combat step on the map, the scene page): as :class:`Token` objects, building
    them and reading their attributes cost a move about a quarter of its CPU. The one token
    a request changes or deletes is taken as a :class:`Token` of the session
    (``app.maps.service.held``), which writes it and checks its ``version``; a row cannot
    be changed, so no change is lost unwritten (a tuple: built in C, unlike a frozen
    dataclass, which costs a board of 100 tokens a tenth of a millisecond more).
    """

    id: int
    scene_id: int
    participant_id: int | None
    character_id: int | None
    label: str
    colour: str
    size: int
    hidden: bool
    x: int
    y: int
    portrait_etag: str | None
    light: int
    version: int


#: A board's token: read as a :class:`TokenRow`, or the session's :class:`Token` where the
#: request changes it.
MapToken = Token | TokenRow

#: The columns of :class:`TokenRow`, in its fields' order.
TOKEN_ROW_COLUMNS = tuple(Token.__table__.c[name] for name in TokenRow._fields)


class TokenPortrait(StoredImage, Base):
    """A token's portrait, re-encoded like a background and stored beside it."""

    __tablename__ = "map_token_portrait"

    token_id: Mapped[int] = owned_by("map_token.id", primary_key=True)
