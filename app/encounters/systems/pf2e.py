"""Pathfinder 2e in combat: a thin adapter from the JSON state to ``app.rules.pf2e``.

Initiative by Wahrnehmung with adversaries winning ties (``roll_initiative``), Strikes with
MAP and range penalty against RK (``strike``), saves against a DC with einfacher
Rettungswurf damage (``save_against``), Verdeckte Würfe (``roll_check(secret=True)``),
persistent damage at the end of a turn with its DC 15 Einfacher Wurf.

Conditions (project decisions, as the rules state them; docs/rules/pf2e.md): Verängstigt N
and Kränkelnd N are status penalties on every check and DC (Verängstigt drops by 1 at the
end of the creature's turn; Kränkelnd ends by Würgen, the ``shake_off`` action); Unvorbereitet
−2 circumstance on RK; Liegend −2 circumstance on attack rolls and Unvorbereitet. A player
character at 0 TP is Sterbend (``app.rules.pf2e.conditions``): its turn starts with a
Genesungswurf and it dies at Sterbend 4 − Todgeweiht; monsters die at 0 TP.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Final, TypedDict

from app.encounters.combat import (
    CombatError,
    Report,
    State,
    current_turn,
    reset_turn_actions,
)
from app.encounters.state import FigureData, OrderEntry
from app.encounters.systems.pf2e_figures import (
    PersistentDamage,
    PF2eFigureData,
    PF2eSheetState,
    PF2eStrikeData,
    pf2e_data,
    pf2e_figure,
    stat_value,
)
from app.encounters.systems.play import AttackOrder, Play, Trials
from app.encounters.systems.protocol import (
    AreaSource,
    AttackLine,
    Budget,
    Common,
    FigureView,
    Forecast,
    MapAttack,
    Offers,
    RangeNote,
    Settings,
    Spent,
    Unknown,
    spent_by_budget,
    unavailable,
)
from app.errors import ValidationFailed
from app.i18n import N_, _
from app.rules import pf2e
from app.rules.dice import Roller
from app.rules.expression import ExpressionError, parse
from app.rules.grid import Metric
from app.rules.odds import BudgetRating, RiskResult
from app.rules.pf2e import Modifier, Statistic
from app.rules.pf2e import attacks as pf2e_attacks
from app.rules.pf2e import budget as pf2e_budget
from app.rules.pf2e import forecast as pf2e_forecast
from app.rules.pf2e import simulation as pf2e_simulation
from app.rules.pf2e import spells as pf2e_spells
from app.rules.pf2e import turn as pf2e_turn

CONDITIONS = (
    "verängstigt", "kränkelnd", "unvorbereitet", "liegend", "anhaltender Schaden",
    "sterbend", "verwundet", "todgeweiht", "betäubt", "verlangsamt",
)  # fmt: skip
VALUED = (
    "verängstigt", "kränkelnd", "sterbend", "verwundet", "todgeweiht", "betäubt", "verlangsamt",
)  # fmt: skip
#: The combat state's key of the turn's :class:`~app.rules.pf2e.turn.ActionBudget`.
BUDGET_KEY: Final = "action_budget"
#: What each action of the controls costs (§9).
COSTS = MappingProxyType(
    {"attack": pf2e_turn.STRIKE, "shake_off": pf2e_turn.RETCH, "stride": pf2e_turn.STRIDE,
     # a spell costs what it names; the controls disable it when not even one is left
     "cast_spell": min(pf2e_spells.SPELL_ACTIONS)}
)  # fmt: skip
SAVES = {"reflex": "Reflex", "wille": "Wille", "zaehigkeit": "Zähigkeit"}
#: The English names an area's ``save`` may also give (issue 27's API).
SAVE_ALIASES = {"fort": "zaehigkeit", "fortitude": "zaehigkeit", "ref": "reflex", "will": "wille"}
#: The saving throws' names in the German edition (docs/glossary.json).
SAVE_CHECKS = {
    "reflex": "Reflex-Rettungswurf", "wille": "Willens-Rettungswurf",
    "zaehigkeit": "Zähigkeits-Rettungswurf",
}  # fmt: skip
#: Removing this "condition" brings a dead player character back (a GM's correction).
DEAD = "tot"
CONDITION_NAMES = MappingProxyType({DEAD: N_("dead")})


def new_figure(
    pid: str, name: str, side: str, stats: Mapping[str, Any], *, npc: bool, settings: Settings
) -> FigureData:
    return {
        "id": pid,
        "name": name,
        "side": side,
        "npc": npc,
        "stufe": int(stats.get("stufe", 1)),
        "hp": int(stats["tp"]),
        "hp_max": int(stats["tp"]),
        "rk": int(stats["rk"]),
        "wahrnehmung": int(stats["wahrnehmung"]),
        "reflex": int(stats["reflex"]),
        "wille": int(stats["wille"]),
        "zaehigkeit": int(stats["zaehigkeit"]),
        "angriffe": list(stats.get("angriffe", [])),
        "conditions": {
            k: int(stats.get(k) or 0) for k in ("verwundet", "todgeweiht") if stats.get(k)
        },
        "persistent": [],
        **({"zauberangriff": int(stats["zauberangriff"])}
           if stats.get("zauberangriff") is not None else {}),
    }  # fmt: skip


def _status(data: PF2eFigureData) -> tuple[str, str]:
    """State key and label (a msgid, translated by the view)."""
    if data.get("dead"):
        return "dead", N_("dead")
    if data["hp"] <= 0:
        return ("dead", N_("defeated")) if data.get("npc") else ("down", N_("unconscious"))
    if data["hp"] <= data["hp_max"] // 2:
        return "hurt", N_("badly hurt")
    if data["hp"] < data["hp_max"]:
        return "scratched", N_("hurt")
    return "fine", N_("unhurt")


def view(data: FigureData) -> FigureView:
    fig = pf2e_data(data)
    conds = [f"{k} {v}" if k in VALUED else k for k, v in sorted(fig.get("conditions", {}).items())]
    conds += [_persistent_label(p) for p in fig["persistent"]]
    if fig.get("dead"):
        conds.append(DEAD)
    return {
        "status": _status(fig),
        "points": f"{fig['hp']}/{fig['hp_max']} TP",
        "health": (fig["hp"], fig["hp_max"]),
        "conditions": conds,
        "extra": [f"RK {effective_ac(fig)}", f"Reaktionen {int(fig.get('reaction', True))}/1"],
        "initiative": fig.get("init_result"),
        "out": fig["hp"] <= 0,
    }


def _persistent_label(p: PersistentDamage) -> str:
    return f"anhaltender Schaden {p['schaden']} {p.get('art', '')}".strip()


#: Why a figure at 0 TP only ends its turn (the attack form is not offered).
HELPLESS_DYING = N_("%(name)s is Sterbend and cannot act (the Genesungswurf came first).")
HELPLESS_AT_0 = N_("%(name)s is unconscious at 0 TP and cannot act.")


def defeated(data: PF2eFigureData) -> bool:
    """Out of the fight: it cannot act (at 0 TP, Sterbend or not, or dead)."""
    return int(data["hp"]) <= 0 or bool(data.get("dead"))


def _takes_turn(data: PF2eFigureData) -> bool:
    """Its turn comes: it can act, or it is Sterbend and makes its Genesungswurf."""
    return not data.get("dead") and (int(data["hp"]) > 0 or _dying(data).dying > 0)


def _dying(data: PF2eFigureData) -> pf2e.Dying:
    conds = data.get("conditions", {})
    return pf2e.Dying(
        int(conds.get("sterbend", 0)), int(conds.get("verwundet", 0)),
        int(conds.get("todgeweiht", 0)),
    )  # fmt: skip


def _set_dying(data: PF2eFigureData, value: pf2e.Dying) -> None:
    conds = data.setdefault("conditions", {})
    for key, n in (("sterbend", value.dying), ("verwundet", value.wounded),
                   ("todgeweiht", value.doomed)):  # fmt: skip
        if n:
            conds[key] = n
        else:
            conds.pop(key, None)
    if value.dead:
        data["dead"] = True


def _take_damage(
    state: State, pid: str, amount: int, report: Report, *, critical: bool = False
) -> None:
    """Lower the TP; a player character at 0 TP becomes or stays Sterbend (logged)."""
    f = pf2e_data(state["figures"][pid])
    if amount <= 0 or f.get("dead"):
        return
    f["hp"] = max(0, int(f["hp"]) - amount)
    report.changed.add(pid)
    if f["hp"] > 0:
        return
    if f.get("npc"):
        report.add(N_("%(name)s is defeated."), who={pid}, name=f["name"])
        return
    before = _dying(f)
    after = (
        pf2e.damaged_while_dying(before, critical=critical)
        if before.dying
        else pf2e.knocked_out(before, critical=critical)
    )
    _set_dying(f, after)
    details = [f"{before.describe()} → {after.describe()}"]
    if after.dead:
        report.add(N_("%(name)s dies."), details, who={pid}, name=f["name"])
    else:
        report.add(
            N_("%(name)s falls: Sterbend %(value)d."), details, who={pid}, name=f["name"],
            value=after.dying,
        )  # fmt: skip


def _status_penalties(data: PF2eFigureData) -> list[Modifier]:
    out: list[Modifier] = []
    conds = data.get("conditions", {})
    if conds.get("verängstigt"):
        out.append(Modifier("Verängstigt", "status", -int(conds["verängstigt"])))
    if conds.get("kränkelnd"):
        out.append(Modifier("Kränkelnd", "status", -int(conds["kränkelnd"])))
    return out


def _attack_penalties(data: PF2eFigureData) -> list[Modifier]:
    """The attacker's own penalties on an attack roll: status penalties, Liegend −2."""
    extra = _status_penalties(data)
    if data.get("conditions", {}).get("liegend"):
        extra.append(Modifier("Liegend", "circumstance", -2))
    return extra


