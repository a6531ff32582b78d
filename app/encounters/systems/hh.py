"""Helden & Halunken in combat: a thin adapter from the JSON state to ``app.rules.hh``.

Every rule decision is the engine's: initiative steps and order (``round_order``),
Reaktionen (``start_of_round``), attacks (``resolve_attack`` with the attack Probe rolled
first and the defender's answer taken before the engine continues), conditions, damage,
Zehrend and Sterben (``end_of_round``), Zielen, Kampfmanöver, Moral, shaking off.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Final, Unpack

from app.characters.systems.hh import SKILLS
from app.encounters.combat import (
    Burst,
    BurstParams,
    CombatError,
    Detail,
    Displacement,
    Report,
    State,
    align_turn,
    current_turn,
    figure,
    reset_turn_actions,
)
from app.encounters.state import (
    AreaQueue,
    FigureData,
    Pending,
    PendingDefence,
    PendingHit,
    SpecJSON,
)
from app.encounters.systems import hh_checks
from app.encounters.systems.hh_figures import (
    HHFigureData,
    HHSheetState,
    HHSpellData,
    describe_changes,
    from_figure,
    hh_data,
    hh_figure,
    names_of,
    options,
    to_figure,
)
from app.encounters.systems.hh_figures import get as _get
from app.encounters.systems.hh_figures import put as _put
from app.encounters.systems.hh_figures import with_breakdown as _with
from app.encounters.systems.play import AttackOrder, Play, Trials
from app.encounters.systems.protocol import (
    COVER_FROM,
    AreaSource,
    AttackLine,
    Common,
    FigureView,
    Forecast,
    MapAttack,
    MoveReaction,
    Offers,
    RangeNote,
    Settings,
    Spent,
    Unknown,
    unavailable,
)
from app.i18n import N_
from app.rules import hh
from app.rules.dice import Roller
from app.rules.grid import Cell, Metric
from app.rules.hh import forecast as hh_forecast
from app.rules.hh import magic, recovery
from app.rules.hh import simulation as hh_simulation
from app.rules.hh.attack import attack_breakdown, attack_target, defence_breakdown
from app.rules.hh.companions import COMPANION_TALENTS
from app.rules.hh.conditions import zehrend
from app.rules.hh.cover import cover_note, living_cover, suggest_cover, wall_cover
from app.rules.hh.grid import MELEE_REACH, blockade_triggers, threat_zone, weapon_reaches
from app.rules.hh.initiative import handlung_left
from app.rules.hh.luck import LUCK_NAMES, LuckSituation, better_probe, check_luck
from app.rules.hh.modifiers import Breakdown, breakdown
from app.rules.hh.probe import ProbeJSON, ProbeResult
from app.rules.hh.state import Figure, Zustand
from app.rules.odds import BudgetRating, RiskResult

CONDITIONS = (
    "angeschlagen",
    "benommen",
    "eingeschränkt",
    "entmutigt",
    "niedergeworfen",
    "sterbend",
    "verwirrt",
    "zehrend",
)
ATTACK_SKILL = "Kampfkunst (Angriff)"
DEFENCE_SKILL = "Kampfkunst (Verteidigung)"
DEFAULT_TIMEOUT = 120


def new_figure(
    pid: str, name: str, side: str, stats: Mapping[str, Any], *, npc: bool, settings: Settings
) -> FigureData:
    skills: dict[str, int] = {
        str(k): int(v) for k, v in dict(stats.get("skills", {})).items() if isinstance(v, int)
    }
    skills.update(
        {
            ATTACK_SKILL: int(stats["angriff"]),
            DEFENCE_SKILL: int(stats["verteidigung"]),
            "Kampfkunst": int(skills.get("Kampfkunst", stats["angriff"])),
            "Magiekunde": int(skills.get("Magiekunde", stats.get("magiekunde", 0))),
            "Unbeugsamkeit": int(stats["unbeugsamkeit"]),
            "Willenskraft": int(stats["willenskraft"]),
            "Interaktion": int(skills.get("Interaktion", stats.get("interaktion", 6))),
            "Glück": int(stats.get("glueck", 0)),
        }
    )
    fig = Figure(
        id=pid,
        name=name,
        side=side,  # type: ignore[arg-type]
        skills=MappingProxyType(skills),
        monsterstufe=int(stats["monsterstufe"]) if npc else None,
        lp=int(stats["lp"]),
        lp_max=int(stats["lp"]),
        gp=int(stats.get("gp", 0)),
        gp_max=int(stats.get("gp", 0)),
        rs=int(stats["rs"]),
        be=int(stats.get("be", 0)),
        bewegung=int(stats["bewegung"]),
        size=str(stats.get("groesse", "mittel")),
        initiative_value=int(stats["initiative"]),
        resistances=MappingProxyType(dict(stats.get("resistenzen", {}))),
        drops_at_zero=npc and settings.get("npc_drop_at_zero") == "drop",
    )
    weapon = {
        "name": str(stats.get("waffe") or "Waffe"),
        "die": int(stats["schaden_w"]),
        "bonus": int(stats["schaden_bonus"]),
        "kind": str(stats.get("schadensart", "normal")),
        "ranged": bool(stats.get("fernkampf", 0)),
        #: Reichweite in Schritt of a ranged weapon (``None``: the stat block gives none).
        "range": int(stats.get("reichweite", 0) or 0) or None,
    }
    spells = [dict(z) for z in stats.get("zauber", []) if isinstance(z, dict)]
    return from_figure(fig, {"weapon": weapon, "spells": spells, "focus": None})


#: The figure's values a player character's sheet holds (``CombatSheet.combat_values``).
SHEET_KEYS = ("lp", "lp_max", "wp", "wp_max", "gp", "gp_max", "rs", "be", "unconscious", "dead")


def sheet_state(data: FigureData) -> HHSheetState:
    """What the fight writes back to the sheet: current resources, Glück, conditions."""
    fig = hh_data(data)
    out: HHSheetState = {}
    if "lp" in fig:
        out["lp"] = fig["lp"]
    if "wp" in fig:
        out["wp"] = fig["wp"]
    if "gp" in fig:
        out["gp"] = fig["gp"]
    if "unconscious" in fig:
        out["unconscious"] = fig["unconscious"]
    if "dead" in fig:
        out["dead"] = fig["dead"]
    out["glueck"] = int(dict(fig.get("skills") or {}).get("Glück", 0))
    out["conditions"] = [z.copy() for z in fig.get("conditions", [])]
    return out


def take_sheet_state(data: FigureData, values: Mapping[str, Any]) -> None:
    """The sheet is the truth: its values replace the figure's (the fight keeps only what
    the sheet has no place for: reactions, Zielen, focus, …)."""
    if not values:
        return
    for key in SHEET_KEYS:
        if key in values:
            data[key] = values[key]
    if "skills" in values:
        data["skills"] = {**dict(data.get("skills") or {}), **dict(values["skills"])}
    if "glueck" in values:
        data["skills"] = {**dict(data.get("skills") or {}), "Glück": int(values["glueck"])}
    if "conditions" in values:
        data["conditions"] = [dict(z) for z in values["conditions"]]


def _weapon(data: HHFigureData) -> hh.Weapon:
    w = data.get("weapon")
    if w is None:
        return hh.Weapon(name="Waffe", die=10, bonus=0, kind="normal", ranged=False)
    return hh.Weapon(
        name=str(w.get("name", "Waffe")),
        die=int(w.get("die", 10)),
        bonus=int(w.get("bonus", 0)),
        kind=w.get("kind", "normal"),
        ranged=bool(w.get("ranged", False)),
    )


# --- views ---------------------------------------------------------------------------------


def _status(fig: Figure) -> tuple[str, str]:
    """(key, label) of a figure's state as players may see it: a msgid, or an H&H condition
    (a rule term)."""
    if fig.dead:
        return "dead", N_("dead")
    if fig.has("sterbend"):
        return "dying", "sterbend"
    if fig.unconscious:
        return "down", N_("unconscious")
    if fig.has("angeschlagen") or fig.lp <= fig.lp_max // 2:
        return "hurt", "angeschlagen"
    if fig.lp < fig.lp_max:
        return "scratched", N_("hurt")
    return "fine", N_("unhurt")


def view(data: FigureData) -> FigureView:
    fig, own = to_figure(data), hh_data(data)
    extra = [f"Reaktionen {fig.reactions_left}/{hh.reactions(fig.initiative)}"]
    if fig.aim:
        extra.append(f"Zielen ×{fig.aim}")
    if fig.gp_max:
        extra.append(f"GP {fig.gp}/{fig.gp_max}")
    focus = own.get("focus")
    if focus:
        extra.append(f"Fokus {focus['points']} auf {_spell_name(own, focus['spell'])}")
    if fig.jammed_weapon:
        extra.append("Waffe blockiert")
    return {
        "status": _status(fig),
        "points": f"{fig.lp}/{fig.lp_max} LP",
        "health": (fig.lp, fig.lp_max),
        # A dead figure shows «tot» only, no «angeschlagen»/«sterbend» badges (defect 9).
        "conditions": [] if fig.dead else list(dict.fromkeys(z.label for z in fig.conditions)),
        "extra": extra,
        "initiative": fig.initiative,
        "out": fig.dead or fig.unconscious,
    }


def defeated(data: FigureData) -> bool:
    fig = to_figure(data)
    return fig.dead or fig.unconscious or fig.has("sterbend")


# --- order -----------------------------------------------------------------------------------


def _figures(state: State) -> list[Figure]:
    return [to_figure(state["figures"][pid]) for pid in state["figures"]]


def build_order(state: State) -> None:
    figs = _figures(state)
    turns = hh.round_order(figs, state.get("gm_order", []))
    state["order"] = [
        {
            "pid": t.figure,
            "step": t.step,
            "init": t.initiative,
            "side": t.side,
            "tie": f"{t.step}:{t.initiative}:{t.side}",
        }
        for t in turns
    ]


def start(state: State, play: Play) -> None:
    state["round"] = 1
    state["turn"] = 0
    state["gm_order"] = list(state["figures"])
    _start_round(state, play.report)
    play.report.add(N_("Combat starts: round %(round)d."), who=set(), round=1)
    for f in _figures(state):
        play.report.add(
            N_("%(name)s: initiative %(value)s."),
            [f"Initiativeschritte {', '.join(map(str, hh.initiative_steps(f.initiative)))}"],
            who={f.id},
            name=f.name,
            value=f.initiative,
        )


def _start_round(state: State, report: Report) -> None:
    figs, _changes = hh.start_of_round(_figures(state))
    for f in figs:
        _put(state, f, report)
    build_order(state)
    state["turn"] = 0
    reset_turn_actions(state)
    _skip_unable(state)
    report.order_changed = report.turn_changed = True


def _skip_unable(state: State) -> None:
    """Skip turns of figures that are gone, dead, unconscious or «sterbend» (not kept on
    their feet by Glück): they have no Handlung (hh.md §7)."""
    order = state["order"]
    while state["turn"] < len(order):
        pid = order[state["turn"]]["pid"]
        data = state["figures"].get(pid)
        if data is not None and _has_turn(to_figure(data)):
            return
        state["turn"] += 1


def _has_turn(fig: Figure) -> bool:
    return not (fig.dead or fig.unconscious or (fig.has("sterbend") and not fig.on_feet))


#: What a Handlung is spent on: the controls' actions refused once the step's is used.
HANDLUNG_ACTIONS = frozenset(
    ("attack", "aim", "maneuver", "focus", "cast", "shake_off", "stabilise", "free_weapon")
)
HANDLUNG_USED = N_("%(name)s has taken the Handlung of this step already.")


def _handlung_left(state: State, pid: str) -> bool:
    actions = state.get("turn_actions") or {}
    used = int((actions.get("handlungen") or {}).get(pid, 0))
    return handlung_left(used, int((actions.get("granted") or {}).get(pid, 0)))


def _take_handlung(state: State, pid: str) -> None:
    """One Handlung per Initiativeschritt (hh.md §5, ``handlung_left``); reactions are
    counted per round by the figure's Reaktionen."""
    if not _handlung_left(state, pid):
        raise CombatError(HANDLUNG_USED, name=str(state["figures"][pid].get("name", pid)))
    actions = state["turn_actions"]
    used = dict(actions.get("handlungen") or {})
    used[pid] = int(used.get(pid, 0)) + 1
    actions["handlungen"] = used


