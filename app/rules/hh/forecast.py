"""Exact odds of one H&H attack before anyone rolls (hh.md §6), by enumeration.

:func:`forecast_attack` walks the same steps as :func:`app.rules.hh.attack.resolve_attack`
and calls the same rule functions at every branch (Probe, Vergleich, Tabellen, Schaden per
die, resistances, death threshold), but over every face instead of one roll:

1. the attack Probe over its 100 face pairs, grouped into the ~30 outcomes that differ;
2. the defence Probe likewise (if the target defends: ``spec.defend`` and a reaction left);
3. every pair compared with :func:`evaluate_opposed`;
4. every table the pair triggers, over the 19 sums of 2W10;
5. the damage dice convolved per die (W + bonus − RS, never below 0), then resistance on
   the total; damage dice a table deals to the defender likewise.

Probabilities are exact: counts are integers over one common denominator, turned into
:class:`~fractions.Fraction` at the end. What the forecast leaves out is listed in
:data:`NOT_MODELLED` (the caller shows it as the forecast's assumptions).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import lcm

from app.rules.hh.attack import AttackSpec, attack_target, defence_target
from app.rules.hh.cover import aim_qs
from app.rules.hh.damage import (
    ELEMENTS,
    apply_resistance,
    damage_per_roll,
    effective_rs,
    elemental_kind,
    resistance_against,
)
from app.rules.hh.life import is_dead_at
from app.rules.hh.opposed import evaluate_opposed
from app.rules.hh.probe import SIDES, ProbeResult, evaluate_probe
from app.rules.hh.state import Figure
from app.rules.hh.tables import TableEntry, table_entry
from app.rules.odds import ActionForecast

#: What a forecast does not follow (the real attack may still do it).
NOT_MODELLED: tuple[str, ...] = (
    "living_cover",  # a stray hit on a covering figure needs that figure
    "counter_attack",  # a defence Volltreffer's counter-attack is the defender's own action
    "condition_escalation",  # damage from a condition applied while it is already active
    "luck",  # Glück spent after the roll (reroll, halve damage)
)

Dist = dict[int, int]  # value → count (over a denominator known to the caller)
Entries = tuple[TableEntry, ...]  # the table entries one attack rolled


@dataclass(frozen=True, slots=True)
class _Scenario:
    """Where the two Probes leave the attack: who wins, the QS, which tables are rolled."""

    attacker_wins: bool
    qs: int
    crit: bool
    tables: tuple[tuple[str, int], ...]


def probe_success(value: int, modifier: int) -> Fraction:
    """The exact chance that a Probe against ``value`` + ``modifier`` succeeds."""
    wins = sum(count for result, count in _probe_classes(value, modifier) if result.success)
    return Fraction(wins, SIDES**2)


def _classes(value: int, modifier: int) -> list[tuple[ProbeResult, int]]:
    """The distinct outcomes of a Probe over all 100 face pairs, with their counts."""
    return list(_probe_classes(value, modifier))


@lru_cache(maxsize=4096)
def _probe_classes(value: int, modifier: int) -> tuple[tuple[ProbeResult, int], ...]:
    groups: dict[tuple[int, bool, bool, bool, int], tuple[ProbeResult, int]] = {}
    for a in range(1, SIDES + 1):
        for b in range(1, SIDES + 1):
            result = evaluate_probe((a, b), value, modifier)
            key = (result.roll, result.success, result.volltreffer, result.patzer, result.qs)
            first, count = groups.get(key, (result, 0))
            groups[key] = (first, count + 1)
    return tuple(groups.values())


@lru_cache(maxsize=64)
def _two_w10_sums() -> tuple[tuple[int, int], ...]:
    counts = Counter(a + b for a in range(1, SIDES + 1) for b in range(1, SIDES + 1))
    return tuple(sorted(counts.items()))


@lru_cache(maxsize=1024)
def _table_dist(table: str, qs: int) -> tuple[tuple[TableEntry, int], ...]:
    """A table's entries over 2W10 − ``qs``, with counts out of 100."""
    counts: dict[str, tuple[TableEntry, int]] = {}
    for total, count in _two_w10_sums():
        entry = table_entry(table, total - qs)
        _, before = counts.get(entry.key, (entry, 0))
        counts[entry.key] = (entry, before + count)
    return tuple(counts.values())


def _convolve(a: Dist, b: Dist) -> Dist:
    out: Dist = {}
    for x, cx in a.items():
        for y, cy in b.items():
            out[x + y] = out.get(x + y, 0) + cx * cy
    return out


