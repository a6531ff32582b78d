"""What one viewer sees of an encounter: the roster, the turn, the pending step, the log.

Built per viewer on the server: hidden participants are left out for players (never sent),
exact LP/LK/TP of NSCs are replaced by a state word, GM-only log lines are never loaded.
The page, the HTMX fragments, the SSE pushes and the JSON API all use these views.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, NotRequired, TypedDict, TypeVar

from app.campaigns.models import Campaign
from app.core.systems import RULE_SYSTEMS, RuleSystem
from app.encounters import statblocks
from app.encounters.combat import SIDE_LABELS, current_pid, current_turn
from app.encounters.models import Encounter, Participant
from app.encounters.service import Loaded, LogWindow, Shared, can_answer, owns
from app.encounters.state import CombatState, FigureData, read_state
from app.encounters.systems import SYSTEMS, system
from app.encounters.systems.protocol import (
    Budget,
    Checks,
    CombatCore,
    Conditions,
    CountedActions,
    FigureView,
    Spending,
    Spent,
    Tactics,
    area_sources,
    capability,
)
from app.events.models import CampaignEvent
from app.i18n import N_, get_locale, gettext

T = TypeVar("T")

LOG_SHOWN = 6
"""Combat log entries a page shows; older ones come on request ("Older entries"). Live entries
push the oldest shown out of view: ``static/css/app.css`` hides those past the sixth."""

STATUS_LABELS = {"prepared": N_("Prepared"), "running": N_("Running"), "ended": N_("Ended")}


def _order_index(state: CombatState) -> dict[str, int]:
    out: dict[str, int] = {}
    for i, t in enumerate(state.get("order", [])):
        out.setdefault(str(t["pid"]), i)
    return out


def knows_exact(participant: Participant, gm: bool) -> bool:
    """Whether a viewer knows a participant's exact points: the GMs all, players those of
    the group's characters; of a monster a player knows only its status word."""
    return gm or participant.character_id is not None


class Health(TypedDict):
    """A figure's health as one viewer may know it (the roster, and as JSON the map's
    tokens: ``app.maps.marks``)."""

    status: str
    label: str
    #: «12/20 LP» and the share left (0–1); ``None`` for a viewer who knows only the word.
    points: str | None
    share: float | None
    conditions: list[str]
    out: bool


def health_of(view: FigureView, participant: Participant, gm: bool) -> Health:
    """``view`` (the system's ``CombatCore.view`` of the figure) cut to what the viewer
    may know of ``participant``."""
    key, label = view["status"]
    exact = knows_exact(participant, gm)
    now, most = view["health"]
    return Health(
        status=key,
        label=gettext(label),
        points=view["points"] if exact else None,
        share=max(0.0, min(1.0, now / most)) if exact and most > 0 else None,
        conditions=list(view["conditions"]),
        out=bool(view["out"]),
    )


def figure_view(loaded: Loaded, mod: CombatCore, pid: str, fig: FigureData) -> FigureView:
    """The system's ``view`` of figure ``pid`` (viewer-independent; :func:`health_of` cuts
    it for a viewer): computed once per live push for all its viewers (``Loaded.shared``)."""
    if loaded.shared is None:
        return mod.view(fig)
    return loaded.shared.get(loaded.encounter.state, ("figure view", pid), lambda: mod.view(fig))


class RowView(TypedDict):
    """One roster row as the viewer sees it (:func:`rows`); a figure in the fight adds its
    health and conditions as the viewer may know them."""

    pid: str
    name: str
    side: str
    side_label: str
    hidden: bool
    pc: bool
    mine: bool
    current: bool
    in_fight: bool
    order: int
    known: list[str]
    entry_id: int | None
    status: NotRequired[str]
    status_label: NotRequired[str]
    points: NotRequired[str | None]
    conditions: NotRequired[list[str]]
    condition_labels: NotRequired[dict[str, str]]
    extra: NotRequired[list[str]]
    initiative: NotRequired[int | None]
    out: NotRequired[bool]


