"""Dungeonslayers 4 in combat: a thin adapter from the JSON state to ``app.rules.ds4``.

Initiative order with the W20 Stechen kept for the whole combat and the surprise +10 in
round 1 (``roll_initiative``), Schlagen/Schießen/Zielzauber with the automatic Abwehr
(``attack``), Patzer effects, LK thresholds (``condition``).

One Aktion per turn (ds4.md §2): an attack, Aufstehen or picking up a dropped weapon
(``shake_off``). A weapon dropped on a Patzer must be picked up before the next attack of
that kind; an attack's Immersieg is logged as a line of its own (the target rolls no Abwehr).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from app.encounters.combat import (
    CombatError,
    Report,
    State,
    align_turn,
    current_turn,
    reset_turn_actions,
)
from app.encounters.state import FigureData
from app.encounters.systems.ds4_figures import (
    DS4FigureData,
    DS4SheetState,
    check_value,
    ds4_data,
    ds4_figure,
)
from app.encounters.systems.play import AttackOrder, Play, Trials
from app.encounters.systems.protocol import (
    AreaSource,
    AttackLine,
    Common,
    FigureView,
    Forecast,
    MapAttack,
    RangeNote,
    Settings,
    Spent,
    Unknown,
    unavailable,
)
from app.i18n import N_
from app.rules import ds4
from app.rules.dice import Roller
from app.rules.ds4 import combat as ds4_combat
from app.rules.ds4 import forecast as ds4_forecast
from app.rules.ds4 import simulation as ds4_simulation
from app.rules.ds4.named import ATTRIBUTES, KAMPFWERTE, TRAITS, check_names, named_check
from app.rules.grid import Metric
from app.rules.odds import BudgetRating, RiskResult

#: Values a figure may hold beyond those of the fight (stat block key → rule term).
CHECK_VALUES = {
    "koerper": "KÖR",
    "zaubern": "Zaubern",
    **{k: short for k, (_name, short) in {**ATTRIBUTES, **TRAITS}.items()},
}
CONDITIONS = ("liegend",)
DROPPED = "Waffe fallen gelassen"
CONDITION_NAMES = MappingProxyType({DROPPED: N_("weapon dropped")})
KINDS = {"schlagen": ds4.AttackKind.SCHLAGEN, "schiessen": ds4.AttackKind.SCHIESSEN,
         "zielzauber": ds4.AttackKind.ZIELZAUBER}  # fmt: skip


def new_figure(
    pid: str, name: str, side: str, stats: Mapping[str, Any], *, npc: bool, settings: Settings
) -> FigureData:
    return {
        "id": pid,
        "name": name,
        "side": side,
        "lk": int(stats["lk"]),
        "lk_max": int(stats["lk"]),
        "koerper": int(stats["koerper"]),
        "abwehr": int(stats["abwehr"]),
        "initiative": int(stats["initiative"]),
        "schlagen": int(stats["schlagen"]),
        "schiessen": int(stats["schiessen"]),
        "zielzauber": int(stats["zielzauber"]),
        "waffe": str(stats.get("waffe") or "Waffe"),
        "ga": int(stats.get("ga", 0)),
        "fernwaffe": str(stats.get("fernwaffe") or ""),
        "fern_ga": int(stats.get("fern_ga", 0)),
        "prone": False,
        "weapon_dropped": False,
        "conditions": [],
        # The values the block holds beyond the fight's own, for the GM's checks.
        **{k: int(stats[k]) for k in CHECK_VALUES if stats.get(k) is not None},
    }


def _condition(data: DS4FigureData) -> ds4.Condition:
    return ds4.condition(int(data["lk"]), int(data["koerper"]))


def _status(data: DS4FigureData) -> tuple[str, str]:
    cond = _condition(data)
    if cond is ds4.Condition.DEAD:
        return "dead", N_("dead")
    if cond is ds4.Condition.UNCONSCIOUS:
        return "down", N_("unconscious")
    if data["lk"] <= data["lk_max"] // 2:
        return "hurt", N_("badly hurt")
    if data["lk"] < data["lk_max"]:
        return "scratched", N_("hurt")
    return "fine", N_("unhurt")


def view(data: FigureData) -> FigureView:
    fig = ds4_data(data)
    conditions = ["liegend"] if fig.get("prone") else []
    if fig.get("weapon_dropped"):
        conditions.append(DROPPED)
    return {
        "status": _status(fig),
        "points": f"{fig['lk']}/{fig['lk_max']} LK",
        "health": (fig["lk"], fig["lk_max"]),
        "conditions": conditions,
        "extra": [f"Abwehr {fig['abwehr']}"],
        "initiative": fig["initiative"],
        "out": _condition(fig) is not ds4.Condition.OK,
    }


def defeated(data: DS4FigureData) -> bool:
    return _condition(data) is not ds4.Condition.OK


def _order(state: State, roller: Roller, report: Report) -> None:
    previous = current_turn(state)
    combatants = [
        ds4.InitiativeCombatant(pid, int(f["initiative"]), str(f["side"]))
        for pid, f in state["figures"].items()
        if _condition(ds4_data(f)) is not ds4.Condition.DEAD
    ]
    stored = {k: tuple(v) for k, v in state.get("initiative", {}).items()}
    result = ds4.roll_initiative(
        roller, combatants, stored, state.get("surprise"), round=int(state["round"])
    )
    state["initiative"] = {k: list(v) for k, v in result.tiebreaks.items()}
    state["order"] = [
        {"pid": e.id, "step": None, "init": e.initiative, "side": e.side, "tie": None}
        for e in result.order
    ]
    if result.rolls:
        names = {pid: f["name"] for pid, f in state["figures"].items()}
        for r in result.rolls:
            entry = report.add(
                N_("Stechen of %(name)s for equal initiative."),
                [r.roll.describe()],
                who={r.combatant_id},
                name=names[r.combatant_id],
            )
            entry.dice = [r.roll.as_dict()]
    align_turn(state, previous)
    report.order_changed = True


def start(state: State, play: Play) -> None:
    state["round"] = 1
    state["turn"] = 0
    surprise = play.settings.get("surprise") or None
    state["surprise"] = surprise if surprise in ("abenteurer", "gegner", "neutral") else None
    _order(state, play.roller, play.report)
    state["turn"] = 0
    play.report.add(N_("Combat starts: round %(round)d."), who=set(), round=1)
    if state["surprise"]:
        play.report.add(
            N_("Surprise: %(side)s get +10 on initiative in round 1."), who=set(),
            side=state["surprise"],
        )  # fmt: skip
    for t in state["order"]:
        play.report.add(
            N_("%(name)s: initiative %(value)s."),
            who={t["pid"]},
            name=state["figures"][t["pid"]]["name"],
            value=t["init"],
        )
    play.report.turn_changed = True


def add_figure(state: State, pid: str, roller: Roller, report: Report) -> None:
    _order(state, roller, report)


def advance(state: State, play: Play) -> None:
    state["turn"] += 1
    reset_turn_actions(state)
    play.report.turn_changed = True
    while state["turn"] < len(state["order"]):
        if not defeated(ds4_figure(state, state["order"][state["turn"]]["pid"])):
            return
        state["turn"] += 1
    play.report.add(N_("End of round %(round)d."), who=set(), round=state["round"])
    state["round"] += 1
    state["order"] = []
    _order(state, play.roller, play.report)
    state["turn"] = 0
    while state["turn"] < len(state["order"]) and defeated(
        ds4_figure(state, state["order"][state["turn"]]["pid"])
    ):
        state["turn"] += 1
    play.report.add(N_("Round %(round)d begins."), who=set(), round=state["round"])


def _fighter(data: DS4FigureData) -> ds4.Fighter:
    return ds4.Fighter(
        id=str(data["id"]),
        lebenskraft=int(data["lk"]),
        koerper=int(data["koerper"]),
        abwehr=int(data["abwehr"]),
        schlagen=int(data["schlagen"]),
        schiessen=int(data["schiessen"]),
        zielzauber=int(data["zielzauber"]),
        prone=bool(data.get("prone")),
        can_defend=_condition(data) is ds4.Condition.OK,
    )


def _weapon(data: DS4FigureData, kind: ds4.AttackKind) -> ds4.Weapon | None:
    """The weapon of an attack of ``kind``: its GA; none for a Zielzauber."""
    ranged = kind is ds4.AttackKind.SCHIESSEN
    ga = int(data["fern_ga"] if ranged else data["ga"])
    name = str(data["fernwaffe"] if ranged else data["waffe"]) or "Waffe"
    return None if kind is ds4.AttackKind.ZIELZAUBER else ds4.Weapon(
        id=name.lower(), wb=0, ga=ga, ranged=ranged)  # fmt: skip


def _attack_inputs(
    state: State, order: AttackOrder
) -> tuple[ds4.Fighter, ds4.Weapon | None, ds4.AttackKind, ds4.AttackModifiers]:
    """The attacker, weapon, kind and modifiers of an attack; refusals first."""
    if order.attacker_id == order.target_id:
        raise CombatError(N_("A figure cannot attack itself."))
    a, t = ds4_figure(state, order.attacker_id), ds4_figure(state, order.target_id)
    kind = KINDS.get(str(order.params.get("kind", "schlagen")))
    if kind is None:
        raise CombatError(N_("Choose Schlagen, Schießen or Zielzauber."))
    if defeated(a):
        raise CombatError(N_("%(name)s cannot act now."), name=a["name"])
    _check_aktion(state, order.attacker_id)
    if kind is not ds4.AttackKind.ZIELZAUBER and a.get("weapon_dropped") in (True, kind.value):
        raise CombatError(
            N_("%(name)s dropped the weapon on a Patzer: pick it up first (an Aktion)."),
            name=a["name"],
        )
    if _condition(t) is ds4.Condition.DEAD:
        raise CombatError(N_("%(name)s is already dead."), name=t["name"])
    attacker = _fighter(a)
    if attacker.attack_value(kind) <= 0:
        raise CombatError(N_("%(name)s has no value for this attack."), name=a["name"])
    weapon = _weapon(a, kind)
    try:
        position = ds4.Position(str(order.params.get("position", "front")))
        distance = float(order.params.get("distance", 0) or 0)
    except ValueError:
        raise CombatError(N_("Not possible: %(reason)s"), reason="Position/Entfernung") from None
    extra: tuple[tuple[str, int], ...] = ()
    if int(order.params.get("modifier", 0)):
        extra = (("SL", int(order.params.get("modifier", 0))),)
    mods = ds4.AttackModifiers(
        distance_m=distance,
        adjacent=bool(order.params.get("adjacent", False)),
        position=position,
        extra=extra,
    )
    return attacker, weapon, kind, mods


AKTION_USED = N_("%(name)s has already used the Aktion of this turn.")
#: What the Aktion of the turn is spent on: the controls' actions refused once it is used.
AKTION_ACTIONS = frozenset(("attack", "shake_off"))


def _check_aktion(state: State, pid: str) -> None:
    """One Aktion per turn: a second one in the figure's own turn is refused."""
    turn = current_turn(state)
    if turn is not None and turn["pid"] == pid and state["turn_actions"].get("aktion"):
        raise CombatError(AKTION_USED, name=state["figures"][pid]["name"])