def spent(state: State) -> Spent:
    """The step's Handlung used (and none granted): every action that takes one is refused."""
    turn = current_turn(state)
    if turn is None or _handlung_left(state, str(turn["pid"])):
        return Spent()
    name = str(state["figures"][str(turn["pid"])].get("name", ""))
    return Spent(HANDLUNG_ACTIONS, HANDLUNG_USED, {"name": name})


def _grant(state: State, pid: str) -> None:
    actions = state["turn_actions"]
    granted = dict(actions.get("granted") or {})
    granted[pid] = int(granted.get(pid, 0)) + 1
    actions["granted"] = granted


def grant_action(state: State, pid: str, report: Report) -> None:
    """The GM's explicit override: one more Handlung in this step, logged as such."""
    fig = _get(state, pid)
    _grant(state, pid)
    report.involved.add(pid)
    report.add(N_("GM override: %(name)s may take one more Handlung in this step."),
               name=fig.name)  # fmt: skip


def add_figure(state: State, pid: str, roller: Roller, report: Report) -> None:
    previous = current_turn(state)
    data = state["figures"][pid]
    fig = to_figure(data)
    _put(state, fig.evolve(reactions_left=0 if fig.has("benommen") else hh.reactions(
        fig.initiative)), report)  # fmt: skip
    state.setdefault("gm_order", []).append(pid)
    build_order(state)
    align_turn(state, previous)
    report.order_changed = True


def advance(state: State, play: Play) -> None:
    state["turn"] += 1
    reset_turn_actions(state)
    _skip_unable(state)
    play.report.turn_changed = True
    if state["turn"] < len(state["order"]):
        return
    before = {f.id: f for f in _figures(state)}
    result = hh.end_of_round(play.roller, _figures(state), options(play.settings))
    for f in result.figures:
        _put(state, f, play.report)
    play.report.add(N_("End of round %(round)d."), who=set(), round=state["round"])
    names = names_of(state)
    for fid in dict.fromkeys(
        [p.figure for p in result.probes] + [c.figure for c in result.changes]
    ):
        probes = [p for p in result.probes if p.figure == fid]
        details: list[str | Detail] = [f"{p.reason}: {p.probe.describe()}" for p in probes]
        details += describe_changes(state, [c for c in result.changes if c.figure == fid])
        entry = play.report.add(
            N_("End of round for %(name)s."), details, who={fid}, name=names[fid]
        )
        entry.dice = [d.as_dict() for p in probes for d in p.probe.rolls]
    for f in result.figures:
        _interrupt(state, before[f.id], f, play)
    state["round"] += 1
    _start_round(state, play.report)
    play.report.add(N_("Round %(round)d begins."), who=set(), round=state["round"])


# --- attacks -----------------------------------------------------------------------------------


def _spec(data: HHFigureData, params: Mapping[str, Any]) -> hh.AttackSpec:
    return hh.AttackSpec(
        weapon=_weapon(data),
        skill=ATTACK_SKILL,
        defence_skill=str(params.get("defence_skill") or DEFENCE_SKILL),
        modifier=int(params.get("modifier", 0)),
        cover=params.get("cover") or "none",
        non_lethal=bool(params.get("non_lethal", False)),
        living_cover=bool(params.get("covering")),
        cover_note=cover_note(_cover_source(params), str(params.get("cover") or "none")),
    )


def _cover_source(params: Mapping[str, Any]) -> str:
    """Where the cover comes from, as the attack's breakdown names it: a figure on the line
    (named in a line of its own, which stays the GM's while it is hidden) or a wall the board
    found; the form's cover in theatre of the mind has no source."""
    if params.get("covering"):
        return "lebend"
    return "Wand" if params.get(COVER_FROM) == "wall" else ""


def _spec_json(spec: hh.AttackSpec, covering: str = "", *, defended: bool = False) -> SpecJSON:
    """``spec`` as a prompt keeps it; a hit waiting for Glück (``defended``) adds whether
    and how it was defended."""
    out: SpecJSON = {
        "modifier": spec.modifier,
        "defence_skill": spec.defence_skill,
        "cover": spec.cover,
        "non_lethal": spec.non_lethal,
        "covering": covering,
    }
    if defended:
        out["defend"], out["defence_modifier"] = spec.defend, spec.defence_modifier
    return out


def _living_cover(
    state: State, attacker: Figure, target: Figure, params: Mapping[str, Any]
) -> Mapping[str, Any]:
    """A figure between attacker and target is cover of the engine's category (hh.md §6.6:
    the attacker's allies −2, enemies −4, smaller none, larger one stronger)."""
    covering = str(params.get("covering") or "")
    if not covering:
        return params
    if covering in (attacker.id, target.id) or covering not in state["figures"]:
        raise CombatError(N_("Choose another figure as cover."))
    cov = _get(state, covering)
    cover = living_cover(cov.side == attacker.side, cov.size, target.size)
    return {**params, "cover": cover, "covering": covering if cover != "none" else ""}


#: A jammed weapon attacks no more until it is freed (docs/rules/hh.md «Waffe blockiert»).
JAMMED = N_("%(name)s's weapon is jammed: free it first (Handlung).")


def _attack_inputs(
    state: State, order: AttackOrder
) -> tuple[Figure, Figure, hh.AttackSpec, tuple[int, int]]:
    """Both figures, the spec and the attack Probe's (value, modifier); refusals first."""
    if order.attacker_id == order.target_id:
        raise CombatError(N_("A figure cannot attack itself."))
    attacker = _get(state, order.attacker_id)
    target = _get(state, order.target_id)
    if not attacker.can_act:
        raise CombatError(N_("%(name)s cannot act now."), name=attacker.name)
    if attacker.jammed_weapon:
        raise CombatError(JAMMED, name=attacker.name)
    if target.dead:
        raise CombatError(N_("%(name)s is already dead."), name=target.name)
    spec = _spec(
        hh_data(state["figures"][order.attacker_id]),
        _living_cover(state, attacker, target, order.params),
    )
    try:
        return attacker, target, spec, attack_target(attacker, spec)
    except ValueError as exc:
        raise CombatError(N_("Not possible: %(reason)s"), reason=str(exc)) from None


