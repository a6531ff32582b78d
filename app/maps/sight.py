"""What each viewer may see of a scene, and the move check, on loaded rows (no queries).

Players see the cells the fog leaves open (all of them while the scene's fog is off),
the walls and doors next to such a cell, and the tokens that are not hidden (nor their
participant) and stand, with at least one of their cells, on such a cell. GMs see
everything. A map event about a token players cannot see is GM-only; one whose token
enters or leaves their sight reaches them as ``token_added`` / ``token_removed``
(``app.events.service.PLAYER_FORM_KEY``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.core.viewer import Viewer
from app.encounters.combat import State
from app.encounters.models import Encounter, Participant
from app.encounters.systems.protocol import CombatRules
from app.errors import ValidationFailed
from app.i18n import _
from app.maps.models import Scene, Token
from app.rules import grid as g

DEFAULT_COLOUR = "#3a6ea5"
_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")


def colour(value: str | None) -> str:
    if value is None:
        return DEFAULT_COLOUR
    if not _COLOUR.match(value):
        raise ValidationFailed({"colour": _("A colour as #rrggbb.")})
    return value.lower()


def grid_of(scene: Scene) -> g.Grid:
    blocked = {(str(k), int(x), int(y)) for k, x, y in scene.walls}
    blocked |= {(str(k), int(x), int(y)) for k, x, y, is_open in scene.doors if not is_open}
    return g.Grid(
        scene.cols,
        scene.rows,
        frozenset(blocked),  # type: ignore[arg-type]
        frozenset((int(x), int(y)) for x, y in scene.difficult),
    )


def grid_seen(scene: Scene, cells: set[g.Cell] | None) -> g.Grid:
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


@dataclass
class Board:
    """A scene with its tokens, their participants and the linked fight, as loaded."""

    scene: Scene
    tokens: list[Token]
    participants: Mapping[int, Participant]
    encounter: Encounter | None
    #: Character id → owner (for tokens of characters outside a fight).
    owners: Mapping[int, int] = field(default_factory=dict)
    #: The background image's width and height in pixels.
    background_size: tuple[int, int] | None = None

    @property
    def running(self) -> bool:
        return self.encounter is not None and self.encounter.status == "running"

    @property
    def state(self) -> State:
        return self.encounter.state if self.encounter is not None else {}

    def pid(self, token: Token) -> str | None:
        return None if token.participant_id is None else str(token.participant_id)

    def open_cells(self) -> set[g.Cell] | None:
        """The cells players see; ``None``: all of them (no fog)."""
        if not self.scene.fog:
            return None
        return {(int(x), int(y)) for x, y in self.scene.revealed}

    def hidden(self, token: Token) -> bool:
        participant = self.participants.get(token.participant_id or 0)
        return token.hidden or (participant is not None and participant.hidden)

    def player_sees(self, token: Token) -> bool:
        return self.sees_in(token, self.open_cells())

    def sees_in(self, token: Token, cells: set[g.Cell] | None) -> bool:
        """Whether players see ``token`` when ``cells`` are open (``None``: all)."""
        if self.hidden(token):
            return False
        return cells is None or any(c in cells for c in g.footprint((token.x, token.y), token.size))

    def controls(self, viewer: Viewer, token: Token) -> bool:
        """Whether the viewer plays the figure or character of this token."""
        pid = self.pid(token)
        if pid is not None:
            fig = self.state.get("figures", {}).get(pid)
            if fig is not None:
                return bool(fig.get("owner") == viewer.user_id)
        return token.character_id is not None and self.owners.get(token.character_id) == (
            viewer.user_id
        )

    def token_json(self, token: Token, gm: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": token.id,
            "x": token.x,
            "y": token.y,
            "label": token.label,
            "colour": token.colour,
            "size": token.size,
            "participant_id": token.participant_id,
            "character_id": token.character_id,
        }
        if gm:
            out["hidden"] = self.hidden(token)
        return out

    def visible_reactions(self, reactions: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The reactions whose reacting figure's token players see."""
        cells = self.open_cells()
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

    def view(self, viewer: Viewer, metric: g.Metric) -> dict[str, Any]:
        """The scene as ``viewer`` may see it (the JSON answer and the page's data)."""
        scene = self.scene
        gm = viewer.is_gm
        cells = None if gm else self.open_cells()
        walls = [tuple(w) for w in scene.walls if _edge_seen(w, cells)]
        doors = [d for d in scene.doors if _edge_seen(d, cells)]
        return {
            "id": scene.id,
            "name": scene.name,
            "cols": scene.cols,
            "rows": scene.rows,
            "version": scene.version,
            "encounter_id": scene.encounter_id,
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
            "difficult": [list(c) for c in scene.difficult if cells is None or tuple(c) in cells],
            "fog": scene.fog,
            "revealed": None if not scene.fog else [list(c) for c in scene.revealed],
            "tokens": [self.token_json(t, gm) for t in self.tokens if gm or self.sees_in(t, cells)],
        }