def rows(loaded: Loaded) -> list[RowView]:
    state = read_state(loaded.encounter.state)
    gm = loaded.viewer.is_gm
    figures = state.get("figures", {})
    mod = system(loaded.campaign.system)
    # Only a running fight has someone acting (an ended one keeps its last turn in the state).
    current = current_pid(state) if loaded.encounter.status == "running" else None
    index = _order_index(state)
    out: list[RowView] = []
    for p in loaded.participants:
        pid = str(p.id)
        if p.hidden and not gm:
            continue
        fig = figures.get(pid)
        row: RowView = {
            "pid": pid,
            "name": p.name,
            "side": p.side,
            "side_label": gettext(SIDE_LABELS[p.side]),
            "hidden": p.hidden,
            "pc": p.character_id is not None,
            "mine": owns(loaded, pid),
            "current": pid == current,
            "in_fight": fig is not None,
            "order": index.get(pid, 10_000),
            "known": loaded.known.get(p.bestiary_entry_id or 0, []),
            "entry_id": p.bestiary_entry_id,
        }
        if fig is not None:
            v = figure_view(loaded, mod, pid, fig)
            known = health_of(v, p, gm)
            exact = knows_exact(p, gm)
            row["status"] = known["status"]
            row["status_label"] = known["label"]
            row["points"] = known["points"]
            row["conditions"] = known["conditions"]
            row["condition_labels"] = {c: condition_label(c) for c in known["conditions"]}
            row["extra"] = v["extra"] if exact else []
            row["initiative"] = v["initiative"] if exact or p.side == "abenteurer" else None
            row["out"] = known["out"]
        out.append(row)
    out.sort(key=lambda r: (r["order"], r["name"]))
    return out


class TurnView(TypedDict):
    """Whose turn it is as the viewer sees it (a hidden figure's turn is nobody's)."""

    status: str
    round: int
    pid: str | None
    name: str | None
    step: int | None
    mine: bool


def turn(loaded: Loaded) -> TurnView:
    state = read_state(loaded.encounter.state)
    t = current_turn(state)
    pid = str(t["pid"]) if t else None
    hidden = pid in loaded.hidden
    visible = pid is not None and (loaded.viewer.is_gm or not hidden)
    name = state["figures"][pid]["name"] if visible and pid else None
    return {
        "status": loaded.encounter.status,
        "round": state.get("round", 0),
        "pid": pid if visible else None,
        "name": name,
        "step": t.get("step") if t and visible else None,
        "mine": owns(loaded, pid),
    }


def _remaining(deadline: str) -> int:
    """Whole seconds until ``deadline`` (0 once passed), for the prompt's countdown."""
    left = (datetime.fromisoformat(deadline) - datetime.now(UTC)).total_seconds()
    return max(0, int(left))


class PendingView(TypedDict):
    """The open prompt as the viewer sees it (``state.Pending``): who attacks whom, the
    attack's dice, the countdown, how the viewer may answer (``service.can_answer``)."""

    attacker: str
    target: str
    target_pid: str
    roll: int | None
    faces: list[int] | None
    deadline: str
    deadline_dt: datetime
    remaining: int
    answer: str | None
    luck: bool
    reactions: int
    kind: str
    damage: int | None
    reroll: bool
    #: The spell a figure in an area answers (H&H Flächenzauber), by its name.
    spell: str | None


def pending(loaded: Loaded) -> PendingView | None:
    state = read_state(loaded.encounter.state)
    p = state.get("pending")
    if not p:
        return None
    hidden = loaded.hidden
    if not loaded.viewer.is_gm and (p["attacker"] in hidden or p["target"] in hidden):
        return None
    figures = state["figures"]
    return {
        "attacker": figures[p["attacker"]]["name"],
        "target": figures[p["target"]]["name"],
        "target_pid": p["target"],
        "roll": p["probe"].get("roll"),
        "faces": p["probe"].get("faces"),
        "deadline": p["deadline"],
        "deadline_dt": datetime.fromisoformat(p["deadline"]),
        "remaining": _remaining(p["deadline"]),
        "answer": can_answer(loaded, state),
        "luck": bool(p.get("luck")),
        "reactions": p.get("reactions", 0),
        "kind": p["kind"],
        "damage": p["damage"] if p["kind"] == "hit" else None,
        "reroll": p["kind"] == "hit" and bool(p.get("reroll")),
        "spell": p.get("spell_name") if p["kind"] == "defence" else None,
    }