def _attack_number(state: State, attacker_id: str) -> tuple[bool, int]:
    """Whether it is the attacker's own turn, and the number of this attack in it (MAP)."""
    turn = current_turn(state)
    own_turn = turn is not None and turn["pid"] == attacker_id
    return own_turn, int(state["turn_actions"].get("attacks", 0)) + 1 if own_turn else 1


def effective_ac(data: PF2eFigureData) -> int:
    mods = _status_penalties(data)
    conds = data.get("conditions", {})
    if conds.get("unvorbereitet") or conds.get("liegend"):
        mods.append(Modifier("Unvorbereitet", "circumstance", -2))
    return int(data["rk"]) + pf2e.total_modifier(mods)


def _stat(name: str, value: int, data: PF2eFigureData) -> Statistic:
    return Statistic(name, (Modifier("Werteblock", "untyped", value), *_status_penalties(data)))


def start(state: State, play: Play) -> None:
    state["round"] = 1
    state["turn"] = 0
    combatants = [
        pf2e.Combatant(
            pid,
            f["name"],
            pf2e.Side.ADVERSARY if f["side"] != "abenteurer" else pf2e.Side.ADVENTURER,
            _stat("Wahrnehmung", int(f["wahrnehmung"]), f),
        )
        for pid, f in ((pid, pf2e_data(f)) for pid, f in state["figures"].items())
    ]
    order = pf2e.roll_initiative(play.roller, combatants)
    _store_order(state, order)
    play.report.add(N_("Combat starts: round %(round)d."), who=set(), round=1)
    for e in order:
        entry = play.report.add(
            N_("%(name)s: initiative %(value)s."),
            [e.check.describe()],
            who={e.combatant.id},
            name=e.combatant.name,
            value=e.result,
        )
        entry.dice = [d.as_dict() for d in e.dice]
    play.report.order_changed = play.report.turn_changed = True
    first = current_turn(state)
    if first is not None:
        _new_budget(state, str(first["pid"]), play.report)


def _store_order(state: State, order: list[pf2e.InitiativeEntry]) -> None:
    state["order"] = [
        {
            "pid": e.combatant.id,
            "step": None,
            "init": e.result,
            "side": str(pf2e_data(state["figures"][e.combatant.id])["side"]),
            "tie": f"{e.result}:{e.combatant.side.value}",
        }
        for e in order
    ]
    for e in order:
        pf2e_data(state["figures"][e.combatant.id])["init_result"] = e.result


