"""Lebenspunkte, conditions applied with escalation, Sterben and stabilising (hh.md §7, §8).

Every function takes a figure snapshot and returns an :class:`Outcome` with the new
snapshot, the :class:`Change` records in order and every :class:`DieRoll` it used.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.rules.dice import DieRoll, Roller, roll_dice
from app.rules.hh.conditions import condition_def, modifier_for
from app.rules.hh.damage import damage as damage_total
from app.rules.hh.options import DEFAULT_OPTIONS, RuleOptions
from app.rules.hh.probe import ProbeResult, roll_probe
from app.rules.hh.state import Change, Figure, Resource, Zustand, skill_category


@dataclass(frozen=True, slots=True)
class Outcome:
    """New figure state plus what happened (changes) and the dice used.

    ``rolls`` are the dice besides the Probe; :attr:`all_rolls` includes the Probe's.
    """

    figure: Figure
    changes: tuple[Change, ...] = ()
    rolls: tuple[DieRoll, ...] = ()
    probe: ProbeResult | None = None

    @property
    def all_rolls(self) -> tuple[DieRoll, ...]:
        """Every die in the order rolled: the Probe's (if any), then ``rolls``."""
        return (self.probe.rolls if self.probe is not None else ()) + self.rolls


@dataclass(slots=True)
class Log:
    """Mutable collector used while a rule is resolved (internal helper, also for callers)."""

    changes: list[Change] = field(default_factory=list)
    rolls: list[DieRoll] = field(default_factory=list)

    def add(self, change: Change) -> None:
        self.changes.append(change)

    def absorb(self, outcome: Outcome) -> Figure:
        self.changes.extend(outcome.changes)
        self.rolls.extend(outcome.all_rolls)
        return outcome.figure

    def outcome(self, figure: Figure, probe: ProbeResult | None = None) -> Outcome:
        return Outcome(figure, tuple(self.changes), tuple(self.rolls), probe)


def angeschlagen_threshold(lp_max: int) -> int:
    """«angeschlagen» applies at LP ≤ this value (max ÷ 2, rounded down)."""
    return lp_max // 2


def death_threshold(unbeugsamkeit: int) -> int:
    """A figure dies at LP ≤ −Unbeugsamkeit (Unbeugsamkeit 10 → dies at −10)."""
    return -unbeugsamkeit


def is_dead_at(lp: int, unbeugsamkeit: int) -> bool:
    return lp <= death_threshold(unbeugsamkeit)


def apply_damage(
    roller: Roller,
    figure: Figure,
    amount: int,
    options: RuleOptions = DEFAULT_OPTIONS,
    *,
    resource: Resource = "LP",
    non_lethal: bool = False,
    source: str = "",
) -> Outcome:
    """Book ``amount`` damage (already after RS/resistance) and its consequences.

    LP: «angeschlagen» when crossing max ÷ 2; at LP ≤ 0 «sterbend» (non-lethal damage from
    above 0: LP stop at 0 and the figure is unconscious instead; an NSC with
    ``drops_at_zero`` drops out); death at LP ≤ −Unbeugsamkeit. WP stop at 0.
    """
    log = Log()
    figure = _damage(roller, figure, amount, options, log, resource, non_lethal, source)
    return log.outcome(figure)


def _damage(
    roller: Roller,
    figure: Figure,
    amount: int,
    options: RuleOptions,
    log: Log,
    resource: Resource,
    non_lethal: bool,
    source: str,
) -> Figure:
    amount = max(0, amount)
    if amount == 0 or figure.dead:
        return figure
    if resource == "WP":
        new_wp = max(0, figure.wp - amount)
        log.add(Change(figure.id, "wp", new_wp - figure.wp, detail=source))
        return figure.evolve(wp=new_wp)
    before = figure.lp
    new = before - amount
    lethal = not non_lethal or before <= 0
    if not lethal:
        new = max(0, new)
    log.add(Change(figure.id, "lp", new - before, detail=source))
    figure = figure.evolve(lp=new)
    threshold = angeschlagen_threshold(figure.lp_max)
    if before > threshold >= new:
        figure = _apply_condition(
            roller, figure, Zustand("angeschlagen"), options, log, "normal", set()
        )
    if new > 0 or figure.dead:
        return figure
    if figure.drops_at_zero:
        if not figure.unconscious:
            log.add(Change(figure.id, "out", detail="NSC scheidet bei 0 LP aus"))
        return figure.evolve(unconscious=True)
    if not lethal:
        if not figure.unconscious:
            log.add(Change(figure.id, "unconscious", detail="non_lethal"))
        return figure.evolve(unconscious=True)
    if not figure.has("sterbend") and not figure.on_feet:
        figure = figure.evolve(conditions=(*figure.conditions, Zustand("sterbend")))
        log.add(Change(figure.id, "condition_added", condition="sterbend"))
    if is_dead_at(new, figure.skill("Unbeugsamkeit")):
        log.add(Change(figure.id, "dead", detail=f"LP {new} ≤ −Unbeugsamkeit"))
        figure = figure.evolve(dead=True)
    return figure


