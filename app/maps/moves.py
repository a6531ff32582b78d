"""The move check and the move's answer, on loaded rows (no queries; docs/map.md, «A move»).

The order is the rule of play. The way and the turn's allowance are checked first: a move
refused there tells nothing about the figures on the map. Then the token walks the way. It
stops where an enemy may react (``Zones.move_reactions``, hidden enemies included:
the rules do not ask who sees them), or when the way reaches a cell where a figure stands
that the mover cannot see: it ends on the last free cell before it, spends the movement up
to there and is told «Something blocks the way» (``blocked``) — what a hero bumping into
an unseen figure learns. It never ends on a cell another token stands on: it may pass the
tokens its mover sees, and stops before them when its walk ends there.

The answer is the caller's own form of the ``token_moved`` the move wrote
(:func:`answer`), so it names no more than the event that caller receives.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.core.viewer import Viewer
from app.encounters.combat import movement_spent
from app.encounters.systems.protocol import (
    Budget,
    CombatCore,
    CountedActions,
    Settings,
    Tactics,
    Zones,
    capability,
)
from app.errors import Conflict, ValidationFailed
from app.events.service import VisibleEvent
from app.i18n import _
from app.maps.events import MoveReaction, TokenMoved
from app.maps.models import MapToken
from app.maps.sight import Board, grid_of
from app.rules import grid as g

Cell = g.Cell


@dataclass(frozen=True, slots=True)
class Plan:
    """A checked move: where the token ends, what it cost, what it triggered."""

    end: Cell
    cost: int
    allowance: int | None
    reactions: list[MoveReaction]
    override: bool
    #: The walk ended before a figure the mover cannot see.
    blocked: bool = False


@dataclass(frozen=True, slots=True)
class Others:
    """The cells the other tokens of the scene stand on, and of those the cells of the
    tokens the mover cannot see."""

    taken: frozenset[Cell]
    unseen: frozenset[Cell]

    def free(self, cell: Cell, size: int) -> bool:
        return self.taken.isdisjoint(g.footprint(cell, size))


def others(b: Board, viewer: Viewer, token: MapToken) -> Others:
    """The other tokens' cells; unseen: those of tokens the ``viewer`` cannot see (a GM sees
    every token; a player what :meth:`Board.cells_for` opens to them)."""
    cells = None if viewer.is_gm else b.cells_for(viewer.user_id)
    taken: set[Cell] = set()
    unseen: set[Cell] = set()
    for other in b.tokens:
        if other.id == token.id:
            continue
        covered = g.footprint((other.x, other.y), other.size)
        taken.update(covered)
        if not viewer.is_gm and not b.sees_in(other, cells):
            unseen.update(covered)
    return Others(frozenset(taken), frozenset(unseen))


def map_rules(rules: CombatCore) -> Tactics:
    """The system's map rules (``Tactics``); a system without them has no battle map (409)."""
    found = capability(rules, Tactics)
    if found is None:
        raise Conflict(_("Not available in this rule system."))
    return found


def _allowance(b: Board, rules: CombatCore, settings: Settings, token: MapToken) -> int | None:
    """The cells still allowed in this Handlung or turn (``None``: no fight, no limit): the
    figure's movement less what the fight counts as spent (``combat.movement_spent``)."""
    pid = b.pid(token)
    if not b.running or pid is None:
        return None
    fig = b.state.get("figures", {}).get(pid)
    participant = b.participants.get(token.participant_id or 0)
    if fig is None or participant is None:
        return None
    tactics = capability(rules, Tactics)
    if tactics is None:
        return None
    # Where a move is an action (PF2e's Stride), each one has the whole movement.
    strides = capability(rules, CountedActions) is not None
    spent = 0 if strides else movement_spent(b.state, pid)
    return tactics.movement_allowance(fig, participant.stats, settings) - spent


def _occupied(around: Others, cell: Cell, size: int) -> None:
    if not around.free(cell, size):
        raise ValidationFailed({"to": _("Another token stands there.")})


@dataclass(frozen=True, slots=True)
class Reach:
    """Where a token can move now (issue 28: shown when its figure is chosen): ``left`` the
    cells of movement left this Handlung or turn, ``cells`` those it can end on within
    them, each with its cost — ``None`` and empty outside a running fight (no limit)."""

    left: int | None
    cells: tuple[tuple[Cell, int], ...]


def reach(
    b: Board, rules: CombatCore, settings: Settings, viewer: Viewer, token: MapToken
) -> Reach:
    """The cells the token can end a move on for the movement left, as :func:`plan_move`
    would allow them: walls, doors and terrain on the true board, a cell free of the tokens
    the viewer sees (an unseen one is not given away); for a player only on cells whose map
    they are sent."""
    left = _allowance(b, rules, settings, token)
    if left is None:
        return Reach(None, ())
    grid = grid_of(b.scene)
    costs = g.reachable(grid, (token.x, token.y), left, map_rules(rules).metric.diagonal)
    found = others(b, viewer, token)
    seen = Others(found.taken - found.unseen, frozenset())
    known = None if viewer.is_gm else b.known_for(viewer.user_id)
    cells = tuple(
        (cell, cost)
        for cell, cost in sorted(costs.items())
        if cost > 0
        and seen.free(cell, token.size)
        and all(grid.inside(c) for c in g.footprint(cell, token.size))
        and (known is None or cell in known)
    )
    return Reach(max(0, left), cells)


