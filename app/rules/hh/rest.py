"""Rasten (hh.md §10): Kurze and Lange Rast with per-day limits, camp Probe and healers.

The in-game clock is a minute count since the campaign started (``now``); the caller passes
the rests taken so far (:class:`RestRecord`). A day is a calendar day of that clock
(``minute // 1440``, optionally shifted by ``day_start``); a rest belongs to the day it
starts on (project decision).

Kurze Rast (30 min): at most 2 a day, starting at least 2 h after the end of the last rest
or camp. Unbeugsamkeit: success → 1W10 WP, removes «angeschlagen» and «zehrend (WP)». A
healer's Heilkunde per companion heals QS × 2 LP.

Lange Rast (8 h): 1 a day, needs a camp site. Camp Probe: Patzer → no regeneration, and an
Unbeugsamkeit Probe in the morning or start «angeschlagen»; failure → −4 on regeneration;
success → + the Lagermeister's QS. Regeneration (Unbeugsamkeit): success → (QS)W10 WP,
1W10 LP (``long_rest_lp="full"``) or (QS)W10 LP (``"summary"``), +1 GP, removes
«angeschlagen» and «zehrend (WP)». A healer's Heilkunde heals (QS)W10 LP.

Rest Probes are not modified by conditions (they are neither actions nor reactions).
Healing never raises LP/WP/GP above the maximum. Dice are rolled in this order: camp Probe;
per participant (in the given order) regeneration Probe, WP dice, LP dice — or the
morning Probe after a camp Patzer; then each healing in the given order (Probe, dice).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from app.rules.dice import DieRoll, Roller, roll_dice
from app.rules.hh.options import DEFAULT_OPTIONS, RuleOptions
from app.rules.hh.probe import ProbeResult, roll_probe
from app.rules.hh.state import Change, Figure, Zustand

RestKind = Literal["kurz", "lang"]

MINUTES_PER_DAY = 24 * 60
REST_MINUTES: Mapping[RestKind, int] = MappingProxyType({"kurz": 30, "lang": 8 * 60})
RESTS_PER_DAY: Mapping[RestKind, int] = MappingProxyType({"kurz": 2, "lang": 1})
#: A Kurze Rast starts at least this long after the end of the last rest or camp.
SHORT_REST_GAP_MINUTES = 2 * 60
CAMP_FAILURE_MODIFIER = -4


@dataclass(frozen=True, slots=True)
class RestRecord:
    """A rest taken: its kind and the minute it started."""

    kind: RestKind
    start: int

    @property
    def end(self) -> int:
        return self.start + REST_MINUTES[self.kind]


@dataclass(frozen=True, slots=True)
class RestCheck:
    """``ok`` or a stable ``error`` code with ``params`` (minutes of the in-game clock)."""

    ok: bool
    error: str | None = None
    params: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))


def day_of(minute: int, day_start: int = 0) -> int:
    """Calendar day of the in-game clock; ``day_start`` shifts the day boundary."""
    return (minute - day_start) // MINUTES_PER_DAY


def check_rest(
    kind: RestKind,
    now: int,
    history: Iterable[RestRecord],
    *,
    camp_site: bool = True,
    day_start: int = 0,
) -> RestCheck:
    """May the group start a rest of ``kind`` at minute ``now``?

    Errors: ``rest_in_progress`` (``until``: the previous rest has not ended),
    ``short_rest_too_soon`` (``earliest``), ``daily_limit`` (``kind``, ``limit``, ``day``),
    ``no_camp_site`` (Lange Rast without a suitable camp site).
    """
    if kind not in REST_MINUTES:
        raise ValueError(f"unknown rest kind {kind!r}")
    past = sorted((r for r in history if r.start <= now), key=lambda r: r.end)
    if past and past[-1].end > now:
        return RestCheck(False, "rest_in_progress", MappingProxyType({"until": past[-1].end}))
    if kind == "lang" and not camp_site:
        return RestCheck(False, "no_camp_site")
    today = day_of(now, day_start)
    same_day = [r for r in past if r.kind == kind and day_of(r.start, day_start) == today]
    limit = RESTS_PER_DAY[kind]
    if len(same_day) >= limit:
        return RestCheck(
            False, "daily_limit", MappingProxyType({"kind": kind, "limit": limit, "day": today})
        )
    if kind == "kurz" and past:
        earliest = max(r.end for r in past) + SHORT_REST_GAP_MINUTES
        if now < earliest:
            return RestCheck(False, "short_rest_too_soon", MappingProxyType({"earliest": earliest}))
    return RestCheck(True)


@dataclass(frozen=True, slots=True)
class Healing:
    """A healer's Heilkunde Probe for one companion (``target`` = figure id)."""

    healer: Figure
    target: str
    modifier: int = 0