def add_figure(state: State, pid: str, roller: Roller, report: Report) -> None:
    f = pf2e_data(state["figures"][pid])
    side = pf2e.Side.ADVERSARY if f["side"] != "abenteurer" else pf2e.Side.ADVENTURER
    check = pf2e.roll_check(roller, _stat("Wahrnehmung", int(f["wahrnehmung"]), f))
    f["init_result"] = check.total
    entry: OrderEntry = {"pid": pid, "step": None, "init": check.total, "side": f["side"],
             "tie": f"{check.total}:{side.value}"}  # fmt: skip
    order = state["order"]
    key = (-check.total, 0 if side is pf2e.Side.ADVERSARY else 1)
    idx = len(order)
    for i, t in enumerate(order):
        t_side = 0 if t["side"] != "abenteurer" else 1
        if (-int(t["init"]), t_side) > key:
            idx = i
            break
    order.insert(idx, entry)
    if idx <= int(state["turn"]) and len(order) > 1:
        state["turn"] = int(state["turn"]) + 1
    e = report.add(
        N_("%(name)s joins: initiative %(value)s."),
        [check.describe()],
        who={pid},
        name=f["name"],
        value=check.total,
    )
    e.dice = [d.as_dict() for d in check.dice]
    report.order_changed = True


def advance(state: State, play: Play) -> None:
    turn = current_turn(state)
    if turn is not None:
        _end_of_turn(state, str(turn["pid"]), play.roller, play.report)
    state["turn"] += 1
    reset_turn_actions(state)
    play.report.turn_changed = True
    while True:
        while state["turn"] < len(state["order"]):
            pid = str(state["order"][state["turn"]]["pid"])
            if _takes_turn(pf2e_data(state["figures"][pid])):
                _start_of_turn(state, pid, play.roller, play.report)
                _new_budget(state, pid, play.report)
                return
            state["turn"] += 1
        if not any(_takes_turn(pf2e_data(state["figures"][str(t["pid"])])) for t in state["order"]):
            return
        play.report.add(N_("End of round %(round)d."), who=set(), round=state["round"])
        state["round"] += 1
        state["turn"] = 0
        play.report.add(N_("Round %(round)d begins."), who=set(), round=state["round"])


def action_budget(state: State) -> pf2e_turn.ActionBudget:
    """The actions left to the figure whose turn it is (a fight from before: all three)."""
    return pf2e_turn.ActionBudget.from_json(state.get(BUDGET_KEY))


def _new_budget(state: State, pid: str, report: Report) -> None:
    """Three actions at the start of the turn, less Betäubt and Verlangsamt (§9); Betäubt
    drops by the actions it took. Unconscious (0 TP): none."""
    f = pf2e_data(state["figures"][pid])
    conds = f.setdefault("conditions", {})
    start = pf2e_turn.start_of_turn(
        stunned=int(conds.get("betäubt", 0)),
        slowed=int(conds.get("verlangsamt", 0)),
        unconscious=int(f["hp"]) <= 0,
    )
    state[BUDGET_KEY] = start.budget.as_json()
    f["reaction"] = True  # back at the start of the turn (§9)
    if start.lost_to_stunned:
        if start.stunned_after > 0:
            conds["betäubt"] = start.stunned_after
        else:
            conds.pop("betäubt", None)
        report.changed.add(pid)
    lost = start.lost_to_stunned + start.lost_to_slowed
    if lost:
        report.add(
            N_("%(name)s loses %(lost)d action(s) (Betäubt %(stunned)d, Verlangsamt %(slowed)d): "
               "%(left)d left."),
            who={pid}, name=f["name"], lost=lost, stunned=start.lost_to_stunned,
            slowed=start.lost_to_slowed, left=start.budget.actions,
        )  # fmt: skip


def react(state: State, pid: str, name: str, report: Report) -> None:
    """A reaction of ``pid`` (named by who takes it: Gelegenheitsangriff, Schild blocken, …),
    in anyone's turn: it spends the figure's one reaction until the start of its next turn
    (§9); refused when it is spent or the figure cannot act."""
    f = pf2e_figure(state, pid)
    if defeated(f):
        raise CombatError(N_("%(name)s cannot act now."), name=f["name"])
    try:
        f["reaction"] = pf2e_turn.use_reaction(bool(f.get("reaction", True)), name)
    except pf2e_turn.ReactionSpent:
        raise CombatError(
            N_("%(name)s has used the reaction; it comes back at the start of their turn."),
            name=f["name"],
        ) from None
    turn = current_turn(state)
    if turn is not None and str(turn["pid"]) == pid:
        state[BUDGET_KEY] = action_budget(state).without_reaction().as_json()
    report.changed.add(pid)
    report.involved.add(pid)
    report.add(N_("%(name)s uses the reaction: %(reaction)s."), name=f["name"], reaction=name)


def stride(state: State, pid: str, report: Report) -> None:
    """A move on the battle map in the figure's turn is a Stride: one action (§9); the log
    names the actions left."""
    _spend(state, pid, "stride", "Stride")
    left = action_budget(state)
    report.involved.add(pid)
    report.add(
        N_("%(name)s strides: %(left)d action(s) left."),
        who={pid}, name=pf2e_data(state["figures"][pid])["name"], left=left.actions,
    )  # fmt: skip


def _spend(state: State, pid: str, action: str, what: str, cost: int | None = None) -> None:
    """The figure whose turn it is pays ``action``'s cost (or ``cost``); one acting outside
    its turn (the GM's correction) pays nothing. Refused when it does not fit (the turn goes
    on); a spell's refusal is at its field ``actions``."""
    turn = current_turn(state)
    if turn is None or str(turn["pid"]) != pid:
        return
    try:
        budget = action_budget(state).spend(COSTS[action] if cost is None else cost, what)
    except pf2e_turn.NotEnoughActions as exc:
        error = CombatError(
            N_("%(action)s costs %(cost)d action(s); %(left)d left this turn."), **exc.params
        )
        raise (error.at("actions") if cost is not None else error) from None
    state[BUDGET_KEY] = budget.as_json()


