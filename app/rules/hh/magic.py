"""Magie (hh.md §9): Güteklassen, Fokus, Kontrollprobe, Wirkprobe, Kontrollverlust.

Flow of a spell:

1. The spell must be learned (Talent) or stand in an equipped Zauberbuch; it is cast at its
   mastered Güteklasse (C < B < A < S) or lower, +2 on the Wirkprobe per grade lower.
2. Fokussieren (:func:`add_focus`) adds 1 focus to that spell; a spell with a focus value
   needs at least that much. Focus is lost on casting, interruption or «benommen».
3. Interrupted while focusing (damage or a condition) → :func:`interrupt`: Kontrollprobe on
   Willenskraft − 2 × focus; failure → the spell fails and Kontrollverlust.
4. :func:`cast_spell`: Wirkprobe on Magiekunde + range modifier (+ grade bonus), possibly
   opposed by the target's defence; a focused spell gets +1 QS on success (or +1 per focus
   point with ``RuleOptions.focus_qs == "per_focus"``); a Patzer → Kontrollverlust.
5. :func:`roll_kontrollverlust`: 2W10 − focus (−4 more after a Kontrollprobe Patzer) on the
   Kontrollverlust table. Such a roll can never be rerolled with Glück.

Validation failures come back as a result with a stable ``error`` code and ``params``;
nothing is rolled then.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from app.rules.dice import DieRoll, Roller, roll_dice
from app.rules.hh.damage import damage, typed_damage
from app.rules.hh.life import Log, apply_condition, apply_damage
from app.rules.hh.modifiers import Breakdown, Part, breakdown
from app.rules.hh.opposed import OpposedResult, evaluate_opposed
from app.rules.hh.options import DEFAULT_OPTIONS, RuleOptions
from app.rules.hh.probe import ProbeResult, roll_probe
from app.rules.hh.state import Change, Figure, Zustand
from app.rules.hh.tables import TableEntry, table_entry

Grade = Literal["C", "B", "A", "S"]
#: Güteklassen, weakest first.
GRADES: tuple[Grade, ...] = ("C", "B", "A", "S")
#: Wirkprobe bonus per Güteklasse cast below the mastered one.
WEAKER_GRADE_BONUS = 2
#: Kontrollprobe penalty per current focus point.
KONTROLLPROBE_PENALTY_PER_FOCUS = 2
#: Extra penalty on the Kontrollverlust roll after a Kontrollprobe Patzer.
KONTROLLPROBE_PATZER_PENALTY = 4
#: Radius step of «Arkane Explosion» in Schritt per (focus + 1).
EXPLOSION_RADIUS_PER_FOCUS = 5

Distance = int | Literal["beruehrung"]
#: (largest distance in Schritt, Wirkprobe modifier); beyond the last: not possible.
RANGE_BANDS: tuple[tuple[int, int], ...] = ((10, 0), (25, -2), (100, -4), (250, -6))
TOUCH_MODIFIER = 2
MAX_RANGE = RANGE_BANDS[-1][0]


def grade_rank(grade: Grade) -> int:
    """0 for C … 3 for S."""
    try:
        return GRADES.index(grade)
    except ValueError:
        raise ValueError(f"unknown Güteklasse {grade!r}; expected one of {GRADES}") from None


def weaker_grade_bonus(mastered: Grade, cast: Grade) -> int:
    """+2 per Güteklasse ``cast`` lies below ``mastered``; ValueError if above."""
    steps = grade_rank(mastered) - grade_rank(cast)
    if steps < 0:
        raise ValueError(f"cannot cast Güteklasse {cast} with {mastered} mastered")
    return WEAKER_GRADE_BONUS * steps


def range_modifier(distance: Distance) -> int | None:
    """Wirkprobe modifier for the distance to the target; ``None`` beyond 250 Schritt.

    ``"beruehrung"`` (touch; only a willing or defenceless target) gives +2.
    """
    if distance == "beruehrung":
        return TOUCH_MODIFIER
    if distance < 0:
        raise ValueError(f"a distance cannot be negative, got {distance}")
    for limit, modifier in RANGE_BANDS:
        if distance <= limit:
            return modifier
    return None


@dataclass(frozen=True, slots=True)
class Spell:
    """A spell formula: ``focus`` is its focus value (0 = needs no focus)."""

    key: str
    focus: int = 0


@dataclass(frozen=True, slots=True)
class KnownSpell:
    """A spell the caster can use, at its mastered Güteklasse."""

    key: str
    grade: Grade


@dataclass(frozen=True, slots=True)
class Focus:
    """Focus gathered for exactly one spell."""

    spell: str
    points: int


@dataclass(frozen=True, slots=True)
class Caster:
    """A figure with what magic needs beyond its sheet.

    ``spellbook`` lists the spells of the equipped Zauberbuch (empty when none is equipped).
    ``free_hand``: a hand holds nothing and takes part in no other action; ``zauberfokus``:
    the caster holds an item with «Zauberfokus» (Zauberbuch, Zauberstab) — either suffices.
    """

    figure: Figure
    learned: tuple[KnownSpell, ...] = ()
    spellbook: tuple[KnownSpell, ...] = ()
    free_hand: bool = True
    zauberfokus: bool = False
    focus: Focus | None = None

    def mastered_grade(self, spell_key: str) -> Grade | None:
        """Best Güteklasse at which the caster knows the spell (Talent or Zauberbuch)."""
        ranks = [
            grade_rank(s.grade) for s in (*self.learned, *self.spellbook) if s.key == spell_key
        ]
        return GRADES[max(ranks)] if ranks else None

    def focus_for(self, spell_key: str) -> int:
        return self.focus.points if self.focus and self.focus.spell == spell_key else 0


def add_focus(current: Focus | None, spell_key: str) -> Focus:
    """One Fokussieren action: +1 focus for ``spell_key``.

    Project decision: focus held for another spell is given up (no Kontrollprobe).
    """
    if current is not None and current.spell == spell_key:
        return Focus(spell_key, current.points + 1)
    return Focus(spell_key, 1)


def kontrollprobe_modifier(focus: int) -> int:
    """−2 per current focus point."""
    return -KONTROLLPROBE_PENALTY_PER_FOCUS * max(0, focus)


def focus_qs_bonus(focus: int, options: RuleOptions = DEFAULT_OPTIONS) -> int:
    """Extra QS of a successful focused spell: 1, or 1 per focus point (``per_focus``)."""
    if focus <= 0:
        return 0
    return focus if options.focus_qs == "per_focus" else 1


def kontrollverlust_value(total: int, focus: int, kontrollprobe_patzer: bool = False) -> int:
    """Row of the Kontrollverlust table: 2W10 total − focus, −4 more after a Patzer."""
    return total - max(0, focus) - (KONTROLLPROBE_PATZER_PENALTY if kontrollprobe_patzer else 0)


# --- Kontrollverlust --------------------------------------------------------------------


TableLookup = Callable[[str, int], TableEntry]


@dataclass(frozen=True, slots=True)
class KontrollverlustResult:
    """A roll on the Kontrollverlust table and what it did.

    ``entry`` is the table entry (its ``key``: ``arkane_implosion``, ``arkane_explosion``,
    ``manabrand``, ``fehlzauber``, ``rueckkopplung``, ``innere_verwerfung``,
    ``harmlos_verpufft``); its structured effect is applied here. ``effect_rolls`` are the
    dice of the effect (damage, WP loss). «Arkane Explosion» hits every figure within
    ``area_radius`` Schritt with the same ``area_damage_roll`` (project decision: one roll,
    each figure reduces it by its own RS); the caster's share is in ``changes``.
    """

    dice: DieRoll
    focus: int
    kontrollprobe_patzer: bool
    value: int
    entry: TableEntry
    effect_rolls: tuple[DieRoll, ...] = ()
    area_radius: int = 0
    area_damage_roll: DieRoll | None = None
    changes: tuple[Change, ...] = ()
    #: A Kontrollverlust roll can never be rerolled with Glück (hh.md §4, §9.5).
    glueck_reroll_allowed: bool = False

    @property
    def key(self) -> str:
        return self.entry.key

    @property
    def rolls(self) -> tuple[DieRoll, ...]:
        return (self.dice, *self.effect_rolls)


def roll_kontrollverlust(
    roller: Roller,
    caster: Figure,
    focus: int,
    *,
    kontrollprobe_patzer: bool = False,
    lookup: TableLookup = table_entry,
) -> KontrollverlustResult:
    """Roll 2W10 − ``focus`` (−4 after a Kontrollprobe Patzer) and apply the entry's effect.

    Damage to the caster goes through :func:`app.rules.hh.damage.damage` with its RS (WP
    loss is direct) and a resistance listed under ``"magie"`` (project decision).
    """
    dice = roll_dice(roller, 2, 10)
    value = kontrollverlust_value(dice.total, focus, kontrollprobe_patzer)
    entry = lookup("kontrollverlust", value)
    effect = entry.effect
    me = caster.id
    effect_rolls: list[DieRoll] = []
    changes: list[Change] = []
    radius = 0
    area_roll: DieRoll | None = None
    for hurt in effect.damage:
        count = hurt.dice * (focus + 1) if hurt.per_focus else hurt.dice
        roll = roll_dice(roller, count, 10)
        effect_rolls.append(roll)
        if hurt.target == "area":
            radius = hurt.radius_per_focus * (focus + 1)
            area_roll = roll
        resistance = caster.resistances.get("magie", "none")
        amount = damage(list(roll.faces), 0, caster.rs, hurt.kind, resistance)
        if hurt.resource == "WP":
            changes.append(Change(me, "wp", -amount, detail=hurt.kind))
        else:
            changes.append(Change(me, "lp", -amount, detail=hurt.kind))
    for grant in effect.conditions:
        detail = f"{grant.resource}, {grant.cause}" if grant.resource else ""
        changes.append(Change(me, "condition_added", condition=grant.condition, detail=detail))
    if effect.gm_decides:
        changes.append(Change(me, "complication", detail=entry.key))
    return KontrollverlustResult(
        dice=dice,
        focus=focus,
        kontrollprobe_patzer=kontrollprobe_patzer,
        value=value,
        entry=entry,
        effect_rolls=tuple(effect_rolls),
        area_radius=radius,
        area_damage_roll=area_roll,
        changes=tuple(changes),
    )


# --- interruption -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InterruptionResult:
    """A focusing caster was interrupted (damage or a condition, incl. «benommen»).

    Focus is lost in any case (hh.md §9.2); ``probe`` is ``None`` when there was no focus.
    On a failed Kontrollprobe the spell fails and ``kontrollverlust`` holds the table roll.
    """

    focus_lost: int
    probe: ProbeResult | None
    kontrollverlust: KontrollverlustResult | None
    focus_after: Focus | None = None

    @property
    def spell_failed(self) -> bool:
        return self.kontrollverlust is not None

    @property
    def changes(self) -> tuple[Change, ...]:
        return self.kontrollverlust.changes if self.kontrollverlust else ()

    @property
    def rolls(self) -> tuple[DieRoll, ...]:
        own = self.probe.rolls if self.probe else ()
        return own + (self.kontrollverlust.rolls if self.kontrollverlust else ())


def kontrollprobe_target(willenskraft: int, focus: int, modifier: int = 0) -> int:
    """Target of a Kontrollprobe: Willenskraft − 2 × focus + modifier."""
    return willenskraft + kontrollprobe_modifier(focus) + modifier


def interrupt(
    roller: Roller,
    caster: Caster,
    *,
    modifier: int = 0,
    lookup: TableLookup = table_entry,
) -> InterruptionResult:
    """The caster takes damage or suffers a condition while holding focus.

    Kontrollprobe on Willenskraft − 2 × focus (+ ``modifier``); conditions do not modify it
    (it is neither an action nor a reaction). Failure → Kontrollverlust with the focus held,
    −4 more on a Patzer.
    """
    focus = caster.focus.points if caster.focus else 0
    if focus <= 0:
        return InterruptionResult(focus_lost=0, probe=None, kontrollverlust=None)
    willenskraft = caster.figure.skill("Willenskraft")
    probe = roll_probe(roller, willenskraft, kontrollprobe_modifier(focus) + modifier)
    loss = None
    if not probe.success:
        loss = roll_kontrollverlust(
            roller, caster.figure, focus, kontrollprobe_patzer=probe.patzer, lookup=lookup
        )
    return InterruptionResult(focus_lost=focus, probe=probe, kontrollverlust=loss)


# --- casting ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CastResult:
    """Everything a cast did.

    ``error`` (with ``params``) when the spell could not be cast; nothing was rolled then
    and the caster keeps its focus. Otherwise:

    - ``wirkprobe`` (its ``extra_qs`` is the focus bonus), optional ``defence`` and
      ``opposed`` comparison (hh.md §2; the focus bonus goes to the caster's QS if it wins);
    - ``success`` and final ``qs`` (focus bonus included, only on success);
    - ``focus_used`` (spent in any case, hh.md §9.2); ``focus_after`` is always ``None``:
      focus held for another spell is given up as well (project decision);
    - ``kontrollverlust`` after a Patzer on the Wirkprobe;
    - ``changes`` for the caster and ``rolls`` in the order they were made.
    """

    spell: str
    grade: Grade | None
    error: str | None = None
    params: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    wirkprobe: ProbeResult | None = None
    defence: ProbeResult | None = None
    opposed: OpposedResult | None = None
    success: bool = False
    qs: int = 0
    focus_used: int = 0
    focus_bonus: int = 0
    focus_after: Focus | None = None
    kontrollverlust: KontrollverlustResult | None = None
    changes: tuple[Change, ...] = ()
    #: The Wirkprobe's target with each modifier (one modifier path, ``modifiers``).
    target: Breakdown | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def rolls(self) -> tuple[DieRoll, ...]:
        rolls: tuple[DieRoll, ...] = ()
        for probe in (self.wirkprobe, self.defence):
            if probe is not None:
                rolls += probe.rolls
        if self.kontrollverlust is not None:
            rolls += self.kontrollverlust.rolls
        return rolls


def check_cast(
    caster: Caster, spell: Spell, *, grade: Grade | None = None, distance: Distance = 0
) -> tuple[str, dict[str, object]] | None:
    """Why the spell cannot be cast now, as ``(error code, params)``; ``None`` if it can.

    Codes: ``cannot_act`` (benommen, unconscious, dead), ``spell_unknown``,
    ``grade_too_high``, ``no_free_hand``, ``out_of_range``, ``focus_required``.
    """
    if not caster.figure.can_act:
        return "cannot_act", {}
    mastered = caster.mastered_grade(spell.key)
    if mastered is None:
        return "spell_unknown", {"spell": spell.key}
    if grade is not None and grade_rank(grade) > grade_rank(mastered):
        return "grade_too_high", {"grade": grade, "mastered": mastered}
    if not (caster.free_hand or caster.zauberfokus):
        return "no_free_hand", {}
    if range_modifier(distance) is None:
        return "out_of_range", {"distance": distance, "max": MAX_RANGE}
    have = caster.focus_for(spell.key)
    if have < spell.focus:
        return "focus_required", {"needed": spell.focus, "have": have}
    return None


def cast_spell(
    roller: Roller,
    caster: Caster,
    spell: Spell,
    options: RuleOptions = DEFAULT_OPTIONS,
    *,
    grade: Grade | None = None,
    distance: Distance = 0,
    modifier: int = 0,
    defence: int | None = None,
    apply_conditions: bool = True,
    lookup: TableLookup = table_entry,
) -> CastResult:
    """Cast ``spell`` (hh.md §9): validate, Wirkprobe, optional defence, focus bonus.

    ``grade`` defaults to the mastered Güteklasse; ``distance`` in Schritt or
    ``"beruehrung"``; ``modifier`` is any other modifier (cover, GM); with
    ``apply_conditions`` the caster's conditions modify the Wirkprobe as a magical action.
    ``defence`` is the target's defence value (Magiekunde − BE + modifiers) when it defends;
    the comparison follows hh.md §2 and the focus bonus is added to the winner's QS.
    """
    problem = check_cast(caster, spell, grade=grade, distance=distance)
    if problem is None and distance == "beruehrung" and defence is not None:
        problem = ("touch_needs_willing_target", {})
    if problem is not None:
        code, params = problem
        return CastResult(spell.key, grade, error=code, params=MappingProxyType(params))
    mastered = caster.mastered_grade(spell.key)
    assert mastered is not None
    cast_grade: Grade = grade or mastered
    range_mod = range_modifier(distance)
    assert range_mod is not None
    situational = (
        Part("Reichweite", range_mod),
        Part("Güteklasse", weaker_grade_bonus(mastered, cast_grade)),
        Part("Modifikator", modifier),
    )
    figure = caster.figure if apply_conditions else caster.figure.evolve(conditions=())
    target = breakdown(figure, "Magiekunde", "action", situational)
    focus = caster.focus_for(spell.key)
    bonus = focus_qs_bonus(focus, options)
    wirk = roll_probe(roller, target.value, target.modifier, extra_qs=bonus)
    defence_probe: ProbeResult | None = None
    comparison: OpposedResult | None = None
    success = wirk.success
    qs = wirk.qs
    if defence is not None:
        defence_probe = roll_probe(roller, defence)
        comparison = evaluate_opposed(wirk, defence_probe)
        success = comparison.winner == "attacker"
        qs = comparison.qs if success else 0
    loss = None
    if wirk.patzer:
        loss = roll_kontrollverlust(roller, caster.figure, focus, lookup=lookup)
    return CastResult(
        target=target,
        spell=spell.key,
        grade=cast_grade,
        wirkprobe=wirk,
        defence=defence_probe,
        opposed=comparison,
        success=success,
        qs=qs,
        focus_used=focus,
        focus_bonus=bonus if success else 0,
        focus_after=None,
        kontrollverlust=loss,
        changes=loss.changes if loss else (),
    )


# --- a spell in combat ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SpellEffect:
    """What a spell does to its target (a stat block's ``zauber`` entry, hh.md §9).

    ``range`` in Schritt, 0 = Berührung; on success ``damage_die`` > 0 deals QS × W
    ``damage_die`` + ``damage_bonus`` per die of ``damage_kind`` as magic damage, and
    ``condition`` is given; ``defended``: the target may defend with Magiekunde; ``area``:
    a Flächenzauber (:func:`resolve_area_cast`, :func:`area_spell_hit`).
    """

    name: str
    range: int = 0
    damage_die: int = 0
    damage_bonus: int = 0
    damage_kind: str = "normal"
    condition: str = ""
    defended: bool = False
    #: A Flächenzauber: cast on an area, each figure in it defends with Unbeugsamkeit.
    area: bool = False


@dataclass(frozen=True, slots=True)
class Booked:
    """A figure after something was booked on it: its changes and the dice of the booking."""

    figure: Figure
    changes: tuple[Change, ...] = ()
    rolls: tuple[DieRoll, ...] = ()


@dataclass(frozen=True, slots=True)
class SpellOutcome:
    """A spell cast in combat (:func:`resolve_cast`).

    ``error`` (with ``params``) when it could not be cast: nothing was rolled, nothing
    changed. Codes besides :func:`check_cast`'s: ``self_target``, ``target_dead``,
    ``beyond_spell_range`` (``range``), ``unknown_grade``.

    Otherwise ``cast`` is the Wirkprobe's result; ``target`` the target after its defence
    (one Reaktion), the damage (``damage``, rolled as ``damage_roll``) and the condition,
    with ``target_changes`` (its LP change left out: ``damage`` says it); ``caster`` the
    caster after a Kontrollverlust (``kontrollverlust``: what was booked on it). ``rolls``
    are the dice in the order they are shown: Wirkprobe, defence, damage and its
    consequences, condition, Kontrollverlust.
    """

    effect: SpellEffect
    distance: Distance = 0
    error: str | None = None
    params: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    cast: CastResult | None = None
    caster: Figure | None = None
    target: Figure | None = None
    damage: int = 0
    damage_roll: DieRoll | None = None
    target_changes: tuple[Change, ...] = ()
    kontrollverlust: Booked | None = None
    rolls: tuple[DieRoll, ...] = ()

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def success(self) -> bool:
        return self.cast is not None and self.cast.success


def _refused(effect: SpellEffect, code: str, **params: object) -> SpellOutcome:
    return SpellOutcome(effect, error=code, params=MappingProxyType(params))


def magic_defence(target: Figure) -> int:
    """A target's defence against a spell: Magiekunde − BE + its conditions' modifiers."""
    return breakdown(target, "Magiekunde", "defence").target


def spell_distance(effect: SpellEffect, distance: int) -> Distance | None:
    """Berührung for a spell of range 0, else ``distance``; ``None`` beyond the spell's range."""
    if effect.range == 0:
        return "beruehrung"
    return distance if distance <= effect.range else None


def book_kontrollverlust(
    roller: Roller,
    caster: Figure,
    loss: KontrollverlustResult,
    options: RuleOptions = DEFAULT_OPTIONS,
) -> Booked:
    """Book a Kontrollverlust on the caster: its damage (already after RS) and conditions."""
    log = Log()
    fig = caster
    for c in loss.changes:
        if c.kind in ("lp", "wp"):
            fig = log.absorb(apply_damage(
                roller, fig, -c.amount, options, resource="LP" if c.kind == "lp" else "WP",
                source=loss.entry.name,
            ))  # fmt: skip
    for grant in loss.entry.effect.conditions:
        if grant.target != "caster":
            continue
        z = Zustand(grant.condition, grant.resource, grant.cause, grant.probe_skill)
        fig = log.absorb(apply_condition(roller, fig, z, options))
    return _booked(fig, log)


def _booked(figure: Figure, log: Log) -> Booked:
    return Booked(figure, tuple(log.changes), tuple(log.rolls))


def _hit(
    roller: Roller, target: Figure, effect: SpellEffect, qs: int, options: RuleOptions
) -> tuple[Booked, int, DieRoll | None]:
    """A successful spell on its target: damage QS × W, then its condition."""
    log = Log()
    amount = 0
    roll: DieRoll | None = None
    if effect.damage_die:
        roll = roll_dice(roller, max(1, qs), effect.damage_die)
        amount = typed_damage(
            list(roll.faces), effect.damage_bonus, target.rs, kind=effect.damage_kind,
            damage_type="magie", resistances=target.resistances,
        )  # fmt: skip
        out = apply_damage(roller, target, amount, options, source=effect.name)
        target = out.figure
        log.changes += [c for c in out.changes if c.kind != "lp"]
        log.rolls += [roll, *out.all_rolls]
    if effect.condition:
        target = log.absorb(apply_condition(roller, target, Zustand(effect.condition), options))
    return _booked(target, log), amount, roll


def resolve_cast(
    roller: Roller,
    caster: Caster,
    spell: Spell,
    effect: SpellEffect,
    options: RuleOptions = DEFAULT_OPTIONS,
    *,
    target: Figure | None = None,
    distance: int = 0,
    grade: str | None = None,
    modifier: int = 0,
) -> SpellOutcome:
    """Zauber wirken in combat: validate, :func:`cast_spell`, then book what it did.

    A target defends with :func:`magic_defence` (one Reaktion) if the spell is
    ``defended``, it is not cast at Berührung and the target can react. On success the
    damage and the condition are booked on the target; a Patzer's Kontrollverlust on the
    caster. The focus is spent in any case (the caller drops it).
    """
    if target is not None and target.id == caster.figure.id:
        return _refused(effect, "self_target")
    if target is not None and target.dead:
        return _refused(effect, "target_dead", name=target.name)
    where = spell_distance(effect, distance)
    return _cast_at(roller, caster, spell, effect, options, target, where, grade, modifier)


def _cast_at(
    roller: Roller,
    caster: Caster,
    spell: Spell,
    effect: SpellEffect,
    options: RuleOptions,
    target: Figure | None,
    where: Distance | None,
    grade: str | None,
    modifier: int,
) -> SpellOutcome:
    """The checks and the cast :func:`resolve_cast` and :func:`resolve_area_cast` share:
    ``where`` (``None``: beyond the spell's range), the Güteklasse, :func:`cast_spell` with
    the target's defence where it defends, then the booked outcome."""
    if where is None:
        return _refused(effect, "beyond_spell_range", range=effect.range)
    known_grade = next((g for g in GRADES if g == grade), None)
    if grade is not None and known_grade is None:
        return _refused(effect, "unknown_grade")
    defends = target is not None and effect.defended and where != "beruehrung" and target.can_react
    result = cast_spell(
        roller, caster, spell, options, grade=known_grade, distance=where, modifier=modifier,
        defence=magic_defence(target) if defends and target is not None else None,
    )  # fmt: skip
    if not result.ok:
        return SpellOutcome(effect, where, result.error, result.params)
    return _cast_outcome(roller, caster, effect, result, options, target, where)


# --- Flächenzauber and Arkane Explosion (issue 27; docs/rules/hh.md «Flächeneffekte») -------

#: What an area effect is defended with (hh.md §6.2: Unbeugsamkeit vs area effects).
AREA_DEFENCE_SKILL = "Unbeugsamkeit"
#: How far from the caster a Flächenzauber of range 0 may start (it radiates from the caster).
AREA_SELF_REACH = 1


def area_spell_distance(effect: SpellEffect, distance: int) -> int | None:
    """The Wirkprobe's distance of a Flächenzauber whose area starts ``distance`` Schritt
    from the caster; ``None`` beyond the spell's range. A range-0 spell radiates from the
    caster (its area starts at most 1 Schritt away) and has no Berührung bonus: that is for
    one willing or defenceless target."""
    limit = effect.range or AREA_SELF_REACH
    if distance > limit:
        return None
    return 0 if effect.range == 0 else distance


def _cast_outcome(
    roller: Roller,
    caster: Caster,
    effect: SpellEffect,
    result: CastResult,
    options: RuleOptions,
    target: Figure | None,
    where: Distance,
) -> SpellOutcome:
    """A checked cast with its effect booked: the damage and condition on ``target`` on
    success, a Patzer's Kontrollverlust on the caster."""
    assert result.wirkprobe is not None
    rolls = [*result.wirkprobe.rolls, *(result.defence.rolls if result.defence else ())]
    if result.defence is not None and target is not None:
        target = target.evolve(reactions_left=target.reactions_left - 1)
    hit, amount, damage_roll = Booked(target) if target else None, 0, None
    if result.success and target is not None:
        hit, amount, damage_roll = _hit(roller, target, effect, result.qs, options)
        rolls += hit.rolls
    booked = None
    if result.kontrollverlust is not None:
        booked = book_kontrollverlust(roller, caster.figure, result.kontrollverlust, options)
        rolls += [*result.kontrollverlust.rolls, *booked.rolls]
    return SpellOutcome(
        effect,
        where,
        cast=result,
        caster=booked.figure if booked else caster.figure,
        target=hit.figure if hit else None,
        damage=amount,
        damage_roll=damage_roll,
        target_changes=hit.changes if hit else (),
        kontrollverlust=booked,
        rolls=tuple(rolls),
    )


def resolve_area_cast(
    roller: Roller,
    caster: Caster,
    spell: Spell,
    effect: SpellEffect,
    options: RuleOptions = DEFAULT_OPTIONS,
    *,
    distance: int = 0,
    grade: str | None = None,
    modifier: int = 0,
) -> SpellOutcome:
    """Cast a Flächenzauber whose area starts ``distance`` Schritt from the caster: the
    Wirkprobe as :func:`resolve_cast`'s (focus, Güteklasse, range, conditions), nothing
    opposed yet — each figure in the area answers it with :func:`area_spell_hit`. A Patzer's
    Kontrollverlust is booked on the caster. Refusals: :func:`check_cast`'s,
    ``not_an_area_spell``, ``beyond_spell_range``, ``unknown_grade``."""
    if not effect.area:
        return _refused(effect, "not_an_area_spell", spell=effect.name)
    where = area_spell_distance(effect, distance)
    return _cast_at(roller, caster, spell, effect, options, None, where, grade, modifier)


@dataclass(frozen=True, slots=True)
class AreaSpellHit:
    """One figure in a Flächenzauber's area: its Unbeugsamkeit defence (``defence``, its
    target ``defence_target``; ``None`` undefended), the comparison with the Wirkprobe, and
    on a hit the spell's damage (``damage``, rolled as ``damage_roll``) and condition booked
    on ``target`` (``changes`` without the LP change). ``rolls``: defence, then damage."""

    target: Figure
    hit: bool
    qs: int = 0
    defence: ProbeResult | None = None
    defence_target: Breakdown | None = None
    opposed: OpposedResult | None = None
    damage: int = 0
    damage_roll: DieRoll | None = None
    changes: tuple[Change, ...] = ()
    rolls: tuple[DieRoll, ...] = ()


def area_defence(target: Figure, modifier: int = 0) -> Breakdown:
    """A figure's defence against an area: Unbeugsamkeit − BE + its conditions (+ Glück)."""
    return breakdown(target, AREA_DEFENCE_SKILL, "defence", (Part("Glück", modifier),))


def area_spell_hit(
    roller: Roller,
    wirkprobe: ProbeResult,
    target: Figure,
    effect: SpellEffect,
    options: RuleOptions = DEFAULT_OPTIONS,
    *,
    defend: bool = True,
    defence_modifier: int = 0,
) -> AreaSpellHit:
    """A successful Flächenzauber's Wirkprobe against one figure in its area (hh.md §6.2–6.3):
    the figure defends with Unbeugsamkeit if ``defend`` and it can react (one Reaktion);
    defender wins → nothing; caster wins → QS of the difference; undefended → the Wirkprobe's
    QS (the focus bonus included). Cover plays no part (half and three-quarter cover are
    ignored; full cover kept the figure out of the area). A hit books the spell's damage
    (QS × W as magic) and condition, as a single-target spell's."""
    if not wirkprobe.success:
        return AreaSpellHit(target, hit=False)
    defence: ProbeResult | None = None
    b: Breakdown | None = None
    qs = wirkprobe.qs
    opposed = None
    if defend and target.can_react:
        b = area_defence(target, defence_modifier)
        defence = roll_probe(roller, b.value, b.modifier)
        target = target.evolve(reactions_left=target.reactions_left - 1)
        opposed = evaluate_opposed(wirkprobe, defence)
        if opposed.winner != "attacker":
            return AreaSpellHit(target, False, 0, defence, b, opposed, rolls=defence.rolls)
        qs = opposed.qs
    booked, amount, roll = _hit(roller, target, effect, qs, options)
    return AreaSpellHit(
        booked.figure, True, qs, defence, b, opposed, amount, roll, booked.changes,
        (*(defence.rolls if defence else ()), *booked.rolls),
    )  # fmt: skip


def explosion_damage(target: Figure, faces: tuple[int, ...], kind: str = "brechend") -> int:
    """«Arkane Explosion» on one figure in its radius: the one roll for everyone, reduced by
    the figure's own RS (brechend: halved) and its resistance to magic (as the caster's)."""
    return damage(list(faces), 0, target.rs, kind, target.resistances.get("magie", "none"))


def book_explosion(
    roller: Roller,
    target: Figure,
    faces: tuple[int, ...],
    kind: str = "brechend",
    options: RuleOptions = DEFAULT_OPTIONS,
) -> tuple[Booked, int]:
    """Book «Arkane Explosion» on a figure other than the caster (whose share the
    Kontrollverlust booked): :func:`explosion_damage` through the life rules."""
    amount = explosion_damage(target, faces, kind)
    out = apply_damage(roller, target, amount, options, source="Arkane Explosion")
    kept = tuple(c for c in out.changes if c.kind != "lp")
    return Booked(out.figure, kept, tuple(out.all_rolls)), amount
