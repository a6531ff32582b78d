"""What each viewer may see of a scene, on loaded rows (no queries; the move check is
:mod:`app.maps.moves`).

Players see tokens on the cells visible to them (:meth:`Board.cells_for`): the cells the
fog leaves open (all of them while the scene's fog is off) and, with the scene's
``line_of_sight`` on, of those only the cells their figures' tokens see, and always the
cells their own tokens stand on. They get the map (walls and doors next to a cell,
difficult terrain) of the cells they know (:meth:`Board.known_for`): the fog's open cells
and the visible ones — with line of sight on, those out of sight are *explored* (drawn
dimmed, no tokens). With fog and line of sight on, what the party's tokens see is
revealed for good (:meth:`Board.unrevealed_sight`, written by ``service``). A token is sent
when it is not hidden (nor its participant) and stands, with at least one of its cells,
on a visible cell. GMs see everything. A map event reaches each player in
the form of what they see (:func:`event_forms`): about a token they cannot see not at all;
one whose token enters or leaves their sight as ``token_added`` / ``token_removed`` (the
party's form and each player's own, stored as the event's audience: :meth:`Forms.audience`,
``app.events.audience.sight``); when it is read, the scene as it is decides too
(``app.maps.present``).

In a **dark** scene (docs/map.md «Light») players see tokens only on lit cells
(:meth:`Board.lit`: the scene's lights and the lights tokens carry, stopped by walls), and
always on their own tokens' cells: with line of sight on, what their figures see that is
lit; with it off, every lit cell. A scene that is not dark is unchanged.
"""

from __future__ import annotations

import functools
import re
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, NamedTuple, NotRequired, TypedDict

from app.core.remembered import remembered
from app.core.viewer import Viewer
from app.encounters.combat import State
from app.encounters.models import Encounter, Participant
from app.encounters.state import read_state
from app.encounters.views import Health
from app.errors import ValidationFailed
from app.events import audience
from app.events.audience import Audience
from app.events.payload import EventPayload
from app.i18n import _
from app.maps.edit import DoorJSON
from app.maps.events import MoveReaction, TokenMoved
from app.maps.models import MapToken, Scene
from app.rules import grid as g

DEFAULT_COLOUR = "#3a6ea5"
_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")


def colour(value: str | None) -> str:
    if value is None:
        return DEFAULT_COLOUR
    if not _COLOUR.match(value):
        raise ValidationFailed({"colour": _("A colour as #rrggbb.")})
    return value.lower()


_NUMBER = re.compile(r"\s(\d{1,3})$")


def number(label: str) -> int | None:
    """The number a label ends with («Goblin 2» → 2): duplicates are numbered by their
    names (``app.encounters`` names a second Goblin «Goblin 2»)."""
    found = _NUMBER.search(label)
    return None if found is None else int(found.group(1))


def grid_of(scene: Scene) -> g.Grid:
    blocked = {(str(k), int(x), int(y)) for k, x, y in scene.walls}
    blocked |= {(str(k), int(x), int(y)) for k, x, y, is_open in scene.doors if not is_open}
    return _interned(
        g.Grid(
            scene.cols,
            scene.rows,
            frozenset(blocked),  # type: ignore[arg-type]
            frozenset((int(x), int(y)) for x, y in scene.difficult),
        )
    )


#: One object per grid (:func:`_interned`).
_GRIDS: OrderedDict[g.Grid, g.Grid] = OrderedDict()
GRID_CACHE_MAX = 256


def _interned(grid: g.Grid) -> g.Grid:
    """The grid object equal to ``grid`` that the sight caches are keyed by. Each request
    loads its scene anew, so its grid is a new object; comparing it with a cached key would
    compare every wall on every lookup (hundreds of them, several lookups per view), while
    the same object compares by identity. Equal grids are interchangeable: they are frozen."""
    return remembered(_GRIDS, grid, lambda: grid, GRID_CACHE_MAX)


def grid_seen(scene: Scene, cells: AbstractSet[g.Cell] | None) -> g.Grid:
    """The grid as a viewer who sees ``cells`` knows it (``None``: all): only the walls and
    closed doors next to such a cell block — what the server answers a player with must
    not depend on a wall they cannot see."""
    grid = grid_of(scene)
    if cells is None:
        return grid
    edges = frozenset(e for e in grid.blocked if _edge_seen(e, cells))
    return g.Grid(grid.cols, grid.rows, edges, grid.difficult)


