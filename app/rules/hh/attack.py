"""Angriff → Verteidigung → Vergleich → Schaden → Tabellen (hh.md §6).

:func:`resolve_attack` takes a roller and returns an :class:`AttackResult` listing every
die rolled and every state change (LP, conditions, reactions, table effects), plus the new
states of attacker and defender (and of a covering figure hit by a stray attack).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from app.rules.dice import DieRoll, Roller, roll_dice
from app.rules.hh.cover import CoverKind, aim_bonus, aim_qs, cover_modifier
from app.rules.hh.damage import DamageKind, damage_per_roll, typed_damage
from app.rules.hh.life import Log, _apply_condition, _damage
from app.rules.hh.luck import spend_to_halve_damage
from app.rules.hh.modifiers import Breakdown, Part, breakdown
from app.rules.hh.opposed import OpposedResult, evaluate_opposed
from app.rules.hh.options import DEFAULT_OPTIONS, RuleOptions
from app.rules.hh.probe import ProbeResult, evaluate_probe, roll_probe
from app.rules.hh.state import Change, Figure, Zustand
from app.rules.hh.tables import TABLE_TITLES, TableEffect, TableEntry, table_entry

#: A stray hit on living cover happens on 1W10 ≤ this (50 %).
STRAY_HIT_MAX = 5


@dataclass(frozen=True, slots=True)
class Weapon:
    name: str = "Waffe"
    die: int = 10
    bonus: int = 0
    kind: DamageKind = "normal"
    damage_type: str = "physisch"
    ranged: bool = False


@dataclass(frozen=True, slots=True)
class AttackSpec:
    """How an attack is made. ``aim`` = number of Zielen actions (None: the attacker's)."""

    weapon: Weapon = field(default_factory=Weapon)
    skill: str = "Kampfkunst"
    defence_skill: str = "Kampfkunst"
    modifier: int = 0
    defence_modifier: int = 0
    aim: int | None = None
    cover: CoverKind = "none"
    prone_target: bool = False
    #: The cover is a living figure (pass it as ``covering`` to :func:`resolve_attack`).
    living_cover: bool = False
    #: Where the cover comes from, shown after its value: "Deckung −4 (Wand, ¾)".
    cover_note: str = ""
    defend: bool = True
    non_lethal: bool = False
    #: This attack is a counter-attack (its own counter-attacks are not resolved).
    counter: bool = False
    #: The target spends 1 GP on «Treffer entgehen»: the damage of a hit is halved before it
    #: is booked (hh.md §4; thresholds judge the halved damage).
    halve_damage: bool = False


@dataclass(frozen=True, slots=True)
class TableRoll:
    """A roll on a Volltreffer/Patzer table: 2W10 − ``qs`` → ``entry``."""

    table: str
    dice: DieRoll
    qs: int
    roll: int
    entry: TableEntry

    def describe(self) -> str:
        title = TABLE_TITLES.get(self.table, self.table)
        return f"{title}: {self.dice.describe()} − {self.qs} = {self.roll} → {self.entry.name}"


@dataclass(frozen=True, slots=True)
class AttackResult:
    target: str
    attack: ProbeResult
    defence: ProbeResult | None
    comparison: OpposedResult | None
    hit: bool
    qs: int
    damage_dice: DieRoll | None
    damage_per_die: tuple[int, ...]
    damage: int
    damage_kind: str
    tables: tuple[TableRoll, ...]
    changes: tuple[Change, ...]
    rolls: tuple[DieRoll, ...]
    attacker: Figure
    defender: Figure
    stray: AttackResult | None = None
    counter: AttackResult | None = None

    @property
    def effects(self) -> tuple[TableEffect, ...]:
        return tuple(t.entry.effect for t in self.tables)

    def describe(self) -> str:
        parts = [f"Angriff {self.attack.describe()}"]
        if self.defence is not None:
            parts.append(f"Verteidigung {self.defence.describe()}")
        parts += [t.describe() for t in self.tables]
        if self.hit:
            parts.append(f"Treffer QS {self.qs}, {self.damage} Schaden")
        elif self.stray is not None:
            parts.append(f"Fehlschuss trifft {self.stray.target}")
        else:
            parts.append("kein Treffer")
        return "; ".join(parts)


def attack_breakdown(attacker: Figure, spec: AttackSpec) -> Breakdown:
    """The attack Probe's target with each modifier: BE, conditions, Zielen, cover, spec."""
    aim = attacker.aim if spec.aim is None else spec.aim
    return breakdown(
        attacker,
        spec.skill,
        "attack",
        (
            Part("Zielen", aim_bonus(aim)),
            Part("Deckung", cover_modifier(spec.cover, prone=spec.prone_target), spec.cover_note),
            Part("Modifikator", spec.modifier),
        ),
    )


def defence_breakdown(defender: Figure, attacker_id: str, spec: AttackSpec) -> Breakdown:
    """The defence Probe's target with each modifier: BE, conditions, bonuses, spec."""
    return breakdown(
        defender,
        spec.defence_skill,
        "defence",
        (
            Part("Bonus", defender.defence_bonus_against(attacker_id)),
            Part("Modifikator", spec.defence_modifier),
        ),
    )


def attack_target(attacker: Figure, spec: AttackSpec) -> tuple[int, int]:
    """(value, modifier) of the attack Probe: skill − BE; conditions, Zielen, cover, spec."""
    return attack_breakdown(attacker, spec).probe_args()


def defence_target(defender: Figure, attacker_id: str, spec: AttackSpec) -> tuple[int, int]:
    """(value, modifier) of the defence Probe: skill − BE; conditions, bonuses, spec."""
    return defence_breakdown(defender, attacker_id, spec).probe_args()


def _table_roll(roller: Roller, table: str, qs: int, log: Log) -> TableRoll:
    dice = roll_dice(roller, 2, 10)
    log.rolls.append(dice)
    roll = dice.total - qs
    return TableRoll(table, dice, qs, roll, table_entry(table, roll))


class _Ctx:
    """Mutable state of one resolution."""

    def __init__(self, attacker: Figure, defender: Figure) -> None:
        self.attacker = attacker
        self.defender = defender
        self.log = Log()

    def get(self, role: str) -> Figure:
        return self.attacker if role == "attacker" else self.defender

    def set(self, role: str, figure: Figure) -> None:
        if role == "attacker":
            self.attacker = figure
        else:
            self.defender = figure


def _apply_side_effects(
    roller: Roller, ctx: _Ctx, effect: TableEffect, options: RuleOptions
) -> None:
    """Self damage, slide, jammed weapon, free move, defence bonus of one table entry."""
    for dmg in effect.damage:
        role = "attacker" if dmg.target in ("attacker", "caster") else "defender"
        dice = roll_dice(roller, dmg.dice, 10)
        ctx.log.rolls.append(dice)
        fig = ctx.get(role)
        amount = typed_damage(list(dice.faces), 0, fig.rs, kind=dmg.kind)
        ctx.set(
            role, _damage(roller, fig, amount, options, ctx.log, dmg.resource, False, "Tabelle")
        )
    if effect.slide:
        ctx.log.add(Change(ctx.attacker.id, "slide", effect.slide, detail="Fehltritt"))
    if effect.jammed_weapon:
        ctx.log.add(Change(ctx.attacker.id, "jammed_weapon", detail="Waffe blockiert"))
        ctx.attacker = ctx.attacker.evolve(jammed_weapon=True)
    if effect.free_move_divisor:
        steps = ctx.defender.bewegung // effect.free_move_divisor
        ctx.log.add(Change(ctx.defender.id, "free_move", steps, detail="ground_gained"))
    if effect.defence_bonus:
        ctx.log.add(
            Change(ctx.defender.id, "defence_bonus", effect.defence_bonus, detail=ctx.attacker.id)
        )
        ctx.defender = ctx.defender.evolve(
            defence_bonuses=(*ctx.defender.defence_bonuses, (ctx.attacker.id, effect.defence_bonus))
        )
    if effect.attack_fizzles:
        ctx.log.add(Change(ctx.attacker.id, "attack_negated", detail="Unsauberer Angriff"))
    if effect.negate_attack:
        ctx.log.add(Change(ctx.attacker.id, "attack_negated", detail="Saubere Abwehr"))


def _apply_conditions(
    roller: Roller, ctx: _Ctx, effect: TableEffect, options: RuleOptions, cause_kind: str
) -> None:
    for grant in effect.conditions:
        role = "attacker" if grant.target in ("attacker", "caster") else "defender"
        z = Zustand(grant.condition, grant.resource, grant.cause, grant.probe_skill)
        ctx.set(
            role,
            _apply_condition(roller, ctx.get(role), z, options, ctx.log, cause_kind, set()),
        )


def resolve_attack(
    roller: Roller,
    attacker: Figure,
    defender: Figure,
    options: RuleOptions = DEFAULT_OPTIONS,
    spec: AttackSpec | None = None,
    *,
    covering: Figure | None = None,
    counter_spec: AttackSpec | None = None,
    attack_probe: ProbeResult | None = None,
    defence_probe: ProbeResult | None = None,
) -> AttackResult:
    """Resolve one attack completely (hh.md §6).

    1. Attack Probe (skill − BE, conditions, Zielen +2 each, cover). Failure ends it; a
       Patzer rolls «Patzer beim Angriff» (2W10 − 0). With living cover (``covering`` and
       ``spec.living_cover``), a miss that would have hit without the cover penalty hits the
       covering figure on 1W10 ≤ 5 with the uncovered roll; that figure may defend.
    2. Defence if ``spec.defend`` and the defender can react (costs 1 reaction).
    3. Comparison (ties → defender). Hit QS = comparison QS + 1 per Zielen.
    4. Tables: attack Volltreffer (if the attacker wins), defence Patzer (always), defence
       Volltreffer (if the defender wins); their effects are applied.
    5. Damage: (QS + extra dice) × weapon die + bonus − RS each, kind/type/resistance.
    A defence Volltreffer's counter-attack is resolved with ``counter_spec`` if given,
    otherwise recorded as a ``counter_attack`` change for the caller. ``defence_probe`` is a
    defence already rolled (kept after «Probe wiederholen»), ``spec.halve_damage`` spends a
    GP of the target on «Treffer entgehen».
    """
    spec = spec or AttackSpec()
    if not attacker.can_act and not spec.counter:
        raise ValueError(f"{attacker.id} cannot act")
    ctx = _Ctx(attacker, defender)
    aim = attacker.aim if spec.aim is None else spec.aim
    value, modifier = attack_target(attacker, spec)
    attack = attack_probe if attack_probe is not None else roll_probe(roller, value, modifier)
    ctx.log.rolls.extend(attack.rolls)
    if attacker.aim:
        ctx.log.add(Change(attacker.id, "aim", -attacker.aim, detail="Zielen verbraucht"))
        ctx.attacker = ctx.attacker.evolve(aim=0)
    if not attack.success:
        return _missed(roller, ctx, attack, (value, modifier), spec, options, covering)

    defence, comparison = _defend(roller, ctx, attack, spec, defence_probe)
    attacker_wins = comparison is None or comparison.winner == "attacker"
    base_qs = (comparison.qs if attacker_wins else 0) if comparison is not None else attack.qs
    tables = _roll_tables(roller, ctx, attack, defence, comparison, attacker_wins, base_qs)
    kind: str = spec.weapon.kind
    if any(t.entry.effect.direct_damage for t in tables):
        kind = "direkt"
    for t in tables:
        _apply_side_effects(roller, ctx, t.entry.effect, options)
    hit_qs = base_qs + aim_qs(aim) if attacker_wins else 0
    damage: tuple[DieRoll | None, tuple[int, ...], int] = (None, (), 0)
    if attacker_wins:
        extra_dice = sum(t.entry.effect.extra_damage_dice for t in tables)
        damage = _deal_damage(roller, ctx, spec, hit_qs + extra_dice, kind, options)
    for t in tables:
        _apply_conditions(roller, ctx, t.entry.effect, options, kind)
    counter = _counter_attack(roller, ctx, tables, attacker.id, spec, counter_spec, options)
    damage_dice, per_die, amount = damage
    return _result(
        ctx, defender.id, attack, kind, tables,
        defence=defence, comparison=comparison, hit=attacker_wins, qs=hit_qs,
        damage_dice=damage_dice, damage_per_die=per_die, damage=amount, counter=counter,
    )  # fmt: skip


def _result(
    ctx: _Ctx,
    target: str,
    attack: ProbeResult,
    kind: str,
    tables: list[TableRoll],
    **kw: object,
) -> AttackResult:
    """The result as the resolution left it; ``kw`` overrides the no-hit defaults."""
    base: dict[str, object] = {
        "target": target,
        "attack": attack,
        "defence": None,
        "comparison": None,
        "hit": False,
        "qs": 0,
        "damage_dice": None,
        "damage_per_die": (),
        "damage": 0,
        "damage_kind": kind,
        "tables": tuple(tables),
        "changes": tuple(ctx.log.changes),
        "rolls": tuple(ctx.log.rolls),
        "attacker": ctx.attacker,
        "defender": ctx.defender,
    }
    base.update(kw)
    return AttackResult(**base)  # type: ignore[arg-type]


def _missed(
    roller: Roller,
    ctx: _Ctx,
    attack: ProbeResult,
    target: tuple[int, int],
    spec: AttackSpec,
    options: RuleOptions,
    covering: Figure | None,
) -> AttackResult:
    """A failed attack: a stray hit on living cover, or the Patzer table, or nothing."""
    value, modifier = target
    tables: list[TableRoll] = []
    stray = _stray_hit(roller, ctx, attack, value, modifier, spec, options, covering)
    if stray is not None:
        return _result(
            ctx, ctx.defender.id, attack, spec.weapon.kind, tables, stray=stray,
            attacker=stray.attacker,
        )  # fmt: skip
    if attack.patzer:
        t = _table_roll(roller, "angriff_patzer", 0, ctx.log)
        tables.append(t)
        _apply_side_effects(roller, ctx, t.entry.effect, options)
        _apply_conditions(roller, ctx, t.entry.effect, options, "direkt")
    return _result(ctx, ctx.defender.id, attack, spec.weapon.kind, tables)


def _defend(
    roller: Roller,
    ctx: _Ctx,
    attack: ProbeResult,
    spec: AttackSpec,
    rolled: ProbeResult | None = None,
) -> tuple[ProbeResult | None, OpposedResult | None]:
    """The defence Probe and the comparison, if the defender defends and can react."""
    if not (spec.defend and ctx.defender.can_react):
        return None, None
    value, modifier = defence_target(ctx.defender, ctx.attacker.id, spec)
    ctx.log.add(Change(ctx.defender.id, "reactions", -1, detail="Verteidigung"))
    ctx.defender = ctx.defender.evolve(reactions_left=ctx.defender.reactions_left - 1)
    defence = rolled if rolled is not None else roll_probe(roller, value, modifier)
    ctx.log.rolls.extend(defence.rolls)
    return defence, evaluate_opposed(attack, defence)


def _roll_tables(
    roller: Roller,
    ctx: _Ctx,
    attack: ProbeResult,
    defence: ProbeResult | None,
    comparison: OpposedResult | None,
    attacker_wins: bool,
    base_qs: int,
) -> list[TableRoll]:
    """Attack Volltreffer (if the attacker wins), defence Patzer, defence Volltreffer."""
    tables: list[TableRoll] = []
    if attacker_wins and attack.volltreffer:
        tables.append(_table_roll(roller, "angriff_volltreffer", base_qs, ctx.log))
    if defence is not None and defence.patzer:
        tables.append(_table_roll(roller, "verteidigung_patzer", base_qs, ctx.log))
    if defence is not None and comparison is not None and not attacker_wins and defence.volltreffer:
        tables.append(_table_roll(roller, "verteidigung_volltreffer", comparison.qs, ctx.log))
    return tables


def _deal_damage(
    roller: Roller, ctx: _Ctx, spec: AttackSpec, dice: int, kind: str, options: RuleOptions
) -> tuple[DieRoll, tuple[int, ...], int]:
    """Roll the damage dice, book the LP on the defender; (dice, damage per die, total)."""
    damage_dice = roll_dice(roller, dice, spec.weapon.die)
    ctx.log.rolls.append(damage_dice)
    faces = list(damage_dice.faces)
    per_die = tuple(damage_per_roll(faces, spec.weapon.bonus, ctx.defender.rs, kind))
    amount = typed_damage(
        faces,
        spec.weapon.bonus,
        ctx.defender.rs,
        kind=kind,
        damage_type=spec.weapon.damage_type,
        resistances=ctx.defender.resistances,
    )
    if spec.halve_damage and amount > 0:
        ctx.defender, spent, amount = spend_to_halve_damage(ctx.defender, amount)
        ctx.log.changes.extend(spent)
    ctx.defender = _damage(
        roller, ctx.defender, amount, options, ctx.log, "LP", spec.non_lethal, "Angriff"
    )
    return damage_dice, per_die, amount


def _counter_attack(
    roller: Roller,
    ctx: _Ctx,
    tables: list[TableRoll],
    attacker_id: str,
    spec: AttackSpec,
    counter_spec: AttackSpec | None,
    options: RuleOptions,
) -> AttackResult | None:
    """A defence Volltreffer's counter-attack: resolved with ``counter_spec``, else noted."""
    if not any(t.entry.effect.counter_attack for t in tables):
        return None
    bonus = max(t.entry.effect.counter_attack_bonus for t in tables)
    ctx.log.add(Change(ctx.defender.id, "counter_attack", bonus, detail=attacker_id))
    if counter_spec is None or spec.counter or not ctx.defender.can_act:
        return None
    cspec = replace(counter_spec, modifier=counter_spec.modifier + bonus, counter=True)
    counter = resolve_attack(roller, ctx.defender, ctx.attacker, options, cspec)
    ctx.log.changes.extend(counter.changes)
    ctx.log.rolls.extend(counter.rolls)
    ctx.defender, ctx.attacker = counter.attacker, counter.defender
    return counter


def _stray_hit(
    roller: Roller,
    ctx: _Ctx,
    attack: ProbeResult,
    value: int,
    modifier: int,
    spec: AttackSpec,
    options: RuleOptions,
    covering: Figure | None,
) -> AttackResult | None:
    """Fehlschuss durch lebende Deckung (§6.6): 50 % to hit the covering figure."""
    if covering is None or not spec.living_cover or attack.automatic:
        return None
    penalty = cover_modifier(spec.cover, prone=spec.prone_target)
    if penalty == 0:
        return None
    a, b = attack.faces
    uncovered = evaluate_probe((a, b), value, modifier - penalty)
    if not uncovered.success:
        return None
    die = roll_dice(roller, 1, 10)
    ctx.log.rolls.append(die)
    if die.total > STRAY_HIT_MAX:
        return None
    ctx.log.add(Change(covering.id, "complication", detail="Fehlschuss trifft lebende Deckung"))
    stray_spec = replace(spec, cover="none", prone_target=False, living_cover=False, aim=0)
    stray = resolve_attack(
        roller, ctx.attacker, covering, options, stray_spec, attack_probe=uncovered
    )
    ctx.log.changes.extend(stray.changes)
    ctx.log.rolls.extend(stray.rolls[len(uncovered.rolls) :])
    return stray


def aim(figure: Figure) -> tuple[Figure, Change]:
    """Handlung «Zielen»: one more aim action (+2 on the attack, +1 QS on a hit)."""
    return figure.evolve(aim=figure.aim + 1), Change(figure.id, "aim", 1)


def aim_interrupted(
    roller: Roller, figure: Figure, *, modifier: int = 0
) -> tuple[Figure, ProbeResult]:
    """Interrupted while aiming: Willenskraft Probe or the aim bonus is lost."""
    probe = roll_probe(roller, figure.skill("Willenskraft"), modifier)
    return (figure if probe.success else figure.evolve(aim=0)), probe