def _start_of_turn(state: State, pid: str, roller: Roller, report: Report) -> None:
    """A Sterbend figure's turn begins with its Genesungswurf."""
    f = pf2e_data(state["figures"][pid])
    before = _dying(f)
    if not before.dying:
        return
    result = pf2e.recovery_check(roller, before)
    _set_dying(f, result.after)
    report.changed.add(pid)
    report.involved.add(pid)
    if result.after.dead:
        msg = N_("%(name)s dies.")
    elif result.after.dying:
        msg = N_("%(name)s: Genesungswurf, still Sterbend %(value)d.")
    else:
        msg = N_("%(name)s: Genesungswurf, no longer Sterbend (unconscious at 0 TP).")
    entry = report.add(msg, [result.describe()], who={pid}, name=f["name"],
                       value=result.after.dying)  # fmt: skip
    entry.dice = [d.as_dict() for d in result.dice]


def _end_of_turn(state: State, pid: str, roller: Roller, report: Report) -> None:
    """Anhaltender Schaden with its Einfacher Wurf SG 15, then Verängstigt drops by 1."""
    f = pf2e_data(state["figures"][pid])
    for p in list(f.get("persistent", [])):
        if f.get("dead"):
            break
        result = pf2e.persistent_damage(roller, str(p["schaden"]), str(p.get("art", "")))
        if result.ended:
            f["persistent"].remove(p)
        msg = (
            N_("End of turn of %(name)s: %(damage)d persistent damage, which ends.")
            if result.ended
            else N_("End of turn of %(name)s: %(damage)d persistent damage, which goes on.")
        )
        entry = report.add(msg, result.describe(), who={pid}, name=f["name"],
                           damage=result.damage.total)  # fmt: skip
        entry.dice = [d.as_dict() for d in result.dice]
        report.involved.add(pid)
        _take_damage(state, pid, result.damage.total, report)
    conds = f.get("conditions", {})
    if conds.get("verängstigt"):
        conds["verängstigt"] = pf2e.frightened_after_turn(int(conds["verängstigt"]))
        if conds["verängstigt"] <= 0:
            del conds["verängstigt"]
        report.add(
            N_("End of turn of %(name)s: Verängstigt drops to %(value)d."),
            who={pid}, name=f["name"], value=conds.get("verängstigt", 0),
        )  # fmt: skip
        report.changed.add(pid)
        report.involved.add(pid)


def _strength_bonus(strike: PF2eStrikeData) -> tuple[Modifier, ...]:
    """A player character's Stärke on Strike damage; bestiary Strikes include it in the dice."""
    delivery = pf2e.Delivery(strike.get("lieferung", pf2e.Delivery.RANGED))
    bonus = pf2e.strength_damage_modifier(int(strike.get("staerke", 0)), delivery)
    return () if bonus is None else (bonus,)


class _StrikeOptions(TypedDict):
    """The Strike's keyword arguments to ``pf2e.strike`` and ``forecast_strike``."""

    attack_number: int
    agile: bool
    own_turn: bool
    distance_m: float | None
    range_increment_m: float | None
    extra: list[Modifier]
    damage_bonuses: tuple[Modifier, ...]


@dataclass(frozen=True, slots=True)
class _StrikeInputs:
    attack: Statistic
    damage: str
    attack_number: int
    own_turn: bool
    options: _StrikeOptions


def _strike_inputs(state: State, order: AttackOrder) -> _StrikeInputs:
    """What a Strike passes to the engine besides the roller, the RK and secrecy."""
    if order.attacker_id == order.target_id:
        raise CombatError(N_("A figure cannot attack itself."))
    a = pf2e_figure(state, order.attacker_id)
    pf2e_figure(state, order.target_id)
    if defeated(a):
        raise CombatError(N_("%(name)s cannot act now."), name=a["name"])
    strikes = a.get("angriffe", [])
    try:
        strike = strikes[int(order.params.get("strike", 0))]
    except (IndexError, ValueError):
        raise CombatError(N_("Choose one of the Strikes.")) from None
    own_turn, number = _attack_number(state, order.attacker_id)
    extra = _attack_penalties(a)
    try:
        if int(order.params.get("modifier", 0)):
            extra.append(Modifier("SL", "circumstance", int(order.params["modifier"])))
        distance = order.params.get("distance")
        ranged = bool(strike.get("fernkampf"))
        options: _StrikeOptions = {
            "attack_number": number,
            "agile": bool(strike.get("agil")),
            "own_turn": own_turn,
            "distance_m": float(distance) if ranged and distance not in (None, "") else None,
            "range_increment_m": float(strike.get("entfernung") or 0) or None if ranged else None,
            "extra": extra,
            "damage_bonuses": _strength_bonus(strike),
        }
    except ValueError as exc:
        raise CombatError(N_("Not possible: %(reason)s"), reason=str(exc)) from None
    attack = Statistic(strike["name"], (Modifier("Angriff", "untyped", int(strike["bonus"])),))
    return _StrikeInputs(attack, str(strike["schaden"]), number, own_turn, options)


#: What a Strike's forecast needs of a target whose values the caller may not know.
UNKNOWN_TARGET = ("RK", "TP")


def forecast(
    state: State, order: AttackOrder, settings: Settings, *, unknown: Unknown, defends: bool | None
) -> Forecast:
    """The exact odds of :func:`attack` with these inputs. Without the target's RK not even
    the attack roll's chance is known (it is a roll against the RK); with the RK but not the
    TP the hit chance is, not what the damage does (issue 31)."""
    inputs = _strike_inputs(state, order)
    if "rk" in unknown:
        return Forecast(None, None, unknown.labels(UNKNOWN_TARGET))
    t = pf2e_figure(state, order.target_id)
    try:
        outcome = pf2e_forecast.forecast_strike(
            inputs.attack, effective_ac(t), inputs.damage, target_hp=int(t["hp"]),
            target_dies_at_zero=bool(t.get("npc")), **inputs.options,
        )  # fmt: skip
    except pf2e.Pf2eError as exc:
        raise CombatError(exc.message, **exc.params) from None
    except (ExpressionError, ValueError) as exc:
        raise CombatError(N_("Not possible: %(reason)s"), reason=str(exc)) from None
    if unknown:  # the hit chance does not depend on the TP; the rest does
        return Forecast(outcome.p_hit, None, unknown.labels(UNKNOWN_TARGET))
    return Forecast(outcome.p_hit, outcome, ())


