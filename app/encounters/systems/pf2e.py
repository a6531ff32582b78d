"""Pathfinder 2e in combat: a thin adapter from the JSON state to ``app.rules.pf2e``.

Initiative by Wahrnehmung with adversaries winning ties (``roll_initiative``), Strikes with
MAP and range penalty against RK (``strike``), saves against a DC with einfacher
Rettungswurf damage (``save_against``), Verdeckte Würfe (``roll_check(secret=True)``),
persistent damage at the end of a turn with its DC 15 Einfacher Wurf.

Conditions (project decisions, as the rules state them): Verängstigt N and Kränkelnd N are
status penalties on every check and DC (Verängstigt drops by 1 at the end of the
creature's turn); Unvorbereitet −2 circumstance on RK; Liegend −2 circumstance on attack
rolls and Unvorbereitet.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from app.encounters.combat import (
    CombatError,
    Report,
    State,
    current_turn,
    figure,
    reset_turn_actions,
)
from app.encounters.systems.protocol import Common, Forecast, Offers
from app.i18n import N_
from app.rules import pf2e
from app.rules.dice import Roller
from app.rules.expression import ExpressionError, parse
from app.rules.grid import Metric
from app.rules.pf2e import Modifier, Statistic
from app.rules.pf2e import forecast as pf2e_forecast

CONDITIONS = ("verängstigt", "kränkelnd", "unvorbereitet", "liegend", "anhaltender Schaden")
VALUED = ("verängstigt", "kränkelnd")
SAVES = {"reflex": "Reflex", "wille": "Wille", "zaehigkeit": "Zähigkeit"}
PERSISTENT_DC = 15


def new_figure(
    pid: str, name: str, side: str, stats: dict[str, Any], *, npc: bool, settings: dict[str, Any]
) -> dict[str, Any]:
    return {
        "id": pid,
        "name": name,
        "side": side,
        "npc": npc,
        "hp": int(stats["tp"]),
        "hp_max": int(stats["tp"]),
        "rk": int(stats["rk"]),
        "wahrnehmung": int(stats["wahrnehmung"]),
        "reflex": int(stats["reflex"]),
        "wille": int(stats["wille"]),
        "zaehigkeit": int(stats["zaehigkeit"]),
        "angriffe": list(stats.get("angriffe", [])),
        "conditions": {},
        "persistent": [],
    }


def _status(data: dict[str, Any]) -> tuple[str, str]:
    if data["hp"] <= 0:
        return ("dead", "besiegt") if data.get("npc") else ("down", "bewusstlos")
    if data["hp"] <= data["hp_max"] // 2:
        return "hurt", "schwer verletzt"
    if data["hp"] < data["hp_max"]:
        return "scratched", "verletzt"
    return "fine", "unverletzt"


def view(data: dict[str, Any]) -> dict[str, Any]:
    conds = [
        f"{k} {v}" if k in VALUED else k for k, v in sorted(data.get("conditions", {}).items())
    ]
    conds += [f"anhaltend {p['schaden']} {p.get('art', '')}".strip() for p in data["persistent"]]
    return {
        "status": _status(data),
        "points": f"{data['hp']}/{data['hp_max']} TP",
        "conditions": conds,
        "extra": [f"RK {effective_ac(data)}"],
        "initiative": data.get("init_result"),
        "out": data["hp"] <= 0,
    }


def defeated(data: dict[str, Any]) -> bool:
    return int(data["hp"]) <= 0


def _status_penalties(data: dict[str, Any]) -> list[Modifier]:
    out: list[Modifier] = []
    conds = data.get("conditions", {})
    if conds.get("verängstigt"):
        out.append(Modifier("Verängstigt", "status", -int(conds["verängstigt"])))
    if conds.get("kränkelnd"):
        out.append(Modifier("Kränkelnd", "status", -int(conds["kränkelnd"])))
    return out


def effective_ac(data: dict[str, Any]) -> int:
    mods = _status_penalties(data)
    conds = data.get("conditions", {})
    if conds.get("unvorbereitet") or conds.get("liegend"):
        mods.append(Modifier("Unvorbereitet", "circumstance", -2))
    return int(data["rk"]) + pf2e.total_modifier(mods)


def _stat(name: str, value: int, data: dict[str, Any]) -> Statistic:
    return Statistic(name, (Modifier("Werteblock", "untyped", value), *_status_penalties(data)))


def start(state: State, roller: Roller, report: Report, settings: dict[str, Any]) -> None:
    state["round"] = 1
    state["turn"] = 0
    combatants = [
        pf2e.Combatant(
            pid,
            f["name"],
            pf2e.Side.ADVERSARY if f["side"] != "abenteurer" else pf2e.Side.ADVENTURER,
            _stat("Wahrnehmung", int(f["wahrnehmung"]), f),
        )
        for pid, f in state["figures"].items()
    ]
    order = pf2e.roll_initiative(roller, combatants)
    _store_order(state, order)
    report.add(N_("Combat starts: round %(round)d."), who=set(), round=1)
    for e in order:
        entry = report.add(
            N_("%(name)s: initiative %(value)s."),
            [e.check.describe()],
            who={e.combatant.id},
            name=e.combatant.name,
            value=e.result,
        )
        entry.dice = [d.as_dict() for d in e.dice]
    report.order_changed = report.turn_changed = True


def _store_order(state: State, order: list[pf2e.InitiativeEntry]) -> None:
    state["order"] = [
        {
            "pid": e.combatant.id,
            "step": None,
            "init": e.result,
            "side": str(state["figures"][e.combatant.id]["side"]),
            "tie": f"{e.result}:{e.combatant.side.value}",
        }
        for e in order
    ]
    for e in order:
        state["figures"][e.combatant.id]["init_result"] = e.result


def add_figure(state: State, pid: str, roller: Roller, report: Report) -> None:
    f = state["figures"][pid]
    side = pf2e.Side.ADVERSARY if f["side"] != "abenteurer" else pf2e.Side.ADVENTURER
    check = pf2e.roll_check(roller, _stat("Wahrnehmung", int(f["wahrnehmung"]), f))
    f["init_result"] = check.total
    entry = {"pid": pid, "step": None, "init": check.total, "side": f["side"],
             "tie": f"{check.total}:{side.value}"}  # fmt: skip
    order: list[dict[str, Any]] = state["order"]
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


def advance(state: State, roller: Roller, report: Report, settings: dict[str, Any]) -> None:
    turn = current_turn(state)
    if turn is not None:
        _end_of_turn(state, str(turn["pid"]), roller, report)
    state["turn"] += 1
    reset_turn_actions(state)
    report.turn_changed = True
    while True:
        while state["turn"] < len(state["order"]):
            if not defeated(state["figures"][state["order"][state["turn"]]["pid"]]):
                return
            state["turn"] += 1
        if all(defeated(f) for f in state["figures"].values()):
            return
        report.add(N_("End of round %(round)d."), who=set(), round=state["round"])
        state["round"] += 1
        state["turn"] = 0
        report.add(N_("Round %(round)d begins."), who=set(), round=state["round"])


def _end_of_turn(state: State, pid: str, roller: Roller, report: Report) -> None:
    f = state["figures"][pid]
    conds = f.get("conditions", {})
    details: list[str] = []
    dice: list[dict[str, Any]] = []
    for p in list(f.get("persistent", [])):
        dmg = pf2e.roll_damage(roller, str(p["schaden"]))
        f["hp"] = max(0, int(f["hp"]) - dmg.total)
        details.append(f"Anhaltender Schaden {p.get('art', '')}: {dmg.describe()}".strip())
        dice += [d.as_dict() for d in dmg.dice]
        flat = pf2e.roll_flat_check(roller, PERSISTENT_DC)
        dice += [d.as_dict() for d in flat.dice]
        details.append(f"Einfacher Wurf SG {PERSISTENT_DC}: {flat.outcome_label}")
        if flat.success:
            f["persistent"].remove(p)
    if conds.get("verängstigt"):
        conds["verängstigt"] = int(conds["verängstigt"]) - 1
        details.append(f"Verängstigt sinkt auf {conds['verängstigt']}")
        if conds["verängstigt"] <= 0:
            del conds["verängstigt"]
    if details:
        entry = report.add(N_("End of turn of %(name)s."), details, who={pid}, name=f["name"])
        entry.dice = dice
        report.changed.add(pid)
        report.involved.add(pid)


def _strength_bonus(strike: dict[str, Any]) -> tuple[Modifier, ...]:
    """A player character's Stärke on Strike damage; bestiary Strikes include it in the dice."""
    delivery = pf2e.Delivery(strike.get("lieferung", pf2e.Delivery.RANGED))
    bonus = pf2e.strength_damage_modifier(int(strike.get("staerke", 0)), delivery)
    return () if bonus is None else (bonus,)


