"""DS4 attacks with automatic Abwehr, Patzer effects, modifiers, LK thresholds (ds4.md §2).

A :class:`Fighter` is the combat snapshot of a participant. :func:`attack` rolls the attack,
the target's automatic Abwehr, and returns every roll and every state change; the
fighters themselves are immutable, the outcome carries their new states.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from app.rules.dice import Roller
from app.rules.ds4.character import Character
from app.rules.ds4.check import (
    IMMERSIEG_MAX,
    PATZER_MIN,
    CheckResult,
    CheckRoll,
    roll_check,
)
from app.rules.ds4.equipment import WAFFENLOS, Weapon
from app.rules.ds4.kampfwerte import combat_values

PRONE_MALUS = -2
ADJACENT_RANGED_MALUS = -2
DISTANCE_STEP_M = 10


class AttackKind(StrEnum):
    SCHLAGEN = "schlagen"
    SCHIESSEN = "schiessen"
    ZIELZAUBER = "zielzauber"


class CombatCheck(StrEnum):
    """Checks with a Patzer effect in combat."""

    SCHLAGEN = "schlagen"
    SCHIESSEN = "schiessen"
    ZIELZAUBER = "zielzauber"
    ZAUBERN = "zaubern"
    ABWEHR = "abwehr"


class PatzerEffect(StrEnum):
    PRONE = "prone"
    WEAPON_DROPPED = "weapon_dropped"
    WEAPON_BROKEN = "weapon_broken"
    SPELL_DROPPED = "spell_dropped"


class Position(StrEnum):
    """Where the attacker stands relative to the target."""

    FRONT = "front"
    SIDE = "side"
    ABOVE = "above"
    BEHIND = "behind"


POSITION_MODIFIER: dict[Position, int] = {
    Position.FRONT: 0,
    Position.SIDE: 1,
    Position.ABOVE: 1,
    Position.BEHIND: 2,
}


class Condition(StrEnum):
    OK = "ok"
    UNCONSCIOUS = "unconscious"
    DEAD = "dead"


def condition(lebenskraft: int, koerper: int) -> Condition:
    """LK ≤ 0 → unconscious; LK < −KÖR → dead (KÖR 8: −8 unconscious, −9 dead)."""
    if lebenskraft < -koerper:
        return Condition.DEAD
    if lebenskraft <= 0:
        return Condition.UNCONSCIOUS
    return Condition.OK


def verschnaufen(lebenskraft: int, lebenskraft_max: int) -> int:
    """LK after Verschnaufen: regain half the LK lost, rounded down (never above max)."""
    lost = max(0, lebenskraft_max - lebenskraft)
    return lebenskraft + lost // 2


def distance_modifier(distance_m: float) -> int:
    """−1 per full 10 m to the target (ranged attacks and Zielzauber)."""
    if distance_m < 0:
        raise ValueError(f"distance cannot be negative, got {distance_m}")
    return -int(distance_m // DISTANCE_STEP_M)


#: Schlagen reaches the neighbouring squares: 1 m (project decision, docs/rules/ds4.md).
MELEE_REACH_M = 1.0


def melee_reaches(distance_m: float) -> bool:
    """Whether Schlagen reaches a target ``distance_m`` away."""
    return distance_m <= MELEE_REACH_M


def patzer_effect(check: CombatCheck, weapon: Weapon | None = None) -> PatzerEffect | None:
    """What a Patzer on ``check`` does.

    Abwehr → prone; Schlagen/Schießen → weapon dropped, a wooden weapon breaks, unarmed
    nothing; Zaubern/Zielzauber → the spell drops out of its slot.
    """
    if check is CombatCheck.ABWEHR:
        return PatzerEffect.PRONE
    if check in (CombatCheck.ZAUBERN, CombatCheck.ZIELZAUBER):
        return PatzerEffect.SPELL_DROPPED
    if weapon is None or weapon is WAFFENLOS:
        return None
    return PatzerEffect.WEAPON_BROKEN if weapon.wooden else PatzerEffect.WEAPON_DROPPED


def damage_after_abwehr(attack: int | CheckResult, abwehr: CheckResult | None) -> int:
    """Damage left after the target's Abwehr, never below 0.

    ``attack`` is the damage (the result of a successful attack) or the attack check itself
    (a failed one does 0). ``abwehr`` is ``None`` when the target cannot defend. A
    successful Abwehr reduces the damage by its result; an Immersieg's result is the full
    Abwehr PW.
    """
    damage = attack.result if isinstance(attack, CheckResult) else attack
    damage = max(0, damage)
    if abwehr is not None and abwehr.success:
        damage -= abwehr.result
    return max(0, damage)


@dataclass(frozen=True, slots=True)
class Fighter:
    """A combatant's state for attacks.

    The attack values are Kampfwerte, i.e. they already hold the WB of the weapon they were
    computed with; the ``weapon`` given to :func:`attack` supplies GA and Patzer behaviour.
    """

    id: str
    lebenskraft: int
    koerper: int
    abwehr: int
    schlagen: int = 0
    schiessen: int = 0
    zielzauber: int = 0
    prone: bool = False
    can_defend: bool = True  # False: the target gets no Abwehr (helpless, unconscious, …)

    @property
    def condition(self) -> Condition:
        return condition(self.lebenskraft, self.koerper)

    def attack_value(self, kind: AttackKind) -> int:
        return {
            AttackKind.SCHLAGEN: self.schlagen,
            AttackKind.SCHIESSEN: self.schiessen,
            AttackKind.ZIELZAUBER: self.zielzauber,
        }[kind]


def fighter_from_character(
    id: str, character: Character, *, lebenskraft: int | None = None, prone: bool = False
) -> Fighter:
    """A :class:`Fighter` from a character's Kampfwerte (LK defaults to full)."""
    cv = combat_values(character)
    lk = cv.lebenskraft.value if lebenskraft is None else lebenskraft
    return Fighter(
        id=id,
        lebenskraft=lk,
        koerper=character.attributes.koerper,
        abwehr=cv.abwehr.value,
        schlagen=cv.schlagen.value,
        schiessen=cv.schiessen.value,
        zielzauber=cv.zielzauber.value,
        prone=prone,
        can_defend=condition(lk, character.attributes.koerper) is Condition.OK,
    )