def _sim_strikes(data: PF2eFigureData) -> tuple[pf2e_simulation.StrikeOption, ...]:
    """A figure's Strikes as :func:`_strike_inputs` builds them, for the simulation."""
    extra = _attack_penalties(data)
    out = []
    for s in data.get("angriffe", []):
        attack = Statistic(s["name"], (Modifier("Angriff", "untyped", int(s["bonus"])),))
        damage = parse(str(s["schaden"]))
        out.append(pf2e_simulation.StrikeOption(
            attack, damage, bool(s.get("agil")), tuple(extra), _strength_bonus(s)))  # fmt: skip
    return tuple(out)


def _sim_figure(f: PF2eFigureData) -> pf2e_simulation.Combatant:
    perception = _stat("Wahrnehmung", int(f["wahrnehmung"]), f)
    dying = _dying(f)
    return pf2e_simulation.Combatant(
        str(f["id"]), str(f["side"]), int(f["hp"]), effective_ac(f), perception,
        _sim_strikes(f), bool(f.get("npc")), dying.wounded, dying.doomed,
        dying.dying)  # fmt: skip


def simulate(figures: list[FigureData], settings: Settings, trials: Trials) -> RiskResult:
    """The fight between ``figures`` played as ``trials`` says (``app.rules.pf2e.simulation``)."""
    try:
        combatants = [_sim_figure(pf2e_data(f)) for f in figures]
        return pf2e_simulation.simulate(
            trials.roller, combatants, "abenteurer", trials.count, should_stop=trials.should_stop
        )
    except (ExpressionError, ValueError) as exc:
        raise CombatError(N_("Not possible: %(reason)s"), reason=str(exc)) from None


def rating(figures: list[FigureData]) -> BudgetRating | None:
    """The XP budget (``app.rules.pf2e.budget``): the Abenteurer side is the party, every
    other figure a creature; ``None`` without a party or without levels."""
    party = [f for f in figures if f["side"] == "abenteurer"]
    if not party or any("stufe" not in f for f in figures):
        return None
    others = [int(f["stufe"]) for f in figures if f["side"] != "abenteurer"]
    return pf2e_budget.rate([int(f["stufe"]) for f in party], others)


def attack(state: State, order: AttackOrder, play: Play, *, target_owner: int | None) -> None:
    """A Strike: MAP counted per turn of the attacker, range penalty, against the RK."""
    a, t = pf2e_figure(state, order.attacker_id), pf2e_figure(state, order.target_id)
    inputs = _strike_inputs(state, order)
    number, own_turn = inputs.attack_number, inputs.own_turn
    _spend(state, order.attacker_id, "attack", "Strike")
    try:
        result = pf2e.strike(
            play.roller, inputs.attack, effective_ac(t), inputs.damage,
            **inputs.options, secret=bool(order.params.get("secret", False)),
        )  # fmt: skip
    except pf2e.Pf2eError as exc:
        raise CombatError(exc.message, **exc.params) from None
    except (ExpressionError, ValueError) as exc:
        raise CombatError(N_("Not possible: %(reason)s"), reason=str(exc)) from None
    if own_turn:
        state["turn_actions"]["attacks"] = number
    play.report.involved |= {order.attacker_id, order.target_id}
    play.report.secret = play.report.secret or bool(order.params.get("secret", False))
    damage = result.damage_total
    play.report.changed.add(order.target_id)
    headline = (
        N_("%(attacker)s hits %(target)s: %(damage)d damage.")
        if result.hit
        else N_("%(attacker)s does not hit %(target)s.")
    )
    entry = play.report.add(
        headline, [result.describe()], attacker=a["name"], target=t["name"], damage=damage
    )
    entry.dice = [d.as_dict() for d in result.dice]
    _take_damage(state, order.target_id, damage, play.report, critical=result.critical)


@dataclass(frozen=True, slots=True)
class _Spell:
    """A spell as the caster names it, read and checked before anything is spent."""

    name: str
    cost: int
    target: str
    attack: int | None  # the spell attack modifier (a spell attack), else None
    save: str  # a save spell's save key ("" for a spell attack)
    dc: int
    basic: bool
    damage: str


def _spell_number(raw: object, field: str, low: int, high: int, default: int | None) -> int:
    text = str(raw if raw is not None else "").strip()
    if not text:
        if default is None:
            raise CombatError(N_("The caster has no Zauberangriff in the fight: enter it.")).at(
                field
            )
        return default
    try:
        value = int(text)
    except ValueError:
        raise CombatError(N_("Enter a number.")).at(field) from None
    if not low <= value <= high:
        raise CombatError(N_("Between %(low)d and %(high)d."), low=low, high=high).at(field)
    return value


def _spell_inputs(caster: PF2eFigureData, params: Mapping[str, Any]) -> _Spell:
    known = caster.get("zauberangriff")
    own = int(known) if known is not None else None
    damage = str(params.get("damage") or "").strip()
    if damage:
        try:
            parse(damage)
        except ExpressionError:
            raise CombatError(N_("Damage must be a dice expression such as 1W6+2.")).at(
                "damage"
            ) from None
    kind = str(params.get("kind") or "attack")
    if kind == "attack":
        if not damage:
            raise CombatError(N_("Give the spell's damage, e.g. 2W6.")).at("damage")
        bonus = _spell_number(params.get("attack_bonus"), "attack_bonus", -10, 60, own)
        return _Spell(str(params["spell"]), int(params["actions"]), str(params["target"]),
                      bonus, "", 0, False, damage)  # fmt: skip
    if kind != "save":
        raise CombatError(N_("A spell attack or a save.")).at("kind")
    save = str(params.get("save") or "reflex")
    if save not in SAVES:
        raise CombatError(N_("Choose Reflex, Wille or Zähigkeit.")).at("save")
    default_dc = pf2e_spells.spell_dc(own) if own is not None else None
    dc = _spell_number(params.get("dc"), "dc", 1, 60, default_dc)
    basic = bool(params.get("basic"))
    if damage and not basic:
        raise CombatError(
            N_("Only a basic save (einfacher Rettungswurf) deals damage by the degree.")
        ).at("basic")
    return _Spell(str(params["spell"]), int(params["actions"]), str(params["target"]), None,
                  save, dc, basic, damage)  # fmt: skip