#: What an attack's forecast needs of a target whose values the caller may not know.
UNKNOWN_TARGET = ("Verteidigung", "RS", "LP", "Resistenzen", "Unbeugsamkeit")


def forecast(
    state: State, order: AttackOrder, settings: Settings, *, unknown: Unknown, defends: bool | None
) -> Forecast:
    """The exact odds of :func:`attack` (and the defender's answer) with these inputs."""
    attacker, target, spec, (value, modifier) = _attack_inputs(state, order)
    p_attack = hh_forecast.probe_success(value, modifier)
    if unknown:
        return Forecast(p_attack, None, unknown.labels(UNKNOWN_TARGET))
    if defends is not None:
        spec = replace(spec, defend=defends)
    return Forecast(p_attack, hh_forecast.forecast_attack(attacker, target, spec), ())


def simulate(figures: list[FigureData], settings: Settings, trials: Trials) -> RiskResult:
    """The fight between ``figures`` played as ``trials`` says (``app.rules.hh.simulation``)."""
    fighters = [
        hh_simulation.Fighter(to_figure(f), str(f["side"]), _spec(hh_data(f), {})) for f in figures
    ]
    return hh_simulation.simulate(
        trials.roller,
        fighters,
        "abenteurer",
        trials.count,
        options(settings),
        should_stop=trials.should_stop,
    )


def attack(state: State, order: AttackOrder, play: Play, *, target_owner: int | None) -> None:
    """Declare and roll the attack; a hit the target can defend waits for its answer."""
    attacker, target, spec, (value, modifier) = _attack_inputs(state, order)
    helpers = hh_checks.helpers_of(state, attacker, _ids(order.params.get("helpers")), ATTACK_SKILL)
    _take_handlung(state, order.attacker_id)
    covering = str(_living_cover(state, attacker, target, order.params).get("covering") or "")
    own = attack_breakdown(attacker, spec)
    situational = tuple(p for p in own.parts if p.label in ("Deckung", "Modifikator"))
    helping = hh_checks.roll_helpers(
        state, helpers, "attack", situational, play.roller, play.report
    )
    shown = hh_checks.helped(own, helping)
    probe = hh.roll_probe(play.roller, value, modifier + (helping.bonus if helping else 0))
    play.report.involved |= {order.attacker_id, order.target_id}
    entry = play.report.add(
        N_("%(attacker)s attacks %(target)s."),
        [*(helping.lines() if helping else []),
         f"Angriff ({spec.weapon.name}): {_with(shown, probe)}"],
        attacker=attacker.name,
        target=target.name,
    )  # fmt: skip
    entry.dice = [d.as_dict() for d in (*(helping.rolls if helping else ()), *probe.rolls)]
    if covering:
        play.report.add(
            N_("%(name)s stands in the line of attack: living cover."),
            who={order.attacker_id, order.target_id, covering},
            name=_get(state, covering).name,
        )
    state["turn_actions"]["attacks"] = int(state["turn_actions"].get("attacks", 0)) + 1
    if probe.success and target.can_react:
        prompt = _defence_prompt(
            order.attacker_id, order.target_id, target_owner, target, probe, play.settings
        )
        prompt["spec"] = _spec_json(spec, covering)
        msg = N_("%(target)s may defend (Reaktion); waiting for the answer.")
        _wait(state, prompt, play.report, msg, target.name)
        return
    _resolve(state, order.attacker_id, order.target_id, spec, probe, False, play,
             covering=covering)  # fmt: skip


def _deadline(settings: Settings) -> str:
    """When a prompt's target has had its time to answer (the encounter's timeout)."""
    timeout = int(settings.get("defence_timeout", DEFAULT_TIMEOUT))
    return (datetime.now(UTC) + timedelta(seconds=timeout)).isoformat()


def _defence_prompt(
    attacker_id: str, target_id: str, owner: int | None, target: Figure, probe: ProbeResult,
    settings: Settings,
) -> PendingDefence:  # fmt: skip
    """The prompt of a hit ``target`` may defend against (its owner answers)."""
    return {
        "kind": "defence", "attacker": attacker_id, "target": target_id, "owner": owner,
        "probe": probe.as_dict(), "deadline": _deadline(settings),
        "reactions": target.reactions_left, "luck": hh.can_spend(target),
    }  # fmt: skip


def _wait(state: State, prompt: Pending, report: Report, msg: str, target: str) -> None:
    """The fight waits for the answer to ``prompt``: it is stored and ``msg`` (a msgid with
    ``%(target)s``) says whose answer."""
    state["pending"] = prompt
    report.pending_changed = True
    report.add(msg, target=target)


def _ids(raw: object) -> list[str]:
    """Participant ids given as a list or comma-separated (the forms' ``helpers``)."""
    items = raw if isinstance(raw, list) else str(raw or "").split(",")
    return [str(x).strip() for x in items if str(x).strip()]


def _probe(data: ProbeJSON) -> ProbeResult:
    return ProbeResult.from_dict(data)


class _Recorder:
    """Rolls with a roller and keeps every face, so an attack can be resolved again with the
    same dice once the target has answered «Treffer entgehen»."""

    def __init__(self, roller: Roller, replay: list[int] | None = None) -> None:
        self._roller = roller
        self._replay = list(replay or [])
        self.faces: list[int] = []

    def roll(self, sides: int) -> int:
        face = self._replay.pop(0) if self._replay else self._roller.roll(sides)
        self.faces.append(face)
        return face


#: Answers to a hit the target may still spend Glück on (hh.md §4).
HIT_CHOICES = ("accept", "halve", "reroll_defence")


def respond(state: State, choice: str, play: Play) -> None:
    """The target's answer: to an attack ``defend``, ``defend_luck`` (1 GP: +4) or ``none``;
    to a hit ``accept``, ``halve`` (1 GP: Treffer entgehen) or ``reroll_defence`` (1 GP)."""
    pending = state.get("pending")
    if pending and state.get(AREA_QUEUE):
        # One target of an area answers: its lines are about it (a hidden one's stay the GMs').
        play.report.involved = {pending["attacker"], pending["target"]}
    if pending and pending["kind"] == "hit":
        _answer_hit(state, pending, choice, play)
        _next_area_target(state, play)
        return
    if not pending or pending["kind"] != "defence":
        raise CombatError(N_("Nothing is waiting for an answer."))
    if choice not in ("defend", "defend_luck", "none"):
        raise CombatError(N_("Choose to defend or not."))
    attacker_id, target_id = pending["attacker"], pending["target"]
    if pending.get("spell"):
        _answer_spell(state, pending, choice, play)
        return
    spec_data = pending["spec"]
    spec = replace(
        _spec(hh_data(state["figures"][attacker_id]), spec_data), defend=choice != "none"
    )
    target = _get(state, target_id)
    if choice == "defend_luck":
        target = _spend_luck(state, target, "bonus", play.report, before_roll=True)
        spec = replace(spec, defence_modifier=spec.defence_modifier + 4)
        play.report.add(N_("%(name)s spends 1 GP: +4 on the defence."), name=target.name)
    state["pending"] = None
    play.report.pending_changed = True
    _resolve(
        state, attacker_id, target_id, spec, _probe(pending["probe"]), True, play,
        covering=str(spec_data.get("covering") or ""),
    )  # fmt: skip
    _next_area_target(state, play)


def _spend_luck(
    state: State, fig: Figure, option: str, report: Report, **situation: Unpack[LuckSituation]
) -> Figure:
    """Spend 1 GP of ``fig`` on ``option`` (the engine says whether it may, in ``situation``)
    and store it."""
    try:
        check_luck(fig, option, **situation)
    except hh.LuckError as exc:
        raise CombatError(N_("Not possible: %(reason)s"), reason=str(exc)) from None
    fig = fig.evolve(gp=fig.gp - 1)
    _put(state, fig, report)
    return fig


