"""Helden & Halunken (H&H) rules engine — pure functions; dice only through a Roller.

Binding interpretation: ``shared/rules/hh.md``; how each rule maps to code and every
project decision: ``docs/rules/hh.md``. Nothing here does I/O or draws randomness itself;
every result that used dice carries its :class:`app.rules.dice.DieRoll` values, and every
higher-level function returns the new figure states plus :class:`Change` records.

Public API (core engine):

- Options (§ (V)): :class:`RuleOptions` (``movement``, ``condition_escalation``,
  ``long_rest_lp``, ``focus_qs``; ``from_mapping``, ``as_dict``), ``DEFAULT_OPTIONS``.
- Probe (§1): ``evaluate_probe(faces, value, modifier=0, *, extra_qs=0) -> ProbeResult``,
  ``roll_probe(roller, value, modifier=0, *, extra_qs=0)``, ``automatic_volltreffer``,
  ``qs(x)``, ``best_qs(target)``, ``DIFFICULTIES``, ``difficulty_modifier(name)``,
  ``success_probability(value, modifier=0) -> Fraction``, ``qs_distribution``,
  ``probe_odds`` (:class:`ProbeOdds`), ``probability_table(targets=range(2, 31))``.
- Vergleichende Probe, Helfen (§2, §3): ``evaluate_opposed(attacker, defender) ->
  OpposedResult`` (``winner`` in attacker/defender/none, ``qs``), ``roll_opposed``,
  ``evaluate_help``, ``roll_with_help``.
- Glück (§4): ``luck_problems``/``check_luck``, ``can_spend``, ``can_burn``,
  ``roll_with_luck``, ``reroll``, ``negate_patzer``, ``extra_action``, ``extra_reaction``,
  ``spend_to_halve_damage``, ``spend_to_remove_condition``, ``stay_on_feet``, ``end_scene``,
  ``burn_for_volltreffer``, ``avoid_death``, ``refill_luck``.
- Kampfrunde (§5): ``initiative(spuersinn, be)``, ``initiative_steps(initiative)``,
  ``reactions(initiative)``, ``round_order(figures, gm_order)``, ``start_of_round``,
  ``movement_per_action``, ``figure_movement``, ``sprint_distance``, ``HANDLUNGEN``,
  ``REAKTIONEN``.
- Angriff (§6): ``resolve_attack(roller, attacker, defender, options, spec, *, covering,
  counter_spec) -> AttackResult``, :class:`AttackSpec`, :class:`Weapon`, ``aim``,
  ``aim_interrupted``; ``damage(rolls, bonus, rs, kind="normal", resistance="none")``,
  ``elemental_damage``, ``typed_damage``; ``table_entry(table, roll)``, ``TABLES``;
  ``cover_modifier``, ``living_cover``; ``threat_zone``, ``blockade_triggers``;
  ``resolve_maneuver``, ``maneuver_allowed``, ``MANEUVERS``; ``morale_check``, ``rally``.
- Leben und Zustände (§7, §8): :class:`Figure`, :class:`Zustand`, :class:`Change`,
  ``apply_damage``, ``heal``, ``apply_condition``, ``remove_condition``, ``shake_off``,
  ``sterbend_probe``, ``stabilise``, ``CONDITIONS``, ``modifier_for(conditions, category,
  kind)``.
- Rundenende (§5): ``end_of_round(roller, figures, options) -> RoundEndResult``.

Public API (magic, rests, inventory and detail rules), as submodules and their main names:

- :mod:`magic` (§9): ``cast_spell(roller, caster, spell, options, ...) -> CastResult``,
  ``resolve_cast`` (a spell in combat: defence, damage, condition, Kontrollverlust booked
  -> ``SpellOutcome``), ``interrupt`` (Kontrollprobe), ``roll_kontrollverlust``,
  ``add_focus``, ``range_modifier``, ``check_cast``; :class:`Caster`, :class:`Spell`,
  :class:`KnownSpell`, :class:`Focus`.
- :mod:`rest` (§10): ``short_rest``, ``long_rest``, ``check_rest``.
- :mod:`inventory` (§11): ``rucksack_capacity``, ``rucksack_load``, ``check_rucksack_add``,
  ``check_equip``, ``inventory_state``, ``retrieve_from_rucksack``, ``SLOTS``.
- :mod:`procurement` (Beschaffung), :mod:`movement` (Sprünge, Stürze), :mod:`crafting`
  (Herstellung), :mod:`companions` (Gefährten) (§12).
- :mod:`helping` (Helfen with figures: ``help_problems``, ``roll_help``, ``spend_help``),
  :mod:`athletics` (``jump_figure``, ``fall_figure``: Sprünge and Stürze of a figure on the
  one modifier path, fall damage through ``apply_damage``).
"""