def cast_spell(
    state: State, caster_id: str, params: Mapping[str, Any], roller: Roller, report: Report
) -> None:
    """A spell of 1–3 actions on one target (``app.rules.pf2e.spells``): a spell attack
    against the RK (the multiple attack penalty counts it) or a save against its DC, with
    damage by the degree for a basic save; the caster's turn pays its actions."""
    caster = pf2e_figure(state, caster_id)
    if defeated(caster):
        raise CombatError(N_("%(name)s cannot act now."), name=caster["name"])
    spell = _spell_inputs(caster, params)
    target = pf2e_figure(state, spell.target)
    _spend(state, caster_id, "cast_spell", spell.name, pf2e_spells.spell_cost(spell.cost))
    report.involved |= {caster_id, spell.target}
    report.changed.add(spell.target)
    if spell.attack is not None:
        _spell_attack(state, caster_id, spell, roller, report)
        return
    damage_roll = pf2e.roll_damage(roller, spell.damage) if spell.damage else None
    stat = _stat(SAVES[spell.save], stat_value(target, spell.save), target)
    res = pf2e.save_against(
        roller, stat, spell.dc, damage=damage_roll.total if damage_roll else None,
        dc_label="Zauber-SG",
    )  # fmt: skip
    details = [damage_roll.describe()] if damage_roll else []
    headline = (
        N_("%(caster)s casts %(spell)s (%(cost)d action(s)): %(target)s, %(check)s – "
           "%(outcome)s, %(damage)d damage.")
        if spell.basic
        else N_("%(caster)s casts %(spell)s (%(cost)d action(s)): %(target)s, %(check)s – "
                "%(outcome)s.")
    )  # fmt: skip
    entry = report.add(
        headline, [*details, res.describe()], caster=caster["name"], spell=spell.name,
        cost=spell.cost, target=target["name"], check=SAVE_CHECKS[spell.save],
        outcome=res.degree.label, damage=res.damage_taken or 0,
    )  # fmt: skip
    entry.dice = [d.as_dict() for d in (*(damage_roll.dice if damage_roll else ()), *res.dice)]
    critical = res.degree is pf2e.Degree.CRITICAL_FAILURE
    _take_damage(state, spell.target, res.damage_taken or 0, report, critical=critical)


def _spell_attack(
    state: State, caster_id: str, spell: _Spell, roller: Roller, report: Report
) -> None:
    caster, target = pf2e_figure(state, caster_id), pf2e_figure(state, spell.target)
    own_turn, number = _attack_number(state, caster_id)
    extra = _attack_penalties(caster)
    assert spell.attack is not None
    result = pf2e_spells.spell_attack(
        roller, spell.attack, effective_ac(target), spell.damage, attack_number=number,
        own_turn=own_turn, extra=extra,
    )  # fmt: skip
    if own_turn:
        state["turn_actions"]["attacks"] = number
    headline = (
        N_("%(caster)s casts %(spell)s (%(cost)d action(s)) and hits %(target)s: "
           "%(damage)d damage.")
        if result.hit
        else N_("%(caster)s casts %(spell)s (%(cost)d action(s)) and misses %(target)s.")
    )  # fmt: skip
    entry = report.add(
        headline, [result.describe()], caster=caster["name"], spell=spell.name,
        cost=spell.cost, target=target["name"], damage=result.damage_total,
    )  # fmt: skip
    entry.dice = [d.as_dict() for d in result.dice]
    _take_damage(state, spell.target, result.damage_total, report, critical=result.critical)


def save(
    state: State,
    source_id: str | None,
    target_ids: list[str],
    params: Mapping[str, Any],
    roller: Roller,
    report: Report,
) -> None:
    """Saves of the targets against a DC; with ``damage`` an einfacher Rettungswurf.
    ``fortune``/``misfortune`` (Glück/Unglück, seed 002) count for every target; a secret
    save (``report.secret``) is a Verdeckter Wurf: the players see only that it happened."""
    kind = str(params.get("save", "reflex"))
    if kind not in SAVES:
        raise CombatError(N_("Choose Reflex, Wille or Zähigkeit."))
    try:
        dc = int(params.get("dc", 0))
    except ValueError:
        raise CombatError(N_("Enter a number.")) from None
    if not 1 <= dc <= 60:
        raise CombatError(N_("Enter a DC between 1 and 60."))
    if not target_ids:
        raise CombatError(N_("Choose at least one target."))
    damage_roll = None
    expression = str(params.get("damage") or "").strip()
    if expression:
        try:
            damage_roll = pf2e.roll_damage(roller, expression)
        except (ExpressionError, ValueError) as exc:
            raise CombatError(N_("Not possible: %(reason)s"), reason=str(exc)) from None
    source = {source_id} if source_id else set()
    entry = report.add(
        N_("%(save)s save against DC %(dc)d."),
        [damage_roll.describe()] if damage_roll else [],
        who=source,
        save=SAVES[kind],
        dc=dc,
    )
    entry.dice = [d.as_dict() for d in damage_roll.dice] if damage_roll else []
    for tid in target_ids:
        t = pf2e_figure(state, tid)
        stat = _stat(SAVES[kind], stat_value(t, kind), t)
        res = pf2e.save_against(
            roller,
            stat,
            dc,
            damage=damage_roll.total if damage_roll else None,
            dc_label=f"{SAVES[kind]}-SG",
            fortune=bool(params.get("fortune")),
            misfortune=bool(params.get("misfortune")),
            secret=report.secret,
        )
        report.changed.add(tid)
        report.involved.add(tid)
        entry = report.add(
            N_("%(name)s: %(check)s – %(outcome)s."),
            [res.describe()],
            who=source | {tid},
            name=t["name"],
            check=SAVE_CHECKS[kind],
            outcome=res.degree.label,
        )
        entry.dice = [d.as_dict() for d in res.dice]
        critical = res.degree is pf2e.Degree.CRITICAL_FAILURE
        _take_damage(state, tid, res.damage_taken or 0, report, critical=critical)