def _answer_hit(state: State, pending: PendingHit, choice: str, play: Play) -> None:
    """Treffer entgehen: the hit is booked with the same dice, its damage halved for 1 GP;
    or the defence is rolled again for 1 GP (the better one counts, hh.md §4) and the
    attack resolved anew — a hit then waits for the next answer."""
    if choice not in HIT_CHOICES:
        raise CombatError(N_("Choose one of the listed values."))
    attacker_id, target_id = pending["attacker"], pending["target"]
    data = pending["spec"]
    spec = replace(
        _spec(hh_data(state["figures"][attacker_id]), data),
        defend=bool(data.get("defend", True)),
        defence_modifier=int(data.get("defence_modifier", 0)),
    )
    probe, asked = _probe(pending["probe"]), bool(pending.get("asked"))
    covering = str(data.get("covering") or "")
    given_defence = pending.get("defence")
    defence = _probe(given_defence) if given_defence else None
    state["pending"] = None
    play.report.pending_changed = True
    target = _get(state, target_id)
    if choice == "reroll_defence":
        _spend_luck(state, target, "reroll", play.report, probe=defence)
        assert defence is not None
        second = hh.roll_probe(play.roller, defence.value, defence.modifier)
        kept = better_probe(defence, second)
        play.report.add(
            N_("%(name)s spends 1 GP: the defence is rolled again."),
            [f"Verteidigung: {second.describe()}", f"zählt: {kept.describe()}"],
            name=target.name,
        ).dice = [d.as_dict() for d in second.rolls]
        _resolve(state, attacker_id, target_id, spec, probe, asked, play,
                 defence=kept, covering=covering)  # fmt: skip
        return
    if choice == "halve":
        try:
            check_luck(target, "halve_damage")
        except hh.LuckError as exc:
            raise CombatError(N_("Not possible: %(reason)s"), reason=str(exc)) from None
        spec = replace(spec, halve_damage=True)
    replay = _Recorder(play.roller, [int(f) for f in pending.get("faces", [])])
    given = defence if pending.get("defence_given") else None
    _resolve(state, attacker_id, target_id, spec, probe, asked, replace(play, roller=replay),
             defence=given, offer=False, covering=covering)  # fmt: skip


def _luck_prompt(
    state: State,
    result: hh.AttackResult,
    spec: hh.AttackSpec,
    probe: ProbeResult,
    asked: bool,
    faces: list[int],
    defence_given: bool,
    settings: Settings,
    covering: str,
) -> PendingHit:
    """The prompt of a hit that waits: its target may spend Glück before the damage is
    booked."""
    data = state["figures"][result.target]
    return {
        "kind": "hit",
        "attacker": result.attacker.id,
        "target": result.target,
        "owner": data.get("owner"),
        "probe": probe.as_dict(),
        "spec": _spec_json(spec, covering, defended=True),
        "asked": asked,
        "defence": result.defence.as_dict() if result.defence is not None else None,
        "defence_given": defence_given,
        "faces": faces,
        "damage": result.damage,
        "deadline": _deadline(settings),
        "reactions": 0,
        "luck": True,
        "reroll": result.defence is not None and not result.defence.patzer,
    }  # fmt: skip


def _resolve(
    state: State,
    attacker_id: str,
    target_id: str,
    spec: hh.AttackSpec,
    probe: ProbeResult,
    asked: bool,
    play: Play,
    *,
    defence: ProbeResult | None = None,
    offer: bool = True,
    covering: str = "",
) -> None:
    attacker = _get(state, attacker_id)
    target = _get(state, target_id)
    if not asked:
        spec = replace(spec, defend=False)
    counter = _spec(hh_data(state["figures"][target_id]), {})
    recorder = play.roller if isinstance(play.roller, _Recorder) else _Recorder(play.roller)
    result = hh.resolve_attack(
        recorder, attacker, target, options(play.settings), spec, attack_probe=probe,
        counter_spec=counter, defence_probe=defence,
        covering=_get(state, covering) if covering in state["figures"] else None,
    )  # fmt: skip
    waits = offer and result.hit and result.damage > 0 and hh.can_spend(target)
    details = _attack_details(state, attacker, target, spec, result, asked, booked=not waits)
    headline = (
        N_("%(attacker)s hits %(target)s: %(damage)d damage.")
        if result.hit
        else N_("%(attacker)s does not hit %(target)s.")
    )
    entry = play.report.add(
        headline, details, attacker=attacker.name, target=target.name, damage=result.damage
    )
    skip = len(probe.rolls) + (len(defence.rolls) if defence is not None else 0)
    entry.dice = [d.as_dict() for d in result.rolls[skip:]]
    if waits:
        prompt = _luck_prompt(state, result, spec, probe, asked, recorder.faces,
                              defence is not None, play.settings, covering)  # fmt: skip
        msg = N_("%(target)s may spend Glück: Treffer entgehen (half damage) or roll the "
                 "defence again; waiting for the answer.")  # fmt: skip
        _wait(state, prompt, play.report, msg, target.name)
        return
    _put(state, result.attacker, play.report)
    _put(state, result.defender, play.report)
    if result.stray is not None:
        _put(state, result.stray.defender, play.report)
    for c in result.changes:
        if c.kind == "slide" and c.figure == attacker_id:
            # Fehltritt: the attacker slides past the defender.
            play.report.displacements.append(
                Displacement(attacker_id, c.amount, attacker_id, target_id, c.detail, past=True)
            )
    _interrupt(state, target, result.defender, play)
    _interrupt(state, attacker, result.attacker, play)


# --- areas (issue 27: Flächenangriff; docs/rules/hh.md «Flächeneffekte») ------------------------

#: The area waiting for its targets' answers: ``{attacker, probe, spec, queue}``.
AREA_QUEUE: Final = "area_queue"
#: What an area is defended with (hh.md §6.2: Unbeugsamkeit vs area effects).
AREA_DEFENCE = "Unbeugsamkeit"


@dataclass(frozen=True, slots=True)
class _AreaOpened:
    """An area's attack Probe or Wirkprobe, rolled and logged: what waits for the targets
    (``queued``, its ``queue`` still empty) when it succeeded, else the line each target
    gets (``miss``, a msgid with ``%(target)s`` and ``params``)."""

    success: bool
    queued: AreaQueue
    miss: str
    params: Mapping[str, str]


def area(state: State, actor: str, targets: list[str], source: AreaSource, play: Play) -> None:
    """An area of ``actor``: a Flächenangriff (``attack``) or a Flächenzauber (``spell``).
    Its Probe is rolled once; then each figure in the area but ``actor`` may defend, one
    after the other, or gets the miss when the Probe failed."""
    if source.kind == "spell":
        opened = _open_area_spell(state, actor, source, play)
    elif source.kind == "attack":
        opened = _open_area_attack(state, actor, source, play.roller, play.report)
    else:
        raise unavailable()
    hit = [t for t in targets if t != actor and not _get(state, t).dead]
    if not opened.success:
        for tid in hit:
            play.report.add(
                opened.miss, who={actor, tid}, target=_get(state, tid).name, **opened.params
            )
        return
    state[AREA_QUEUE] = {**opened.queued, "queue": hit}
    _next_area_target(state, play)


def _open_area_attack(
    state: State, actor: str, source: AreaSource, roller: Roller, report: Report
) -> _AreaOpened:
    """A Flächenangriff of ``actor``: one attack Probe with its weapon; each figure in the
    area may defend with Unbeugsamkeit (a Reaktion); half and three-quarter cover do not
    count (the board's area already stops at walls)."""
    try:
        modifier = int(str(source.params.get("modifier") or 0))
    except ValueError:
        raise CombatError(N_("Enter a number.")) from None
    attacker = _get(state, actor)
    if not attacker.can_act:
        raise CombatError(N_("%(name)s cannot act now."), name=attacker.name)
    paid = _pay_summoner(state, str(source.params.get("summoner") or ""), report)
    spec = replace(
        _spec(hh_data(state["figures"][actor]), {"modifier": modifier}), defence_skill=AREA_DEFENCE
    )
    try:
        value, mod = attack_target(attacker, spec)
    except ValueError as exc:
        raise CombatError(N_("Not possible: %(reason)s"), reason=str(exc)) from None
    _take_handlung(state, actor)
    probe = hh.roll_probe(roller, value, mod)
    entry = report.add(
        N_("%(attacker)s makes an area attack."),
        [f"Angriff ({spec.weapon.name}): {_with(attack_breakdown(attacker, spec), probe)}", *paid],
        who={actor},
        attacker=attacker.name,
    )
    entry.dice = [d.as_dict() for d in probe.rolls]
    state["turn_actions"]["attacks"] = int(state["turn_actions"].get("attacks", 0)) + 1
    queued: AreaQueue = {
        "attacker": actor, "probe": probe.as_dict(), "spec": _spec_json(spec), "queue": [],
    }  # fmt: skip
    return _AreaOpened(
        probe.success, queued, N_("%(attacker)s does not hit %(target)s."),
        {"attacker": attacker.name},
    )  # fmt: skip


def _next_area_target(state: State, play: Play) -> None:
    """Resolve the area's next targets until one may answer (its defence prompt, on its
    player's device or the GM's) or none is left."""
    area = state.get(AREA_QUEUE)
    placed = state.get("area")
    if area and placed is not None and placed.get("resolved"):
        area["queue"] = []  # its prompt was dropped (a participant removed): it is over
    while area and not state.get("pending"):
        if not area["queue"]:
            state.pop(AREA_QUEUE, None)
            return
        tid = str(area["queue"].pop(0))
        actor = str(area["attacker"])
        if tid not in state["figures"] or actor not in state["figures"]:
            continue
        target = _get(state, tid)
        play.report.involved = {actor, tid}
        spell = str(area.get("spell") or "")
        probe = _probe(area["probe"])
        if target.can_react:
            owner = state["figures"][tid].get("owner")
            prompt = _defence_prompt(actor, tid, owner, target, probe, play.settings)
            prompt["area"] = True
            if spell:
                prompt["spell"] = spell
                prompt["spell_name"] = _spell_name(hh_data(state["figures"][actor]), spell)
            else:
                prompt["spec"] = _spec_json(_spec(hh_data(state["figures"][actor]), area["spec"]))
            msg = N_("%(target)s may defend with Unbeugsamkeit (Reaktion); waiting for the answer.")
            _wait(state, prompt, play.report, msg, target.name)
            return
        if spell:
            _resolve_spell(state, actor, tid, spell, probe, False, 0, play)
        else:
            spec = _spec(hh_data(state["figures"][actor]), area["spec"])
            _resolve(state, actor, tid, spec, probe, False, play)