@lru_cache(maxsize=4096)
def _dice_sum(dice: int, sides: int, bonus: int, armour: int) -> tuple[tuple[int, int], ...]:
    """Sum over ``dice`` rolls of max(0, W + bonus − armour), counts out of sides**dice.

    Built on the sum of one die fewer (cached too), so the dice counts of one forecast cost
    one convolution each instead of one per die."""
    if dice == 0:
        return ((0, 1),)
    one: Dist = {}
    for face in range(1, sides + 1):
        (value,) = damage_per_roll([face], bonus, armour, "normal")
        one[value] = one.get(value, 0) + 1
    fewer = dict(_dice_sum(dice - 1, sides, bonus, armour))
    return tuple(sorted(_convolve(fewer, one).items()))


def _scenarios(
    attacker: Figure, defender: Figure, spec: AttackSpec
) -> tuple[bool, list[tuple[_Scenario | None, int, bool]]]:
    """Each (scenario, count out of 10,000, attack Patzer) the two Probes lead to.

    ``None`` stands for a failed attack; a fumble's table only affects the attacker.
    """
    value, modifier = attack_target(attacker, spec)
    defends = spec.defend and defender.can_react
    defence = (
        _classes(*defence_target(defender, attacker.id, spec)) if defends else [(None, SIDES**2)]
    )
    aim = attacker.aim if spec.aim is None else spec.aim
    out: list[tuple[_Scenario | None, int, bool]] = []
    for attack, a_count in _classes(value, modifier):
        if not attack.success:
            out.append((None, a_count * SIDES**2, attack.patzer))
            continue
        for d, d_count in defence:
            out.append((_scenario(attack, d, aim), a_count * d_count, False))
    return defends, out


def _scenario(attack: ProbeResult, defence: ProbeResult | None, aim: int) -> _Scenario:
    if defence is None:
        wins, base_qs, defender_qs = True, attack.qs, 0
    else:
        comparison = evaluate_opposed(attack, defence)
        wins = comparison.winner == "attacker"
        base_qs = comparison.qs if wins else 0
        defender_qs = comparison.qs
    tables: list[tuple[str, int]] = []
    if wins and attack.volltreffer:
        tables.append(("angriff_volltreffer", base_qs))
    if defence is not None and defence.patzer:
        tables.append(("verteidigung_patzer", base_qs))
    if defence is not None and not wins and defence.volltreffer:
        tables.append(("verteidigung_volltreffer", defender_qs))
    qs = base_qs + aim_qs(aim) if wins else 0
    return _Scenario(wins, qs, wins and attack.volltreffer, tuple(tables))


def _table_outcomes(tables: tuple[tuple[str, int], ...]) -> list[tuple[Entries, int]]:
    """Every combination of the scenario's table entries, counts out of 100**len(tables)."""
    combos: list[tuple[Entries, int]] = [((), 1)]
    for table, qs in tables:
        combos = [
            ((*entries, entry), count * c)
            for entries, count in combos
            for entry, c in _table_dist(table, qs)
        ]
    return combos


HitKey = tuple[int, str]  # (damage dice, damage kind after the tables); dice −1: no hit
SideKey = tuple[tuple[int, str], ...]  # table damage dice to the defender: (dice, kind)


def _hit_key(scenario: _Scenario, entries: Entries, spec: AttackSpec) -> HitKey:
    if not scenario.attacker_wins:
        return (-1, "")
    dice = scenario.qs + sum(e.effect.extra_damage_dice for e in entries)
    kind = "direkt" if any(e.effect.direct_damage for e in entries) else spec.weapon.kind
    return (dice, kind)


def _side_key(entries: Entries) -> SideKey:
    return tuple(
        (dmg.dice, dmg.kind)
        for entry in entries
        for dmg in entry.effect.damage
        if dmg.target not in ("attacker", "caster") and dmg.resource == "LP"
    )


def _hit_damage(key: HitKey, defender: Figure, spec: AttackSpec) -> tuple[Dist, int]:
    """LP damage of the hit itself (dice, RS, kind, resistance), counts and denominator."""
    dice, kind = key
    if dice < 0:
        return {0: 1}, 1
    resistance = resistance_against(defender.resistances, spec.weapon.damage_type)
    if spec.weapon.damage_type.lower() in ELEMENTS:
        kind = elemental_kind(kind, resistance)
    armour = effective_rs(defender.rs, kind)
    dist: Dist = {}
    for total, count in _dice_sum(dice, spec.weapon.die, spec.weapon.bonus, armour):
        hurt = apply_resistance(total, resistance)
        dist[hurt] = dist.get(hurt, 0) + count
    return dist, spec.weapon.die**dice


def _table_damage(key: SideKey, defender: Figure) -> tuple[Dist, int]:
    """LP damage the tables deal to the defender (before the hit), counts and denominator."""
    dist: Dist = {0: 1}
    denominator = 1
    for dice, kind in key:
        dist = _convolve(dist, dict(_dice_sum(dice, SIDES, 0, effective_rs(defender.rs, kind))))
        denominator *= SIDES**dice
    return dist, denominator