@dataclass(frozen=True, slots=True)
class MoveAsked:
    """What the mover asked for: the token, its target, the way (``None``: the cheapest)
    and whether a GM places it past the rules."""

    token: MapToken
    to: Cell
    path: list[Cell] | None
    override: bool


def plan_move(
    b: Board, rules: CombatCore, settings: Settings, viewer: Viewer, asked: MoveAsked
) -> Plan:
    """Check a move (walls, terrain, allowance), then walk it (see the module)."""
    token, to = asked.token, asked.to
    found = others(b, viewer, token)
    if asked.override:
        _occupied(found, to, token.size)
        return Plan(to, 0, None, [], True)
    grid = grid_of(b.scene)
    path = asked.path
    if path is None:
        path = g.shortest_path(grid, (token.x, token.y), to, map_rules(rules).metric.diagonal)
        if path is None:
            raise ValidationFailed({"to": _("There is no way there: walls or closed doors.")})
    measured = g.path_cost(grid, path, map_rules(rules).metric.diagonal)
    if measured.blocked_at is not None:
        raise ValidationFailed(
            {"path": _("A wall or closed door blocks the way (or the steps do not join up).")}
        )
    seen = Others(found.taken - found.unseen, frozenset())
    _occupied(seen, to, token.size)
    allowance = _allowance(b, rules, settings, token)
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
    reach, blocked = _walk(path, token.size, found)
    stop, reactions = _reactions(b, rules, token, path[: reach + 1])
    end = reach if stop is None else _free_before(path, stop + 1, token.size, found)
    cost = g.path_cost(grid, path[: end + 1], map_rules(rules).metric.diagonal).cost
    blocked = blocked and stop is None
    return Plan(path[end], cost, allowance, reactions, False, blocked)


def _walk(path: Sequence[Cell], size: int, found: Others) -> tuple[int, bool]:
    """How far along ``path`` (an index) the token gets: to its end, or — where a cell the
    mover cannot see a figure on comes first — to the last free cell before it (``True``)."""
    for index in range(1, len(path)):
        if not found.unseen.isdisjoint(g.footprint(path[index], size)):
            return _free_before(path, index, size, found), True
    return len(path) - 1, False


def _free_before(path: Sequence[Cell], index: int, size: int, found: Others) -> int:
    """The last index before ``index`` whose cells no other token stands on (the start at
    worst: the token stands there)."""
    for earlier in range(index - 1, 0, -1):
        if found.free(path[earlier], size):
            return earlier
    return 0


def _reactions(
    b: Board, rules: CombatCore, token: MapToken, path: list[Cell]
) -> tuple[int | None, list[MoveReaction]]:
    """Where along ``path`` the first enemies may react (``None``: nowhere), and they."""
    pid = b.pid(token)
    if pid is None or not b.running or pid not in b.state.get("figures", {}):
        return None, []
    positions = {
        b.pid(t) or "": (t.x, t.y) for t in b.tokens if t.participant_id and t.id != token.id
    }
    zones = capability(rules, Zones)
    found = zones.move_reactions(b.state, pid, path, positions) if zones is not None else []
    if not found:
        return None, []
    index = found[0].index
    names = {str(p.id): p.name for p in b.participants.values()}
    return index, [
        {"participant_id": int(r.pid), "kind": r.kind, "name": names.get(r.pid, "")}
        for r in found
        if r.index == index
    ]


# --- the answer -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MoveResult:
    """A move as its caller may see it: the fields of their form of the ``token_moved`` the
    move wrote (``x``, ``y``, ``cost`` ``None`` when they do not receive it as a move — the
    token left their sight), the movement they had left before it, ``stopped_at``: where it
    stopped for the reactions they are told of, and ``blocked`` with its message."""

    x: int | None
    y: int | None
    cost: int | None
    allowance: int | None
    stopped_at: Cell | None
    reactions: list[MoveReaction]
    blocked: bool
    #: The mover's actions left after a move that was one of them (PF2e's Stride).
    actions: Budget | None = None

    @property
    def message(self) -> str | None:
        return _("Something blocks the way") if self.blocked else None


def answer(
    received: Sequence[VisibleEvent], allowance: int | None, actions: Budget | None = None
) -> MoveResult:
    """The answer from the move's event as its caller receives it (``received``: the event
    projected for them, empty when they may not see it)."""
    form = next((e.payload for e in received if e.type == TokenMoved.TYPE), None)
    if form is None:
        return MoveResult(None, None, None, allowance, None, [], False, actions)
    reactions = list(form.get("reactions") or [])
    at = (int(form["x"]), int(form["y"]))
    return MoveResult(
        at[0], at[1], int(form["cost"]), allowance, at if reactions else None, reactions,
        bool(form.get("blocked")), actions,
    )  # fmt: skip