class CheckControls(TypedDict):
    """The condition and check forms' choices (:func:`_check_controls`)."""

    conditions: tuple[str, ...]
    default_check: str
    check_names: tuple[str, ...]


class SpentView(TypedDict):
    """What the controls disable and why (:func:`_spent`)."""

    spent: Spent
    spent_reason: str | None


class TurnControls(SpentView):
    """The acting figure's budget and what it spent (:func:`_turn_controls`)."""

    budget: Budget | None


class AreaControls(TypedDict):
    """The area form's sources and unit (:func:`_area_controls`)."""

    area_sources: list[tuple[str, str]]
    area_unit: str


class FocusView(TypedDict):
    """A held focus: its points and the spell's name (:func:`_focus`)."""

    points: int
    spell: str


class Controls(CheckControls, TurnControls, AreaControls):
    """What the viewer can do now (:func:`controls`)."""

    gm: bool
    running: bool
    plays: bool
    acting: bool
    current: str | None
    current_name: str | None
    targets: list[RowView]
    participants: list[RowView]
    strikes: Sequence[Mapping[str, object]]
    can_undo: bool
    attacks_this_turn: int
    maneuvers: list[tuple[str, str]]
    spells: Sequence[Mapping[str, object]]
    helpless: str | None
    #: What the acting figure can recover with its action: conditions it can shake off
    #: (key, rule term) and a jammed weapon (``Offers``).
    shake_off: list[tuple[str, str]]
    jammed: bool
    focus: FocusView | None
    heroes_down: bool
    on_board: bool
    geometry_fields: bool


def controls(loaded: Loaded, roster: list[RowView]) -> Controls:
    """What the viewer can do now (forms), computed from the state, the viewer and the
    roster's :func:`rows`."""
    state = read_state(loaded.encounter.state)
    gm = loaded.viewer.is_gm
    current = current_pid(state)
    running = loaded.encounter.status == "running"
    acting = running and current is not None and (gm or owns(loaded, current))
    visible = [r for r in roster if r["in_fight"]]
    actor_fig = state.get("figures", {}).get(current or "", {})
    mod = system(loaded.campaign.system)
    offers = mod.offers(actor_fig)
    return {
        "gm": gm,
        "running": running,
        # "Wait for your turn" is for those who have a figure in the fight (not an observer).
        "plays": any(r["mine"] for r in visible),
        "acting": acting and not state.get("pending"),
        "current": current,
        "current_name": actor_fig.get("name") if acting else None,
        "targets": _targets(visible, current),
        "participants": visible,
        "strikes": offers["strikes"],
        **_check_controls(mod),
        "can_undo": gm and running and loaded.undo_steps > 0,
        "attacks_this_turn": state.get("turn_actions", {}).get("attacks", 0),
        "maneuvers": offers["maneuvers"],
        "spells": offers["spells"] if acting else [],
        "helpless": gettext(offers["helpless"], name=actor_fig.get("name", ""))
        if acting and "helpless" in offers
        else None,
        "shake_off": offers.get("shake_off", []) if acting else [],
        "jammed": acting and offers.get("jammed", False),
        "focus": _focus(actor_fig) if acting else None,
        "heroes_down": gm and running and _heroes_down(visible),
        **_turn_controls(mod, state, acting),
        # On a linked scene the board decides cover and distance (issue 27): a player's form
        # has no such fields, a GM's keeps them as an explicit override.
        "on_board": loaded.board is not None,
        "geometry_fields": gm or loaded.board is None,
        **_area_controls(mod, gm),
    }


#: The area sources' labels in the area form (issue 27).
AREA_SOURCES = {
    "attack": N_("Area attack of the acting figure"),
    "spell": N_("Area spell"),
    "save": N_("Save against a DC"),
    "free": N_("Free area (GM)"),
}