def edge_cells(kind: str, x: int, y: int) -> tuple[g.Cell, g.Cell]:
    return ((x - 1, y), (x, y)) if kind == "v" else ((x, y - 1), (x, y))


#: The tokens players may see and the cells each covers (``Board.spots``).
Spots = list[tuple[int, list[g.Cell]]]


class View(NamedTuple):
    """What one view sees: the tokens, and the cells (``None``: all)."""

    tokens: frozenset[int]
    cells: frozenset[g.Cell] | None


#: What each view sees: the party's (``None``) and each player's (user id).
Seen = dict[int | None, View]

#: Cells seen from one cell, by grid and range: a token's sight is computed once per place
#: and wall layout, whoever asks and however often (a move recomputes only the mover's).
_SIGHT: OrderedDict[tuple[g.Grid, g.Cell, int | None], frozenset[g.Cell]] = OrderedDict()
SIGHT_CACHE_MAX = 4096


def sight_from(grid: g.Grid, eye: g.Cell, radius: int | None) -> frozenset[g.Cell]:
    """The cells seen from ``eye`` (``grid.visible_cells``), cached."""
    return remembered(
        _SIGHT,
        (grid, eye, radius),
        lambda: frozenset(g.visible_cells(grid, [eye], radius)),
        SIGHT_CACHE_MAX,
    )


#: The union of the sight of a set of eyes (a view's tokens), by grid, eyes and range: an
#: event that moves no eye (a GM's goblin) finds every view's cells here.
_VIEWS: OrderedDict[tuple[g.Grid, frozenset[g.Cell], int | None], frozenset[g.Cell]] = OrderedDict()


def sight_of(grid: g.Grid, eyes: frozenset[g.Cell], radius: int | None) -> frozenset[g.Cell]:
    """What the cells ``eyes`` see together (:func:`sight_from` of each), cached."""
    return remembered(
        _VIEWS,
        (grid, eyes, radius),
        lambda: frozenset().union(*(sight_from(grid, e, radius) for e in eyes)),
        SIGHT_CACHE_MAX,
    )


#: The cells a set of lights lights, by grid and lights: a move of a token without a light
#: (or an event that moves none) finds them here.
_LIT: OrderedDict[tuple[g.Grid, frozenset[tuple[g.Cell, int]]], frozenset[g.Cell]] = OrderedDict()


def lit_of(grid: g.Grid, lights: frozenset[tuple[g.Cell, int]]) -> frozenset[g.Cell]:
    """What the lights ``(source, radius)`` light together (``grid.lit_cells``), cached."""
    return remembered(
        _LIT, (grid, lights), lambda: frozenset(g.lit_cells(grid, lights)), SIGHT_CACHE_MAX
    )


class SceneHeading(TypedDict):
    """Which scene an answer is about, its size and version (:func:`scene_heading`)."""

    id: int
    name: str
    cols: int
    rows: int
    version: int
    encounter_id: int | None


class TokenJSON(TypedDict):
    """A token as a viewer sees it (:meth:`Board.token_json`); ``hidden`` and ``light``
    only for the GMs, ``active`` and ``health`` laid over by ``app.maps.marks``."""

    id: int
    x: int
    y: int
    label: str
    colour: str
    size: int
    participant_id: int | None
    character_id: int | None
    side: str | None
    number: int | None
    portrait_url: str | None
    hidden: NotRequired[bool]
    light: NotRequired[int]
    active: NotRequired[bool]
    health: NotRequired[Health | None]


class GridJSON(TypedDict):
    x: int
    y: int
    cell_px: int


class BoardView(SceneHeading):
    """The scene as one viewer may see it (:meth:`Board.view`): the JSON answer and the
    pages' data."""

    grid: GridJSON
    unit: str
    per_cell: float
    diagonal: g.Diagonal
    background_url: str | None
    background: dict[str, float] | None
    walls: list[list[int]]
    doors: list[DoorJSON]
    difficult: list[list[int]]
    fog: bool
    shown: bool
    line_of_sight: bool
    sight_radius: int | None
    dark: bool
    lights: list[dict[str, int]] | None
    lit: list[g.Cell] | None
    revealed: list[list[int]] | None
    visible: list[g.Cell] | None
    explored: list[g.Cell] | None
    tokens: list[TokenJSON]