def _edge_seen(edge: Sequence[Any], cells: set[g.Cell] | None) -> bool:
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


def player_form(
    b: Board, token: Token, before: bool, after: bool, kind: str
) -> tuple[str, dict[str, Any] | None]:
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


# --- the move check -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Plan:
    """A checked move: where the token ends, what it cost, what it triggered."""

    end: g.Cell
    cost: int
    allowance: int | None
    stopped_at: g.Cell | None
    reactions: list[dict[str, Any]]
    spent: int
    turn_key: str
    override: bool


def _turn_key(b: Board) -> str:
    if not b.running:
        return ""
    return f"{b.state.get('round', 0)}:{b.state.get('turn', 0)}"


def _allowance(
    b: Board, rules: CombatRules, settings: dict[str, Any], token: Token, key: str
) -> tuple[int | None, int]:
    """The cells still allowed this turn (``None``: no fight, no limit) and those spent."""
    pid = b.pid(token)
    if not key or pid is None:
        return None, 0
    fig = b.state.get("figures", {}).get(pid)
    participant = b.participants.get(token.participant_id or 0)
    if fig is None or participant is None:
        return None, 0
    spent = token.moved if token.moved_turn == key else 0
    total = rules.movement_allowance(fig, participant.stats, settings)
    return total - spent, spent


def plan_move(
    b: Board,
    rules: CombatRules,
    settings: dict[str, Any],
    token: Token,
    to: g.Cell,
    path: list[g.Cell] | None,
    override: bool,
) -> Plan:
    """Check a move (walls, terrain, allowance) and stop it where an enemy may react."""
    grid = grid_of(b.scene)
    start = (token.x, token.y)
    if override:
        return Plan(to, 0, None, None, [], token.moved, token.moved_turn, True)
    if path is None:
        path = g.shortest_path(grid, start, to, rules.metric.diagonal)
        if path is None:
            raise ValidationFailed({"to": _("There is no way there: walls or closed doors.")})
    measured = g.path_cost(grid, path, rules.metric.diagonal)
    if measured.blocked_at is not None:
        raise ValidationFailed(
            {"path": _("A wall or closed door blocks the way (or the steps do not join up).")}
        )
    if any(t.id != token.id and to in g.footprint((t.x, t.y), t.size) for t in b.tokens):
        raise ValidationFailed({"to": _("Another token stands there.")})
    key = _turn_key(b)
    allowance, spent = _allowance(b, rules, settings, token, key)
    if allowance is not None and measured.cost > allowance:
        raise ValidationFailed(
            {
                "to": _(
                    "That way costs %(cost)s cells; only %(left)s are left this turn.",
                    cost=measured.cost,
                    left=max(0, allowance),
                )
            }
        )
    return _stop_for_reactions(b, rules, grid, token, path, measured.cost, allowance, spent, key)


def _stop_for_reactions(
    b: Board,
    rules: CombatRules,
    grid: g.Grid,
    token: Token,
    path: list[g.Cell],
    cost: int,
    allowance: int | None,
    spent: int,
    key: str,
) -> Plan:
    pid = b.pid(token)
    end = path[-1]
    if pid is None or not b.running or pid not in b.state.get("figures", {}):
        return Plan(end, cost, allowance, None, [], spent + cost, key, False)
    positions = {
        b.pid(t) or "": (t.x, t.y) for t in b.tokens if t.participant_id and t.id != token.id
    }
    found = rules.move_reactions(b.state, pid, path, positions)
    if not found:
        return Plan(end, cost, allowance, None, [], spent + cost, key, False)
    index = found[0].index
    stop = path[index]
    paid = g.path_cost(grid, path[: index + 1], rules.metric.diagonal).cost
    names = {str(p.id): p.name for p in b.participants.values()}
    reactions = [
        {"participant_id": int(r.pid), "kind": r.kind, "name": names.get(r.pid, "")}
        for r in found
        if r.index == index
    ]
    return Plan(stop, paid, allowance, stop, reactions, spent + paid, key, False)