def set_lp(figure: Figure, lp: int, *, source: str = "") -> Outcome:
    """LP written by hand (the sheet): bookkeeping, not damage (project decision).

    Falling to max ÷ 2 or less adds «angeschlagen», to 0 or less «sterbend», to
    −Unbeugsamkeit or less death (§7) — each only if not there yet: no escalation and no
    dice. Rising LP end nothing (healing above 0 does not end «sterbend», §7)."""
    if figure.dead or lp == figure.lp:
        return Outcome(figure)
    changes = [Change(figure.id, "lp", lp - figure.lp, detail=source)]
    before, figure = figure.lp, figure.evolve(lp=lp)
    added = []
    if before > angeschlagen_threshold(figure.lp_max) >= lp and not figure.has("angeschlagen"):
        added.append(Zustand("angeschlagen"))
    if before > 0 >= lp and not figure.has("sterbend") and not figure.on_feet:
        added.append(Zustand("sterbend"))
    changes += [Change(figure.id, "condition_added", condition=z.key) for z in added]
    figure = figure.evolve(conditions=(*figure.conditions, *added))
    if is_dead_at(lp, figure.skill("Unbeugsamkeit")):
        changes.append(Change(figure.id, "dead", detail=f"LP {lp} ≤ −Unbeugsamkeit"))
        figure = figure.evolve(dead=True)
    return Outcome(figure, tuple(changes))


def heal(figure: Figure, amount: int, *, source: str = "") -> Outcome:
    """Heal LP up to the maximum. Does not end «sterbend» (hh.md §7); an unconscious figure
    that is not dying wakes up above 0 LP (project decision)."""
    if figure.dead or amount <= 0:
        return Outcome(figure)
    new = min(figure.lp_max, figure.lp + amount)
    changes = [Change(figure.id, "lp", new - figure.lp, detail=source)]
    figure = figure.evolve(lp=new)
    if figure.unconscious and new > 0 and not figure.has("sterbend"):
        figure = figure.evolve(unconscious=False)
        changes.append(Change(figure.id, "conscious"))
    return Outcome(figure, tuple(changes))


def apply_condition(
    roller: Roller,
    figure: Figure,
    zustand: Zustand | str,
    options: RuleOptions = DEFAULT_OPTIONS,
    *,
    cause_kind: str = "normal",
) -> Outcome:
    """Apply a condition; if it is already active, apply its escalation (§8, (V)).

    ``cause_kind`` is the damage kind of the cause, used by escalations that deal
    "1W10 Schaden nach Ursache" (RS applies accordingly). Escalation chains stop when they
    would reach a condition already visited in the same chain (project decision).
    """
    z = Zustand(zustand) if isinstance(zustand, str) else zustand
    condition_def(z.key)
    log = Log()
    figure = _apply_condition(roller, figure, z, options, log, cause_kind, set())
    return log.outcome(figure)


def _apply_condition(
    roller: Roller,
    figure: Figure,
    z: Zustand,
    options: RuleOptions,
    log: Log,
    cause_kind: str,
    visited: set[str],
) -> Figure:
    if figure.dead:
        return figure
    if z.key == "zehrend" and not z.probe_skill:
        z = Zustand(
            z.key,
            z.resource or "LP",
            z.cause,
            "Unbeugsamkeit" if z.resource != "WP" else "Willenskraft",
        )
    if not any(c.same_kind(z) for c in figure.conditions):
        log.add(Change(figure.id, "condition_added", condition=z.label))
        return figure.evolve(conditions=(*figure.conditions, z))
    visited.add(z.key)
    esc = condition_def(z.key).escalation_for(options.condition_escalation)
    detail = f"«{z.label}» erneut: {esc.text}"
    if esc.kind == "condition":
        if esc.condition in visited:
            return figure
        return _apply_condition(
            roller, figure, Zustand(esc.condition), options, log, cause_kind, visited
        )
    if esc.kind == "lose_next_action":
        log.add(Change(figure.id, "lose_next_action", detail=detail))
        return figure.evolve(lose_next_action=True)
    if esc.kind == "choice":
        if not figure.has("niedergeworfen"):
            return _apply_condition(
                roller, figure, Zustand("niedergeworfen"), options, log, cause_kind, visited
            )
        return _escalation_damage(roller, figure, "LP", "direkt", options, log, detail)
    resource: Resource = (z.resource or "LP") if z.key == "zehrend" else esc.resource
    kind = cause_kind if esc.damage_kind == "cause" else "direkt"
    return _escalation_damage(roller, figure, resource, kind, options, log, detail)


def _escalation_damage(
    roller: Roller,
    figure: Figure,
    resource: Resource,
    kind: str,
    options: RuleOptions,
    log: Log,
    detail: str,
) -> Figure:
    die = roll_dice(roller, 1, 10)
    log.rolls.append(die)
    amount = die.total if resource == "WP" else damage_total([die.total], 0, figure.rs, kind)
    return _damage(roller, figure, amount, options, log, resource, False, detail)