@dataclass(frozen=True, slots=True)
class ParticipantRest:
    """What the rest did for one figure; ``after`` is its new snapshot."""

    figure: str
    after: Figure
    regeneration: ProbeResult | None = None
    wp_roll: DieRoll | None = None
    wp_healed: int = 0
    lp_roll: DieRoll | None = None
    lp_healed: int = 0
    gp_gained: int = 0
    conditions_removed: tuple[str, ...] = ()
    morning_probe: ProbeResult | None = None
    conditions_gained: tuple[str, ...] = ()
    healer: str | None = None
    healing_probe: ProbeResult | None = None
    healing_roll: DieRoll | None = None
    healing_lp: int = 0


@dataclass(frozen=True, slots=True)
class RestResult:
    """Outcome of a rest: ``error`` when it could not be taken (nothing rolled then).

    ``record`` is the :class:`RestRecord` to store; ``changes`` and ``rolls`` in order.
    """

    kind: RestKind
    error: str | None = None
    params: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    record: RestRecord | None = None
    camp_probe: ProbeResult | None = None
    regeneration_modifier: int = 0
    participants: tuple[ParticipantRest, ...] = ()
    changes: tuple[Change, ...] = ()
    rolls: tuple[DieRoll, ...] = ()

    @property
    def ok(self) -> bool:
        return self.error is None

    def participant(self, figure_id: str) -> ParticipantRest:
        for p in self.participants:
            if p.figure == figure_id:
                return p
        raise KeyError(figure_id)


def _removable(z: Zustand) -> bool:
    return z.key == "angeschlagen" or (z.key == "zehrend" and z.resource == "WP")


def _heal(current: int, maximum: int, amount: int) -> int:
    """Points actually regained: ``amount`` but not beyond ``maximum``."""
    return max(0, min(amount, maximum - current))


class _Builder:
    """Collects the state of every participant while a rest is resolved."""

    def __init__(self, participants: Sequence[Figure]) -> None:
        ids = [p.id for p in participants]
        if len(set(ids)) != len(ids):
            raise ValueError("every participant may take part only once")
        self.order = ids
        self.figures = {p.id: p for p in participants}
        self.info: dict[str, dict[str, object]] = {i: {} for i in ids}
        self.changes: list[Change] = []
        self.rolls: list[DieRoll] = []

    def probe(self, value: int, modifier: int, roller: Roller) -> ProbeResult:
        result = roll_probe(roller, value, modifier)
        self.rolls.extend(result.rolls)
        return result

    def dice(self, roller: Roller, count: int) -> DieRoll:
        roll = roll_dice(roller, count, 10)
        self.rolls.append(roll)
        return roll

    def regenerate(self, fid: str, wp: DieRoll | None, lp: DieRoll | None, gp: int) -> None:
        fig = self.figures[fid]
        info = self.info[fid]
        wp_gain = _heal(fig.wp, fig.wp_max, wp.total) if wp else 0
        lp_gain = _heal(fig.lp, fig.lp_max, lp.total) if lp else 0
        gp_gain = _heal(fig.gp, fig.gp_max, gp)
        removed = tuple(z for z in fig.conditions if _removable(z))
        kept = tuple(z for z in fig.conditions if not _removable(z))
        self.figures[fid] = fig.evolve(
            wp=fig.wp + wp_gain, lp=fig.lp + lp_gain, gp=fig.gp + gp_gain, conditions=kept
        )
        info.update(
            wp_roll=wp,
            wp_healed=wp_gain,
            lp_roll=lp,
            lp_healed=lp_gain,
            gp_gained=gp_gain,
            conditions_removed=tuple(z.label for z in removed),
        )
        for kind, amount in (("wp", wp_gain), ("lp", lp_gain), ("gp", gp_gain)):
            if amount:
                self.changes.append(Change(fid, kind, amount, detail="rast"))  # type: ignore[arg-type]
        for z in removed:
            self.changes.append(Change(fid, "condition_removed", condition=z.key, detail=z.label))

    def heal(self, healing: Healing, probe: ProbeResult, roll: DieRoll | None, amount: int) -> None:
        fig = self.figures[healing.target]
        gain = _heal(fig.lp, fig.lp_max, amount)
        self.figures[healing.target] = fig.evolve(lp=fig.lp + gain)
        self.info[healing.target].update(
            healer=healing.healer.id, healing_probe=probe, healing_roll=roll, healing_lp=gain
        )
        if gain:
            self.changes.append(Change(healing.target, "lp", gain, detail="heilkunde"))

    def gain_condition(self, fid: str, key: str) -> None:
        fig = self.figures[fid]
        if not fig.has(key):
            self.figures[fid] = fig.evolve(conditions=(*fig.conditions, Zustand(key)))
            self.changes.append(Change(fid, "condition_added", condition=key))
        self.info[fid]["conditions_gained"] = (key,)

    def result(self, kind: RestKind, record: RestRecord, **extra: object) -> RestResult:
        participants = tuple(
            ParticipantRest(figure=i, after=self.figures[i], **self.info[i])  # type: ignore[arg-type]
            for i in self.order
        )
        return RestResult(
            kind,
            record=record,
            participants=participants,
            changes=tuple(self.changes),
            rolls=tuple(self.rolls),
            **extra,  # type: ignore[arg-type]
        )


