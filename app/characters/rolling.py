"""Rolls from a sheet through the engines: the targets a sheet offers, the odds before
rolling, and the roll itself as the payload of a ``roll`` event.

Thin adapters only: values come from :mod:`app.characters.sheets` (engine-derived), dice,
outcomes and odds from ``app/rules``. The one thing computed here is the PF2e degree
distribution, by asking the engine's ``degree_of_success`` for every possible W20 face
(the PF2e engine has no odds function).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from app.characters.sheets import (
    DS4_ATTR,
    DS4_KAMPFWERTE,
    DS4_ROLLABLE,
    DS4_TRAIT,
    HH_SKILLS,
    ItemLike,
    ds4_character,
    hh_listed_value,
    hh_skill_value,
    hh_state,
    percent,
    pf2e_agile,
    pf2e_statistic,
)
from app.errors import ValidationFailed
from app.i18n import gettext
from app.rules import ds4, pf2e
from app.rules.dice import DieRoll, Roller
from app.rules.ds4.check import final_pw
from app.rules.hh import luck as hh_luck
from app.rules.hh import probe as hh_probe
from app.rules.hh.state import Figure, Zustand


@dataclass(frozen=True, slots=True)
class RollRequest:
    target: str
    modifier: int = 0
    difficulty: str = ""
    #: H&H Glück option declared before the roll: bonus, cancel_penalty, auto_volltreffer.
    luck: str = ""
    dc: int | None = None
    fortune: bool = False
    misfortune: bool = False
    attack_number: int = 1
    visibility: str = "public"


@dataclass(frozen=True, slots=True)
class Odds:
    headline: str
    details: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class RollOutcome:
    label: str
    expression: str
    dice: tuple[DieRoll, ...]
    modifier: int
    total: int
    summary: str
    outcome: dict[str, Any]
    #: Sheet fields the roll changed (H&H Glück spent or burned): key → new value.
    sheet_changes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Target:
    key: str
    label: str


HH_DIFFICULTIES = tuple((d.key, f"{d.name} ({d.modifier:+d})") for d in hh_probe.DIFFICULTIES)
HH_LUCK = (
    ("", "—"),
    ("bonus", hh_luck.LUCK_NAMES["bonus"]),
    ("cancel_penalty", hh_luck.LUCK_NAMES["cancel_penalty"]),
    ("auto_volltreffer", hh_luck.LUCK_NAMES["auto_volltreffer"]),
)
DS4_DIFFICULTIES = tuple(
    (d.value, f"{d.value.replace('_', ' ')} ({ds4.DIFFICULTY_MODIFIER[d]:+d})")
    for d in ds4.Difficulty
)


def targets(system: str, data: Mapping[str, Any], items: Sequence[ItemLike]) -> list[Target]:
    if system == "hh":
        out = [Target(f"skill:{s}", s) for s in HH_SKILLS]
        if data.get("monsterstufe") is not None:
            out.append(Target("skill:Monsterstufe", "Monsterstufe"))
        out += [Target(f"skill:{s}", s) for s in (data.get("extra_skills") or {})]
        out += [Target(f"skill:{s}", s) for s in (data.get("specializations") or {})]
        out += [
            Target(f"attack:{s}", f"{s} (Angriff/Verteidigung, − BE)")
            for s in ("Kampfkunst", "Magiekunde")
        ]
        return out
    if system == "ds4":
        out = [Target(f"kampfwert:{k}", DS4_KAMPFWERTE[k]) for k in DS4_ROLLABLE]
        out += [
            Target(f"probe:{a}:{t}", f"{av[1]} + {tv[1]}")
            for a, av in DS4_ATTR.items()
            for t, tv in DS4_TRAIT.items()
        ]
        return out
    keys = ["perception", "save:fortitude", "save:reflex", "save:will", "spell"]
    keys += [f"attack:{i.id}" for i in items if i.equipped and i.slot == "weapon"]
    keys += [f"skill:{s}" for s in (data.get("skills") or {})]
    out = []
    for key in keys:
        stat = pf2e_statistic(data, items, key)
        if stat is not None:
            out.append(Target(key, stat.name))
    return out


def _bad(field_: str, message: str) -> ValidationFailed:
    return ValidationFailed({field_: message})


# --- H&H ------------------------------------------------------------------------------------


def _hh_setup(
    data: Mapping[str, Any], items: Sequence[ItemLike], req: RollRequest
) -> tuple[str, int, int, Figure]:
    kind, _, name = req.target.partition(":")
    known = (
        set(HH_SKILLS)
        | set(data.get("specializations") or {})
        | set(data.get("extra_skills") or {})
    )
    npc = data.get("monsterstufe") is not None
    if npc:
        known.add("Monsterstufe")
    if kind not in ("skill", "attack") or name not in known:
        raise _bad("target", gettext("Choose a Fertigkeit of this sheet."))
    value = hh_skill_value(data, name)
    modifier = req.modifier
    if req.difficulty:
        try:
            modifier += hh_probe.difficulty_modifier(req.difficulty)
        except ValueError:
            raise _bad("difficulty", gettext("Choose one of the listed values.")) from None
    label = name
    if npc and name != "Monsterstufe" and hh_listed_value(data, name) is None:
        # An NSC's Fertigkeit that is not listed: the Monsterstufe is its Probenwert.
        label = f"{name} (Monsterstufe)"
    if kind == "attack":
        modifier -= int(data.get("be", 0))
        label = f"{name} − BE"
    skills = {
        k: v
        for k, v in {
            **(data.get("extra_skills") or {}),
            **(data.get("skills") or {}),
            **(data.get("specializations") or {}),
        }.items()
        if v is not None
    }
    state = hh_state(data, items)
    figure = Figure(
        id="sheet",
        skills=skills,
        gp=int(data.get("gp", 0)),
        gp_max=int(data.get("gp_max", 0)),
        be=int(data.get("be", 0)),
        conditions=tuple(Zustand(c) for c in state.conditions),
    )
    if req.luck:
        problems = hh_luck.luck_problems(figure, req.luck, before_roll=True)
        if req.luck not in ("bonus", "cancel_penalty", "auto_volltreffer"):
            problems = [gettext("Choose one of the listed values.")]
        if problems:
            raise _bad("luck", "; ".join(problems))
    return label, value, modifier, figure


def _hh_odds(data: Mapping[str, Any], items: Sequence[ItemLike], req: RollRequest) -> Odds:
    _label, value, modifier, _figure = _hh_setup(data, items, req)
    if req.luck == "auto_volltreffer":
        return Odds(gettext("Success chance: %(p)s", p="100 %"), (("Volltreffer", "100 %"),))
    if req.luck in ("bonus", "cancel_penalty"):
        modifier = hh_luck.luck_modifier(modifier, req.luck)  # type: ignore[arg-type]
    odds = hh_probe.probe_odds(value, modifier)
    return Odds(
        gettext("Success chance: %(p)s", p=percent(odds.success)),
        (
            (gettext("Target"), f"{value} {modifier:+d} = {value + modifier}"),
            ("Volltreffer", percent(odds.volltreffer_chance)),
            ("Patzer", percent(odds.patzer_chance)),
        ),
    )


def _hh_roll(
    roller: Roller, data: Mapping[str, Any], items: Sequence[ItemLike], req: RollRequest
) -> RollOutcome:
    label, value, modifier, figure = _hh_setup(data, items, req)
    changes: dict[str, Any] = {}
    if req.luck == "auto_volltreffer":
        lucky = hh_luck.burn_for_volltreffer(figure, value, modifier)
        result = lucky.result
        changes = {"gp": lucky.figure.gp, "skills.Glück": lucky.figure.glueck}
    elif req.luck in ("bonus", "cancel_penalty"):
        lucky = hh_luck.roll_with_luck(roller, figure, value, modifier, req.luck)  # type: ignore[arg-type]
        result = lucky.result
        changes = {"gp": lucky.figure.gp}
    else:
        result = hh_probe.roll_probe(roller, value, modifier)
    outcome = {**result.as_dict(), "outcome": result.outcome}
    if req.luck:
        outcome["luck"] = hh_luck.LUCK_NAMES[req.luck]
    return RollOutcome(
        label=label,
        expression="2W10",
        dice=result.rolls,
        modifier=0,
        total=result.roll,
        summary=result.describe(),
        outcome=outcome,
        sheet_changes=changes,
    )


# --- DS4 ------------------------------------------------------------------------------------


def _ds4_setup(
    data: Mapping[str, Any], items: Sequence[ItemLike], req: RollRequest
) -> tuple[str, int, list[tuple[str, int]], ds4.Difficulty | None]:
    kind, _, name = req.target.partition(":")
    character = ds4_character(data, items)
    if kind == "kampfwert" and name in DS4_ROLLABLE:
        base = int(getattr(ds4.combat_values(character), name).value)
        label = DS4_KAMPFWERTE[name]
    elif kind == "probe":
        attr, _, trait = name.partition(":")
        if attr not in DS4_ATTR or trait not in DS4_TRAIT:
            raise _bad("target", gettext("Choose a value of this sheet."))
        base = character.attributes.get(ds4.Attribut(attr)) + character.trait(
            ds4.Eigenschaft(trait)
        )
        label = f"{DS4_ATTR[attr][1]} + {DS4_TRAIT[trait][1]}"
    else:
        raise _bad("target", gettext("Choose a value of this sheet."))
    difficulty = None
    if req.difficulty:
        if req.difficulty not in {d.value for d in ds4.Difficulty}:
            raise _bad("difficulty", gettext("Choose one of the listed values."))
        difficulty = ds4.Difficulty(req.difficulty)
    modifiers = [("modifier", req.modifier)] if req.modifier else []
    return label, base, modifiers, difficulty


def _ds4_odds(data: Mapping[str, Any], items: Sequence[ItemLike], req: RollRequest) -> Odds:
    _label, base, modifiers, difficulty = _ds4_setup(data, items, req)
    pw, _ = final_pw(base, modifiers, difficulty)
    odds = ds4.check_odds(pw)
    return Odds(
        gettext("Success chance: %(p)s", p=percent(odds.success)),
        (
            ("PW", str(pw)),
            ("Immersieg", percent(odds.immersieg)),
            ("Patzer", percent(odds.patzer)),
            (gettext("Expected result"), f"{float(odds.expected_result):.1f}".replace(".", ",")),
        ),
    )


def _ds4_roll(
    roller: Roller, data: Mapping[str, Any], items: Sequence[ItemLike], req: RollRequest
) -> RollOutcome:
    label, base, modifiers, difficulty = _ds4_setup(data, items, req)
    rolled = ds4.roll_check(roller, base, modifiers=modifiers, difficulty=difficulty)
    check = rolled.check
    if check.patzer:
        word = "Patzer"
    elif check.immersieg:
        word = "Immersieg"
    else:
        word = "Erfolg" if check.success else "Misserfolg"
    faces = ", ".join(str(f) for f in check.faces)
    summary = f"{label}: PW {rolled.pw}, {len(check.faces)}W20: {faces} → {word}"
    if check.success:
        summary += f", Ergebnis {check.result}"
    outcome = {
        "pw": rolled.pw,
        "breakdown": [list(p) for p in rolled.breakdown],
        "faces": list(check.faces),
        "success": check.success,
        "result": check.result,
        "immersieg": check.immersieg,
        "patzer": check.patzer,
        "outcome": word,
    }
    return RollOutcome(
        label=label,
        expression=f"{len(check.faces)}W20",
        dice=(rolled.roll,),
        modifier=0,
        total=check.result,
        summary=summary,
        outcome=outcome,
    )


# --- PF2e -----------------------------------------------------------------------------------


def pf2e_degree_odds(
    modifier: int, dc: int, *, fortune: bool = False, misfortune: bool = False
) -> dict[pf2e.Degree, Fraction]:
    """Exact degree distribution: every W20 face (or pair under Glück/Unglück) through the
    engine's ``kept_d20`` and ``degree_of_success``."""
    both = fortune and misfortune
    dice = 2 if (fortune or misfortune) and not both else 1
    counts: dict[pf2e.Degree, int] = dict.fromkeys(pf2e.Degree, 0)
    if dice == 1:
        for face in range(1, 21):
            counts[pf2e.degree_of_success(face, modifier, dc)] += 1
        total = 20
    else:
        for a in range(1, 21):
            for b in range(1, 21):
                kept = pf2e.kept_d20((a, b), fortune, misfortune)
                counts[pf2e.degree_of_success(kept, modifier, dc)] += 1
        total = 400
    return {d: Fraction(n, total) for d, n in counts.items()}