def area(state: State, actor: str, targets: list[str], source: AreaSource, play: Play) -> None:
    """An area with a save (a fireball): each figure in it rolls its save against the DC;
    with ``basic`` the damage (rolled once) by degree (critical success none, success half,
    failure full, critical failure double); without, only the degrees (the GM applies the
    effect)."""
    if source.kind != "save":
        raise unavailable()
    p = source.params
    kind = str(p.get("save") or "reflex")
    kind = SAVE_ALIASES.get(kind, kind)
    if kind not in SAVES:
        raise ValidationFailed({"save": _("Choose Reflex, Wille or Zähigkeit.")})
    try:
        dc = int(str(p.get("dc") or ""))
    except ValueError:
        raise ValidationFailed({"dc": _("Enter a DC between 1 and 60.")}) from None
    if not 1 <= dc <= 60:
        raise ValidationFailed({"dc": _("Enter a DC between 1 and 60.")})
    basic = str(p.get("basic", True)).lower() in ("1", "true", "on")
    damage = str(p.get("damage") or "").strip() if basic else ""
    if damage:
        try:
            parse(damage)
        except ExpressionError:
            raise ValidationFailed({"damage": _("Enter a dice expression such as 2W6.")}) from None
    params = {"save": kind, "dc": str(dc), "damage": damage}
    save(state, actor or None, targets, params, play.roller, play.report)


def respond(state: State, choice: str, play: Play) -> None:
    raise CombatError(N_("Nothing is waiting for an answer."))


def _persistent(cause: str) -> PersistentDamage:
    """``cause`` of Anhaltender Schaden: a dice expression, then the damage type (``2W6 Feuer``)."""
    expression, _, kind = (cause.strip() or "1W6").partition(" ")
    try:
        parse(expression)
    except ExpressionError:
        raise CombatError(N_("Damage must be a dice expression such as 1W6+2.")) from None
    return {"schaden": expression, "art": kind.strip()}


def add_condition(
    state: State, pid: str, key: str, play: Play, *, cause: str = "", value: int = 1
) -> None:
    """The GM gives a condition. Anhaltender Schaden of a type the figure already has
    replaces it; Kränkelnd keeps the SG given as ``cause`` for Würgen; for the other
    conditions with a value, a ``cause`` that is a number is the value (the form's «Value /
    cause» field: «Betäubt» with «2» is Betäubt 2)."""
    if key not in CONDITIONS:
        raise CombatError(N_("Unknown condition."))
    if key in VALUED and key != "kränkelnd" and cause.strip().isdigit():
        value = int(cause.strip())
    f = pf2e_figure(state, pid)
    if key == "anhaltender Schaden":
        new = _persistent(cause)
        f["persistent"] = [p for p in f["persistent"] if p.get("art") != new["art"]] + [new]
        label = _persistent_label(new)
    else:
        f["conditions"][key] = max(1, value) if key in VALUED else 1
        label = f"{key} {f['conditions'][key]}" if key in VALUED else key
        if key == "kränkelnd" and cause.strip().removeprefix("SG").strip().isdigit():
            f.setdefault("condition_dc", {})[key] = int(cause.strip().removeprefix("SG"))
        if key == "sterbend":
            _set_dying(f, _dying(f))
    play.report.changed.add(pid)
    play.report.involved.add(pid)
    play.report.add(N_("GM: %(name)s gets «%(condition)s»."), name=f["name"], condition=label)


def remove_condition(state: State, pid: str, key: str, report: Report) -> None:
    f = pf2e_figure(state, pid)
    if key.startswith("anhaltend"):
        kept = [p for p in f["persistent"] if _persistent_label(p) != key]
        f["persistent"] = kept if len(kept) < len(f["persistent"]) else []
    elif key == DEAD:
        f["dead"] = False
    else:
        f["conditions"].pop(key.split(" ")[0], None)
    report.changed.add(pid)
    report.involved.add(pid)
    report.add(N_("GM: «%(condition)s» of %(name)s removed."), name=f["name"], condition=key)


def adjust(state: State, pid: str, delta: int, reason: str, play: Play) -> None:
    """The GM's TP change: damage counts as damage (Sterbend), healing ends Sterbend."""
    f = pf2e_figure(state, pid)
    play.report.changed.add(pid)
    play.report.involved.add(pid)
    play.report.add(
        N_("GM: %(name)s %(delta)s TP (%(reason)s)."),
        name=f["name"],
        delta=f"{delta:+d}",
        reason=reason,
    )
    if delta < 0:
        _take_damage(state, pid, -delta, play.report)
        return
    f["hp"] = min(int(f["hp_max"]), int(f["hp"]) + delta)
    before = _dying(f)
    if before.dying and not f.get("dead"):
        after = pf2e.lose_dying(before)
        _set_dying(f, after)
        play.report.add(
            N_("%(name)s is no longer Sterbend."), [f"{before.describe()} → {after.describe()}"],
            who={pid}, name=f["name"],
        )  # fmt: skip


def shake_off(state: State, pid: str, key: str, play: Play) -> None:
    """Würgen (one action): a Zähigkeit save against Kränkelnd's SG lowers its value."""
    f = pf2e_figure(state, pid)
    value = int(f.get("conditions", {}).get("kränkelnd", 0))
    if key != "kränkelnd" or not value:
        raise CombatError(N_("%(name)s is not Kränkelnd."), name=f["name"])
    if defeated(f):
        raise CombatError(N_("%(name)s cannot act now."), name=f["name"])
    dc = f.get("condition_dc", {}).get("kränkelnd")
    if dc is None:
        raise CombatError(N_("The SG of Kränkelnd is not known: the GM gives it as the cause."))
    _spend(state, pid, "shake_off", "Würgen")
    result = pf2e.retch(play.roller, _stat("Zähigkeit", int(f["zaehigkeit"]), f), int(dc), value)
    if result.after:
        f["conditions"]["kränkelnd"] = result.after
    else:
        f["conditions"].pop("kränkelnd", None)
    play.report.changed.add(pid)
    play.report.involved.add(pid)
    entry = play.report.add(
        N_("%(name)s retches: Kränkelnd %(before)d → %(after)d."), [result.describe()],
        name=f["name"], before=result.before, after=result.after,
    )  # fmt: skip
    entry.dice = [d.as_dict() for d in result.check.dice]


def check(
    state: State, pid: str, skill: str, modifier: int, roller: Roller, report: Report,
    helpers: Sequence[str] = (),
) -> None:  # fmt: skip
    if helpers:
        raise unavailable()
    f = pf2e_figure(state, pid)
    key = {"wahrnehmung": "wahrnehmung", **{k: k for k in SAVES}}.get(skill.lower())
    if key is None:
        raise CombatError(N_("Unknown check."))
    label = "Wahrnehmung" if key == "wahrnehmung" else SAVES[key]
    extra = [Modifier("SL", "circumstance", modifier)] if modifier else []
    res = pf2e.roll_check(roller, _stat(label, stat_value(f, key), f), extra=extra,
                          secret=report.secret)  # fmt: skip
    report.involved.add(pid)
    entry = report.add(
        N_("%(name)s: %(check)s – %(outcome)s."),
        [res.describe()],
        name=f["name"],
        check=label,
        outcome=str(res.total),
    )
    entry.dice = [d.as_dict() for d in res.dice]