def remove_condition(figure: Figure, key: str, *, detail: str = "") -> Outcome:
    """Remove every instance of condition ``key`` (a no-op if it is not active)."""
    kept = tuple(c for c in figure.conditions if c.key != key)
    if len(kept) == len(figure.conditions):
        return Outcome(figure)
    return Outcome(
        figure.evolve(conditions=kept),
        (Change(figure.id, "condition_removed", condition=key, detail=detail),),
    )


def remove_zustand(figure: Figure, zustand: Zustand, *, detail: str = "") -> Outcome:
    """Remove one exact condition instance (e.g. one «zehrend (LP, Blutung)»)."""
    kept = tuple(c for c in figure.conditions if c != zustand)
    if len(kept) == len(figure.conditions):
        return Outcome(figure)
    return Outcome(
        figure.evolve(conditions=kept),
        (Change(figure.id, "condition_removed", condition=zustand.label, detail=detail),),
    )


def probe_modifier(figure: Figure, skill: str, kind: str) -> int:
    """Condition modifier on ``figure``'s Probe with ``skill`` of ``kind`` (§8)."""
    return modifier_for(figure.conditions, skill_category(skill), kind)


def shake_off(
    roller: Roller,
    figure: Figure,
    key: str,
    options: RuleOptions = DEFAULT_OPTIONS,
    *,
    skill: str = "",
    modifier: int = 0,
) -> Outcome:
    """Spend an action to shake off condition ``key`` (§8). «niedergeworfen» needs no Probe.

    ``skill`` is required where the rules say "passende Probe" (GM's choice). «sterbend»
    is ended by another figure, see :func:`stabilise`; «zehrend» at the end of the round.
    """
    cdef = condition_def(key)
    if cdef.shake_off_by_other or key == "zehrend":
        raise ValueError(f"«{key}» cannot be shaken off by the figure itself")
    if not figure.has(key):
        raise ValueError(f"{figure.id} is not «{key}»")
    needed = cdef.shake_off_skill_for(options.condition_escalation)
    if not needed:
        return remove_condition(figure, key, detail="Aktion")
    used = skill or ("" if needed == "passend" else needed)
    if not used:
        raise ValueError(f"shaking off «{key}» needs a matching skill chosen by the GM")
    total = modifier + probe_modifier(figure, used, "action")
    probe = roll_probe(roller, figure.skill(used), total)
    if not probe.success:
        return Outcome(figure, (), (), probe)
    out = remove_condition(figure, key, detail=f"{used}-Probe")
    return Outcome(out.figure, out.changes, (), probe)


def sterbend_probe(
    roller: Roller, figure: Figure, options: RuleOptions = DEFAULT_OPTIONS
) -> Outcome:
    """End-of-round Unbeugsamkeit Probe of a dying figure (§7).

    Volltreffer → stabilised (unconscious); success → survives; failure → 1W10 direct LP
    damage; Patzer → dies.
    """
    if not figure.has("sterbend") or figure.dead:
        raise ValueError(f"{figure.id} is not dying")
    log = Log()
    probe = roll_probe(roller, figure.skill("Unbeugsamkeit"))
    if probe.volltreffer:
        figure = log.absorb(remove_condition(figure, "sterbend", detail="Volltreffer"))
        log.add(Change(figure.id, "stabilised", detail="Sterbend-Probe: Volltreffer"))
        figure = figure.evolve(unconscious=True)
    elif probe.patzer:
        log.add(Change(figure.id, "dead", detail="Sterbend-Probe: Patzer"))
        figure = figure.evolve(dead=True)
    elif not probe.success:
        die = roll_dice(roller, 1, 10)
        log.rolls.append(die)
        figure = _damage(
            roller, figure, die.total, options, log, "LP", False, "Sterbend-Probe misslungen"
        )
    return log.outcome(figure, probe)


def stabilise(
    roller: Roller,
    healer: Figure,
    dying: Figure,
    options: RuleOptions = DEFAULT_OPTIONS,
    *,
    modifier: int = 0,
) -> Outcome:
    """Another figure's action + Heilkunde Probe on a dying figure (§7).

    Success → «sterbend» ends, the figure stays unconscious; Patzer → 1W10 direct damage to
    the dying figure. The outcome's ``figure`` is the dying figure.
    """
    if healer.id == dying.id:
        raise ValueError("a figure cannot stabilise itself")
    if not dying.has("sterbend") or dying.dead:
        raise ValueError(f"{dying.id} is not dying")
    if not healer.can_act:
        raise ValueError(f"{healer.id} cannot act")
    log = Log()
    total = modifier + probe_modifier(healer, "Heilkunde", "action")
    probe = roll_probe(roller, healer.skill("Heilkunde"), total)
    if probe.success:
        dying = log.absorb(remove_condition(dying, "sterbend", detail=healer.id))
        log.add(Change(dying.id, "stabilised", detail=healer.id))
        dying = dying.evolve(unconscious=True)
    elif probe.patzer:
        die = roll_dice(roller, 1, 10)
        log.rolls.append(die)
        dying = _damage(roller, dying, die.total, options, log, "LP", False, "Heilkunde-Patzer")
    return log.outcome(dying, probe)
