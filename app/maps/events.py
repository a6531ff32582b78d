"""The battle map's event types (``app.maps``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, NotRequired, TypedDict

from app.events.payload import PUBLIC, PUBLIC_OR_GM, EventPayload, event_type

# --- the battle map (app/maps) ---------------------------------------------------------------

#: A map event about something players may not see is for the GMs only; one whose token
#: enters or leaves the players' sight carries the form players get instead (its audience,
#: ``app.events.audience.sight``).
MAP_VISIBILITIES: frozenset[str] = PUBLIC_OR_GM


@dataclass(frozen=True, slots=True, kw_only=True)
class SceneEvent(EventPayload):
    """An event on one scene of the map; its audience checks the scene (and the token,
    :meth:`scene_ref`) when it is read."""

    VISIBILITIES: ClassVar[frozenset[str]] = MAP_VISIBILITIES

    scene_id: int

    def scene_ref(self) -> tuple[int | None, int | None]:
        return self.scene_id, None


@dataclass(frozen=True, slots=True, kw_only=True)
class TokenEvent(SceneEvent):
    """An event about one token of a scene, named by its id."""

    token_id: int

    def scene_ref(self) -> tuple[int | None, int | None]:
        return self.scene_id, self.token_id


@dataclass(frozen=True, slots=True, kw_only=True)
class TokenStateEvent(SceneEvent):
    """An event that carries a token as it is now (the token names itself)."""

    #: ``{id, x, y, label, colour, size, participant_id, character_id}`` (+ ``hidden``).
    token: dict[str, Any]

    def scene_ref(self) -> tuple[int | None, int | None]:
        return self.scene_id, self.token.get("id")


@event_type("scene_updated")
class SceneUpdated(SceneEvent):
    """A scene was created, changed (name, size, grid, walls, doors, terrain, background)
    or deleted; viewers fetch it again as they may see it."""

    #: ``created``, ``changed``, ``walls``, ``background``, ``shown``, ``hidden`` or
    #: ``deleted``.
    change: str
    version: int

    def scene_ref(self) -> tuple[int | None, int | None]:
        return (None, None) if self.change == "deleted" else (self.scene_id, None)


@event_type("token_added")
class TokenAdded(TokenStateEvent):
    """A token was placed (or came into the players' sight: their form of a move or a fog
    change)."""


class MoveReaction(TypedDict):
    """A reaction a move offered (H&H Blockadeangriff): the reacting figure, the kind of
    reaction and the figure's name (moves written before the name was kept have none)."""

    participant_id: int
    kind: str
    name: NotRequired[str]


@event_type("token_moved")
class TokenMoved(TokenEvent):
    """A token moved on a scene: ``cost`` cells of movement, ``override`` when a GM placed
    it past the rules; ``reactions`` offered (H&H Blockadeangriff: ``{participant_id,
    kind}``); ``pushed``: the rule of the fight that moved it; ``blocked``: something the
    mover cannot see stopped it; ``undo``: the GM's undo of a fight's step put it back."""

    x: int
    y: int
    cost: int = 0
    override: bool = False
    reactions: list[MoveReaction] | None = None
    #: The rule that moved it (H&H «Wegstossen», «Fehltritt»), not its player.
    pushed: str | None = None
    #: The way reached a figure the mover cannot see: it ended on the last free cell before.
    blocked: bool = False
    #: The GM undid the step of the fight that moved it: it stands where it stood before.
    undo: bool = False


@event_type("token_sighted")
class TokenSighted(TokenEvent):
    """With line of sight on: a token came into or went out of some players' sight because
    what their figures see changed (their own token moved). Only its per-player forms
    matter — ``token_added`` / ``token_removed`` (its audience's own forms per player);
    the GMs, who see every token, get it as it is and have nothing to change."""


@event_type("token_removed")
class TokenRemoved(TokenEvent):
    """A token was removed (or left the players' sight: their form of a move)."""


@event_type("fog_changed")
class FogChanged(SceneEvent):
    """The GMs revealed or hid cells (or turned the fog on or off), or the party's sight
    revealed them; the GMs' alone while the scene is hidden from the players, like every
    map event."""

    revealed: list[list[int]]
    hidden: list[list[int]]
    fog: bool


@event_type("light_changed")
class LightChanged(SceneEvent):
    """The GMs made a scene dark or light again, or placed or took away a light on a cell
    (docs/map.md «Light»). Players get it without ``light`` (where a light stands is the
    GMs'; what it lights, they see on the board); the tokens that come into or leave a
    player's view with it reach them as ``token_sighted``."""

    #: ``dark``, ``light_added`` or ``light_removed``.
    change: str
    dark: bool
    #: The light placed or taken away, ``[x, y, radius]``; ``None`` for ``dark``.
    light: list[int] | None = None


@event_type("token_changed")
class TokenChanged(TokenStateEvent):
    """A GM changed a token's label, colour, size or hidden flag. Players get it as
    ``token_added`` when the token comes into their sight, ``token_removed`` when it leaves,
    and not at all while they cannot see it."""


@event_type("map_pointer")
class MapPointer(SceneEvent):
    """A member's ruler (its waypoints, while held), its release (``clear``) or a ping on a
    scene: short-lived, shown live and never replayed as state (docs/map.md)."""

    #: For everyone who may see the scene (its audience ``in_scene``): never a GM-only form.
    VISIBILITIES: ClassVar[frozenset[str]] = PUBLIC

    #: ``ruler``, ``ping`` or ``clear``.
    kind: str
    cells: list[list[int]]
    #: The ruler's length in the system's unit (``None`` for a ping or a release).
    distance: float | None
    unit: str
    #: The scene's columns and rows (the overlay is drawn from the event alone).
    cols: int
    rows: int


#: The payload classes of this package; ``app.wiring`` registers them.
EVENTS: tuple[type[EventPayload], ...] = (
    SceneUpdated,
    TokenAdded,
    TokenMoved,
    TokenSighted,
    TokenRemoved,
    FogChanged,
    LightChanged,
    TokenChanged,
    MapPointer,
)