@dataclass(frozen=True, slots=True)
class _StrikeInputs:
    attack: Statistic
    damage: str
    attack_number: int
    own_turn: bool
    options: dict[str, Any]


def _strike_inputs(
    state: State, attacker_id: str, target_id: str, params: dict[str, Any]
) -> _StrikeInputs:
    """What a Strike passes to the engine besides the roller, the RK and secrecy."""
    if attacker_id == target_id:
        raise CombatError(N_("A figure cannot attack itself."))
    a = figure(state, attacker_id)
    figure(state, target_id)
    if defeated(a):
        raise CombatError(N_("%(name)s cannot act now."), name=a["name"])
    strikes = a.get("angriffe", [])
    try:
        strike = strikes[int(params.get("strike", 0))]
    except (IndexError, ValueError):
        raise CombatError(N_("Choose one of the Strikes.")) from None
    turn = current_turn(state)
    own_turn = turn is not None and turn["pid"] == attacker_id
    number = int(state["turn_actions"].get("attacks", 0)) + 1 if own_turn else 1
    extra = list(_status_penalties(a))
    if a.get("conditions", {}).get("liegend"):
        extra.append(Modifier("Liegend", "circumstance", -2))
    try:
        if int(params.get("modifier", 0)):
            extra.append(Modifier("SL", "circumstance", int(params["modifier"])))
        distance = params.get("distance")
        ranged = bool(strike.get("fernkampf"))
        options: dict[str, Any] = {
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
    state: State,
    attacker_id: str,
    target_id: str,
    params: dict[str, Any],
    settings: dict[str, Any],
    *,
    known: bool,
    defends: bool | None,
) -> Forecast:
    """The exact odds of :func:`attack` with these inputs. Without the target's RK not even
    the attack roll's chance is known (it is a roll against the RK)."""
    inputs = _strike_inputs(state, attacker_id, target_id, params)
    if not known:
        return Forecast(None, None, UNKNOWN_TARGET)
    t = figure(state, target_id)
    try:
        outcome = pf2e_forecast.forecast_strike(
            inputs.attack, effective_ac(t), inputs.damage, target_hp=int(t["hp"]),
            target_dies_at_zero=bool(t.get("npc")), **inputs.options,
        )  # fmt: skip
    except pf2e.Pf2eError as exc:
        raise CombatError(exc.message, **exc.params) from None
    except (ExpressionError, ValueError) as exc:
        raise CombatError(N_("Not possible: %(reason)s"), reason=str(exc)) from None
    return Forecast(outcome.p_hit, outcome, ())