@dataclass(frozen=True, slots=True)
class AttackModifiers:
    """Situational modifiers of one attack.

    ``distance_m`` and ``adjacent`` count for Schießen and Zielzauber only; ``position`` for
    every attack. ``extra`` and ``abwehr_extra`` are further labelled modifiers (e.g. from
    the GM) on the attack and on the target's Abwehr.
    """

    distance_m: float = 0.0
    adjacent: bool = False
    position: Position = Position.FRONT
    extra: tuple[tuple[str, int], ...] = ()
    abwehr_extra: tuple[tuple[str, int], ...] = ()


def attack_modifiers(
    kind: AttackKind, modifiers: AttackModifiers, *, attacker_prone: bool = False
) -> list[tuple[str, int]]:
    """The labelled modifiers on an attack check (zero entries left out)."""
    parts: list[tuple[str, int]] = []
    if kind is not AttackKind.SCHLAGEN:
        parts.append(("distance", distance_modifier(modifiers.distance_m)))
        if modifiers.adjacent:
            parts.append(("adjacent", ADJACENT_RANGED_MALUS))
    parts.append((f"position:{modifiers.position.value}", POSITION_MODIFIER[modifiers.position]))
    if attacker_prone:
        parts.append(("prone", PRONE_MALUS))
    parts += modifiers.extra
    return [(label, v) for label, v in parts if v]


def abwehr_modifiers(
    target: Fighter, weapon: Weapon | None, kind: AttackKind, modifiers: AttackModifiers
) -> list[tuple[str, int]]:
    """The labelled modifiers on the target's Abwehr: the weapon's GA (Schlagen/Schießen;
    ``None`` is Waffenlos), −2 while prone, and ``abwehr_extra``."""
    parts: list[tuple[str, int]] = []
    if kind is not AttackKind.ZIELZAUBER:
        w = weapon or WAFFENLOS
        if w.ga:
            parts.append((f"ga:{w.id}", w.ga))
    if target.prone:
        parts.append(("prone", PRONE_MALUS))
    return parts + [m for m in modifiers.abwehr_extra if m[1]]