def _check_controls(mod: CombatCore) -> CheckControls:
    """The condition and check forms' choices (none where the system lacks them)."""
    conditions, checks = capability(mod, Conditions), capability(mod, Checks)
    return {
        "conditions": conditions.conditions if conditions else (),
        "default_check": checks.default_check if checks else "",
        "check_names": checks.check_names if checks else (),
    }


def _turn_controls(mod: CombatCore, state: CombatState, acting: bool) -> TurnControls:
    """The acting figure's budget (``CountedActions``) and what it can no longer do
    (``Spending``): none for others, or where the system counts neither."""
    budget, spending = capability(mod, CountedActions), capability(mod, Spending)
    return {
        "budget": budget.turn_budget(state) if acting and budget else None,
        **_spent(spending.spent(state) if acting and spending else Spent()),
    }


def _area_controls(mod: CombatCore, gm: bool) -> AreaControls:
    """The area form's sources for the viewer (a player: the acting figure's own) and the
    system's unit."""
    mine = ("attack", "spell")
    offered = area_sources(mod)
    sources = [k for k in AREA_SOURCES if k in offered and (gm or k in mine)]
    tactics = capability(mod, Tactics)
    return {
        "area_sources": [(k, gettext(AREA_SOURCES[k])) for k in sources],
        "area_unit": tactics.metric.unit if tactics else "",
    }


def _spent(spent: Spent) -> SpentView:
    """The actions the controls disable (``spent.refuses``) and the reason they name, the
    message the server refuses them with (issue 28)."""
    return {
        "spent": spent,
        "spent_reason": gettext(spent.reason, **spent.params) if spent.reason else None,
    }


def _heroes_down(visible: list[RowView]) -> bool:
    """Every figure on the heroes' side is out (unconscious, dying or dead): the fight goes
    on only in empty rounds, so the GM is told and offered its end (issue 31)."""
    heroes = [r for r in visible if r["side"] == "abenteurer"]
    return bool(heroes) and all(r.get("out") for r in heroes)


def _targets(visible: list[RowView], current: str | None) -> list[RowView]:
    """Whom the actor may target, the other side first: the first option of a target select
    (its default) is an enemy, never an ally."""
    actor = next((r for r in visible if r["pid"] == current), None)
    side = actor["side"] if actor else None

    def rank(row: RowView) -> int:
        if side is None or side == "neutral":
            return 0
        return 2 if row["side"] == side else 1 if row["side"] == "neutral" else 0

    return sorted((r for r in visible if r["pid"] != current), key=rank)


def _focus(data: Mapping[str, Any]) -> FocusView | None:
    held = data.get("focus")
    if not held:
        return None
    name = next((z["name"] for z in data.get("spells", []) if z["key"] == held["spell"]), "")
    return {"points": held["points"], "spell": name or held["spell"]}


#: The condition msgids of the registered systems (:func:`_condition_names`), with the
#: adapters they were read from.
_NAMES: tuple[tuple[object, ...], dict[str, str]] = ((), {})


def _condition_names() -> dict[str, str]:
    """Every system's msgids of condition keys that are no rule terms, the first system's
    where two name one key (the registry is filled by ``app.wiring``, so it is read when
    asked, not when this module is imported; read again when it changed)."""
    global _NAMES
    adapters = tuple(SYSTEMS.values())
    if _NAMES[0] != adapters:
        names: dict[str, str] = {}
        for rules in adapters:
            conditions = capability(rules, Conditions)
            for key, msgid in conditions.condition_names.items() if conditions else ():
                names.setdefault(key, msgid)
        _NAMES = (adapters, names)
    return _NAMES[1]


def _condition_msgid(key: str) -> str | None:
    """The msgid of a condition key that is no rule term, in any system."""
    return _condition_names().get(key)


#: How older events wrote PF2e's persistent damage (``anhaltend 1W6 Feuer``).
_OLD_PERSISTENT = "anhaltend "


