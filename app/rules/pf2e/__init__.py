"""Pathfinder 2e roll engine (pure: no I/O, dice only from the :class:`Roller` passed in).

Rules: ``../shared/rules/pf2e.md`` (binding), explained with every project decision in
``docs/rules/pf2e.md``. Code identifiers are English; every label a user sees is German.
The rest of the app uses only the names below.

Core functions (no dice)
------------------------
- ``Degree`` – ``IntEnum``: ``CRITICAL_FAILURE = 0``, ``FAILURE = 1``, ``SUCCESS = 2``,
  ``CRITICAL_SUCCESS = 3``; ``.label`` (``Kritischer Erfolg`` ...), ``.attack_label``
  (``Kritischer Treffer`` ...), ``.is_success``, ``.step(n)``.
- ``degree_of_success(d20: int, modifier: int, dc: int) -> Degree`` – ±10 around the DC,
  then the natural 20/1 step.
- ``DegreeAdjustment(source, from_degree, to_degree)``,
  ``apply_adjustments(degree, adjustments) -> AdjustedDegree`` – degree-changing
  abilities, applied after the natural 20/1 step.
- ``Modifier(source: str, type: str, value: int)`` – type in ``MODIFIER_TYPES``:
  ``"attribute", "proficiency", "circumstance", "item", "status", "untyped"``.
- ``total_modifier(modifiers) -> int``; ``stack_modifiers(modifiers) -> ModifierBreakdown``
  (``applied``, ``ignored`` as ``IgnoredModifier(modifier, reason, superseded_by)`` with
  ``IgnoreReason.label``, ``total``, ``as_dict()``).
- ``proficiency_bonus(rank: str, level: int) -> int`` – rank in ``"untrained", "trained",
  "expert", "master", "legendary"`` (``Rank`` with German ``.label``);
  ``proficiency_modifier(rank, level) -> Modifier``.
- ``Attribute`` (German ``.label``/``.abbreviation``), ``attribute_modifier(score) -> int``,
  ``attribute_modifier_of(attribute, value) -> Modifier``.
- ``multiple_attack_penalty(attack_number: int, agile: bool) -> int``;
  ``map_modifier(attack_number, agile, *, own_turn=True) -> Modifier | None``.
- ``range_penalty(distance_m: float, increment_m: float) -> int`` – raises ``OutOfRange``
  beyond the sixth increment; ``range_increment(...)``, ``range_modifier(...)``.
- ``flat_check(dc: int, d20: int) -> bool`` – the die is ignored where the DC decides alone.
- ``basic_save_damage(damage: int, degree: Degree) -> int``.
- ``kept_d20(faces: tuple[int, ...], fortune: bool, misfortune: bool) -> int``.
- ``dc_from_modifier(modifier) -> int`` – any "10 + modifier" DC.

Statistics
----------
``Statistic(name, modifiers, dc_name)`` with ``.modifier``, ``.dc`` (10 + modifier),
``.breakdown``, ``.with_modifiers(...)``; builders ``armor_class`` (RK with GE-Limit),
``saving_throw`` (``Save.FORTITUDE/REFLEX/WILL``), ``perception``, ``skill``,
``weapon_attack`` (melee Stärke or Finesse, ranged Geschicklichkeit), ``spellcasting``
(Zauberangriff, ``.dc`` = Zauber-SG).

Rolling (take a ``Roller``)
---------------------------
- ``roll_check(roller, statistic, dc=None, *, dc_label, extra, adjustments, fortune,
  misfortune, secret) -> CheckResult`` – a generic check; ``secret=True`` is a Verdeckter
  Wurf (``CheckResult.as_dict(reveal=False)`` hides everything but that a roll happened).
- ``reroll_check(roller, previous, *, kind: "fortune" | "misfortune", source)`` – the new
  result counts; refuses a second effect of one kind (``RerollNotAllowed``).
- ``roll_d20(roller, *, fortune, misfortune) -> D20Roll`` – Glück/Unglück on the W20.
- ``attack_roll(roller, attack, target_ac, *, attack_number, agile, own_turn, distance_m,
  range_increment_m, ...) -> CheckResult``.
- ``strike(roller, attack, target_ac, damage, *, damage_bonuses, **same) -> StrikeResult`` –
  attack, then damage (e.g. ``"1W8"`` + Stärke) on a hit, doubled on a Kritischer Treffer.
- ``roll_damage(roller, damage, *, critical=False, bonuses=()) -> DamageRoll`` – at least 1
  before doubling; ``strength_damage(str, Delivery)`` / ``strength_damage_modifier`` give
  the Stärke part of a Strike by the weapon's delivery (melee, thrown, ranged, propulsive).
- ``save_against(roller, save, dc, *, damage=None, ...) -> SaveResult`` – with ``damage``
  an einfacher Rettungswurf (``damage_taken``).
- ``roll_initiative(roller, combatants) -> list[InitiativeEntry]`` – ``Combatant(id, name,
  side, statistic)``, ``Side.ADVENTURER/ADVERSARY``; ``tie_groups(order)``,
  ``reorder_initiative(order, ids)`` (GM reorders ties only).
- ``roll_flat_check(roller, dcs, *, fortune, misfortune, secret) -> FlatCheckResult`` –
  Einfacher Wurf against the highest DC; no roll where the DC decides alone.

Every result that used dice has ``.dice`` (``DieRoll`` values) and, where modifiers
apply, the ``ModifierBreakdown``. Refusals raise ``Pf2eError`` subclasses with German
``message`` text.
"""