def spent(state: State) -> Spent:
    """The turn's Aktion used: the attack, Aufstehen and picking up the weapon are refused."""
    turn = current_turn(state)
    if turn is None or not (state.get("turn_actions") or {}).get("aktion"):
        return Spent()
    name = str(state["figures"][str(turn["pid"])].get("name", ""))
    return Spent(AKTION_ACTIONS, AKTION_USED, {"name": name})


def _use_aktion(state: State, pid: str) -> None:
    turn = current_turn(state)
    if turn is not None and turn["pid"] == pid:
        state["turn_actions"]["aktion"] = True


#: What an attack's forecast needs of a target whose values the caller may not know.
UNKNOWN_TARGET = ("Abwehr", "LK", "KÖR")


def forecast(
    state: State, order: AttackOrder, settings: Settings, *, unknown: Unknown, defends: bool | None
) -> Forecast:
    """The exact odds of :func:`attack` with these inputs (the Abwehr is automatic)."""
    attacker, weapon, kind, mods = _attack_inputs(state, order)
    p_attack = ds4_forecast.attack_success(attacker, kind, mods)
    if unknown:
        return Forecast(p_attack, None, unknown.labels(UNKNOWN_TARGET))
    target = _fighter(ds4_figure(state, order.target_id))
    return Forecast(
        p_attack, ds4_forecast.forecast_attack(attacker, target, weapon, kind, mods), ()
    )


