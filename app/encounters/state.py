"""The running fight's state, typed (issue 26): what ``Encounter.state`` holds as JSON.

:class:`CombatState` is the top level; its parts are the TypedDicts below. The JSON codec
is the identity: :func:`load_state` checks a row's shape and hands out a copy to change,
:func:`dump_state` gives the changed state back to the row. A row of another shape (an old
or damaged one) is refused there, at the edge, not deep inside a rule.

The open prompt (``pending``) is a tagged union on ``kind``: :class:`PendingDefence` (the
target of a hit may defend, a Reaktion; an area's target defends with Unbeugsamkeit, a
Flächenzauber's names its ``spell``) and :class:`PendingHit` (the hit waits for the
target's Glück: Treffer entgehen or the defence rolled again). Only H&H asks today; DS4 and
PF2e resolve at once.

The figures' runtime values (``figures``) are each system's own: JSON objects here, typed
by the adapters where they read them (``HHFigureData``, ``DS4FigureData``,
``PF2eFigureData`` in ``app.encounters.systems.{hh,ds4,pf2e}_figures``).
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict, cast

from app.core.jsoncopy import copy_json
from app.rules.hh.probe import ProbeJSON
from app.rules.pf2e.turn import ActionBudgetJSON

#: A figure's runtime values (each system's own keys).
FigureData = dict[str, Any]


class OrderEntry(TypedDict):
    """One turn of the round: H&H's ``step`` is the Initiativeschritt (``None`` elsewhere);
    ``tie``: turns with the same value may be reordered by the GM (``None``: never)."""

    pid: str
    step: int | None
    init: int
    side: str
    tie: str | None


class TurnActions(TypedDict, total=False):
    """What the current turn did: attacks and casts made (the multiple-attack count), DS4's
    ``aktion`` taken, H&H's Handlungen used and granted per figure of the step."""

    attacks: int
    casts: int
    aktion: bool
    handlungen: dict[str, int]
    granted: dict[str, int]


class Movement(TypedDict):
    """The cells each figure moved on the map in the Handlung or turn ``turn``
    (``"round:turn"``)."""

    turn: str
    spent: dict[str, int]


class MapMove(TypedDict):
    """Where a token the last undoable operation moved stood before it."""

    token_id: int
    x: int
    y: int


class AreaRecord(TypedDict):
    """The area placed on the board (``app.encounters.area``, ``app.encounters.bursts``);
    ``resolved`` false while its targets still answer."""

    id: int
    shape: str
    origin: list[int]
    toward: list[int] | None
    size: float
    cells: list[list[int]]
    targets: list[str]
    source: str
    actor: str
    scene_id: int | None
    resolved: bool


class SpecJSON(TypedDict):
    """The parts of an H&H attack that are not the weapon (the weapon is read again from the
    attacker); a hit waiting for Glück adds whether and how it was defended."""

    modifier: int
    defence_skill: str
    cover: str
    non_lethal: bool
    covering: str
    defend: NotRequired[bool]
    defence_modifier: NotRequired[int]


class AreaQueue(TypedDict):
    """H&H: an area's targets still to answer, one after the other (``queue``), with the
    attack's Probe and ``spec``, or the Flächenzauber's ``spell`` key."""

    attacker: str
    probe: ProbeJSON
    queue: list[str]
    spec: NotRequired[SpecJSON]
    spell: NotRequired[str]


class _PendingPrompt(TypedDict):
    """What every open prompt holds: the hit of ``attacker`` on ``target`` with its
    ``probe``, who answers it (``owner``; the GM always may; after ``deadline`` the
    attacker's side takes the default), the target's ``reactions`` left and whether it may
    spend Glück (``luck``)."""

    attacker: str
    target: str
    owner: int | None
    probe: ProbeJSON
    deadline: str
    reactions: int
    luck: bool


class PendingDefence(_PendingPrompt):
    """A hit the target may defend against. An area's target (``area``) defends a
    Flächenangriff's ``spec`` or a Flächenzauber (``spell``, ``spell_name``)."""

    kind: Literal["defence"]
    spec: NotRequired[SpecJSON]
    area: NotRequired[bool]
    spell: NotRequired[str]
    spell_name: NotRequired[str]