Outcome = tuple[int, bool]  # (LP the target loses, dead)


def _hurt(defender: Figure, lp: int, dead: bool, amount: int, non_lethal: bool) -> Outcome:
    """LP and death after ``amount`` damage, as :func:`app.rules.hh.life._damage` rules."""
    if amount <= 0 or dead:
        return lp, dead
    lethal = not non_lethal or lp <= 0
    new = lp - amount if lethal else max(0, lp - amount)
    if new > 0 or defender.drops_at_zero or not lethal:
        return new, False
    return new, is_dead_at(new, defender.skill("Unbeugsamkeit"))


def _outcome(defender: Figure, table: int, hit: int, non_lethal: bool) -> Outcome:
    """(LP lost, dead) after the tables' damage (always lethal), then the hit's."""
    lp, dead = _hurt(defender, defender.lp, defender.dead, table, False)
    lp, dead = _hurt(defender, lp, dead, hit, non_lethal)
    return defender.lp - lp, dead


def _damage_cases(
    scenarios: Counter[_Scenario], spec: AttackSpec
) -> dict[tuple[HitKey, SideKey], Fraction]:
    """The weight of each distinct damage case (out of all attacks that succeeded)."""
    cases: dict[tuple[HitKey, SideKey], Fraction] = {}
    for scenario, count in scenarios.items():
        denominator = SIDES**4 * 100 ** len(scenario.tables)
        for entries, t_count in _table_outcomes(scenario.tables):
            key = (_hit_key(scenario, entries, spec), _side_key(entries))
            cases[key] = cases.get(key, Fraction(0)) + Fraction(count * t_count, denominator)
    return cases


def _case_outcomes(
    key: tuple[HitKey, SideKey], defender: Figure, spec: AttackSpec
) -> tuple[dict[Outcome, int], int]:
    side, side_den = _table_damage(key[1], defender)
    main, main_den = _hit_damage(key[0], defender, spec)
    out: dict[Outcome, int] = {}
    for first, c1 in side.items():
        for second, c2 in main.items():
            o = _outcome(defender, first, second, spec.non_lethal)
            out[o] = out.get(o, 0) + c1 * c2
    return out, side_den * main_den


def forecast_attack(attacker: Figure, defender: Figure, spec: AttackSpec) -> ActionForecast:
    """The exact outcome distribution of ``attacker`` attacking ``defender`` with ``spec``."""
    defends, scenarios = _scenarios(attacker, defender, spec)
    hit = crit = fumble = missed = 0
    succeeded: Counter[_Scenario] = Counter()
    for scenario, count, patzer in scenarios:
        if scenario is None:
            fumble += count if patzer else 0
            missed += count
            continue
        hit += count if scenario.attacker_wins else 0
        crit += count if scenario.crit else 0
        succeeded[scenario] += count
    parts: list[tuple[dict[Outcome, int], int]] = [({(0, defender.dead): missed}, SIDES**4)]
    for key, weight in _damage_cases(succeeded, spec).items():
        dist, denominator = _case_outcomes(key, defender, spec)
        scaled = {o: c * weight.numerator for o, c in dist.items()}
        parts.append((scaled, denominator * weight.denominator))
    outcomes = _merge(parts)
    damage: dict[int, Fraction] = {}
    for (lost, _), p in outcomes.items():
        damage[lost] = damage.get(lost, Fraction(0)) + p
    return ActionForecast(
        defends=defends,
        p_hit=Fraction(hit, SIDES**4),
        p_crit=Fraction(crit, SIDES**4),
        p_fumble=Fraction(fumble, SIDES**4),
        damage=dict(sorted(damage.items())),
        p_down=sum((p for o, p in outcomes.items() if _down(defender, o)), Fraction(0)),
        p_dead=sum((p for (_, dead), p in outcomes.items() if dead), Fraction(0)),
    )


def _merge(parts: list[tuple[dict[Outcome, int], int]]) -> dict[Outcome, Fraction]:
    """Sum branch distributions with different denominators into exact probabilities."""
    common = 1
    for _, denominator in parts:
        common = lcm(common, denominator)
    totals: dict[Outcome, int] = {}
    for dist, denominator in parts:
        factor = common // denominator
        for key, count in dist.items():
            totals[key] = totals.get(key, 0) + count * factor
    return {k: Fraction(c, common) for k, c in totals.items() if c}


def _down(defender: Figure, outcome: Outcome) -> bool:
    """Out of the fight: LP ≤ 0 (dying, unconscious or out), unless kept on its feet."""
    lost, dead = outcome
    return dead or (defender.lp - lost <= 0 and not defender.on_feet)
