"""Combat orchestration shared by the three systems (pure: no I/O; dice from a Roller).

The combat state is a JSON object stored on the encounter, typed as
:class:`app.encounters.state.CombatState` (``State`` here): ``system``, ``round``, ``turn``
(the index into ``order``, a list of :class:`~app.encounters.state.OrderEntry`), ``figures``
(each system's runtime values by participant id), the open prompt ``pending`` (a
:data:`~app.encounters.state.Pending`), ``turn_actions``, ``movement``, ``map_moves`` and
what a system keeps beside them (PF2e's ``action_budget``, H&H's ``area_queue``). The
service reads a row with ``load_state`` (its shape checked) and writes it with
``dump_state``; nothing else turns JSON into a state.

``movement``: the cells each figure moved on the battle map in the current Handlung or turn
(``turn``: ``"round:turn"``; another turn's counts are spent no more), read by the map's
move check. ``map_moves``: where the tokens the last undoable operation moved stood before
it (an undo puts them back there, docs/map.md); the state an undo restores holds those of
the operation before it.

Every operation mutates a copy of the state and records what happened in a
:class:`Report`: log entries (a translatable headline plus the engines' German rule text
and dice), which figures changed, and whether the order, turn or pending step changed. The
service turns a report into one event of the campaign log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

from app.encounters.state import CombatState, FigureData, OrderEntry
from app.i18n import N_

#: The fight's state (``app.encounters.state``).
State = CombatState
SIDES = ("abenteurer", "gegner", "neutral")
SIDE_LABELS = {
    "abenteurer": N_("Adventurers"),
    "gegner": N_("Enemies"),
    "neutral": N_("Neutral"),
}


class CombatError(Exception):
    """An action the rules or the situation refuse; ``message`` is a gettext msgid."""

    def __init__(self, message: str, **params: object) -> None:
        super().__init__(message)
        self.message = message
        self.params = params
        #: The input the refusal is about (its form field); ``combat``: the action as such.
        self.field = "combat"

    def at(self, field: str) -> CombatError:
        """This refusal, at the form field ``field``."""
        self.field = field
        return self


class DetailJSON(TypedDict):
    """A :class:`Detail` as the log stores it."""

    msg: str
    params: dict[str, object]


class EntryJSON(TypedDict):
    """An :class:`Entry` as the log stores it (the ``combat`` event's ``entries``); a
    detail is rule notation or a :class:`DetailJSON`."""

    msg: str
    params: dict[str, object]
    details: list[str | DetailJSON]
    dice: list[dict[str, object]]


@dataclass(frozen=True, slots=True)
class Detail:
    """A detail line the reader's language writes: ``msg`` an English msgid, ``params`` its
    values (rule notation, numbers, or a nested :class:`Detail`). Details the engines write
    as rule notation stay strings."""

    msg: str
    params: dict[str, object] = field(default_factory=dict)

    def as_dict(self) -> DetailJSON:
        params = {k: v.as_dict() if isinstance(v, Detail) else v for k, v in self.params.items()}
        return {"msg": self.msg, "params": params}


def detail(msg: str, **params: Any) -> Detail:
    return Detail(msg, params)


@dataclass
class Entry:
    """One line of the combat log: ``msg`` (English msgid) with ``params``, rule details."""

    msg: str
    params: dict[str, object] = field(default_factory=dict)
    details: list[str | Detail] = field(default_factory=list)
    dice: list[dict[str, object]] = field(default_factory=list)
    #: Participants this line is about (GM-only while any of them is hidden).
    who: set[str] = field(default_factory=set)

    def as_dict(self) -> EntryJSON:
        details = [d.as_dict() if isinstance(d, Detail) else d for d in self.details]
        return {"msg": self.msg, "params": self.params, "details": details, "dice": self.dice}


@dataclass(frozen=True, slots=True)
class Displacement:
    """A figure the rules move (H&H Wegstossen, Fehltritt): ``pid`` goes ``steps`` cells
    along the line from ``origin``'s figure to ``toward``'s; ``past``: it slides past
    ``toward`` (whose cells it may cross, not end on). The battle map moves the tokens
    (``app.maps.displace``); without a map it is only the log's line."""

    pid: str
    steps: int
    origin: str
    toward: str
    reason: str
    past: bool = False


class BurstParams(TypedDict):
    """What a :class:`Burst` deals: the ``faces`` of its damage roll, the damage ``kind``
    and the ``name`` of the effect that set it off."""

    faces: list[int]
    kind: str
    name: str


@dataclass(frozen=True, slots=True)
class Burst:
    """An area the rules set off around a figure by themselves (H&H «Arkane Explosion»):
    a circle of ``radius`` (the system's unit) centred on ``pid``'s token, resolved by the
    system's ``burst`` with ``params``. On a linked scene the fight places it on the board
    (``app.encounters.bursts``); in theatre of the mind it is only the log's line."""

    pid: str
    radius: int
    params: BurstParams


@dataclass
class Report:
    """What one operation did."""

    entries: list[Entry] = field(default_factory=list)
    changed: set[str] = field(default_factory=set)
    #: The figures whose tokens tell something else: of ``changed`` those whose health as
    #: shown changed (status, points, conditions, out), and those the turn passed from and
    #: to; set by the service after the operation.
    shown_changed: set[str] = field(default_factory=set)
    order_changed: bool = False
    turn_changed: bool = False
    pending_changed: bool = False
    #: Participants were added, removed, revealed or hidden: the whole roster changes.
    roster: bool = False
    #: Participants whose involvement makes the event GM-only if they are hidden.
    involved: set[str] = field(default_factory=set)
    secret: bool = False
    #: Figures the rules move on the map (:class:`Displacement`).
    displacements: list[Displacement] = field(default_factory=list)
    #: Areas the rules set off by themselves (:class:`Burst`), placed after the operation.
    bursts: list[Burst] = field(default_factory=list)
    #: The fight is linked to a scene with a board (set by the service before the operation).
    on_board: bool = False

    def add(
        self,
        msg: str,
        details: Sequence[str | Detail] | None = None,
        *,
        who: set[str] | None = None,
        **params: Any,
    ) -> Entry:
        """Add a log line about ``who`` (default: everyone involved so far)."""
        entry = Entry(
            msg, params, list(details or []), who=set(self.involved if who is None else who)
        )
        self.entries.append(entry)
        return entry


def fresh_state(system: str) -> State:
    return {
        "system": system,
        "round": 0,
        "turn": 0,
        "order": [],
        "figures": {},
        "gm_order": [],
        "initiative": {},
        "pending": None,
        "turn_actions": {"attacks": 0},
        "undone": [],
        "delayed": [],
    }


def current_turn(state: State) -> OrderEntry | None:
    order = state.get("order", [])
    turn = int(state.get("turn", 0))
    return order[turn] if 0 <= turn < len(order) else None


def current_pid(state: State) -> str | None:
    turn = current_turn(state)
    return str(turn["pid"]) if turn else None


def figure(state: State, pid: str) -> FigureData:
    fig = state["figures"].get(str(pid))
    if fig is None:
        raise CombatError(N_("This participant is not in the combat."))
    return fig


def turn_key(state: State) -> str:
    """The current Handlung or turn of a fight, ``"round:turn"``."""
    return f"{state.get('round', 0)}:{state.get('turn', 0)}"


def movement_spent(state: State, pid: str) -> int:
    """The cells ``pid`` moved on the map in the current Handlung or turn."""
    movement = state.get("movement")
    if movement is None or movement.get("turn") != turn_key(state):
        return 0
    return int((movement.get("spent") or {}).get(pid, 0))


def spend_movement(state: State, pid: str, cells: int) -> None:
    """``pid`` moved ``cells`` more in the current Handlung or turn."""
    key = turn_key(state)
    movement = state.get("movement")
    same = movement is not None and movement.get("turn") == key
    spent = dict(movement.get("spent") or {}) if movement is not None and same else {}
    spent[pid] = movement_spent(state, pid) + cells
    state["movement"] = {"turn": key, "spent": spent}


def map_moved(state: State, token_id: int, cell: tuple[int, int]) -> None:
    """The operation moves the token ``token_id`` from ``cell`` (its first move counts)."""
    moved = state.setdefault("map_moves", [])
    if all(m.get("token_id") != token_id for m in moved):
        moved.append({"token_id": token_id, "x": cell[0], "y": cell[1]})


def map_moves(state: State) -> list[tuple[int, tuple[int, int]]]:
    """The tokens the last undoable operation moved, with the cells they stood on."""
    out = []
    for m in state.get("map_moves") or []:
        if isinstance(m, dict) and all(isinstance(m.get(k), int) for k in ("token_id", "x", "y")):
            out.append((int(m["token_id"]), (int(m["x"]), int(m["y"]))))
    return out


def reset_turn_actions(state: State) -> None:
    state["turn_actions"] = {"attacks": 0}


def align_turn(state: State, previous: OrderEntry | None) -> None:
    """After the order was rebuilt, point the turn at the same (pid, step) as before."""
    if previous is None:
        return
    for i, t in enumerate(state["order"]):
        if t["pid"] == previous["pid"] and t.get("step") == previous.get("step"):
            state["turn"] = i
            return


def remove_from_order(state: State, pid: str) -> bool:
    """Drop ``pid``'s turns; returns whether the current turn was one of them."""
    order = state["order"]
    turn = int(state["turn"])
    was_current = bool(order) and 0 <= turn < len(order) and order[turn]["pid"] == pid
    before = sum(1 for t in order[:turn] if t["pid"] == pid)
    state["order"] = [t for t in order if t["pid"] != pid]
    state["turn"] = max(0, turn - before)
    return was_current


def tied(a: OrderEntry, b: OrderEntry) -> bool:
    return a.get("tie") is not None and a.get("tie") == b.get("tie")


def swap_tied(state: State, pid: str, direction: int) -> str:
    """Move ``pid``'s next turn one place up (-1) or down (+1) within its tie group."""
    order = state["order"]
    turn = int(state["turn"])
    idx = next((i for i, t in enumerate(order) if t["pid"] == pid and i >= turn), None)
    if idx is None:
        raise CombatError(N_("This participant has no turn left in this round."))
    other = idx + direction
    if not (turn <= other < len(order)) or not tied(order[idx], order[other]):
        raise CombatError(N_("Only participants with the same initiative can be reordered."))
    order[idx], order[other] = order[other], order[idx]
    other_pid: str = order[idx]["pid"]
    gm_order: list[str] = state.setdefault("gm_order", [])
    for p in (pid, other_pid):
        if p not in gm_order:
            gm_order.append(p)
    a, b = gm_order.index(pid), gm_order.index(other_pid)
    if (direction < 0) != (a < b):
        gm_order[a], gm_order[b] = gm_order[b], gm_order[a]
    return other_pid


def delay(state: State) -> str:
    """The current figure waits: its turn moves behind the next one."""
    order = state["order"]
    turn = int(state["turn"])
    if turn + 1 >= len(order):
        raise CombatError(N_("Nobody acts after this turn in this round; end the turn instead."))
    order[turn], order[turn + 1] = order[turn + 1], order[turn]
    return str(order[turn]["pid"])