#: WP the summoner pays for a Gefährte's Flächenangriff (seed 003, «Flächenangriff»).
AREA_ATTACK_WP = COMPANION_TALENTS["flaechenangriff"].wp_cost


def _pay_summoner(state: State, summoner: str, report: Report) -> list[str]:
    """A Gefährte's Flächenangriff costs its summoner 1 WP (``summoner``: the hero's
    participant id, ``"-"`` when the hero is not in the fight, ``""`` for a figure bound to
    nobody, which pays nothing); the log's detail line."""
    if not summoner:
        return []
    if summoner not in state["figures"]:
        raise CombatError(
            N_("The summoner pays the Flächenangriff's WP: add the hero to the fight.")
        ).at("source")
    hero = _get(state, summoner)
    if hero.wp < AREA_ATTACK_WP:
        raise CombatError(
            N_("%(name)s has too few WP for the Flächenangriff (%(n)d WP)."),
            name=hero.name, n=AREA_ATTACK_WP,
        ).at("source")  # fmt: skip
    _put(state, hero.evolve(wp=hero.wp - AREA_ATTACK_WP), report)
    return [f"Flächenangriff: {AREA_ATTACK_WP} WP von {hero.name} (Beschwörer)"]


#: The form field a refused Flächenzauber is shown at.
AREA_SPELL_FIELDS = {
    "beyond_spell_range": "origin",
    "unknown_grade": "grade",
    "grade_too_high": "grade",
    "spell_unknown": "spell",
    "focus_required": "spell",
    "not_an_area_spell": "spell",
}


def _area_spell_inputs(data: HHFigureData, source: AreaSource) -> tuple[HHSpellData, int]:
    """The Flächenzauber the area's ``source`` names and its modifier, refused at their
    fields: a spell the figure knows whose data marks it ``flaeche``."""
    key = str(source.params.get("spell") or "")
    if not key:
        raise CombatError(N_("Choose a spell.")).at("spell")
    try:
        spell = _spell(data, key)
    except CombatError as exc:
        raise exc.at("spell") from None
    if not spell.get("flaeche"):
        raise CombatError(N_("%(spell)s is not a Flächenzauber."), spell=spell["name"]).at("spell")
    try:
        modifier = int(str(source.params.get("modifier") or 0))
    except ValueError:
        raise CombatError(N_("Enter a number.")).at("modifier") from None
    return spell, modifier


def _open_area_spell(state: State, actor: str, source: AreaSource, play: Play) -> _AreaOpened:
    """A Flächenzauber of ``actor`` (docs/rules/hh.md «Flächeneffekte»): the Wirkprobe as a
    single-target cast's (focus, Güteklasse, the distance to the area's origin); each
    figure in the area but the caster may defend with Unbeugsamkeit (a Reaktion) and takes
    the spell's damage with its own QS; cover does not count."""
    data = hh_figure(state, actor)
    caster = to_figure(data)
    if not caster.can_act:
        raise CombatError(N_("%(name)s cannot act now."), name=caster.name)
    spell, modifier = _area_spell_inputs(data, source)
    _take_handlung(state, actor)
    grade = str(source.params.get("grade") or "").strip().upper() or None
    out = magic.resolve_area_cast(
        play.roller, _caster(data, caster),
        magic.Spell(str(spell["key"]), int(spell.get("focus", 0))), _effect(spell),
        options(play.settings), distance=int(source.params.get("distance", 0)),
        grade=grade, modifier=modifier,
    )  # fmt: skip
    if not out.ok or out.cast is None or out.cast.wirkprobe is None:
        raise _refusal(out).at(AREA_SPELL_FIELDS.get(out.error or "", "combat"))
    data["focus"] = None
    play.report.changed.add(actor)
    play.report.involved = {actor}
    state["turn_actions"]["casts"] = int(state["turn_actions"].get("casts", 0)) + 1
    details = _cast_details(state, spell, out, play.report)
    if out.kontrollverlust is not None:
        _put(state, out.kontrollverlust.figure, play.report)
    headline = (
        N_("%(name)s casts the Flächenzauber %(spell)s.")
        if out.success
        else N_("%(name)s fails to cast %(spell)s.")
    )
    entry = play.report.add(headline, details, who={actor}, name=caster.name, spell=spell["name"])
    entry.dice = [d.as_dict() for d in out.rolls]
    queued: AreaQueue = {
        "attacker": actor, "probe": out.cast.wirkprobe.as_dict(), "spell": str(spell["key"]),
        "queue": [],
    }  # fmt: skip
    return _AreaOpened(
        out.success, queued, N_("%(name)s's %(spell)s does not reach %(target)s."),
        {"name": caster.name, "spell": spell["name"]},
    )  # fmt: skip


def _answer_spell(state: State, pending: PendingDefence, choice: str, play: Play) -> None:
    """A figure in a Flächenzauber's area answers: Unbeugsamkeit, with 1 GP +4, or none."""
    target_id = str(pending["target"])
    modifier = 0
    if choice == "defend_luck":
        target = _spend_luck(state, _get(state, target_id), "bonus", play.report, before_roll=True)
        modifier = 4
        play.report.add(N_("%(name)s spends 1 GP: +4 on the defence."), name=target.name)
    state["pending"] = None
    play.report.pending_changed = True
    _resolve_spell(
        state, str(pending["attacker"]), target_id, str(pending["spell"]),
        _probe(pending["probe"]), choice != "none", modifier, play,
    )  # fmt: skip
    _next_area_target(state, play)


def _resolve_spell(
    state: State,
    actor: str,
    tid: str,
    key: str,
    probe: ProbeResult,
    defend: bool,
    modifier: int,
    play: Play,
) -> None:
    """One figure in a Flächenzauber's area: the engine's ``area_spell_hit``, its log line
    (about the caster and that figure) and the interruption of a focus it held."""
    spell = _spell(hh_data(state["figures"][actor]), key)
    before = _get(state, tid)
    out = magic.area_spell_hit(
        play.roller, probe, before, _effect(spell), options(play.settings), defend=defend,
        defence_modifier=modifier,
    )  # fmt: skip
    _put(state, out.target, play.report)
    details: list[str | Detail] = []
    if out.defence is not None and out.defence_target is not None:
        details.append(
            f"Verteidigung ({magic.AREA_DEFENCE_SKILL}): {_with(out.defence_target, out.defence)}"
        )
    else:
        details.append("keine Verteidigung")
    if out.damage_roll is not None:
        details.append(
            f"Schaden QS {out.qs}, RS {before.rs}: {out.damage_roll.describe()} = {out.damage}"
        )
    details += describe_changes(state, out.changes)
    headline = (
        N_("%(name)s's %(spell)s hits %(target)s: %(damage)d damage.")
        if out.hit
        else N_("%(target)s withstands %(name)s's %(spell)s.")
    )
    entry = play.report.add(
        headline, details, who={actor, tid}, name=_get(state, actor).name, spell=spell["name"],
        target=before.name, damage=out.damage,
    )  # fmt: skip
    entry.dice = [d.as_dict() for d in out.rolls]
    _interrupt(state, before, out.target, play)


def burst(state: State, actor: str, targets: list[str], params: BurstParams, play: Play) -> None:
    """«Arkane Explosion» on the board (issue 27): every figure in the circle, the caster
    included, takes the one roll less its own RS (``magic.explosion_damage``); the caster's
    share was booked with its Kontrollverlust, the others' are booked here. One line each."""
    faces = tuple(int(f) for f in params.get("faces", ()))
    kind = str(params.get("kind") or "brechend")
    effect = str(params.get("name") or "Arkane Explosion")
    for tid in targets:
        if tid not in state["figures"] or _get(state, tid).dead:
            continue
        before = _get(state, tid)
        play.report.involved = {actor, tid}
        dice = f"{len(faces)}W10: {' + '.join(map(str, faces))}, {kind}, RS {before.rs}"
        if tid == actor:
            amount = magic.explosion_damage(before, faces, kind)
            details: list[str | Detail] = [f"{dice} → {amount} (mit dem Kontrollverlust gebucht)"]
            booked = magic.Booked(before)
        else:
            booked, amount = magic.book_explosion(
                play.roller, before, faces, kind, options(play.settings)
            )
            _put(state, booked.figure, play.report)
            details = [f"{dice} → {amount}", *describe_changes(state, booked.changes)]
        entry = play.report.add(
            N_("%(effect)s catches %(target)s: %(damage)d damage."), details,
            who={actor, tid}, target=before.name, effect=effect, damage=amount,
        )  # fmt: skip
        entry.dice = [d.as_dict() for d in booked.rolls]
        if tid != actor:
            _interrupt(state, before, booked.figure, play)