def attack(
    state: State,
    attacker_id: str,
    target_id: str,
    params: dict[str, Any],
    roller: Roller,
    report: Report,
    settings: dict[str, Any],
    *,
    target_owner: int | None,
) -> None:
    """A Strike: MAP counted per turn of the attacker, range penalty, against the RK."""
    a, t = figure(state, attacker_id), figure(state, target_id)
    inputs = _strike_inputs(state, attacker_id, target_id, params)
    number, own_turn = inputs.attack_number, inputs.own_turn
    try:
        result = pf2e.strike(
            roller, inputs.attack, effective_ac(t), inputs.damage,
            **inputs.options, secret=bool(params.get("secret", False)),
        )  # fmt: skip
    except pf2e.Pf2eError as exc:
        raise CombatError(exc.message, **exc.params) from None
    except (ExpressionError, ValueError) as exc:
        raise CombatError(N_("Not possible: %(reason)s"), reason=str(exc)) from None
    if own_turn:
        state["turn_actions"]["attacks"] = number
    report.involved |= {attacker_id, target_id}
    report.secret = report.secret or bool(params.get("secret", False))
    damage = result.damage_total
    t["hp"] = max(0, int(t["hp"]) - damage)
    report.changed.add(target_id)
    details = [result.describe()]
    if t["hp"] <= 0:
        details.append(f"{t['name']}: {_status(t)[1]}")
    headline = (
        N_("%(attacker)s hits %(target)s: %(damage)d damage.")
        if result.hit
        else N_("%(attacker)s does not hit %(target)s.")
    )
    entry = report.add(headline, details, attacker=a["name"], target=t["name"], damage=damage)
    entry.dice = [d.as_dict() for d in result.dice]


def save(
    state: State,
    source_id: str | None,
    target_ids: list[str],
    params: dict[str, Any],
    roller: Roller,
    report: Report,
) -> None:
    """Saves of the targets against a DC; with ``damage`` an einfacher Rettungswurf."""
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
        t = figure(state, tid)
        stat = _stat(SAVES[kind], int(t[kind]), t)
        res = pf2e.save_against(
            roller,
            stat,
            dc,
            damage=damage_roll.total if damage_roll else None,
            dc_label=f"{SAVES[kind]}-SG",
        )
        if res.damage_taken:
            t["hp"] = max(0, int(t["hp"]) - res.damage_taken)
        report.changed.add(tid)
        report.involved.add(tid)
        entry = report.add(
            N_("%(name)s: %(check)s – %(outcome)s."),
            [res.describe()],
            who=source | {tid},
            name=t["name"],
            check=f"{SAVES[kind]}-Rettungswurf",
            outcome=res.degree.label,
        )
        entry.dice = [d.as_dict() for d in res.dice]