def _pf2e_setup(
    data: Mapping[str, Any], items: Sequence[ItemLike], req: RollRequest
) -> tuple[pf2e.Statistic, list[pf2e.Modifier], bool]:
    stat = pf2e_statistic(data, items, req.target)
    if stat is None or req.target == "ac":
        raise _bad("target", gettext("Choose a value of this sheet."))
    extra: list[pf2e.Modifier] = []
    if req.modifier:
        extra.append(pf2e.Modifier("Modifikator", "untyped", req.modifier))
    is_attack = req.target.startswith("attack:")
    if is_attack:
        if not 1 <= req.attack_number <= 3:
            raise _bad("attack_number", gettext("Between %(min)d and %(max)d.", min=1, max=3))
        agile = pf2e_agile(items, req.target.partition(":")[2])
        mapm = pf2e.map_modifier(req.attack_number, agile)
        if mapm is not None:
            extra.append(mapm)
    if req.dc is not None and not -10 <= req.dc <= 80:
        raise _bad("dc", gettext("Between %(min)d and %(max)d.", min=-10, max=80))
    return stat, extra, is_attack


def _pf2e_odds(data: Mapping[str, Any], items: Sequence[ItemLike], req: RollRequest) -> Odds:
    stat, extra, is_attack = _pf2e_setup(data, items, req)
    modifier = stat.with_modifiers(extra).modifier
    if req.dc is None:
        return Odds(gettext("Modifier %(m)s — give a SG to see the chance.", m=f"{modifier:+d}"))
    dist = pf2e_degree_odds(modifier, req.dc, fortune=req.fortune, misfortune=req.misfortune)
    success = sum((p for d, p in dist.items() if d.is_success), Fraction(0))
    return Odds(
        gettext("Success chance: %(p)s", p=percent(success)),
        tuple(
            (d.attack_label if is_attack else d.label, percent(dist[d]))
            for d in sorted(dist, reverse=True)
        ),
    )