class PendingHit(_PendingPrompt):
    """A hit waiting for its target's Glück (hh.md §4): booked as rolled (``faces`` replay
    the damage dice), halved, or the ``defence`` rolled again (``reroll``: it may be)."""

    kind: Literal["hit"]
    spec: SpecJSON
    asked: bool
    defence: ProbeJSON | None
    defence_given: bool
    faces: list[int]
    damage: int
    reroll: bool


#: The prompt a fight waits for.
Pending = PendingDefence | PendingHit


class CombatState(TypedDict):
    """A fight's state: ``round`` and ``turn`` (the index into ``order``), the figures'
    runtime values by participant id, and what the systems keep beside them."""

    system: str
    round: int
    turn: int
    order: list[OrderEntry]
    figures: dict[str, FigureData]
    gm_order: NotRequired[list[str]]
    #: DS4: the Initiative tie-breaking rolls per figure.
    initiative: NotRequired[dict[str, list[int]]]
    pending: NotRequired[Pending | None]
    turn_actions: NotRequired[TurnActions]
    #: The log's event seqs an undo took back.
    undone: NotRequired[list[int]]
    delayed: NotRequired[list[str]]
    movement: NotRequired[Movement]
    map_moves: NotRequired[list[MapMove]]
    #: DS4: the side that surprises in the first round.
    surprise: NotRequired[str | None]
    area: NotRequired[AreaRecord]
    area_seq: NotRequired[int]
    areas_done: NotRequired[list[AreaRecord]]
    area_queue: NotRequired[AreaQueue]
    #: PF2e: the turn's actions and reaction left (``app.rules.pf2e.turn.ActionBudget``).
    action_budget: NotRequired[ActionBudgetJSON]


class StateError(ValueError):
    """A stored combat state of another shape."""


_REQUIRED: dict[str, type | tuple[type, ...]] = {
    "system": str,
    "round": int,
    "turn": int,
    "order": list,
    "figures": dict,
}
_OPTIONAL: dict[str, type | tuple[type, ...]] = {
    "gm_order": list,
    "initiative": dict,
    "pending": (dict, type(None)),
    "turn_actions": dict,
    "undone": list,
    "delayed": list,
    "movement": dict,
    "map_moves": list,
    "surprise": (str, type(None)),
    "area": dict,
    "area_seq": int,
    "areas_done": list,
    "area_queue": dict,
    "action_budget": dict,
}
_PENDING_KEYS = ("kind", "attacker", "target", "probe", "deadline")


def check_state(raw: object) -> CombatState:
    """``raw`` as a combat state, unchanged; :class:`StateError` if its shape is not one."""
    if not isinstance(raw, dict):
        raise StateError("a combat state is a JSON object")
    for key, kinds in _REQUIRED.items():
        if not isinstance(raw.get(key), kinds) or isinstance(raw.get(key), bool):
            raise StateError(f"the combat state's {key!r} is missing or of another type")
    for key, kinds in _OPTIONAL.items():
        if key in raw and not isinstance(raw[key], kinds):
            raise StateError(f"the combat state's {key!r} is of another type")
    for entry in raw["order"]:
        if not isinstance(entry, dict) or not isinstance(entry.get("pid"), str):
            raise StateError("a turn of the combat state's order has no participant")
    if not all(isinstance(k, str) and isinstance(v, dict) for k, v in raw["figures"].items()):
        raise StateError("a figure of the combat state is not a JSON object")
    pending = raw.get("pending")
    kind = pending.get("kind") if isinstance(pending, dict) else None
    if pending and (kind not in ("defence", "hit") or any(k not in pending for k in _PENDING_KEYS)):
        raise StateError("the combat state's open prompt is of an unknown kind")
    return cast(CombatState, raw)


def load_state(raw: object) -> CombatState:
    """A copy of the row's state to change (checked by :func:`check_state`)."""
    return copy_json(check_state(raw))


def dump_state(state: CombatState) -> dict[str, object]:
    """The state as the row stores it (the same JSON object)."""
    return cast(dict[str, object], state)


def read_state(raw: object) -> CombatState:
    """The row's state to read (not to change): checked, or an empty fight for a row whose
    fight has not started (an empty object)."""
    if not raw:
        return {"system": "", "round": 0, "turn": 0, "order": [], "figures": {}}
    return check_state(raw)