def simulate(figures: list[FigureData], settings: Settings, trials: Trials) -> RiskResult:
    """The fight between ``figures`` played as ``trials`` says (``app.rules.ds4.simulation``)."""
    combatants = []
    for f in map(ds4_data, figures):
        fighter = _fighter(f)
        kind = ds4_simulation.best_attack(fighter)
        combatants.append(ds4_simulation.Combatant(
            fighter, str(f["side"]), int(f["initiative"]), kind, _weapon(f, kind)))  # fmt: skip
    surprise = settings.get("surprise") or None
    if surprise not in ("abenteurer", "gegner", "neutral"):
        surprise = None
    try:
        return ds4_simulation.simulate(
            trials.roller,
            combatants,
            "abenteurer",
            trials.count,
            surprise,
            should_stop=trials.should_stop,
        )
    except ValueError as exc:
        raise CombatError(N_("Not possible: %(reason)s"), reason=str(exc)) from None


def attack(state: State, order: AttackOrder, play: Play, *, target_owner: int | None) -> None:
    """Schlagen, Schießen or Zielzauber; the target's Abwehr is rolled automatically."""
    a, t = ds4_figure(state, order.attacker_id), ds4_figure(state, order.target_id)
    attacker, weapon, kind, mods = _attack_inputs(state, order)
    out = ds4.attack(play.roller, attacker, _fighter(t), weapon, kind, mods)
    play.report.involved |= {order.attacker_id, order.target_id}
    label = {"schlagen": "Schlagen", "schiessen": "Schießen", "zielzauber": "Zielzauber"}[
        kind.value
    ]
    details = [_check_text(label, out.attack)]
    if out.abwehr is not None:
        details.append(_check_text("Abwehr", out.abwehr))
    a["prone"] = out.attacker.prone
    t["lk"] = out.target.lebenskraft
    t["prone"] = out.target.prone
    play.report.changed |= {order.attacker_id, order.target_id}
    headline = (
        N_("%(attacker)s hits %(target)s: %(damage)d damage.")
        if out.hit
        else N_("%(attacker)s does not hit %(target)s.")
    )
    entry = play.report.add(
        headline, details, attacker=a["name"], target=t["name"], damage=out.damage
    )
    entry.dice = [r.roll.as_dict() for r in out.rolls]
    _effects(out, a, t, kind, play.report)
    state["turn_actions"]["attacks"] = int(state["turn_actions"].get("attacks", 0)) + 1
    _use_aktion(state, order.attacker_id)