#: Figure condition → sheet field, for the conditions that outlast a fight (§9).
LASTING = {"verwundet": "wounded", "todgeweiht": "doomed"}


def sheet_state(data: FigureData) -> PF2eSheetState:
    """What the fight writes back to a PF2e sheet: HP, Verwundet, Todgeweiht, death."""
    fig = pf2e_data(data)
    conds = fig.get("conditions", {})
    return {
        "hp": int(fig["hp"]),
        "wounded": int(conds.get("verwundet", 0)),
        "doomed": int(conds.get("todgeweiht", 0)),
        "dead": bool(fig.get("dead", False)),
    }


def take_sheet_state(data: FigureData, values: Mapping[str, Any]) -> None:
    """The sheet is the truth: its HP, Verwundet, Todgeweiht and death replace the figure's
    («sterbend» and the fight's own conditions stay the fight's)."""
    fig = pf2e_data(data)
    if not values:
        return
    for key in ("hp", "hp_max"):
        if key in values:
            fig[key] = int(values[key])
    conds = fig.setdefault("conditions", {})
    for key, field in LASTING.items():
        if field in values:
            if int(values[field]):
                conds[key] = int(values[field])
            else:
                conds.pop(key, None)
    if "dead" in values:
        fig["dead"] = bool(values["dead"])


class Pf2eRules(Common):
    """Pathfinder 2e (registered in ``app.encounters.systems``)."""

    name = "pf2e"
    conditions = CONDITIONS
    condition_names = CONDITION_NAMES
    partials = MappingProxyType(
        {
            "attack": "encounters/systems/pf2e/attack.html",
            "actions": "encounters/systems/pf2e/actions.html",
            "gm_tools": "encounters/systems/pf2e/gm_tools.html",
        }
    )
    default_check = "Wahrnehmung"
    check_names = ("Wahrnehmung", *SAVES.values())
    new_figure = staticmethod(new_figure)
    view = staticmethod(view)
    start = staticmethod(start)
    add_figure = staticmethod(add_figure)
    advance = staticmethod(advance)
    attack = staticmethod(attack)
    forecast = staticmethod(forecast)
    simulate = staticmethod(simulate)
    rating = staticmethod(rating)
    respond = staticmethod(respond)
    add_condition = staticmethod(add_condition)
    remove_condition = staticmethod(remove_condition)
    adjust = staticmethod(adjust)
    check = staticmethod(check)
    save = staticmethod(save)
    area = staticmethod(area)
    area_sources = frozenset({"save", "free"})
    shake_off = staticmethod(shake_off)
    sheet_state = staticmethod(sheet_state)
    take_sheet_state = staticmethod(take_sheet_state)
    stride = staticmethod(stride)
    react = staticmethod(react)
    cast_spell = staticmethod(cast_spell)

    def offers(self, data: FigureData) -> Offers:
        offers: Offers = {"strikes": list(data.get("angriffe", [])), "maneuvers": [], "spells": []}
        if data and defeated(pf2e_data(data)):
            # At 0 TP a figure is unconscious: a Sterbend one's turn is its Genesungswurf alone.
            offers["helpless"] = HELPLESS_DYING if _dying(pf2e_data(data)).dying else HELPLESS_AT_0
        return offers

    def turn_budget(self, state: State) -> Budget | None:
        if current_turn(state) is None:
            return None
        left = action_budget(state)
        pid = str(current_turn(state)["pid"])  # type: ignore[index]
        reaction = bool(state["figures"].get(pid, {}).get("reaction", True))
        return Budget(left.actions, left.total, left.symbols, COSTS, reaction=reaction)

    def spent(self, state: State) -> Spent:
        """The actions that cost more than the turn's budget has left."""
        return spent_by_budget(self.turn_budget(state))

    #: One square is 1.5 m (5 ft) in the German edition; diagonals alternate 1.5 and 3 m.
    metric = Metric("alternate", "m", Fraction(3, 2))

    def map_attack(self, state: State, attacker: str, target: str, line: AttackLine) -> MapAttack:
        """Per Strike: a melee Strike reaches the adjacent squares (or its Reichweite), a
        ranged one has its Malus für Entfernung per range increment (out of range past the
        sixth). The distance fills the attack form's field (its form has no cover)."""
        metres = float(line.distance)
        notes = []
        for strike in state.get("figures", {}).get(attacker, {}).get("angriffe", []):
            name = str(strike.get("name") or "Angriff")
            if not strike.get("fernkampf"):
                reach = float(strike.get("reichweite") or 0) or None
                reaches = pf2e_attacks.melee_reaches(metres, reach)
                limit = reach or pf2e_attacks.MELEE_REACH_M
                notes.append(RangeNote(name, 0 if reaches else None, limit))
                continue
            increment = float(strike.get("entfernung") or 0) or 1.5
            try:
                penalty: int | None = pf2e_attacks.range_penalty(metres, increment)
            except pf2e.OutOfRange:
                penalty = None
            notes.append(RangeNote(name, penalty, 6 * increment))
        return MapAttack(tuple(notes), {"distance": f"{metres:g}"})

    def attack_range(
        self, state: State, attacker: str, params: Mapping[str, Any], found: MapAttack
    ) -> RangeNote | None:
        """The posted Strike's: its reach, or its range increments up to the sixth."""
        try:
            return found.ranges[int(params.get("strike", 0))]
        except (IndexError, ValueError):
            return None

    def movement_allowance(
        self, data: FigureData, stats: Mapping[str, Any], settings: Settings
    ) -> int:
        """Squares of one Stride: the Speed in metres (``geschwindigkeit``; 7.5 m when the
        stat block has none) over 1.5 m per square."""
        speed = Fraction(str(stats.get("geschwindigkeit", "7.5") or 0))
        return max(0, int(speed / self.metric.per_cell))


RULES = Pf2eRules()