def respond(
    state: State, choice: str, roller: Roller, report: Report, settings: dict[str, Any]
) -> None:
    raise CombatError(N_("Nothing is waiting for an answer."))


def add_condition(
    state: State, pid: str, key: str, roller: Roller, report: Report, settings: dict[str, Any],
    *, cause: str = "", value: int = 1,
) -> None:  # fmt: skip
    if key not in CONDITIONS:
        raise CombatError(N_("Unknown condition."))
    f = figure(state, pid)
    if key == "anhaltender Schaden":
        try:
            parse(cause or "1W6")
        except ExpressionError:
            raise CombatError(N_("Damage must be a dice expression such as 1W6+2.")) from None
        f["persistent"].append({"schaden": cause or "1W6", "art": ""})
        label = f"anhaltender Schaden {cause or '1W6'}"
    else:
        f["conditions"][key] = max(1, value) if key in VALUED else 1
        label = f"{key} {value}" if key in VALUED else key
    report.changed.add(pid)
    report.involved.add(pid)
    report.add(N_("GM: %(name)s gets «%(condition)s»."), name=f["name"], condition=label)


def remove_condition(state: State, pid: str, key: str, report: Report) -> None:
    f = figure(state, pid)
    if key.startswith("anhaltend"):
        f["persistent"] = []
    else:
        f["conditions"].pop(key.split(" ")[0], None)
    report.changed.add(pid)
    report.involved.add(pid)
    report.add(N_("GM: «%(condition)s» of %(name)s removed."), name=f["name"], condition=key)


def adjust(
    state: State, pid: str, delta: int, reason: str, roller: Roller, report: Report,
    settings: dict[str, Any],
) -> None:  # fmt: skip
    f = figure(state, pid)
    f["hp"] = max(0, min(int(f["hp_max"]), int(f["hp"]) + delta))
    report.changed.add(pid)
    report.involved.add(pid)
    report.add(
        N_("GM: %(name)s %(delta)s TP (%(reason)s)."),
        name=f["name"],
        delta=f"{delta:+d}",
        reason=reason,
    )


def check(
    state: State, pid: str, skill: str, modifier: int, roller: Roller, report: Report
) -> None:
    f = figure(state, pid)
    key = {"wahrnehmung": "wahrnehmung", **{k: k for k in SAVES}}.get(skill.lower())
    if key is None:
        raise CombatError(N_("Unknown check."))
    label = "Wahrnehmung" if key == "wahrnehmung" else SAVES[key]
    extra = [Modifier("SL", "circumstance", modifier)] if modifier else []
    res = pf2e.roll_check(roller, _stat(label, int(f[key]), f), extra=extra,
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


class Pf2eRules(Common):
    """Pathfinder 2e (registered in ``app.encounters.systems``)."""

    name = "pf2e"
    conditions = CONDITIONS
    actions = frozenset(("save",))
    partials = MappingProxyType(
        {
            "attack": "encounters/systems/pf2e/attack.html",
            "gm_tools": "encounters/systems/pf2e/gm_tools.html",
        }
    )
    default_check = "Wahrnehmung"
    new_figure = staticmethod(new_figure)
    view = staticmethod(view)
    start = staticmethod(start)
    add_figure = staticmethod(add_figure)
    advance = staticmethod(advance)
    attack = staticmethod(attack)
    forecast = staticmethod(forecast)
    respond = staticmethod(respond)
    add_condition = staticmethod(add_condition)
    remove_condition = staticmethod(remove_condition)
    adjust = staticmethod(adjust)
    check = staticmethod(check)
    save = staticmethod(save)

    def offers(self, data: dict[str, Any]) -> Offers:
        return {"strikes": list(data.get("angriffe", [])), "maneuvers": [], "spells": []}

    #: One square is 1.5 m (5 ft) in the German edition; diagonals alternate 1.5 and 3 m.
    metric = Metric("alternate", "m", Fraction(3, 2))

    def movement_allowance(
        self, data: dict[str, Any], stats: dict[str, Any], settings: dict[str, Any]
    ) -> int:
        """Squares of one Stride: the Speed in metres (``geschwindigkeit``; 7.5 m when the
        stat block has none) over 1.5 m per square."""
        speed = Fraction(str(stats.get("geschwindigkeit", "7.5") or 0))
        return max(0, int(speed / self.metric.per_cell))


RULES = Pf2eRules()