def _attack_details(
    state: State,
    attacker: Figure,
    target: Figure,
    spec: hh.AttackSpec,
    result: hh.AttackResult,
    asked: bool,
    *,
    booked: bool,
) -> list[str | Detail]:
    details: list[str | Detail] = []
    if result.defence is not None:
        b = defence_breakdown(target, attacker.id, spec)
        skill = "" if spec.defence_skill == DEFENCE_SKILL else f" ({spec.defence_skill})"
        details.append(f"Verteidigung{skill}: {_with(b, result.defence)}")
    elif asked and not spec.defend:
        details.append("keine Verteidigung")
    details += [t.describe() for t in result.tables]
    if result.stray is not None:
        stray = str(state["figures"][result.stray.target].get("name", ""))
        details.append(f"Fehlschuss trifft die lebende Deckung {stray}: {result.stray.damage}")
    if result.hit:
        per_die = ", ".join(map(str, result.damage_per_die))
        dice = result.damage_dice.describe() if result.damage_dice else ""
        halved = " (Treffer entgehen: halbiert)" if spec.halve_damage else ""
        details.append(
            f"Schaden QS {result.qs}, RS {target.rs}: {dice} → {per_die} = {result.damage}{halved}"
        )
    if booked:
        details += describe_changes(state, [c for c in result.changes if c.kind != "lp"])
    return details


def aim(state: State, pid: str, report: Report) -> None:
    _take_handlung(state, pid)
    fig, _change = hh.aim(_get(state, pid))
    _put(state, fig, report)
    report.add(N_("%(name)s takes aim (Zielen ×%(n)d)."), name=fig.name, n=fig.aim)


def maneuver(state: State, attacker_id: str, target_id: str, key: str, play: Play) -> None:
    if key not in hh.MANEUVERS:
        raise CombatError(N_("Unknown Kampfmanöver."))
    attacker, target = _get(state, attacker_id), _get(state, target_id)
    _take_handlung(state, attacker_id)
    try:
        result = hh.resolve_maneuver(play.roller, attacker, target, key, options(play.settings))
    except ValueError as exc:
        raise CombatError(N_("Not possible: %(reason)s"), reason=str(exc)) from None
    _put(state, result.attacker, play.report)
    _put(state, result.defender, play.report)
    play.report.involved |= {attacker_id, target_id}
    details: list[str | Detail] = [f"Angriff: {_probe_text(result.attack_target, result.attack)}"]
    if result.defence is not None:
        details.append(f"Verteidigung: {_probe_text(result.defence_target, result.defence)}")
    details += describe_changes(state, result.outcome.changes)
    for c in result.outcome.changes:
        if c.kind == "moved" and key != "mitzerren":
            # Wegstossen: the defender goes back, away from the attacker. (Mitzerren's way
            # is the attacker's choice: the GM moves both tokens.)
            play.report.displacements.append(
                Displacement(c.figure, c.amount, attacker_id, target_id, c.detail)
            )
    entry = play.report.add(
        N_("%(attacker)s: %(maneuver)s against %(target)s – %(outcome)s."),
        details,
        attacker=attacker.name,
        target=target.name,
        maneuver=result.maneuver.name,
        outcome="Erfolg" if result.success else "Misserfolg",
    )
    entry.dice = [d.as_dict() for d in result.attack.rolls] + (
        [d.as_dict() for d in result.defence.rolls] if result.defence else []
    )
    _interrupt(state, target, result.defender, play)
    _interrupt(state, attacker, result.attacker, play)


def _probe_text(target: Breakdown | None, probe: hh.ProbeResult) -> str:
    return probe.describe() if target is None else _with(target, probe)


def morale(state: State, pid: str, skill: str, play: Play) -> None:
    fig = _get(state, pid)
    try:
        out = hh.morale_check(play.roller, fig, options(play.settings), skill=skill)
    except ValueError as exc:
        raise CombatError(N_("Not possible: %(reason)s"), reason=str(exc)) from None
    _put(state, out.figure, play.report)
    play.report.involved.add(pid)
    assert out.probe is not None
    entry = play.report.add(
        N_("Moral of %(name)s: %(outcome)s."),
        [f"{skill}: {out.probe.describe()}", *describe_changes(state, out.changes)],
        name=fig.name,
        outcome=out.probe.outcome,
    )
    entry.dice = [d.as_dict() for d in out.all_rolls]


def shake_off(state: State, pid: str, key: str, play: Play) -> None:
    fig = _get(state, pid)
    _take_handlung(state, pid)
    skill = SHAKE_OFF_SKILLS.get(key, "")
    try:
        out = hh.shake_off(play.roller, fig, key, options(play.settings), skill=skill)
    except ValueError as exc:
        raise CombatError(N_("Not possible: %(reason)s"), reason=str(exc)) from None
    _put(state, out.figure, play.report)
    play.report.involved.add(pid)
    details: list[str | Detail] = [out.probe.describe()] if out.probe else []
    entry = play.report.add(
        N_("%(name)s tries to shake off «%(condition)s»."),
        details + list(describe_changes(state, out.changes)),
        name=fig.name,
        condition=key,
    )
    entry.dice = [d.as_dict() for d in out.all_rolls]


def add_condition(
    state: State, pid: str, key: str, play: Play, *, cause: str = "", value: int = 1
) -> None:
    if key not in CONDITIONS:
        raise CombatError(N_("Unknown condition."))
    fig = _get(state, pid)
    z = zehrend(cause) if key == "zehrend" else Zustand(key)
    out = hh.apply_condition(play.roller, fig, z, options(play.settings))
    _put(state, out.figure, play.report)
    play.report.involved.add(pid)
    entry = play.report.add(
        N_("GM: %(name)s gets «%(condition)s»."),
        describe_changes(state, out.changes),
        name=fig.name,
        condition=z.label,
    )
    entry.dice = [d.as_dict() for d in out.all_rolls]
    _interrupt(state, fig, out.figure, play)


def remove_condition(state: State, pid: str, key: str, report: Report) -> None:
    fig = _get(state, pid)
    out = hh.remove_condition(fig, key, detail="SL")
    _put(state, out.figure, report)
    report.involved.add(pid)
    report.add(N_("GM: «%(condition)s» of %(name)s removed."), name=fig.name, condition=key)


def adjust(state: State, pid: str, delta: int, reason: str, play: Play) -> None:
    fig = _get(state, pid)
    if delta < 0:
        out = hh.apply_damage(play.roller, fig, -delta, options(play.settings), source=reason)
    else:
        out = hh.heal(fig, delta, source=reason)
    _put(state, out.figure, play.report)
    play.report.involved.add(pid)
    entry = play.report.add(
        N_("GM: %(name)s %(delta)s LP (%(reason)s)."),
        describe_changes(state, [c for c in out.changes if c.kind != "lp"]),
        name=fig.name,
        delta=f"{delta:+d}",
        reason=reason,
    )
    entry.dice = [d.as_dict() for d in out.all_rolls]
    _interrupt(state, fig, out.figure, play)


def fall(state: State, pid: str, height: int, modifier: int, play: Play) -> None:
    """A fall the GM declares; damage on a focusing figure interrupts it like a hit's."""
    before, after = hh_checks.fall(state, pid, height, modifier, play)
    _interrupt(state, before, after, play)


#: The conditions whose «passende Probe» the adapter names (the GM's choice in the rules).
SHAKE_OFF_SKILLS = {"eingeschränkt": "Geschick", "benommen": "Glück"}


def free_weapon(state: State, pid: str, play: Play) -> None:
    """Handlung + Unbeugsamkeit (melee) or Handwerk (ranged) to free a jammed weapon
    (``app.rules.hh.recovery.free_weapon``)."""
    fig = _get(state, pid)
    if not fig.can_act:
        raise CombatError(N_("%(name)s cannot act now."), name=fig.name)
    ranged = _spec(hh_data(state["figures"][pid]), {}).weapon.ranged
    _take_handlung(state, pid)
    try:
        out = recovery.free_weapon(play.roller, fig, ranged=ranged)
    except ValueError:
        raise CombatError(N_("%(name)s's weapon is not jammed."), name=fig.name) from None
    _put(state, out.figure, play.report)
    play.report.involved.add(pid)
    assert out.probe is not None
    entry = play.report.add(
        N_("%(name)s tries to free the jammed weapon: %(outcome)s."),
        [out.probe.describe(), *describe_changes(state, out.changes)],
        name=fig.name,
        outcome=out.probe.outcome,
    )
    entry.dice = [d.as_dict() for d in out.all_rolls]


def _can_strike(fig: Figure) -> bool:
    """A Blockadeangriff needs a reaction and a weapon that is not jammed."""
    return fig.can_react and not fig.jammed_weapon