def scene_heading(scene: Scene) -> SceneHeading:
    """What every answer about a scene starts with: which one, its size and version."""
    return {
        "id": scene.id,
        "name": scene.name,
        "cols": scene.cols,
        "rows": scene.rows,
        "version": scene.version,
        "encounter_id": scene.encounter_id,
    }


def scene_lights(scene: Scene) -> list[dict[str, int]]:
    """The scene's light sources as ``{x, y, radius}``."""
    return [{"x": int(x), "y": int(y), "radius": int(r)} for x, y, r in scene.lights]


@dataclass
class Board:
    """A scene with its tokens, their participants and the linked fight, as loaded."""

    scene: Scene
    tokens: list[MapToken]
    participants: Mapping[int, Participant]
    encounter: Encounter | None
    #: Character id → owner (for tokens of characters outside a fight).
    owners: Mapping[int, int] = field(default_factory=dict)
    #: The background image's width and height in pixels.
    background_size: tuple[int, int] | None = None
    #: The fight's stored state as last checked, and what :attr:`state` made of it.
    _read: tuple[object, State] | None = field(default=None, init=False, repr=False)
    #: What is worked out from the board the same for every viewer, kept for the others
    #: (a live push shares one board among its viewers: ``app.maps.marks``).
    memo: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def running(self) -> bool:
        return self.encounter is not None and self.encounter.status == "running"

    @property
    def state(self) -> State:
        """The fight's state (checked once while the row holds the same object: each token's
        owner and health ask for it)."""
        raw = self.encounter.state if self.encounter is not None else {}
        if self._read is None or self._read[0] is not raw:
            self._read = (raw, read_state(raw))
        return self._read[1]

    def pid(self, token: MapToken) -> str | None:
        return None if token.participant_id is None else str(token.participant_id)

    def character_of(self, token: MapToken) -> int | None:
        """The character a token stands for: its own, or its fight participant's."""
        figure = self.participants.get(token.participant_id or 0)
        return token.character_id or (figure.character_id if figure is not None else None)

    def character_ids(self) -> frozenset[int]:
        """Every character a token of the scene stands for."""
        return frozenset(c for t in self.tokens if (c := self.character_of(t)) is not None)

    def fog_cells(self) -> set[g.Cell] | None:
        """The cells the GM's fog leaves open; ``None``: all of them (no fog)."""
        if not self.scene.fog:
            return None
        return {(int(x), int(y)) for x, y in self.scene.revealed}

    def owner(self, token: MapToken) -> int | None:
        """The user who plays this token's figure or character (``None``: the GM's)."""
        pid = self.pid(token)
        if pid is not None:
            fig = self.state.get("figures", {}).get(pid)
            if fig is not None:
                owner = fig.get("owner")
                return int(owner) if isinstance(owner, int) else None
        if token.character_id is not None:
            return self.owners.get(token.character_id)
        return None

    def eyes(self, user_id: int | None) -> list[MapToken]:
        """The tokens whose sight ``user_id`` shares: their own figures' (``None``, or a user
        without a token here: every player's — the party's view)."""
        owners = self._played
        played = self._played_tokens
        own = [t for t in played if owners[t.id] == user_id] if user_id is not None else []
        return own or played

    @functools.cached_property
    def _played_tokens(self) -> list[MapToken]:
        """The tokens a player plays (as :attr:`_played`; :meth:`remove` forgets them)."""
        owners = self._played
        return [t for t in self.tokens if owners.get(t.id) is not None]

    def remove(self, token: MapToken) -> None:
        """Take a deleted token off the board (its player's view stays among the views)."""
        self.tokens.remove(token)
        self.__dict__.pop("_played_tokens", None)

    @functools.cached_property
    def _played(self) -> dict[int, int | None]:
        """Each token's player (tokens and their owners do not change while a board lives:
        a change loads a new one)."""
        return {t.id: self.owner(t) for t in self.tokens}

    def _eyes_cells(self, user_id: int | None) -> frozenset[g.Cell]:
        """The cells the tokens whose sight ``user_id`` shares stand on."""
        return frozenset(c for t in self.eyes(user_id) for c in g.footprint((t.x, t.y), t.size))

    def lights(self) -> frozenset[tuple[g.Cell, int]]:
        """Every light on the scene: the scene's sources, and each cell of a token that
        carries one (a hidden token's light does not shine: it is not there for players)."""
        out = {((int(x), int(y)), int(r)) for x, y, r in self.scene.lights}
        for t in self.tokens:
            if t.light > 0 and not self.hidden(t):
                out |= {(c, t.light) for c in g.footprint((t.x, t.y), t.size)}
        return frozenset(out)

    def lit(self) -> frozenset[g.Cell] | None:
        """The lit cells of a dark scene; ``None``: the scene is not dark (all is light).
        Not cached on the board: a change moves a token in hand and asks again."""
        if not self.scene.dark:
            return None
        return lit_of(self.grid, self.lights())

    def sight(self, user_id: int | None = None) -> frozenset[g.Cell]:
        """The cells the tokens whose sight ``user_id`` shares see (walls and radius; no
        fog)."""
        return sight_of(self.grid, self._eyes_cells(user_id), self.scene.sight_radius)

    def cells_for(self, user_id: int | None = None) -> frozenset[g.Cell] | None:
        """The cells on which a player sees tokens (``None``: the party's view, for
        observers and players without a token here): with line of sight off, the fog's
        open cells; with it on, the cells their tokens see that the fog leaves open, and
        the cells their own tokens stand on (always visible to them). ``None`` back:
        every cell. In a dark scene only the lit ones of those, and their own tokens' cells."""
        fog = self.fog_cells()
        lit = self.lit()
        if self.scene.line_of_sight:
            seen = self.sight(user_id) if lit is None else self.sight(user_id) & lit
        elif lit is not None:
            seen = lit
        else:
            return None if fog is None else frozenset(fog)
        return (seen if fog is None else seen & fog) | self._eyes_cells(user_id)

    def known_for(self, user_id: int | None = None) -> frozenset[g.Cell] | None:
        """The cells whose map (ground, walls, doors, terrain) a player is sent: the fog's
        open cells (``None``: every cell, no fog) and the cells they see tokens on. With
        line of sight on, those out of sight are *explored*: drawn dimmed, without tokens."""
        fog = self.fog_cells()
        if fog is None:
            return None
        cells = self.cells_for(user_id)
        return frozenset(fog) if cells is None else frozenset(fog) | cells

    def unrevealed_sight(self) -> frozenset[g.Cell]:
        """With fog and line of sight on, the fogged cells the party's tokens see now: sight
        reveals them (``service.reveal_sight``). Empty otherwise."""
        fog = self.fog_cells()
        if fog is None or not self.scene.line_of_sight or not self.players():
            return frozenset()
        lit = self.lit()
        seen = self.sight(None)
        return (seen if lit is None else seen & lit) - fog

    def blind(self, user_id: int | None) -> bool:
        """Whether, with fog and line of sight on, a player is sent no cell of the map
        but those their own tokens stand on (the GM's notice)."""
        if not (self.scene.fog and self.scene.line_of_sight):
            return False
        known = self.known_for(user_id) or frozenset()
        return known <= self._eyes_cells(user_id)

    @functools.cached_property
    def grid(self) -> g.Grid:
        return grid_of(self.scene)

    def players(self) -> set[int]:
        """The users who play a token on this scene."""
        return {owner for owner in self._played.values() if owner is not None}

    def audiences(self) -> dict[int | None, frozenset[g.Cell] | None]:
        """The cells open to each view players have: the party's (``None``) and, with line
        of sight on or in a dark scene, each player's with a token here."""
        out: dict[int | None, frozenset[g.Cell] | None] = {None: self.cells_for(None)}
        if self.scene.line_of_sight or self.scene.dark:
            for user_id in sorted(self.players()):
                out[user_id] = self.cells_for(user_id)
        return out

    def seen(self) -> Seen:
        """The tokens each view sees (for the events of a change: what it saw before)."""
        return self.views_of(self.audiences())

    def spots(self) -> Spots:
        """Each token players may see (not hidden) with the cells it covers, as they are now."""
        out: Spots = []
        for t in self.tokens:
            if not self.hidden(t):
                x, y, size = t.x, t.y, t.size
                out.append((t.id, [(x, y)] if size == 1 else g.footprint((x, y), size)))
        return out

    def views_of(
        self, opened: Mapping[int | None, frozenset[g.Cell] | None], spots: Spots | None = None
    ) -> dict[int | None, View]:
        """:meth:`view_of` for each view's open cells, the tokens read once for all views
        (what :meth:`sees_in` asks of each, once per token instead of once per view);
        ``spots``: :meth:`spots` if known (the tokens have not moved since)."""
        spots = self.spots() if spots is None else spots
        everyone = frozenset(token_id for token_id, _ in spots)
        return {
            key: View(
                everyone
                if cells is None
                else frozenset(i for i, cover in spots if not cells.isdisjoint(cover)),
                cells,
            )
            for key, cells in opened.items()
        }

    def view_of(self, cells: frozenset[g.Cell] | None) -> View:
        tokens = frozenset(t.id for t in self.tokens if self.sees_in(t, cells))
        return View(tokens, cells)

    def hidden(self, token: MapToken) -> bool:
        if token.hidden:
            return True
        pid = token.participant_id
        participant = None if pid is None else self.participants.get(pid)
        return participant is not None and participant.hidden

    def player_sees(self, token: MapToken, user_id: int | None = None) -> bool:
        return self.sees_in(token, self.cells_for(user_id))

    def sees_in(self, token: MapToken, cells: AbstractSet[g.Cell] | None) -> bool:
        """Whether players see ``token`` when ``cells`` are open (``None``: all)."""
        if self.hidden(token):
            return False
        if cells is None:
            return True
        if token.size == 1:
            return (token.x, token.y) in cells
        return any(c in cells for c in g.footprint((token.x, token.y), token.size))

    def side(self, token: MapToken) -> str | None:
        """The side the token stands for: its participant's, a character's outside a fight
        the Abenteurer; ``None``: a thing of the GM's (a chest)."""
        participant = self.participants.get(token.participant_id or 0)
        if participant is not None:
            return participant.side
        return "abenteurer" if token.character_id is not None else None

    def controls(self, viewer: Viewer, token: MapToken) -> bool:
        """Whether the viewer plays the figure or character of this token."""
        return self.owner(token) == viewer.user_id

    def token_json(self, token: MapToken, gm: bool = True) -> TokenJSON:
        out: TokenJSON = {
            "id": token.id,
            "x": token.x,
            "y": token.y,
            "label": token.label,
            "colour": token.colour,
            "size": token.size,
            "participant_id": token.participant_id,
            "character_id": token.character_id,
            "side": self.side(token),
            "number": number(token.label),
            "portrait_url": portrait_url(self.scene, token),
        }
        if gm:
            out["hidden"] = self.hidden(token)
            out["light"] = token.light
        return out

    def visible_reactions(
        self, reactions: Sequence[MoveReaction], cells: AbstractSet[g.Cell] | None
    ) -> list[MoveReaction]:
        """The reactions whose reacting figure's token a player who sees ``cells`` sees."""
        seen = {t.participant_id for t in self.tokens if self.sees_in(t, cells)}
        return [r for r in reactions if r["participant_id"] in seen]

    def _background(self) -> dict[str, float] | None:
        """Where the background lies, in cells: the grid's offset and cell size moved onto it."""
        if self.background_size is None or self.scene.background_etag is None:
            return None
        cell = self.scene.cell_px
        width, height = self.background_size
        return {
            "x": -self.scene.grid_x / cell,
            "y": -self.scene.grid_y / cell,
            "width": width / cell,
            "height": height / cell,
        }

    def view(self, viewer: Viewer, metric: g.Metric) -> BoardView:
        """The scene as ``viewer`` may see it (the JSON answer and the page's data)."""
        scene = self.scene
        gm = viewer.is_gm
        cells = None if gm else self.cells_for(viewer.user_id)
        known = None if gm else self.known_for(viewer.user_id)
        walls = [tuple(w) for w in scene.walls if _edge_seen(w, known)]
        doors = [d for d in scene.doors if _edge_seen(d, known)]
        return {
            **scene_heading(scene),
            "grid": {"x": scene.grid_x, "y": scene.grid_y, "cell_px": scene.cell_px},
            "unit": metric.unit,
            "per_cell": float(metric.per_cell),
            "diagonal": metric.diagonal,
            "background_url": background_url(scene),
            "background": self._background(),
            "walls": [list(s) for s in g.edges_to_segments(walls)],
            "doors": [
                {"segment": list(g.edges_to_segments([(d[0], d[1], d[2])])[0]), "open": d[3]}
                for d in doors
            ],
            "difficult": [list(c) for c in scene.difficult if known is None or tuple(c) in known],
            "fog": scene.fog,
            "shown": scene.shown,
            "line_of_sight": scene.line_of_sight,
            "sight_radius": scene.sight_radius,
            "dark": scene.dark,
            # The GMs': where the lights are and what they light (players see the lit
            # cells as the ones they see tokens on, and no more of them).
            "lights": scene_lights(scene) if gm else None,
            "lit": sorted(lit) if gm and (lit := self.lit()) is not None else None,
            "revealed": None if not scene.fog else [list(c) for c in scene.revealed],
            # With line of sight: the cells on which this player sees tokens (in sight and
            # not fogged, and their own tokens' cells), and the explored ones (the map
            # known, out of sight: no tokens).
            "visible": None if cells is None or not _sighted(scene) else sorted(cells),
            "explored": _explored(scene, cells, known),
            "tokens": [self.token_json(t, gm) for t in self.tokens if gm or self.sees_in(t, cells)],
        }


