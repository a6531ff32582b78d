"""Kampfmanöver (hh.md §6.8): Kampfkunst (waffenlos) against Kampfkunst (waffenlos)."""

from __future__ import annotations

from dataclasses import dataclass

from app.rules.dice import Roller
from app.rules.hh.life import Log, Outcome, _apply_condition
from app.rules.hh.modifiers import Breakdown, Part, breakdown
from app.rules.hh.opposed import OpposedResult, evaluate_opposed
from app.rules.hh.options import DEFAULT_OPTIONS, RuleOptions
from app.rules.hh.probe import ProbeResult, roll_probe
from app.rules.hh.state import Change, Figure, Zustand, size_rank
from app.rules.keyed import by_key

SKILL = "Kampfkunst (waffenlos)"


@dataclass(frozen=True, slots=True)
class Maneuver:
    key: str
    name: str
    modifier: int
    #: Target may be at most this many size categories larger than the attacker.
    max_size_diff: int
    condition: str = ""
    push: int = 0
    text: str = ""


MANEUVERS: dict[str, Maneuver] = by_key(
    Maneuver(
        "entwaffnen",
        "Entwaffnen",
        -2,
        99,
        text="Waffe aus der Hand geschlagen; NSCs −2 auf Angriff und Schaden. Nur gegen "
        "humanoide Gegner mit Waffen.",
    ),
    Maneuver("festsetzen", "Festsetzen", 0, 1, "benommen", text="Im Griff, «benommen»."),
    Maneuver("mitzerren", "Mitzerren", -2, 0, text="Im Griff; mit halber Bewegung mitziehen."),
    Maneuver("umreissen", "Umreissen", 0, 0, "niedergeworfen", text="«niedergeworfen»."),
    Maneuver("wegstossen", "Wegstossen", 0, 0, push=2, text="2 Schritt nach hinten."),
)


def maneuver_allowed(
    key: str, attacker_size: str, target_size: str, *, humanoid_armed: bool = True
) -> bool:
    """Size limits: Festsetzen ≤ one category larger, Mitzerren/Umreissen/Wegstossen not
    larger; Entwaffnen only against humanoid opponents using weapons."""
    m = MANEUVERS[key]
    if key == "entwaffnen" and not humanoid_armed:
        return False
    return size_rank(target_size) - size_rank(attacker_size) <= m.max_size_diff


@dataclass(frozen=True, slots=True)
class ManeuverResult:
    maneuver: Maneuver
    attack: ProbeResult
    defence: ProbeResult | None
    comparison: OpposedResult | None
    success: bool
    attacker: Figure
    defender: Figure
    outcome: Outcome
    #: The targets of the two Probes with each modifier (the one modifier path).
    attack_target: Breakdown | None = None
    defence_target: Breakdown | None = None


def resolve_maneuver(
    roller: Roller,
    attacker: Figure,
    defender: Figure,
    key: str,
    options: RuleOptions = DEFAULT_OPTIONS,
    *,
    modifier: int = 0,
    defend: bool = True,
    humanoid_armed: bool = True,
) -> ManeuverResult:
    """Roll a Kampfmanöver; the defender defends with a reaction if it can (project
    decision: like an attack, undefended it succeeds on a successful Probe; no crit tables)."""
    m = MANEUVERS[key]
    if not maneuver_allowed(key, attacker.size, defender.size, humanoid_armed=humanoid_armed):
        raise ValueError(f"«{m.name}» is not possible against this target")
    log = Log()
    a_target = breakdown(
        attacker, SKILL, "attack", (Part(m.name, m.modifier), Part("Modifikator", modifier))
    )
    attack = roll_probe(roller, *a_target.probe_args())
    log.rolls.extend(attack.rolls)
    defence = comparison = d_target = None
    success = attack.success
    if success and defend and defender.can_react:
        log.add(Change(defender.id, "reactions", -1, detail="Verteidigung"))
        defender = defender.evolve(reactions_left=defender.reactions_left - 1)
        d_target = breakdown(defender, SKILL, "defence")
        defence = roll_probe(roller, *d_target.probe_args())
        log.rolls.extend(defence.rolls)
        comparison = evaluate_opposed(attack, defence)
        success = comparison.winner == "attacker"
    if success:
        if key == "entwaffnen":
            log.add(Change(defender.id, "disarmed", detail="Entwaffnen"))
        if key in ("festsetzen", "mitzerren"):
            log.add(Change(defender.id, "grappled", detail=m.name))
        if key == "mitzerren":
            log.add(Change(defender.id, "moved", attacker.bewegung // 2, detail="Mitzerren"))
        if m.push:
            log.add(Change(defender.id, "moved", m.push, detail=m.name))
        if m.condition:
            defender = _apply_condition(
                roller, defender, Zustand(m.condition), options, log, "normal", set()
            )
    return ManeuverResult(
        m, attack, defence, comparison, success, attacker, defender, log.outcome(defender),
        a_target, d_target,
    )  # fmt: skip