def area(state: State, actor: str, targets: list[str], source: AreaSource, play: Play) -> None:
    """An area attack of ``actor`` (docs/rules/ds4.md, «Areas»: the seed has no area rule):
    each figure in it is attacked as by a single attack (its own attack roll) and defends
    with Abwehr; the whole area is one Aktion. ``attack_kind``: Schlagen (the default),
    Schießen or Zielzauber."""
    if source.kind != "attack":
        raise unavailable()
    _check_aktion(state, actor)
    try:
        modifier = int(str(source.params.get("modifier") or 0))
    except ValueError:
        raise CombatError(N_("Enter a number.")) from None
    kind = str(source.params.get("attack_kind") or "schlagen")
    params = {"kind": kind, "modifier": modifier}
    before = bool(state["turn_actions"].get("aktion"))
    for tid in targets:
        if tid == actor or _condition(ds4_figure(state, tid)) is ds4.Condition.DEAD:
            continue
        state["turn_actions"]["aktion"] = before
        play.report.involved = {actor, tid}
        attack(state, AttackOrder(actor, tid, params), play, target_owner=None)
    _use_aktion(state, actor)


def _effects(
    out: ds4.AttackOutcome, a: DS4FigureData, t: DS4FigureData, kind: ds4.AttackKind,
    report: Report,
) -> None:  # fmt: skip
    """Immersieg and Patzer effects and the target's LK threshold, one log line each."""

    def line(msg: str) -> None:
        report.add(msg, attacker=a["name"], target=t["name"])

    if out.unblockable:
        line(N_("Immersieg: %(target)s rolls no Abwehr against it."))
    if out.weapon_dropped or out.weapon_broken:
        a["weapon_dropped"] = kind.value
        line(
            N_("Patzer: %(attacker)s drops the weapon.")
            if out.weapon_dropped
            else N_("Patzer: the weapon of %(attacker)s breaks.")
        )
    if out.spell_dropped:
        line(N_("Patzer: the spell of %(attacker)s drops out of its slot."))
    if out.target_fell_prone:
        line(N_("Patzer on the Abwehr: %(target)s falls prone."))
    if out.target_dead:
        line(N_("%(target)s is dead."))
    elif out.target_unconscious:
        line(N_("%(target)s is unconscious."))


