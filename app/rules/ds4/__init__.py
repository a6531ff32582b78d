"""Dungeonslayers 4 (DS4) rules engine: pure functions, dice from a :class:`Roller`.

Source: the combat chapter (seed 001) as decided by ``shared/rules/ds4.md``; the mapping
of every rule to code and the project decisions are in ``docs/rules/ds4.md``. The rest of
the app uses only the names exported here.

Probe (``check``)
    ``evaluate_check(pw, faces, *, immersieg_max=1, patzer_min=20) -> CheckResult``
        ``faces`` in roll order, one per sub-check (:func:`dice_needed`). The result has
        ``success``, ``result``, ``immersieg``, ``patzer`` and ``assignment`` (the
        :class:`SubCheck` per sub-PW with the die the engine chose for the highest total).
    ``evaluate_opposed(a, b) -> "a" | "b" | "none"`` — Vergleichende Probe.
    ``roll_check(roller, pw, *, modifiers=(), difficulty=None, immersieg_max=1,
    patzer_min=20) -> CheckRoll`` — rolls the dice (one :class:`DieRoll`) and evaluates.
    ``check_odds(pw, *, immersieg_max=1, patzer_min=20) -> CheckOdds`` — exact success,
    Immersieg and Patzer probability and expected result (failures count 0), as Fractions.
    ``sub_checks(pw)``, ``dice_needed(pw)``, ``Difficulty``, ``DIFFICULTY_MODIFIER``.

Combat (``combat``, ``initiative``, ``movement``)
    ``damage_after_abwehr(attack, abwehr) -> int`` — ``attack`` is the damage or the attack
    ``CheckResult``; ``abwehr`` a ``CheckResult`` or ``None`` (target cannot defend).
    ``attack(roller, attacker, target, weapon, kind, modifiers=None) -> AttackOutcome`` —
    attack check, automatic Abwehr (Abwehr + weapon GA), damage, Patzer effects and the
    new :class:`Fighter` states (LK, prone, unconscious, dead).
    ``fighter_from_character(id, character, *, lebenskraft=None, prone=False) -> Fighter``.
    ``roll_initiative(roller, combatants, stored_tiebreaks, surprising_side=None, round=1)
    -> InitiativeOrder`` — order, Stechen rolls to store for the combat, new rolls.
    ``reach(laufen, terrain) -> Reach``, ``can_sturmangriff(distance_m, laufen, ...)``.
    ``condition(lebenskraft, koerper) -> Condition``, ``verschnaufen(lebenskraft,
    lebenskraft_max) -> int``, ``distance_modifier(distance_m)``, ``patzer_effect(check,
    weapon)``, ``POSITION_MODIFIER``, ``AttackModifiers``, ``AttackKind``, ``Position``.

Characters (``character``, ``kampfwerte``, ``equipment``, ``progression``)
    ``combat_values(character) -> CombatValues`` — the eight Kampfwerte, each a
    :class:`Kampfwert` with ``value`` and ``breakdown`` (``(source label, value)`` pairs).
    ``validate_character(character, *, creation=False) -> list[Problem]`` and
    ``validate_creation``, ``validate_equipment`` — problems with ``code``, ``severity``
    (``"error"`` / ``"warning"``) and ``params``; ``armour_allowed(klasse, armour)``.
    ``WEAPONS``, ``ARMOUR``, ``weapon(id)``, ``armour(id)`` — starter data.
    ``stufe_for_ep(ep)``, ``ep_for_stufe(stufe)``, ``ep_to_next_stufe(ep)``.
"""

from app.rules.ds4.character import (
    CLASS_ARMOUR,
    KLASSE_BONUS,
    VOLK_BONUS,
    ArmourPermission,
    Attribut,
    Attributes,
    Character,
    Eigenschaft,
    Equipment,
    Klasse,
    Problem,
    Traits,
    Volk,
    armour_allowed,
    has_errors,
    validate_character,
    validate_creation,
    validate_equipment,
)
from app.rules.ds4.check import (
    DIFFICULTY_MODIFIER,
    CheckOdds,
    CheckResult,
    CheckRoll,
    Difficulty,
    SubCheck,
    check_odds,
    dice_needed,
    evaluate_check,
    evaluate_opposed,
    roll_check,
    sub_checks,
)
from app.rules.ds4.combat import (
    POSITION_MODIFIER,
    AttackKind,
    AttackModifiers,
    AttackOutcome,
    CombatCheck,
    Condition,
    Fighter,
    PatzerEffect,
    Position,
    attack,
    attack_modifiers,
    condition,
    damage_after_abwehr,
    distance_modifier,
    fighter_from_character,
    patzer_effect,
    verschnaufen,
)
from app.rules.ds4.equipment import (
    ARMOUR,
    WAFFENLOS,
    WEAPONS,
    Armour,
    Material,
    Slot,
    Weapon,
    armour,
    weapon,
)
from app.rules.ds4.initiative import (
    InitiativeCombatant,
    InitiativeEntry,
    InitiativeOrder,
    StechenRoll,
    roll_initiative,
)
from app.rules.ds4.kampfwerte import CombatValues, Kampfwert, combat_values, with_zauberbonus
from app.rules.ds4.movement import Reach, Terrain, can_sturmangriff, reach
from app.rules.ds4.progression import STUFE_EP, ep_for_stufe, ep_to_next_stufe, stufe_for_ep

__all__ = [
    "ARMOUR",
    "CLASS_ARMOUR",
    "DIFFICULTY_MODIFIER",
    "KLASSE_BONUS",
    "POSITION_MODIFIER",
    "STUFE_EP",
    "VOLK_BONUS",
    "WAFFENLOS",
    "WEAPONS",
    "Armour",
    "ArmourPermission",
    "AttackKind",
    "AttackModifiers",
    "AttackOutcome",
    "Attribut",
    "Attributes",
    "Character",
    "CheckOdds",
    "CheckResult",
    "CheckRoll",
    "CombatCheck",
    "CombatValues",
    "Condition",
    "Difficulty",
    "Eigenschaft",
    "Equipment",
    "Fighter",
    "InitiativeCombatant",
    "InitiativeEntry",
    "InitiativeOrder",
    "Kampfwert",
    "Klasse",
    "Material",
    "PatzerEffect",
    "Position",
    "Problem",
    "Reach",
    "Slot",
    "StechenRoll",
    "SubCheck",
    "Terrain",
    "Traits",
    "Volk",
    "Weapon",
    "armour",
    "armour_allowed",
    "attack",
    "attack_modifiers",
    "can_sturmangriff",
    "check_odds",
    "combat_values",
    "condition",
    "damage_after_abwehr",
    "dice_needed",
    "distance_modifier",
    "ep_for_stufe",
    "ep_to_next_stufe",
    "evaluate_check",
    "evaluate_opposed",
    "fighter_from_character",
    "has_errors",
    "patzer_effect",
    "reach",
    "roll_check",
    "roll_initiative",
    "stufe_for_ep",
    "sub_checks",
    "validate_character",
    "validate_creation",
    "validate_equipment",
    "verschnaufen",
    "weapon",
    "with_zauberbonus",
]