def condition_label(key: str) -> str:
    """A condition in the reader's language: its msgid if it has one, else the rule term (or
    the GM's value) it is; the key stays the form's value."""
    if (msgid := _condition_msgid(key)) is not None:
        return gettext(msgid)
    if key.startswith(_OLD_PERSISTENT):
        return "anhaltender Schaden " + key.removeprefix(_OLD_PERSISTENT)
    return key


def _translated_params(params: Mapping[str, object]) -> dict[str, object]:
    """A log line's parameters, a side (stored as its key; German names in older events) and
    a condition in the reader's language."""
    out = dict(params)
    side = out.get("side")
    if isinstance(side, str) and side.lower() in SIDE_LABELS:
        out["side"] = gettext(SIDE_LABELS[side.lower()])
    condition = out.get("condition")
    if isinstance(condition, str):
        out["condition"] = condition_label(condition)
    return out


def detail_text(stored: Any) -> str:
    """A log line's detail in the reader's language: a stored ``{"msg", "params"}`` (an
    English msgid, nested ones in its params) translated; rule notation (a string, also every
    detail of older events) as it is."""
    if not isinstance(stored, dict) or not isinstance(stored.get("msg"), str):
        return str(stored)
    params = {
        k: detail_text(v) if isinstance(v, dict) else v
        for k, v in dict(stored.get("params") or {}).items()
    }
    try:
        return gettext(stored["msg"], **params)
    except (KeyError, TypeError, ValueError):
        return str(stored["msg"])


class LineView(TypedDict):
    """One line of a log entry in the reader's language, its details and dice."""

    text: str
    details: list[str]
    dice: list[Any]


class EntryView(TypedDict):
    """A combat log entry as the page and the API show it (:func:`entry_view`)."""

    seq: int
    actor: str | None
    created_at: str
    visibility: str
    lines: list[LineView]
    undone: bool
    undo_of: list[int]


def entry_view(event: CampaignEvent, undone: set[int], *, redacted: bool = False) -> EntryView:
    payload = event.payload
    lines: list[LineView] = []
    for e in payload.get("entries", []):
        params = _translated_params(e.get("params", {}))
        try:
            text = gettext(e["msg"], **params) if params else gettext(e["msg"])
        except (KeyError, TypeError, ValueError):
            text = e["msg"]
        details = [detail_text(d) for d in e.get("details", [])]
        lines.append({"text": text, "details": details, "dice": e.get("dice", [])})
    return {
        "seq": event.seq,
        "actor": payload.get("actor_name"),
        "created_at": event.created_at.isoformat(),
        "visibility": event.visibility,
        "lines": lines,
        "undone": event.seq in undone,
        "undo_of": payload.get("undo_of", []),
    }


class ManageContext(TypedDict):
    """The GM's forms for one participant (:func:`manage_context`); ``inline`` the route
    sets (fetched into the roster row)."""

    campaign: Campaign
    campaign_id: int
    encounter: Encounter
    system: str
    row: RowView
    conditions: tuple[str, ...]
    partials: Mapping[str, str]
    inline: NotRequired[bool]


def manage_context(loaded: Loaded, participant_id: int) -> ManageContext | None:
    """What the GM's forms for one participant need; ``None`` if it is not in this fight."""
    row = next((r for r in rows(loaded) if r["pid"] == str(participant_id)), None)
    if row is None:
        return None
    return {
        "campaign": loaded.campaign,
        "campaign_id": loaded.campaign.id,
        "encounter": loaded.encounter,
        "system": loaded.campaign.system,
        "row": row,
        "conditions": _check_controls(system(loaded.campaign.system))["conditions"],
        "partials": system(loaded.campaign.system).partials,
    }


class LogWindowView(TypedDict):
    """The log entries shown (newest first) and the seq to page back from."""

    entries: list[EntryView]
    older_than: int | None


def log_window(loaded: Loaded, window: LogWindow) -> LogWindowView:
    """The log entries of ``window`` (newest first) and the seq to page back from."""
    undone = set(loaded.encounter.state.get("undone", [])) if loaded.encounter.state else set()
    return {
        "entries": [entry_view(e, undone) for e in window.events],
        "older_than": window.older_than,
    }