def _check_text(label: str, roll: ds4.CheckRoll) -> str:
    faces = ", ".join(map(str, roll.roll.faces))
    if roll.patzer:
        outcome = "Patzer"
    elif roll.immersieg:
        outcome = f"Immersieg, Ergebnis {roll.result}"
    elif roll.success:
        outcome = f"Erfolg, Ergebnis {roll.result}"
    else:
        outcome = "Misserfolg"
    return f"{label} PW {roll.pw}: W20 {faces} → {outcome}"


def respond(state: State, choice: str, play: Play) -> None:
    raise CombatError(N_("Nothing is waiting for an answer."))


def add_condition(
    state: State, pid: str, key: str, play: Play, *, cause: str = "", value: int = 1
) -> None:
    if key not in CONDITIONS:
        raise CombatError(N_("Unknown condition."))
    f = ds4_figure(state, pid)
    f["prone"] = True
    play.report.changed.add(pid)
    play.report.involved.add(pid)
    play.report.add(N_("GM: %(name)s gets «%(condition)s»."), name=f["name"], condition=key)


def remove_condition(state: State, pid: str, key: str, report: Report) -> None:
    f = ds4_figure(state, pid)
    if key == "liegend":
        f["prone"] = False
    if key == DROPPED:
        f["weapon_dropped"] = False
    report.changed.add(pid)
    report.involved.add(pid)
    report.add(N_("GM: «%(condition)s» of %(name)s removed."), name=f["name"], condition=key)


def adjust(state: State, pid: str, delta: int, reason: str, play: Play) -> None:
    f = ds4_figure(state, pid)
    f["lk"] = min(int(f["lk_max"]), int(f["lk"]) + delta) if delta > 0 else int(f["lk"]) + delta
    play.report.changed.add(pid)
    play.report.involved.add(pid)
    play.report.add(
        N_("GM: %(name)s %(delta)s LK (%(reason)s)."),
        name=f["name"],
        delta=f"{delta:+d}",
        reason=reason,
    )


def check(
    state: State, pid: str, skill: str, modifier: int, roller: Roller, report: Report,
    helpers: Sequence[str] = (),
) -> None:  # fmt: skip
    if helpers:
        raise unavailable()
    f = ds4_figure(state, pid)
    named = named_check(skill)
    if named is None:
        raise CombatError(
            N_("Unknown check: «%(check)s». DS4 knows an Attribut + Eigenschaft («GEI + VE») "
               "and the Kampfwerte (%(kampfwerte)s)."),
            check=skill, kampfwerte=", ".join(KAMPFWERTE.values()),
        )  # fmt: skip
    values = [check_value(f, k) for k in named.parts]
    missing = [k for k, v in zip(named.parts, values, strict=True) if v is None]
    if missing:
        raise CombatError(
            N_("The stat block of %(name)s holds no %(value)s: add it in the bestiary."),
            name=f["name"], value=CHECK_VALUES[missing[0]],
        )  # fmt: skip
    extra = [("SL", modifier)] if modifier else []
    roll = ds4.roll_check(roller, sum(v or 0 for v in values), modifiers=extra)
    report.involved.add(pid)
    entry = report.add(
        N_("%(name)s: %(check)s – %(outcome)s."),
        [_check_text(named.label, roll)],
        name=f["name"],
        check=named.label,
        outcome="Erfolg" if roll.success else "Misserfolg",
    )
    entry.dice = [roll.roll.as_dict()]