def stabilise(state: State, pid: str, target_id: str, play: Play) -> None:
    """Handlung + Heilkunde on a dying figure (hh.md §7, ``app.rules.hh.life.stabilise``)."""
    healer, dying = _get(state, pid), _get(state, target_id)
    target = breakdown(healer, "Heilkunde", "action")
    _take_handlung(state, pid)
    try:
        out = hh.stabilise(play.roller, healer, dying, options(play.settings))
    except ValueError as exc:
        raise CombatError(N_("Not possible: %(reason)s"), reason=str(exc)) from None
    _put(state, out.figure, play.report)
    play.report.involved |= {pid, target_id}
    assert out.probe is not None
    entry = play.report.add(
        N_("%(name)s tends to %(target)s (Heilkunde): %(outcome)s."),
        [_with(target, out.probe), *describe_changes(state, out.changes)],
        name=healer.name,
        target=dying.name,
        outcome=out.probe.outcome,
    )
    entry.dice = [d.as_dict() for d in out.all_rolls]


#: Glück spent or burned in a fight outside a roll (hh.md §4) → the engine's function.
LUCK_ACTIONS = ("extra_action", "remove_condition", "stay_on_feet", "avoid_death")


def luck(state: State, pid: str, option: str, condition: str, report: Report) -> None:
    """Glück outside a roll: Zusätzliche Aktion (this step), Zustand aufheben, Auf den
    Beinen bleiben, Tod abwenden (burned); the engine says whether it may."""
    if option not in LUCK_ACTIONS:
        raise CombatError(N_("Choose one of the listed values."))
    fig = _get(state, pid)
    try:
        if option == "remove_condition":
            out = hh.spend_to_remove_condition(fig, condition)
        else:
            check_luck(fig, option, before_roll=True)
            out = {"extra_action": hh.extra_action, "stay_on_feet": hh.stay_on_feet,
                   "avoid_death": hh.avoid_death}[option](fig)  # fmt: skip
    except hh.LuckError as exc:
        raise CombatError(N_("Not possible: %(reason)s"), reason=str(exc)) from None
    if option == "extra_action":
        _grant(state, pid)
    _put(state, out.figure, report)
    report.involved.add(pid)
    report.add(
        N_("%(name)s uses Glück: %(option)s."),
        describe_changes(state, out.changes),
        name=fig.name,
        option=LUCK_NAMES[option],
    )


# --- magic (hh.md §9) ---------------------------------------------------------------------------

#: Why ``magic.check_cast`` refused, in the rules' words (shown after "Not possible:").
CAST_PROBLEMS = {
    "cannot_act": "kann nicht handeln",
    "spell_unknown": "Zauber nicht beherrscht",
    "grade_too_high": "Güteklasse über der beherrschten",
    "no_free_hand": "keine freie Hand und kein Zauberfokus",
    "out_of_range": "außer Reichweite",
    "focus_required": "zu wenig Fokus",
    "touch_needs_willing_target": "Berührung nur bei einem willigen Ziel",
}


def _spell_name(data: HHFigureData, key: str) -> str:
    return next((str(z["name"]) for z in data.get("spells", []) if z.get("key") == key), key)


def _spell(data: HHFigureData, key: str) -> HHSpellData:
    for z in data.get("spells", []):
        if z.get("key") == key:
            return z.copy()
    raise CombatError(N_("%(name)s does not know this spell."), name=str(data.get("name", "")))


def _caster(data: HHFigureData, fig: Figure) -> magic.Caster:
    focus = data.get("focus")
    return magic.Caster(
        figure=fig,
        learned=tuple(magic.KnownSpell(str(z["key"]), z["grade"]) for z in data.get("spells", [])),
        focus=magic.Focus(str(focus["spell"]), int(focus["points"])) if focus else None,
    )


def spells(data: FigureData) -> list[HHSpellData]:
    """The figure's spells for the action form."""
    return [z.copy() for z in hh_data(data).get("spells", [])]


def focus(state: State, pid: str, key: str, report: Report) -> None:
    """Fokussieren: one action, +1 focus for the spell (focus on another spell is given up)."""
    data = hh_figure(state, pid)
    fig = to_figure(data)
    if not fig.can_act:
        raise CombatError(N_("%(name)s cannot act now."), name=fig.name)
    spell = _spell(data, key)
    _take_handlung(state, pid)
    current = _caster(data, fig).focus
    new = magic.add_focus(current, str(spell["key"]))
    data["focus"] = {"spell": new.spell, "points": new.points}
    report.changed.add(pid)
    report.involved.add(pid)
    details = []
    if current is not None and current.spell != new.spell:
        details.append(f"Fokus auf {_spell_name(data, current.spell)} aufgegeben")
    report.add(
        N_("%(name)s focuses on %(spell)s (Fokus %(n)d)."),
        details,
        name=fig.name,
        spell=spell["name"],
        n=new.points,
    )


def _kontrollverlust_details(
    state: State, loss: magic.KontrollverlustResult, booked: magic.Booked, report: Report
) -> list[str | Detail]:
    """The log lines of a Kontrollverlust and what it did to the caster. «Arkane Explosion»
    on a linked scene is set off on the board (:class:`Burst`: every figure in the radius,
    one line each); in theatre of the mind the GM applies it to the others."""
    patzer = f" − {magic.KONTROLLPROBE_PATZER_PENALTY}" if loss.kontrollprobe_patzer else ""
    details: list[str | Detail] = [
        f"Kontrollverlust: {loss.dice.describe()} − Fokus {loss.focus}{patzer} = {loss.value}"
        f" → {loss.entry.name}: {loss.entry.text}"
    ]
    roll = loss.area_damage_roll
    if roll is not None:
        who = "auf der Karte" if report.on_board else "SL"
        details.append(
            f"Umkreis {loss.area_radius} Schritt: {roll.describe()} "
            f"brechender Schaden für alle dort ({who})"
        )
        if report.on_board:
            kind = next((h.kind for h in loss.entry.effect.damage if h.target == "area"), "")
            params: BurstParams = {
                "faces": list(roll.faces),
                "kind": kind or "brechend",
                "name": loss.entry.name,
            }
            report.bursts.append(Burst(str(booked.figure.id), loss.area_radius, params))
    return details + describe_changes(state, booked.changes)


def _interrupt(state: State, before: Figure, after: Figure, play: Play) -> None:
    """A focusing figure took damage or a condition: Kontrollprobe, Kontrollverlust on failure.

    ``after`` is already stored; the focus is lost in any case (hh.md §9.2, §9.3).
    """
    data = hh_data(state["figures"][after.id])
    held = data.get("focus")
    if not held:
        return
    new_conditions = {z.key for z in after.conditions} - {z.key for z in before.conditions}
    if after.lp >= before.lp and after.wp >= before.wp and not new_conditions:
        return
    data["focus"] = None
    play.report.changed.add(after.id)
    spell = _spell_name(data, str(held["spell"]))
    if after.dead:
        return
    result = magic.interrupt(play.roller, _caster({**data, "focus": held}, after))
    assert result.probe is not None
    details: list[str | Detail] = [
        f"Kontrollprobe (Willenskraft − {magic.KONTROLLPROBE_PENALTY_PER_FOCUS * result.focus_lost}"
        f"): {result.probe.describe()}"
    ]
    dice = [d.as_dict() for d in result.probe.rolls]
    if result.kontrollverlust is not None:
        booked = magic.book_kontrollverlust(
            play.roller, after, result.kontrollverlust, options(play.settings)
        )
        details += _kontrollverlust_details(state, result.kontrollverlust, booked, play.report)
        dice += [d.as_dict() for d in (*result.kontrollverlust.rolls, *booked.rolls)]
        _put(state, booked.figure, play.report)
    headline = (
        N_("%(name)s is interrupted and loses control: %(spell)s fails.")
        if result.spell_failed
        else N_("%(name)s is interrupted but keeps control; the focus on %(spell)s is lost.")
    )
    entry = play.report.add(headline, details, who={after.id}, name=after.name, spell=spell)
    entry.dice = dice


#: Why :func:`magic.resolve_cast` refused before the Wirkprobe, as a log message.
CAST_REFUSALS = {
    "self_target": N_("Choose another target."),
    "target_dead": N_("%(name)s is already dead."),
    "beyond_spell_range": N_("Out of the spell's range (%(range)d Schritt)."),
    "unknown_grade": N_("Choose a Güteklasse."),
}


def _effect(spell: HHSpellData) -> magic.SpellEffect:
    return magic.SpellEffect(
        name=str(spell["name"]),
        range=int(spell.get("range", 0)),
        damage_die=int(spell.get("schaden_w", 0)),
        damage_bonus=int(spell.get("schaden_bonus", 0)),
        damage_kind=str(spell.get("schadensart", "normal")),
        condition=str(spell.get("zustand") or ""),
        defended=bool(spell.get("verteidigung")),
        area=bool(spell.get("flaeche")),
    )


def _refusal(out: magic.SpellOutcome) -> CombatError:
    message = CAST_REFUSALS.get(out.error or "")
    if message is not None:
        return CombatError(message, **out.params)
    return CombatError(
        N_("Not possible: %(reason)s"), reason=CAST_PROBLEMS.get(out.error or "", "")
    )