def _pf2e_roll(
    roller: Roller, data: Mapping[str, Any], items: Sequence[ItemLike], req: RollRequest
) -> RollOutcome:
    stat, extra, is_attack = _pf2e_setup(data, items, req)
    result = pf2e.roll_check(
        roller,
        stat,
        req.dc,
        dc_label="RK" if is_attack else "SG",
        extra=extra,
        fortune=req.fortune,
        misfortune=req.misfortune,
        secret=req.visibility == "gm",
    )
    outcome = result.as_dict()
    outcome["outcome"] = (
        None
        if result.degree is None
        else (result.degree.attack_label if is_attack else result.degree.label)
    )
    die = result.roll.die
    return RollOutcome(
        label=stat.name,
        expression=f"{len(die.faces)}W20",
        dice=result.dice,
        modifier=result.modifier,
        total=result.total,
        summary=result.describe(attack=is_attack),
        outcome=outcome,
    )


# --- dispatch -------------------------------------------------------------------------------


def odds(system: str, data: Mapping[str, Any], items: Sequence[ItemLike], req: RollRequest) -> Odds:
    if system == "hh":
        return _hh_odds(data, items, req)
    if system == "ds4":
        return _ds4_odds(data, items, req)
    return _pf2e_odds(data, items, req)


def roll(
    system: str,
    roller: Roller,
    data: Mapping[str, Any],
    items: Sequence[ItemLike],
    req: RollRequest,
) -> RollOutcome:
    if system == "hh":
        return _hh_roll(roller, data, items, req)
    if system == "ds4":
        return _ds4_roll(roller, data, items, req)
    return _pf2e_roll(roller, data, items, req)