def _validate_healing(
    healing: Sequence[Healing], participants: Sequence[Figure], companions: frozenset[str]
) -> tuple[str, dict[str, object]] | None:
    ids = {p.id for p in participants}
    seen: set[str] = set()
    for h in healing:
        if h.target not in ids:
            return "unknown_target", {"target": h.target}
        if h.target in companions:
            return "companion_not_healable", {"target": h.target}
        if h.target in seen:
            return "already_healed", {"target": h.target}
        seen.add(h.target)
    return None


def _refuse(kind: RestKind, code: str, params: Mapping[str, object]) -> RestResult:
    return RestResult(kind, error=code, params=MappingProxyType(dict(params)))


def _refusal(
    kind: RestKind,
    check: RestCheck,
    healing: Sequence[Healing],
    participants: Sequence[Figure],
    companions: Iterable[str],
) -> RestResult | None:
    """Why a rest of ``kind`` may not start (``check`` first, then the healing), or ``None``."""
    if not check.ok:
        assert check.error is not None
        return _refuse(kind, check.error, check.params)
    problem = _validate_healing(healing, participants, frozenset(companions))
    return _refuse(kind, *problem) if problem else None


def short_rest(
    roller: Roller,
    participants: Sequence[Figure],
    *,
    now: int,
    history: Iterable[RestRecord] = (),
    healing: Sequence[Healing] = (),
    companions: Iterable[str] = (),
    modifiers: Mapping[str, int] | None = None,
    day_start: int = 0,
) -> RestResult:
    """Kurze Rast at minute ``now`` (hh.md §10).

    ``companions`` are ids of Gefährten (Heilkunde does not work on them);
    ``modifiers`` optional per-figure modifiers on the Unbeugsamkeit Probe.
    """
    check = check_rest("kurz", now, history, day_start=day_start)
    refused = _refusal("kurz", check, healing, participants, companions)
    if refused is not None:
        return refused
    b = _Builder(participants)
    mods = modifiers or {}
    for fig in participants:
        probe = b.probe(fig.skill("Unbeugsamkeit"), mods.get(fig.id, 0), roller)
        b.info[fig.id]["regeneration"] = probe
        if probe.success:
            b.regenerate(fig.id, b.dice(roller, 1), None, 0)
    for h in healing:
        probe = b.probe(h.healer.skill("Heilkunde"), h.modifier, roller)
        b.heal(h, probe, None, probe.qs * 2 if probe.success else 0)
    return b.result("kurz", RestRecord("kurz", now))


def long_rest(
    roller: Roller,
    participants: Sequence[Figure],
    options: RuleOptions = DEFAULT_OPTIONS,
    *,
    now: int,
    history: Iterable[RestRecord] = (),
    camp_site: bool = True,
    camp_value: int | None = None,
    camp_modifier: int = 0,
    healing: Sequence[Healing] = (),
    companions: Iterable[str] = (),
    modifiers: Mapping[str, int] | None = None,
    day_start: int = 0,
) -> RestResult:
    """Lange Rast at minute ``now`` (hh.md §10).

    ``camp_value``: the Lagermeister's Probenwert when the GM asks for a camp Probe
    (``None``: a suitable camp site is at hand, no Probe and no modifier). LP regained
    follow ``options.long_rest_lp``.
    """
    check = check_rest("lang", now, history, camp_site=camp_site, day_start=day_start)
    refused = _refusal("lang", check, healing, participants, companions)
    if refused is not None:
        return refused
    b = _Builder(participants)
    mods = modifiers or {}
    camp: ProbeResult | None = None
    regen_mod = 0
    if camp_value is not None:
        camp = b.probe(camp_value, camp_modifier, roller)
        regen_mod = camp.qs if camp.success else CAMP_FAILURE_MODIFIER
    for fig in participants:
        value = fig.skill("Unbeugsamkeit")
        if camp is not None and camp.patzer:
            morning = b.probe(value, mods.get(fig.id, 0), roller)
            b.info[fig.id]["morning_probe"] = morning
            if not morning.success:
                b.gain_condition(fig.id, "angeschlagen")
            continue
        probe = b.probe(value, regen_mod + mods.get(fig.id, 0), roller)
        b.info[fig.id]["regeneration"] = probe
        if probe.success:
            wp = b.dice(roller, probe.qs)
            lp = b.dice(roller, 1 if options.long_rest_lp == "full" else probe.qs)
            b.regenerate(fig.id, wp, lp, 1)
    for h in healing:
        probe = b.probe(h.healer.skill("Heilkunde"), h.modifier, roller)
        roll = b.dice(roller, probe.qs) if probe.success else None
        b.heal(h, probe, roll, roll.total if roll else 0)
    return b.result(
        "lang", RestRecord("lang", now), camp_probe=camp, regeneration_modifier=regen_mod
    )