from app.rules.pf2e.attacks import (
    DamageRoll,
    Delivery,
    StrikeResult,
    attack_modifiers,
    attack_roll,
    delivery_of,
    map_modifier,
    multiple_attack_penalty,
    range_increment,
    range_modifier,
    range_penalty,
    roll_damage,
    strength_damage,
    strength_damage_modifier,
    strike,
)
from app.rules.pf2e.attributes import Attribute, attribute_modifier, attribute_modifier_of
from app.rules.pf2e.checks import CheckResult, reroll_check, roll_check
from app.rules.pf2e.conditions import (
    Dying,
    PersistentResult,
    RecoveryResult,
    RetchResult,
    damaged_while_dying,
    frightened_after_turn,
    knocked_out,
    lose_dying,
    persistent_damage,
    recovery_check,
    retch,
)
from app.rules.pf2e.degrees import (
    AdjustedDegree,
    Degree,
    DegreeAdjustment,
    apply_adjustments,
    degree_from_total,
    degree_of_success,
)
from app.rules.pf2e.errors import (
    InvalidInitiativeOrder,
    OutOfRange,
    Pf2eError,
    RerollNotAllowed,
)
from app.rules.pf2e.flat import FlatCheckResult, flat_check, roll_flat_check
from app.rules.pf2e.fortune import D20Roll, FortuneState, kept_d20, roll_d20
from app.rules.pf2e.initiative import (
    Combatant,
    InitiativeEntry,
    Side,
    reorder_initiative,
    roll_initiative,
    tie_groups,
)
from app.rules.pf2e.modifiers import (
    MODIFIER_TYPES,
    IgnoredModifier,
    IgnoreReason,
    Modifier,
    ModifierBreakdown,
    stack_modifiers,
    total_modifier,
)
from app.rules.pf2e.proficiency import Rank, proficiency_bonus, proficiency_modifier
from app.rules.pf2e.saves import SaveResult, basic_save_damage, save_against
from app.rules.pf2e.statistics import (
    Save,
    Statistic,
    armor_class,
    dc_from_modifier,
    perception,
    saving_throw,
    skill,
    spellcasting,
    weapon_attack,
)

__all__ = [
    "MODIFIER_TYPES",
    "AdjustedDegree",
    "Attribute",
    "CheckResult",
    "Combatant",
    "D20Roll",
    "DamageRoll",
    "Degree",
    "DegreeAdjustment",
    "Delivery",
    "Dying",
    "FlatCheckResult",
    "FortuneState",
    "IgnoreReason",
    "IgnoredModifier",
    "InitiativeEntry",
    "InvalidInitiativeOrder",
    "Modifier",
    "ModifierBreakdown",
    "OutOfRange",
    "PersistentResult",
    "Pf2eError",
    "Rank",
    "RecoveryResult",
    "RerollNotAllowed",
    "RetchResult",
    "Save",
    "SaveResult",
    "Side",
    "Statistic",
    "StrikeResult",
    "apply_adjustments",
    "armor_class",
    "attack_modifiers",
    "attack_roll",
    "attribute_modifier",
    "attribute_modifier_of",
    "basic_save_damage",
    "damaged_while_dying",
    "dc_from_modifier",
    "degree_from_total",
    "degree_of_success",
    "delivery_of",
    "flat_check",
    "frightened_after_turn",
    "kept_d20",
    "knocked_out",
    "lose_dying",
    "map_modifier",
    "multiple_attack_penalty",
    "perception",
    "persistent_damage",
    "proficiency_bonus",
    "proficiency_modifier",
    "range_increment",
    "range_modifier",
    "range_penalty",
    "recovery_check",
    "reorder_initiative",
    "reroll_check",
    "retch",
    "roll_check",
    "roll_d20",
    "roll_damage",
    "roll_flat_check",
    "roll_initiative",
    "save_against",
    "saving_throw",
    "skill",
    "spellcasting",
    "stack_modifiers",
    "strength_damage",
    "strength_damage_modifier",
    "strike",
    "tie_groups",
    "total_modifier",
    "weapon_attack",
]