def shake_off(state: State, pid: str, key: str, play: Play) -> None:
    """Aufstehen or picking up the dropped weapon: the figure's Aktion of this turn."""
    f = ds4_figure(state, pid)
    if defeated(f):
        raise CombatError(N_("%(name)s cannot act now."), name=f["name"])
    if key == "liegend" and f.get("prone"):
        f["prone"] = False
        msg = N_("%(name)s stands up.")
    elif key == DROPPED and f.get("weapon_dropped"):
        f["weapon_dropped"] = False
        msg = N_("%(name)s picks up the weapon.")
    else:
        raise CombatError(N_("Nothing to do: %(name)s is not «%(condition)s»."),
                          name=f["name"], condition=key)  # fmt: skip
    _check_aktion(state, pid)
    _use_aktion(state, pid)
    play.report.changed.add(pid)
    play.report.involved.add(pid)
    play.report.add(msg, name=f["name"])


def sheet_state(data: FigureData) -> DS4SheetState:
    """What the fight writes back to a DS4 sheet: the current LK (unconscious and dead follow
    from them and Körper, on the sheet as in the fight)."""
    return {"lk": int(data["lk"])}


def take_sheet_state(data: FigureData, values: Mapping[str, Any]) -> None:
    """The sheet is the truth for the LK: its current and maximum values replace the figure's."""
    for key in ("lk", "lk_max"):
        if key in values:
            data[key] = int(values[key])


class Ds4Rules(Common):
    """Dungeonslayers 4 (registered in ``app.encounters.systems``)."""

    name = "ds4"
    conditions = CONDITIONS
    condition_names = CONDITION_NAMES
    partials = MappingProxyType(
        {
            "attack": "encounters/systems/ds4/attack.html",
            "actions": "encounters/systems/ds4/actions.html",
            "prepare": "encounters/systems/ds4/prepare.html",
        }
    )
    default_check = "Abwehr"
    check_names = check_names()
    new_figure = staticmethod(new_figure)
    view = staticmethod(view)
    start = staticmethod(start)
    add_figure = staticmethod(add_figure)
    advance = staticmethod(advance)
    attack = staticmethod(attack)
    area = staticmethod(area)
    area_sources = frozenset({"attack", "free"})
    forecast = staticmethod(forecast)
    simulate = staticmethod(simulate)
    respond = staticmethod(respond)
    add_condition = staticmethod(add_condition)
    remove_condition = staticmethod(remove_condition)
    adjust = staticmethod(adjust)
    check = staticmethod(check)
    shake_off = staticmethod(shake_off)
    sheet_state = staticmethod(sheet_state)
    take_sheet_state = staticmethod(take_sheet_state)
    spent = staticmethod(spent)

    def rating(self, figures: list[FigureData]) -> BudgetRating | None:
        """DS4 has no difficulty guideline beside the simulated risk."""
        return None

    #: One cell is 1 m; diagonals alternate 1 and 2 m (project decision, like PF2e's).
    metric = Metric("alternate", "m", Fraction(1))

    def movement_allowance(
        self, data: FigureData, stats: Mapping[str, Any], settings: Settings
    ) -> int:
        """Laufen in whole metres (cells); a negative Laufen counts as 0."""
        return int(ds4.reach(float(stats.get("laufen", 0) or 0)).laufen)

    def map_attack(self, state: State, attacker: str, target: str, line: AttackLine) -> MapAttack:
        """Schlagen reaches the neighbours; Schießen and Zielzauber −1 per full 10 m. The
        distance fills the attack form's field (DS4's form has no cover)."""
        metres = float(line.distance)
        return MapAttack(
            (
                RangeNote(
                    "Schlagen",
                    0 if ds4_combat.melee_reaches(metres) else None,
                    ds4_combat.MELEE_REACH_M,
                ),
                RangeNote("Schießen / Zielzauber", ds4_combat.distance_modifier(metres)),
            ),
            {"distance": _metres(line.distance)},
        )

    def attack_range(
        self, state: State, attacker: str, params: Mapping[str, Any], found: MapAttack
    ) -> RangeNote | None:
        """Schlagen needs an adjacent target; Schießen and Zielzauber have their distance
        modifier and no limit (ds4.md)."""
        melee = str(params.get("kind", "schlagen")) == "schlagen"
        return found.ranges[0] if melee else found.ranges[1]


def _metres(value: Fraction) -> str:
    """A distance for a form field: whole metres without a decimal point."""
    return str(int(value)) if value.denominator == 1 else f"{float(value):g}"


RULES = Ds4Rules()