from app.rules.hh import (
    companions,
    crafting,
    inventory,
    magic,
    movement,
    procurement,
    rest,
)
from app.rules.hh.attack import (
    AttackResult,
    AttackSpec,
    TableRoll,
    Weapon,
    aim,
    aim_interrupted,
    resolve_attack,
)
from app.rules.hh.conditions import CONDITIONS, ConditionDef, modifier_for
from app.rules.hh.cover import FullCover, cover_modifier, living_cover
from app.rules.hh.damage import damage, elemental_damage, typed_damage
from app.rules.hh.grid import BlockadeTrigger, blockade_triggers, threat_zone
from app.rules.hh.initiative import (
    HANDLUNGEN,
    REAKTIONEN,
    figure_movement,
    initiative,
    initiative_steps,
    movement_per_action,
    reactions,
    round_order,
    sprint_distance,
    start_of_round,
)
from app.rules.hh.inventory import (
    SLOTS,
    check_equip,
    check_rucksack_add,
    inventory_state,
    retrieve_from_rucksack,
    rucksack_capacity,
    rucksack_load,
)
from app.rules.hh.life import (
    Outcome,
    apply_condition,
    apply_damage,
    heal,
    remove_condition,
    shake_off,
    stabilise,
    sterbend_probe,
)
from app.rules.hh.luck import (
    LuckError,
    avoid_death,
    burn_for_volltreffer,
    can_burn,
    can_spend,
    check_luck,
    end_scene,
    extra_action,
    extra_reaction,
    luck_problems,
    negate_patzer,
    refill_luck,
    reroll,
    roll_with_luck,
    spend_to_halve_damage,
    spend_to_remove_condition,
    stay_on_feet,
)
from app.rules.hh.magic import (
    Caster,
    CastResult,
    Focus,
    KnownSpell,
    Spell,
    add_focus,
    cast_spell,
    check_cast,
    interrupt,
    range_modifier,
    roll_kontrollverlust,
)
from app.rules.hh.maneuvers import MANEUVERS, maneuver_allowed, resolve_maneuver
from app.rules.hh.morale import morale_check, rally
from app.rules.hh.opposed import (
    OpposedResult,
    evaluate_help,
    evaluate_opposed,
    roll_opposed,
    roll_with_help,
)
from app.rules.hh.options import DEFAULT_OPTIONS, RuleOptions
from app.rules.hh.probe import (
    DIFFICULTIES,
    Difficulty,
    ProbeOdds,
    ProbeResult,
    automatic_volltreffer,
    best_qs,
    difficulty_modifier,
    evaluate_probe,
    probability_table,
    probe_odds,
    qs,
    qs_distribution,
    roll_probe,
    success_probability,
)
from app.rules.hh.rest import check_rest, long_rest, short_rest
from app.rules.hh.round_end import RoundEndResult, end_of_round
from app.rules.hh.state import Change, Figure, Zustand
from app.rules.hh.tables import TABLES, TableEntry, table_entry

__all__ = [
    "CONDITIONS",
    "DEFAULT_OPTIONS",
    "DIFFICULTIES",
    "HANDLUNGEN",
    "MANEUVERS",
    "REAKTIONEN",
    "SLOTS",
    "TABLES",
    "AttackResult",
    "AttackSpec",
    "BlockadeTrigger",
    "CastResult",
    "Caster",
    "Change",
    "ConditionDef",
    "Difficulty",
    "Figure",
    "Focus",
    "FullCover",
    "KnownSpell",
    "LuckError",
    "OpposedResult",
    "Outcome",
    "ProbeOdds",
    "ProbeResult",
    "RoundEndResult",
    "RuleOptions",
    "Spell",
    "TableEntry",
    "TableRoll",
    "Weapon",
    "Zustand",
    "add_focus",
    "aim",
    "aim_interrupted",
    "apply_condition",
    "apply_damage",
    "automatic_volltreffer",
    "avoid_death",
    "best_qs",
    "blockade_triggers",
    "burn_for_volltreffer",
    "can_burn",
    "can_spend",
    "cast_spell",
    "check_cast",
    "check_equip",
    "check_luck",
    "check_rest",
    "check_rucksack_add",
    "companions",
    "cover_modifier",
    "crafting",
    "damage",
    "difficulty_modifier",
    "elemental_damage",
    "end_of_round",
    "end_scene",
    "evaluate_help",
    "evaluate_opposed",
    "evaluate_probe",
    "extra_action",
    "extra_reaction",
    "figure_movement",
    "heal",
    "initiative",
    "initiative_steps",
    "interrupt",
    "inventory",
    "inventory_state",
    "living_cover",
    "long_rest",
    "luck_problems",
    "magic",
    "maneuver_allowed",
    "modifier_for",
    "morale_check",
    "movement",
    "movement_per_action",
    "negate_patzer",
    "probability_table",
    "probe_odds",
    "procurement",
    "qs",
    "qs_distribution",
    "rally",
    "range_modifier",
    "reactions",
    "refill_luck",
    "remove_condition",
    "reroll",
    "resolve_attack",
    "resolve_maneuver",
    "rest",
    "retrieve_from_rucksack",
    "roll_kontrollverlust",
    "roll_opposed",
    "roll_probe",
    "roll_with_help",
    "roll_with_luck",
    "round_order",
    "rucksack_capacity",
    "rucksack_load",
    "shake_off",
    "short_rest",
    "spend_to_halve_damage",
    "spend_to_remove_condition",
    "sprint_distance",
    "stabilise",
    "start_of_round",
    "stay_on_feet",
    "sterbend_probe",
    "success_probability",
    "table_entry",
    "threat_zone",
    "typed_damage",
]