def _explored(
    scene: Scene, cells: frozenset[g.Cell] | None, known: frozenset[g.Cell] | None
) -> list[g.Cell] | None:
    """The cells a player knows the map of but sees no tokens on (line of sight on, or a
    dark scene: out of sight or unlit)."""
    if cells is None or not _sighted(scene):
        return None
    if known is None:
        return [(x, y) for x in range(scene.cols) for y in range(scene.rows) if (x, y) not in cells]
    return sorted(known - cells)


def _sighted(scene: Scene) -> bool:
    """Whether players see tokens on some cells only (line of sight, or darkness)."""
    return scene.line_of_sight or scene.dark


def _edge_seen(edge: Sequence[Any], cells: AbstractSet[g.Cell] | None) -> bool:
    if cells is None:
        return True
    a, b = edge_cells(str(edge[0]), int(edge[1]), int(edge[2]))
    return a in cells or b in cells


def background_url(scene: Scene) -> str | None:
    if scene.background_etag is None:
        return None
    return (
        f"/api/v1/campaigns/{scene.campaign_id}/scenes/{scene.id}/background"
        f"?v={scene.background_etag}"
    )


def portrait_url(scene: Scene, token: MapToken) -> str | None:
    if token.portrait_etag is None:
        return None
    return (
        f"/api/v1/campaigns/{scene.campaign_id}/scenes/{scene.id}/tokens/{token.id}/portrait"
        f"?v={token.portrait_etag}"
    )