def _cast_details(
    state: State, spell: HHSpellData, out: magic.SpellOutcome, report: Report
) -> list[str | Detail]:
    result = out.cast
    assert result is not None and result.wirkprobe is not None
    where = "Berührung" if out.distance == "beruehrung" else f"{out.distance} Schritt"
    probe = _with(result.target, result.wirkprobe) if result.target else result.wirkprobe.describe()
    details: list[str | Detail] = [
        f"Wirkprobe ({spell['name']}, Güteklasse {result.grade}, {where}): {probe}"
    ]
    if result.focus_used:
        bonus = f", +{result.focus_bonus} QS" if result.focus_bonus else ""
        details.append(f"Fokus {result.focus_used}{bonus}")
    if result.defence is not None:
        details.append(f"Verteidigung (Magiekunde): {result.defence.describe()}")
    if out.damage_roll is not None:
        details.append(f"Schaden QS {result.qs}: {out.damage_roll.describe()} = {out.damage}")
    if out.success and out.target is not None:
        details += describe_changes(state, out.target_changes)
    if result.kontrollverlust is not None and out.kontrollverlust is not None:
        details += _kontrollverlust_details(
            state, result.kontrollverlust, out.kontrollverlust, report
        )
    return details


def _cast_headline(out: magic.SpellOutcome) -> str:
    if out.target is None:
        return (
            N_("%(name)s casts %(spell)s.")
            if out.success
            else N_("%(name)s fails to cast %(spell)s.")
        )
    if out.success:
        return N_("%(name)s casts %(spell)s on %(target)s.")
    return N_("%(name)s casts %(spell)s on %(target)s without effect.")


def cast(state: State, pid: str, params: Mapping[str, Any], play: Play) -> None:
    """Zauber wirken: the rules are :func:`magic.resolve_cast`'s; here the state is mapped
    to the engine and back, and the log line written. The focus is spent in any case."""
    data = hh_figure(state, pid)
    caster = to_figure(data)
    spell = _spell(data, str(params.get("spell", "")))
    target_id = str(params.get("target") or "")
    target = _get(state, target_id) if target_id else None
    _take_handlung(state, pid)
    out = magic.resolve_cast(
        play.roller, _caster(data, caster),
        magic.Spell(str(spell["key"]), int(spell.get("focus", 0))), _effect(spell),
        options(play.settings), target=target, distance=int(params.get("distance", 0)),
        grade=params.get("grade") or None, modifier=int(params.get("modifier", 0)),
    )  # fmt: skip
    if not out.ok:
        raise _refusal(out)
    data["focus"] = None
    play.report.changed.add(pid)
    play.report.involved |= {pid} | ({target.id} if target else set())
    state["turn_actions"]["casts"] = int(state["turn_actions"].get("casts", 0)) + 1
    details = _cast_details(state, spell, out, play.report)
    if out.target is not None:
        _put(state, out.target, play.report)
    if out.kontrollverlust is not None:
        _put(state, out.kontrollverlust.figure, play.report)
    entry = play.report.add(
        _cast_headline(out), details, name=caster.name, spell=spell["name"],
        target=target.name if target else "", damage=out.damage,
    )  # fmt: skip
    entry.dice = [d.as_dict() for d in out.rolls]
    if out.success and target is not None and out.target is not None:
        _interrupt(state, target, out.target, play)


class HhRules(Common):
    """Helden & Halunken (registered in ``app.encounters.systems``): every capability but
    :class:`~app.encounters.systems.protocol.CountedActions`, :class:`NamedSpells`,
    :class:`Saves` and :class:`Reactions`."""

    name = "hh"
    conditions = CONDITIONS
    partials = MappingProxyType(
        {
            "attack": "encounters/systems/hh/attack.html",
            "actions": "encounters/systems/hh/actions.html",
            "manage": "encounters/systems/hh/manage.html",
            "gm_tools": "encounters/systems/hh/gm_tools.html",
        }
    )
    default_check = "Spürsinn"
    check_names = SKILLS
    new_figure = staticmethod(new_figure)
    view = staticmethod(view)
    sheet_state = staticmethod(sheet_state)
    take_sheet_state = staticmethod(take_sheet_state)
    spent = staticmethod(spent)
    start = staticmethod(start)
    add_figure = staticmethod(add_figure)
    advance = staticmethod(advance)
    attack = staticmethod(attack)
    area = staticmethod(area)
    area_sources = frozenset({"attack", "spell", "free"})
    burst = staticmethod(burst)
    forecast = staticmethod(forecast)
    simulate = staticmethod(simulate)
    respond = staticmethod(respond)
    add_condition = staticmethod(add_condition)
    remove_condition = staticmethod(remove_condition)
    adjust = staticmethod(adjust)
    check = staticmethod(hh_checks.check)
    jump = staticmethod(hh_checks.jump)
    fall = staticmethod(fall)
    aim = staticmethod(aim)
    maneuver = staticmethod(maneuver)
    focus = staticmethod(focus)
    cast = staticmethod(cast)
    morale = staticmethod(morale)
    shake_off = staticmethod(shake_off)
    free_weapon = staticmethod(free_weapon)
    stabilise = staticmethod(stabilise)
    luck = staticmethod(luck)
    grant_action = staticmethod(grant_action)

    def rating(self, figures: list[FigureData]) -> BudgetRating | None:
        """H&H has no difficulty guideline beside the simulated risk."""
        return None

    def offers(self, data: FigureData) -> Offers:
        """``data`` is empty when no figure is on turn (a fight not started or over)."""
        maneuvers = [(k, m.name) for k, m in hh.MANEUVERS.items()]
        offers: Offers = {"strikes": [], "maneuvers": maneuvers, "spells": spells(data)}
        if data:
            fig = to_figure(data)
            # The rule variant decides only where a «passende Probe» is needed, and both
            # such conditions have their skill in SHAKE_OFF_SKILLS.
            shakeable = recovery.shakeable(fig, hh.DEFAULT_OPTIONS, SHAKE_OFF_SKILLS)
            # The roster's word for each: the condition's rule term.
            offers["shake_off"] = [(key, key) for key in shakeable]
            offers["jammed"] = fig.jammed_weapon
        return offers

    #: One cell is 1 Schritt; every diagonal step 1 Schritt (the Gefährdungsbereich is the
    #: 8 neighbours, hh.md §6.7).
    metric = Metric("one", "Schritt", Fraction(1))

    def movement_allowance(
        self, data: FigureData, stats: Mapping[str, Any], settings: Settings
    ) -> int:
        """Bewegung per Handlung, halved when «eingeschränkt» (the engine's rule)."""
        return hh.figure_movement(to_figure(data), options(settings))

    def move_reactions(
        self, state: State, mover: str, path: list[Cell], positions: dict[str, Cell]
    ) -> list[MoveReaction]:
        """Enemies the path passes inside their Gefährdungsbereich, if they can react:
        each may make a Blockadeangriff (the engine's ``blockade_triggers``)."""
        side = figure(state, mover).get("side")
        hostile = [
            pid
            for pid, data in state.get("figures", {}).items()
            if pid != mover
            and pid in positions
            and data.get("side") not in (side, "neutral")
            and _can_strike(to_figure(data))
        ]
        return [
            MoveReaction(t.figure, "blockade", t.index)
            for t in blockade_triggers(path, positions, hostile)
        ]

    def map_attack(self, state: State, attacker: str, target: str, line: AttackLine) -> MapAttack:
        """Reichweite of the attacker's weapon; cover from walls and from the figures on the
        line (the engine's ``suggest_cover``: allies −2, enemies −4, the size rule)."""
        figures = state.get("figures", {})
        a, t = to_figure(figures[attacker]), to_figure(figures[target])
        weapon = dict(figures[attacker].get("weapon") or {})
        reach = weapon_reaches(line.cells, bool(weapon.get("ranged")), weapon.get("range"))
        between = [
            (pid, to_figure(figures[pid]).side == a.side, to_figure(figures[pid]).size)
            for pid in line.between
            if pid in figures and not to_figure(figures[pid]).dead
        ]
        cover, covering = suggest_cover(
            wall_cover(line.wall_blocked, line.wall_lines), between, t.size
        )
        limit = weapon.get("range") if weapon.get("ranged") else MELEE_REACH
        note = RangeNote(str(weapon.get("name") or "Waffe"), 0 if reach else None, limit)
        fill = {"cover": cover, "covering": covering}
        if cover != "none" and not covering:
            fill[COVER_FROM] = "wall"
        return MapAttack((note,), fill, cover, covering)

    def attack_range(
        self, state: State, attacker: str, params: Mapping[str, Any], found: MapAttack
    ) -> RangeNote | None:
        """An H&H attack is made with the figure's one weapon: its Reichweite (a melee
        weapon the Nahkampfreichweite, hh.md §6.6)."""
        return found.ranges[0] if found.ranges else None

    def threat_cells(self, state: State, pid: str, cells: list[Cell]) -> list[Cell]:
        """The Gefährdungsbereich: every square within 1 Schritt of the figure's squares
        (none while it cannot act: dead or unconscious)."""
        data = state.get("figures", {}).get(pid)
        if data is None or not to_figure(data).can_act:
            return []
        own = set(cells)
        zone = {c for cell in cells for c in threat_zone(cell)} - own
        return sorted(zone)


RULES = HhRules()
