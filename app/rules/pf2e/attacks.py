"""Attack rolls: Malus für mehrfache Angriffe, Malus für Entfernung, Strikes and damage.

Both penalties are untyped (Kategorielos) and add up with everything else. Strike damage is
the weapon dice plus the Stärke modifier as its delivery allows (pf2e.md §3) plus other
damage bonuses, at least 1, and a critical hit doubles that whole total. :func:`strike`
checks the range and the damage expression before it rolls anything, so a refused attack
consumes no dice.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from math import isfinite
from typing import Unpack

from app.rules.dice import DieRoll, Roller
from app.rules.expression import Expression, ExpressionRoll, parse
from app.rules.expression import roll as roll_expression
from app.rules.pf2e.checks import CheckResult, FortuneOptions, roll_check
from app.rules.pf2e.degrees import Degree
from app.rules.pf2e.errors import OutOfRange
from app.rules.pf2e.modifiers import UNTYPED, Modifier
from app.rules.pf2e.statistics import Statistic

MAX_RANGE_INCREMENTS = 6
RANGE_PENALTY_PER_INCREMENT = -2
MAP_SOURCE = "Malus für mehrfache Angriffe"
RANGE_SOURCE = "Malus für Entfernung"
STRENGTH_SOURCE = "Stärke"
_MILLIMETRES = 1000


def multiple_attack_penalty(attack_number: int, agile: bool) -> int:
    """MAP of the ``attack_number``-th attack of the turn (1-based): 0, -5, -10 or with an
    Agil weapon 0, -4, -8. The weapon of *this* attack decides."""
    if isinstance(attack_number, bool) or not isinstance(attack_number, int):
        raise ValueError(f"the attack number is an integer, not {attack_number!r}")
    if attack_number < 1:
        raise ValueError(f"attacks are counted from 1, not {attack_number}")
    if attack_number == 1:
        return 0
    if attack_number == 2:
        return -4 if agile else -5
    return -8 if agile else -10


def map_modifier(attack_number: int, agile: bool, *, own_turn: bool = True) -> Modifier | None:
    """The MAP as an untyped modifier, or ``None`` when there is none (first attack, or an
    attack outside the attacker's own turn such as a Gelegenheitsangriff)."""
    if not own_turn:
        return None
    penalty = multiple_attack_penalty(attack_number, agile)
    return Modifier(MAP_SOURCE, UNTYPED, penalty) if penalty else None


def _millimetres(metres: float, what: str) -> int:
    if isinstance(metres, bool) or not isinstance(metres, int | float) or not isfinite(metres):
        raise ValueError(f"{what} is a number of metres, not {metres!r}")
    return round(metres * _MILLIMETRES)


def range_increment(distance_m: float, increment_m: float) -> int:
    """Which Entfernungseinheit the target is in: ``max(ceil(distance / increment), 1)``.

    Distances are compared in whole millimetres, so 72 m at 36 m is exactly increment 2
    despite floating point. Raises :class:`OutOfRange` beyond the sixth increment.
    """
    distance = _millimetres(distance_m, "a distance")
    increment = _millimetres(increment_m, "a range increment")
    if distance < 0:
        raise ValueError(f"a distance cannot be negative: {distance_m}")
    if increment <= 0:
        raise ValueError(f"a range increment must be positive: {increment_m}")
    k = max(-(-distance // increment), 1)
    if k > MAX_RANGE_INCREMENTS:
        raise OutOfRange(
            "Ziel außer Reichweite: %(distance)s m sind mehr als sechs Entfernungseinheiten "
            "zu je %(increment)s m (höchstens %(max)s m).",
            distance=_metres_text(distance),
            increment=_metres_text(increment),
            max=_metres_text(increment * MAX_RANGE_INCREMENTS),
        )
    return k


def _metres_text(millimetres: int) -> str:
    """German number format: ``36``, ``1,5``."""
    return f"{millimetres / _MILLIMETRES:g}".replace(".", ",")


def range_penalty(distance_m: float, increment_m: float) -> int:
    """Malus für Entfernung: -2 per increment beyond the first; :class:`OutOfRange` past
    the sixth."""
    return RANGE_PENALTY_PER_INCREMENT * (range_increment(distance_m, increment_m) - 1)


def range_modifier(distance_m: float, increment_m: float) -> Modifier | None:
    """The range penalty as an untyped modifier, ``None`` within the first increment."""
    penalty = range_penalty(distance_m, increment_m)
    return Modifier(RANGE_SOURCE, UNTYPED, penalty) if penalty else None


#: A melee Strike without the Reichweite trait reaches the adjacent squares: 1.5 m.
MELEE_REACH_M = 1.5


def melee_reaches(distance_m: float, reach_m: float | None = None) -> bool:
    """Whether a melee Strike (its reach ``reach_m``, default 1.5 m) reaches ``distance_m``."""
    return distance_m <= (reach_m or MELEE_REACH_M)


class Delivery(StrEnum):
    """How a weapon delivers its damage; decides how much of the Stärke modifier it adds."""

    MELEE = "melee"
    THROWN = "thrown"
    RANGED = "ranged"
    PROPULSIVE = "propulsive"


THROWN_TRAITS = frozenset({"wurf", "wurfwaffe", "thrown"})
PROPULSIVE_TRAITS = frozenset({"propulsiv", "propulsive"})


def delivery_of(traits: Iterable[str], *, ranged: bool) -> Delivery:
    """A weapon's :class:`Delivery` from its traits (German or English, any case).

    A trait may carry a value (``Wurf 6 m``): its first word decides.
    """
    words = {t.strip().split(" ")[0].lower() for t in traits if t.strip()}
    if words & PROPULSIVE_TRAITS:
        return Delivery.PROPULSIVE
    if words & THROWN_TRAITS:
        return Delivery.THROWN
    return Delivery.RANGED if ranged else Delivery.MELEE


def strength_damage(strength: int, delivery: Delivery) -> int:
    """The Stärke modifier added to Strike damage (pf2e.md §3).

    Melee and thrown weapons add it in full, ranged weapons add none, propulsive ones half a
    positive modifier (rounded down) and a negative one in full.
    """
    if delivery in (Delivery.MELEE, Delivery.THROWN):
        return strength
    if delivery is Delivery.PROPULSIVE:
        return strength // 2 if strength > 0 else strength
    return 0


def strength_damage_modifier(strength: int, delivery: Delivery) -> Modifier | None:
    """:func:`strength_damage` as a labelled damage bonus, ``None`` when it adds nothing."""
    value = strength_damage(strength, delivery)
    return Modifier(STRENGTH_SOURCE, UNTYPED, value) if value else None


@dataclass(frozen=True, slots=True)
class DamageRoll:
    """Rolled damage: the dice, the bonuses, whether it was doubled, and the damage dealt.

    ``total`` = max(dice + bonuses, 1), doubled on a critical hit (pf2e.md §3: the minimum
    of 1 applies before doubling; a critical hit doubles dice, Stärke and bonuses).
    """

    roll: ExpressionRoll
    bonuses: tuple[Modifier, ...]
    critical: bool
    total: int

    @property
    def dice(self) -> tuple[DieRoll, ...]:
        return self.roll.dice

    @property
    def before_doubling(self) -> int:
        """Dice and bonuses, before the minimum of 1 and the doubling."""
        return self.roll.total + sum(b.value for b in self.bonuses)

    def describe(self) -> str:
        text = f"Schaden {self.roll.expression.notation()}: {self.roll.total}"
        if self.bonuses:
            text += "".join(f" {b.value:+d} ({b.source})" for b in self.bonuses)
            text += f" = {self.before_doubling}"
        floor = max(self.before_doubling, 1)
        if floor != self.before_doubling:
            text += f", mindestens 1 → {floor}"
        if self.critical:
            text += f" × 2 (Kritischer Treffer) = {self.total}"
        return text


def _expression(damage: str | Expression) -> Expression:
    return damage if isinstance(damage, Expression) else parse(damage)


def roll_damage(
    roller: Roller,
    damage: str | Expression,
    *,
    critical: bool = False,
    bonuses: Iterable[Modifier] = (),
) -> DamageRoll:
    """Roll a damage expression such as ``1W8``, add ``bonuses``; a critical hit doubles."""
    rolled = roll_expression(_expression(damage), roller)
    applied = tuple(b for b in bonuses if b.value)
    return DamageRoll(rolled, applied, critical, damage_total(rolled.total, applied, critical))


def damage_total(rolled: int, bonuses: Iterable[Modifier], critical: bool) -> int:
    """Dice + bonuses, at least 1, doubled on a critical hit (pf2e.md §3)."""
    total = max(rolled + sum(b.value for b in bonuses), 1)
    return total * 2 if critical else total


def attack_modifiers(
    *,
    attack_number: int = 1,
    agile: bool = False,
    own_turn: bool = True,
    distance_m: float | None = None,
    range_increment_m: float | None = None,
) -> tuple[Modifier, ...]:
    """The untyped attack penalties of this attack (MAP and range), validated."""
    result: list[Modifier] = []
    mapm = map_modifier(attack_number, agile, own_turn=own_turn)
    if mapm is not None:
        result.append(mapm)
    if (distance_m is None) != (range_increment_m is None):
        raise ValueError("give both distance_m and range_increment_m, or neither")
    if distance_m is not None and range_increment_m is not None:
        rangem = range_modifier(distance_m, range_increment_m)
        if rangem is not None:
            result.append(rangem)
    return tuple(result)


class AttackOptions(FortuneOptions, total=False):
    """The keywords of :func:`attack_roll` that a Strike and its forecast pass on unchanged."""

    attack_number: int
    agile: bool
    own_turn: bool
    distance_m: float | None
    range_increment_m: float | None
    extra: Iterable[Modifier]


def attack_roll(
    roller: Roller,
    attack: Statistic,
    target_ac: int,
    *,
    attack_number: int = 1,
    agile: bool = False,
    own_turn: bool = True,
    distance_m: float | None = None,
    range_increment_m: float | None = None,
    extra: Iterable[Modifier] = (),
    secret: bool = False,
    **fortune_options: Unpack[FortuneOptions],
) -> CheckResult:
    """An attack roll (weapon or spell) against RK ``target_ac``, with MAP and range; the
    degree adjustments and fortune/misfortune are :func:`roll_check`'s."""
    penalties = attack_modifiers(
        attack_number=attack_number,
        agile=agile,
        own_turn=own_turn,
        distance_m=distance_m,
        range_increment_m=range_increment_m,
    )
    return roll_check(
        roller,
        attack,
        target_ac,
        dc_label="RK",
        extra=(*penalties, *extra),
        secret=secret,
        **fortune_options,
    )


@dataclass(frozen=True, slots=True)
class StrikeResult:
    """A Strike: the attack roll and, on a hit, the damage (doubled on a critical hit)."""

    attack: CheckResult
    damage: DamageRoll | None

    @property
    def degree(self) -> Degree:
        assert self.attack.degree is not None  # a Strike always has an RK
        return self.attack.degree

    @property
    def hit(self) -> bool:
        return self.degree.is_success

    @property
    def critical(self) -> bool:
        return self.degree is Degree.CRITICAL_SUCCESS

    @property
    def damage_total(self) -> int:
        """Damage dealt; 0 on a miss."""
        return 0 if self.damage is None else self.damage.total

    @property
    def dice(self) -> tuple[DieRoll, ...]:
        return self.attack.dice + (() if self.damage is None else self.damage.dice)

    def describe(self) -> str:
        text = self.attack.describe(attack=True)
        if self.damage is not None:
            text += f"; {self.damage.describe()}"
        return text


def strike(
    roller: Roller,
    attack: Statistic,
    target_ac: int,
    damage: str | Expression,
    *,
    secret: bool = False,
    damage_bonuses: Iterable[Modifier] = (),
    **attack_options: Unpack[AttackOptions],
) -> StrikeResult:
    """Roll the attack, then the damage on a hit (doubled on a Kritischer Treffer).

    ``damage_bonuses`` are added to the dice (e.g. :func:`strength_damage_modifier`). The
    range and the damage expression are checked first: a refused Strike rolls nothing. The
    other keywords are :func:`attack_roll`'s.
    """
    expression = _expression(damage)
    result = attack_roll(roller, attack, target_ac, secret=secret, **attack_options)
    assert result.degree is not None
    if not result.degree.is_success:
        return StrikeResult(result, None)
    critical = result.degree is Degree.CRITICAL_SUCCESS
    return StrikeResult(
        result, roll_damage(roller, expression, critical=critical, bonuses=damage_bonuses)
    )