def player_form(
    b: Board, token: MapToken, before: bool, after: bool, kind: str
) -> tuple[str, dict[str, object] | None]:
    """The visibility of an event about ``token`` and the form players get instead, from
    whether they saw it before and see it after."""
    if not before and not after:
        return "gm", None
    if before and not after:
        return "public", {"type": "token_removed", "scene_id": token.scene_id, "token_id": token.id}
    if after and not before:
        return "public", {
            "type": "token_added", "scene_id": token.scene_id,
            "token": b.token_json(token, gm=False),
        }  # fmt: skip
    if kind == "token_changed":
        return "public", {
            "type": "token_changed", "scene_id": token.scene_id,
            "token": b.token_json(token, gm=False),
        }  # fmt: skip
    return "public", None


@dataclass(frozen=True, slots=True)
class Forms:
    """How players receive one map event: its ``visibility`` and ``party`` form (for
    observers and players without a view of their own; ``None``: the event itself), and
    per player whose view gives another form, theirs (``None``: not sent to them)."""

    visibility: str
    party: dict[str, object] | None = None
    users: dict[str, dict[str, object] | None] = field(default_factory=dict)

    def audience(self, token: MapToken) -> Audience:
        """The event's audience: these forms, and its scene and token, which are checked
        again when the event is read (``app.events.audience.sight``)."""
        users = {int(k): form for k, form in self.users.items()}
        seen = self.visibility == "public"
        return audience.sight(token.scene_id, token.id, self.party, users, seen=seen)