def page_context(loaded: Loaded, log: LogWindow) -> dict[str, object]:
    """The combat page with the log window ``log``."""
    roster = rows(loaded)
    return {
        "campaign": loaded.campaign,
        "campaign_id": loaded.campaign.id,
        "encounter": loaded.encounter,
        "viewer": loaded.viewer,
        "system_name": RULE_SYSTEMS[RuleSystem(loaded.campaign.system)].label,
        "system": loaded.campaign.system,
        "partials": system(loaded.campaign.system).partials,
        "rows": roster,
        "turn": turn(loaded),
        "pending": pending(loaded),
        "controls": controls(loaded, roster),
        **log_window(loaded, log),
        "last_seq": loaded.campaign.last_seq,
        "status_label": STATUS_LABELS.get(loaded.encounter.status, loaded.encounter.status),
        "participants": loaded.participants,
        "errors": {},
        "schema": statblocks.rules(loaded.campaign.system).schema,
        "shared": loaded.shared,
        #: The fight is on a linked scene (the combat page shows its board beside it).
        "on_board": loaded.board is not None,
    }


def once_per_push(context: Mapping[str, Any], key: Hashable, make: Callable[[], T]) -> T:
    """``make()`` for what a live push shows every audience alike (a log entry's HTML):
    made once per push for all of them (the page context's ``shared``, in the reader's
    language), else each time. Only for what no viewer may see differently."""
    shared = context.get("shared")
    if not isinstance(shared, Shared):
        return make()
    return shared.get(context["encounter"].state, (key, get_locale()), make)


class EncounterView(TypedDict):
    """The JSON form of what the viewer sees of a fight (:func:`api_view`); ``pending`` is
    the open prompt without its parsed deadline."""

    id: int
    name: str
    notes: str
    status: str
    version: int
    settings: Mapping[str, object]
    round: int
    turn: TurnView
    participants: list[RowView]
    pending: dict[str, object] | None
    can_undo: bool
    area: AreaView | None


def api_view(loaded: Loaded) -> EncounterView:
    """The JSON form of what the viewer sees (same projection as the page)."""
    enc = loaded.encounter
    prompt = pending(loaded)
    p = None if prompt is None else {k: v for k, v in prompt.items() if k != "deadline_dt"}
    return {
        "id": enc.id,
        "name": enc.name,
        "notes": enc.notes if loaded.viewer.is_gm else "",
        "status": enc.status,
        "version": enc.version,
        "settings": enc.settings if loaded.viewer.is_gm else {},
        "round": (enc.state or {}).get("round", 0),
        "turn": turn(loaded),
        "participants": rows(loaded),
        "pending": p,
        "can_undo": loaded.viewer.is_gm and loaded.undo_steps > 0,
        "area": area_view(loaded),
    }


class AreaTarget(TypedDict):
    """A figure in the area the viewer may see."""

    participant_id: int
    name: str


class AreaView(TypedDict):
    """The fight's last area as the viewer may see it (:func:`area_view`)."""

    id: int
    shape: str
    cells: list[list[int]]
    targets: list[AreaTarget]
    resolved: bool


def area_view(loaded: Loaded) -> AreaView | None:
    """The fight's last area (issue 27) as the viewer may see it: a hidden figure in it is
    left out for players; ``resolved`` false while its targets still answer."""
    state = read_state(loaded.encounter.state)
    record = state.get("area")
    if not record:
        return None
    hidden = set() if loaded.viewer.is_gm else loaded.hidden
    names = {pid: f.get("name", "") for pid, f in state.get("figures", {}).items()}
    return {
        "id": record["id"],
        "shape": record["shape"],
        "cells": [list(c) for c in record["cells"]],
        "targets": [
            {"participant_id": int(pid), "name": names.get(pid, "")}
            for pid in record["targets"]
            if pid not in hidden
        ],
        "resolved": bool(record.get("resolved")),
    }