@dataclass(frozen=True, slots=True)
class AttackOutcome:
    """Everything an attack did: the rolls, the damage and both fighters' new state."""

    kind: AttackKind
    weapon: Weapon | None
    attack: CheckRoll
    abwehr: CheckRoll | None  # None: a miss, an unblockable Immersieg, or no defence possible
    damage_rolled: int  # the attack's result (0 on a miss)
    damage: int  # LK lost after Abwehr
    attacker: Fighter
    target: Fighter
    attacker_patzer: PatzerEffect | None
    target_patzer: PatzerEffect | None

    @property
    def hit(self) -> bool:
        return self.attack.success

    @property
    def unblockable(self) -> bool:
        """An Immersieg of the attack: the target rolls no Abwehr against it (ds4.md §2)."""
        return self.attack.success and self.attack.immersieg

    @property
    def lk_change(self) -> int:
        return -self.damage

    @property
    def weapon_dropped(self) -> bool:
        return self.attacker_patzer is PatzerEffect.WEAPON_DROPPED

    @property
    def weapon_broken(self) -> bool:
        return self.attacker_patzer is PatzerEffect.WEAPON_BROKEN

    @property
    def spell_dropped(self) -> bool:
        return self.attacker_patzer is PatzerEffect.SPELL_DROPPED

    @property
    def target_fell_prone(self) -> bool:
        return self.target_patzer is PatzerEffect.PRONE

    @property
    def target_unconscious(self) -> bool:
        return self.target.condition is Condition.UNCONSCIOUS

    @property
    def target_dead(self) -> bool:
        return self.target.condition is Condition.DEAD

    @property
    def rolls(self) -> tuple[CheckRoll, ...]:
        return (self.attack,) if self.abwehr is None else (self.attack, self.abwehr)


def attack(
    roller: Roller,
    attacker: Fighter,
    target: Fighter,
    weapon: Weapon | None,
    kind: AttackKind,
    modifiers: AttackModifiers | None = None,
    *,
    immersieg_max: int = IMMERSIEG_MAX,
    patzer_min: int = PATZER_MIN,
) -> AttackOutcome:
    """Roll an attack and, on a hit, the target's automatic Abwehr; apply the damage.

    An Immersieg of the attack cannot be reduced: the target rolls no Abwehr (ds4.md §2).
    Abwehr PW = target Abwehr + the weapon's GA (Schlagen/Schießen only; ``None`` means
    Waffenlos for Schlagen) − 2 if the target is prone + ``abwehr_extra``.
    """
    mods = modifiers or AttackModifiers()
    att = roll_check(
        roller,
        attacker.attack_value(kind),
        modifiers=attack_modifiers(kind, mods, attacker_prone=attacker.prone),
        immersieg_max=immersieg_max,
        patzer_min=patzer_min,
    )
    attacker_patzer = None
    if att.patzer:
        check = CombatCheck(kind.value)
        attacker_patzer = patzer_effect(check, weapon)
    if not att.success or att.immersieg or not target.can_defend:
        damage = damage_after_abwehr(att.check, None)
        new_target = replace(target, lebenskraft=target.lebenskraft - damage)
        if new_target.condition is not Condition.OK:
            new_target = replace(new_target, can_defend=False)
        return AttackOutcome(
            kind, weapon, att, None, att.result, damage, attacker, new_target, attacker_patzer, None
        )

    abw = roll_check(
        roller,
        target.abwehr,
        modifiers=abwehr_modifiers(target, weapon, kind, mods),
        immersieg_max=immersieg_max,
        patzer_min=patzer_min,
    )
    damage = damage_after_abwehr(att.check, abw.check)
    target_patzer = patzer_effect(CombatCheck.ABWEHR) if abw.patzer else None
    new_target = replace(
        target,
        lebenskraft=target.lebenskraft - damage,
        prone=target.prone or target_patzer is PatzerEffect.PRONE,
    )
    if new_target.condition is not Condition.OK:
        new_target = replace(new_target, can_defend=False)
    return AttackOutcome(
        kind, weapon, att, abw, att.result, damage, attacker, new_target, attacker_patzer,
        target_patzer,
    )  # fmt: skip