Audiences = dict[int | None, frozenset[g.Cell] | None]


def _saw(seen: Seen, key: int | None, token_id: int) -> bool:
    return token_id in seen.get(key, seen[None]).tokens


def sight_diff(
    b: Board, was: frozenset[g.Cell] | None, cells: frozenset[g.Cell] | None
) -> dict[str, list[g.Cell]] | None:
    """How a view's cells changed with a move that changed its sight: the cells that came
    into sight (``visible_added``: were explored, now visible) and went out of it
    (``visible_removed``: now explored) — cells the view sees or saw, no token. ``None``
    when the map the view knows changed too (a cell under the GM's fog it stands or stood
    on): then it fetches the scene again. The caller leaves it out when sight revealed
    fogged cells with the move (``fog_changed`` follows). The cells are pairs, JSON arrays
    once written (a step along a wall can change hundreds of them, for each such view)."""
    if was is None or cells is None:
        return None
    fog = b.fog_cells()
    if fog is not None and not (was ^ cells) <= fog:
        return None
    return {"visible_added": sorted(cells - was), "visible_removed": sorted(was - cells)}


def event_forms(
    b: Board,
    token: MapToken,
    event: EventPayload,
    before: Seen,
    now: Audiences,
    *,
    revealed: bool = False,
) -> Forms:
    """The forms of an event about ``token`` (``event``: its payload), from the tokens each
    view saw ``before`` and the cells open to each view ``now`` (``Board.audiences`` after
    the change; a deleted token is no longer in ``b.tokens`` and so seen by none).
    ``revealed``: sight revealed fogged cells with it (a move's sight then comes without
    its cells, :func:`sight_diff`)."""
    kind = event.TYPE
    plain = {k: v for k, v in event.to_json().items() if k != "actor_name"} | {"type": kind}
    reactions = event.reactions if isinstance(event, TokenMoved) else None
    present = token in b.tokens or any(t.id == token.id for t in b.tokens)

    def one(key: int | None) -> dict[str, object] | None:
        cells = now.get(key, now[None])
        after = present and b.sees_in(token, cells)
        visibility, form = player_form(b, token, _saw(before, key, token.id), after, kind)
        if visibility == "gm":
            return None
        if form is not None:
            return form
        if reactions:
            form = plain | {"reactions": b.visible_reactions(reactions, cells) or None}
        was = before.get(key, before[None]).cells
        if kind == "token_moved" and was != cells:
            # What this view sees changed (its own token moved): the cells that came into
            # or went out of its sight, or (without them) its board is drawn anew.
            diff = None if revealed else sight_diff(b, was, cells)
            form = (form or plain) | {"sight": True} | (diff or {})
        return form or plain

    party = one(None)
    users = {str(k): f for k in sorted({*before, *now} - {None}) if (f := one(k)) != party}  # type: ignore[type-var]
    return Forms("gm" if party is None else "public", None if party == plain else party, users)


def sight_changes(
    b: Board, before: Seen, after: Seen, skip: int | None = None
) -> list[tuple[MapToken, Forms]]:
    """The other tokens a change brought into or out of some view (a player's own token
    moved, so what it sees changed; the fog or the walls changed; ``after``:
    ``Board.seen`` now; ``skip``: the token the change's own event is about): for each,
    ``token_added`` / ``token_removed`` to the views it concerns."""
    keys = sorted({*before, *after} - {None})  # type: ignore[type-var]
    changed: set[int] = set()
    for key in {*before, *after}:
        changed |= before.get(key, before[None]).tokens ^ after.get(key, after[None]).tokens
    out: list[tuple[MapToken, Forms]] = []
    for token in b.tokens:
        if token.id == skip or token.id not in changed:
            continue

        def one(key: int | None, token: MapToken = token) -> dict[str, object] | None:
            was, now_ = _saw(before, key, token.id), _saw(after, key, token.id)
            return None if was == now_ else player_form(b, token, was, now_, "token_sighted")[1]

        party = one(None)
        users = {str(k): f for k in keys if (f := one(k)) != party}
        if party is not None or any(users.values()):
            out.append((token, Forms("gm" if party is None else "public", party, users)))
    return out
