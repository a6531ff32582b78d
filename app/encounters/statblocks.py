"""Stat blocks per rule system: schema, validation, starter monsters, values of a character.

A stat block is a JSON object. Every system has a flat set of numeric/text fields
(:data:`SCHEMAS`) and, for PF2e, a list of Strikes. :func:`validate` checks a block and
returns it completed with defaults, or raises :class:`ValidationFailed` with per-field
messages. Player characters get a block of the same shape from their sheet
(:func:`for_character`), so the combat code treats every participant alike.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from app.errors import ValidationFailed
from app.i18n import N_, _
from app.rules import expression as dice_expression
from app.rules import pf2e
from app.rules.hh.state import SIZES


@dataclass(frozen=True, slots=True)
class Field:
    key: str
    label: str  # an English msgid, or a rule term (German in both locales)
    kind: str  # "int", "float", "text", "choice"
    default: Any
    low: float = 0
    high: float = 999
    choices: tuple[str, ...] = ()


HH_DAMAGE_KINDS = ("normal", "brechend", "direkt")
HH_GRADES = ("C", "B", "A", "S")
#: Conditions a spell may give its target on success (hh.md §8).
HH_SPELL_CONDITIONS = (
    "angeschlagen", "benommen", "eingeschränkt", "entmutigt", "niedergeworfen", "verwirrt",
)  # fmt: skip
MAX_SPELLS = 10
#: The DS4 Attribute and Eigenschaften a stat block may hold beside KÖR (key, rule term).
DS4_VALUES = (
    ("agilitaet", "AGI"), ("geist", "GEI"), ("staerke", "ST"), ("haerte", "HÄ"),
    ("bewegung", "BE"), ("geschick", "GE"), ("verstand", "VE"), ("aura", "AU"),
)  # fmt: skip
RESISTANCES = ("resistant", "vulnerable", "immune")

SCHEMAS: dict[str, tuple[Field, ...]] = {
    "hh": (
        Field("monsterstufe", "Monsterstufe", "int", 8, 0, 40),
        Field("gefahr", "Gefahr", "text", ""),
        Field("lp", "LP", "int", 20, 1, 999),
        Field("rs", "RS", "int", 0, 0, 30),
        Field("be", "BE", "int", 0, 0, 20),
        Field("initiative", "Initiative", "int", 8, 1, 40),
        Field("bewegung", "Bewegung", "int", 8, 0, 40),
        Field("angriff", "Angriff", "int", 10, 0, 40),
        Field("verteidigung", "Verteidigung", "int", 8, 0, 40),
        Field("magiekunde", "Magiekunde", "int", 0, 0, 40),
        Field("unbeugsamkeit", "Unbeugsamkeit", "int", 8, 0, 40),
        Field("willenskraft", "Willenskraft", "int", 8, 0, 40),
        Field("interaktion", "Interaktion", "int", 6, 0, 40),
        Field("glueck", "Glück", "int", 0, 0, 40),
        Field("gp", "GP", "int", 0, 0, 20),
        Field("waffe", N_("Weapon"), "text", "Waffe"),
        Field("schaden_w", N_("Damage die (sides)"), "int", 10, 2, 20),
        Field("schaden_bonus", "Schadensbonus", "int", 0, -10, 30),
        Field("schadensart", "Schadensart", "choice", "normal", choices=HH_DAMAGE_KINDS),
        Field("fernkampf", "Fernkampf", "int", 0, 0, 1),
        Field("groesse", N_("Size"), "choice", "mittel", choices=SIZES),
        Field("beute", N_("Loot"), "text", ""),
        #: The Fertigkeit the GM names for knowledge Probes about it (empty: any).
        Field("wissen", N_("Knowledge check with"), "text", ""),
    ),
    "ds4": (
        Field("stufe", "Stufe", "int", 1, 0, 30),
        Field("lk", "LK", "int", 10, 1, 999),
        Field("koerper", "KÖR", "int", 6, 0, 30),
        Field("abwehr", "Abwehr", "int", 6, 0, 60),
        Field("initiative", "Initiative", "int", 6, 0, 60),
        Field("laufen", "Laufen", "float", 4.0, 0, 40),
        Field("schlagen", "Schlagen", "int", 6, 0, 60),
        Field("schiessen", "Schießen", "int", 0, 0, 60),
        Field("zielzauber", "Zielzauber", "int", 0, 0, 60),
        # Optional (None: the block does not hold it): the other Kampfwert, Attribute and
        # Eigenschaften, for the GM's checks on «GEI + VE» and the like (issue 31).
        Field("zaubern", "Zaubern", "int", None, 0, 60),
        *(Field(key, label, "int", None, 0, 30) for key, label in DS4_VALUES),
        Field("waffe", N_("Weapon"), "text", "Waffe"),
        Field("ga", "GA", "int", 0, -10, 10),
        Field("fernwaffe", N_("Ranged weapon"), "text", ""),
        Field("fern_ga", N_("GA (ranged)"), "int", 0, -10, 10),
        Field("beute", N_("Loot"), "text", ""),
    ),
    "pf2e": (
        Field("stufe", "Stufe", "int", 1, -1, 25),
        Field("wahrnehmung", "Wahrnehmung", "int", 5, -5, 50),
        Field("rk", "RK", "int", 15, 0, 60),
        Field("zaehigkeit", "Zähigkeit", "int", 5, -5, 50),
        Field("reflex", "Reflex", "int", 5, -5, 50),
        Field("wille", "Wille", "int", 5, -5, 50),
        Field("tp", "TP", "int", 15, 1, 999),
        Field("verwundet", "Verwundet", "int", 0, 0, 3),
        Field("todgeweiht", "Todgeweiht", "int", 0, 0, 3),
        Field("zauberangriff", "Zauberangriff", "int", None, -5, 60),
        Field("merkmale", N_("Traits"), "text", ""),
        Field("beute", N_("Loot"), "text", ""),
    ),
}

STRIKE_FIELDS = ("name", "bonus", "schaden", "agil", "fernkampf", "entfernung", "merkmale")
MAX_STRIKES = 6


def _number(field: Field, raw: Any, errors: dict[str, str]) -> Any:
    try:
        if isinstance(raw, bool):
            raise ValueError
        value: float = float(raw) if field.kind == "float" else int(str(raw).strip())
    except (TypeError, ValueError):
        errors[field.key] = _("Enter a number.")
        return field.default
    if not field.low <= value <= field.high:
        errors[field.key] = _(
            "Between %(low)s and %(high)s.", low=_fmt(field.low), high=_fmt(field.high)
        )
    return value


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def _strikes(raw: Any, errors: dict[str, str]) -> list[dict[str, Any]]:
    if raw in (None, ""):
        return []
    if not isinstance(raw, list) or len(raw) > MAX_STRIKES:
        errors["angriffe"] = _("A list of at most %(n)d Strikes.", n=MAX_STRIKES)
        return []
    out: list[dict[str, Any]] = []
    for i, item in enumerate(raw):
        key = f"angriffe.{i}"
        if not isinstance(item, Mapping):
            errors[key] = _("Each Strike needs a name, a bonus and damage.")
            continue
        name = str(item.get("name", "")).strip()
        damage = str(item.get("schaden", "")).strip()
        try:
            bonus = int(item.get("bonus", 0))
            increment = float(item.get("entfernung", 0) or 0)
            strength = int(item.get("staerke", 0) or 0)
        except (TypeError, ValueError):
            errors[key] = _("Bonus and range increment must be numbers.")
            continue
        try:
            dice_expression.parse(damage)
        except dice_expression.ExpressionError:
            errors[key] = _("Damage must be a dice expression such as 1W6+2.")
            continue
        if not 1 <= len(name) <= 60:
            errors[key] = _("Each Strike needs a name.")
            continue
        ranged = bool(item.get("fernkampf", False))
        strike: dict[str, Any] = {
            "name": name,
            "bonus": bonus,
            "schaden": damage,
            "agil": bool(item.get("agil", False)),
            "fernkampf": ranged,
            "entfernung": increment if ranged else 0,
            "merkmale": str(item.get("merkmale", "")).strip()[:200],
        }
        if strength:
            strike |= _strike_strength(strength, item.get("lieferung"), ranged)
        out.append(strike)
    return out


def _strike_strength(strength: int, delivery: Any, ranged: bool) -> dict[str, Any]:
    """Stärke on a Strike's damage (a sheet's Strikes; bestiary dice usually include it)."""
    values = {d.value for d in pf2e.Delivery}
    fallback = pf2e.Delivery.RANGED if ranged else pf2e.Delivery.MELEE
    return {
        "staerke": max(-5, min(strength, 10)),
        "lieferung": delivery if delivery in values else fallback.value,
    }


def _spells(raw: Any, errors: dict[str, str]) -> list[dict[str, Any]]:
    """H&H spells: key, name, grade, focus (minimum focus), range (Schritt, 0 = Berührung),
    optional damage (``schaden_w`` die, ``schaden_bonus``, ``schadensart``), ``zustand`` (a
    condition on success), ``verteidigung`` (the target may defend with Magiekunde) and
    ``flaeche`` (a Flächenzauber: cast on an area of the board, each figure in it defends
    with Unbeugsamkeit; docs/rules/hh.md «Flächeneffekte»)."""
    if raw in (None, ""):
        return []
    if not isinstance(raw, list) or len(raw) > MAX_SPELLS:
        errors["zauber"] = _("A list of at most %(n)d spells.", n=MAX_SPELLS)
        return []
    out: list[dict[str, Any]] = []
    keys: set[str] = set()
    for i, item in enumerate(raw):
        key = f"zauber.{i}"
        if not isinstance(item, Mapping):
            errors[key] = _("Each spell needs a name, a Güteklasse and a range.")
            continue
        name = str(item.get("name", "")).strip()
        spell_key = str(item.get("key", "") or name).strip().lower()
        try:
            focus = int(item.get("focus", 0) or 0)
            reach = int(item.get("range", 0) or 0)
            die = int(item.get("schaden_w", 0) or 0)
            bonus = int(item.get("schaden_bonus", 0) or 0)
        except (TypeError, ValueError):
            errors[key] = _("Focus, range and damage must be numbers.")
            continue
        grade = str(item.get("grade", "C")).strip().upper()
        kind = str(item.get("schadensart", "normal") or "normal")
        condition = str(item.get("zustand", "") or "")
        if not 1 <= len(name) <= 60 or not 1 <= len(spell_key) <= 60 or spell_key in keys:
            errors[key] = _("Each spell needs a name of its own.")
            continue
        if (
            grade not in HH_GRADES
            or not 0 <= focus <= 10
            or not 0 <= reach <= 250
            or die not in (0, 4, 6, 8, 10, 12, 20)
            or not -10 <= bonus <= 30
            or kind not in HH_DAMAGE_KINDS
            or (condition and condition not in HH_SPELL_CONDITIONS)
        ):
            errors[key] = _(
                "Güteklasse C, B, A or S; focus 0–10; range 0–250 Schritt; a damage die "
                "W4–W20 or none; a known condition."
            )
            continue
        keys.add(spell_key)
        out.append(
            {
                "key": spell_key,
                "name": name,
                "grade": grade,
                "focus": focus,
                "range": reach,
                "schaden_w": die,
                "schaden_bonus": bonus if die else 0,
                "schadensart": kind,
                "zustand": condition,
                "verteidigung": bool(item.get("verteidigung", False)),
                "flaeche": bool(item.get("flaeche", False)),
            }
        )
    return out


def _resistances(raw: Any, errors: dict[str, str]) -> dict[str, str]:
    if raw in (None, ""):
        return {}
    if not isinstance(raw, Mapping) or any(v not in RESISTANCES for v in raw.values()):
        errors["resistenzen"] = _("Map each damage type to resistant, vulnerable or immune.")
        return {}
    return {str(k).strip(): str(v) for k, v in raw.items() if str(k).strip()}


@dataclass(frozen=True, slots=True)
class Extra:
    """A structured part of a system's block beyond the flat fields (the bestiary form shows
    it as rows: ``app/encounters/bestiary_form.py``)."""

    key: str
    check: Callable[[Any, dict[str, str]], Any]
    empty: Callable[[], Any]


#: The structured parts per system, in the order of the bestiary form.
EXTRAS: dict[str, tuple[Extra, ...]] = {
    "hh": (Extra("resistenzen", _resistances, dict), Extra("zauber", _spells, list)),
    "ds4": (),
    "pf2e": (Extra("angriffe", _strikes, list),),
}


def validate(system: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """The stat block completed with defaults, or :class:`ValidationFailed`."""
    if system not in SCHEMAS:
        raise ValidationFailed({"system": _("Unknown rule system.")})
    errors: dict[str, str] = {}
    out: dict[str, Any] = {}
    for field in SCHEMAS[system]:
        raw = data.get(field.key, field.default)
        if raw in (None, "") and field.kind in ("int", "float"):
            raw = field.default
        if raw is None:  # an optional value the block does not hold
            out[field.key] = None
        elif field.kind in ("int", "float"):
            out[field.key] = _number(field, raw, errors)
        elif field.kind == "choice":
            if raw not in field.choices:
                errors[field.key] = _("Choose one of the listed options.")
            out[field.key] = raw if raw in field.choices else field.default
        else:
            text = str(raw).strip()
            if len(text) > 200:
                errors[field.key] = _("At most %(max)d characters.", max=200)
            out[field.key] = text[:200]
    for extra in EXTRAS[system]:
        out[extra.key] = extra.check(data.get(extra.key), errors)
    if errors:
        raise ValidationFailed(errors)
    return out


def defaults(system: str) -> dict[str, Any]:
    block = {f.key: f.default for f in SCHEMAS[system]}
    block.update({extra.key: extra.empty() for extra in EXTRAS[system]})
    return block


def _hh(name: str, **values: Any) -> tuple[str, dict[str, Any]]:
    return name, {**defaults("hh"), **values}


def _ds4(name: str, **values: Any) -> tuple[str, dict[str, Any]]:
    return name, {**defaults("ds4"), **values}


def _pf2e(name: str, **values: Any) -> tuple[str, dict[str, Any]]:
    return name, {**defaults("pf2e"), **values}


#: Starter monsters per system (sample data; the GM may change or delete them).
SAMPLES: dict[str, tuple[tuple[str, dict[str, Any]], ...]] = {
    "hh": (
        _hh(
            "Goblin",
            monsterstufe=6, gefahr="gering", lp=12, rs=1, initiative=9, bewegung=8,
            angriff=10, verteidigung=8, unbeugsamkeit=6, willenskraft=5, waffe="Kurzschwert",
            schaden_w=6, schaden_bonus=1, groesse="klein", beute="3 Lira, rostiger Dolch",
        ),
        _hh(
            "Wolf",
            monsterstufe=8, gefahr="mittel", lp=16, rs=1, initiative=12, bewegung=12,
            angriff=12, verteidigung=9, unbeugsamkeit=8, willenskraft=6, waffe="Biss",
            schaden_w=8, schaden_bonus=1, beute="Wolfsfell",
        ),
        _hh(
            "Ork-Krieger",
            monsterstufe=10, gefahr="hoch", lp=26, rs=2, initiative=7, bewegung=8,
            angriff=13, verteidigung=10, unbeugsamkeit=11, willenskraft=7, waffe="Streitaxt",
            schaden_w=10, schaden_bonus=2, groesse="mittel", beute="12 Lira, Streitaxt",
        ),
        _hh(
            "Goblin-Schamane",
            monsterstufe=7, gefahr="mittel", lp=14, rs=0, initiative=8, bewegung=8,
            angriff=8, verteidigung=7, magiekunde=12, unbeugsamkeit=6, willenskraft=10,
            waffe="Knochenstab", schaden_w=6, schaden_bonus=0, groesse="klein",
            beute="Knochenstab, Kräuterbeutel",
            zauber=[
                {"key": "feuerball", "name": "Feuerball", "grade": "B", "focus": 1,
                 "range": 25, "schaden_w": 6, "schaden_bonus": 1, "schadensart": "normal",
                 "zustand": "", "verteidigung": True},
                {"key": "schreckensblick", "name": "Schreckensblick", "grade": "C",
                 "focus": 0, "range": 10, "schaden_w": 0, "schaden_bonus": 0,
                 "schadensart": "normal", "zustand": "entmutigt", "verteidigung": True},
            ],
        ),
    ),
    "ds4": (
        _ds4(
            "Goblin", stufe=1, lk=7, koerper=3, abwehr=4, initiative=7, laufen=3.5,
            schlagen=6, schiessen=6, waffe="Keule", fernwaffe="Schleuder", beute="2 Silber",
        ),
        _ds4(
            "Ork", stufe=3, lk=15, koerper=8, abwehr=9, initiative=4, laufen=4.0,
            schlagen=12, waffe="Streitaxt", beute="Streitaxt, 10 Silber",
        ),
        _ds4(
            "Riesenratte", stufe=1, lk=4, koerper=2, abwehr=2, initiative=6, laufen=4.0,
            schlagen=5, waffe="Biss", ga=0,
        ),
    ),
    "pf2e": (
        _pf2e(
            "Goblin-Krieger", stufe=-1, wahrnehmung=2, rk=16, zaehigkeit=5, reflex=7,
            wille=3, tp=6, merkmale="Goblin, Humanoid",
            angriffe=[
                {"name": "Hundeschlitzer", "bonus": 8, "schaden": "1W6", "agil": True,
                 "fernkampf": False, "entfernung": 0, "merkmale": "agil, finesse"},
                {"name": "Kurzbogen", "bonus": 6, "schaden": "1W6", "agil": False,
                 "fernkampf": True, "entfernung": 18, "merkmale": "tödlich W10"},
            ],
        ),
        _pf2e(
            "Kobold-Krieger", stufe=-1, wahrnehmung=3, rk=16, zaehigkeit=4, reflex=7,
            wille=3, tp=8, merkmale="Kobold, Humanoid",
            angriffe=[
                {"name": "Speer", "bonus": 7, "schaden": "1W8", "agil": False,
                 "fernkampf": False, "entfernung": 0, "merkmale": ""},
            ],
        ),
        _pf2e(
            "Wolf", stufe=1, wahrnehmung=7, rk=15, zaehigkeit=7, reflex=9, wille=4, tp=24,
            merkmale="Tier",
            angriffe=[
                {"name": "Kiefer", "bonus": 9, "schaden": "1W6+2", "agil": False,
                 "fernkampf": False, "entfernung": 0, "merkmale": "Niederwerfen"},
            ],
        ),
    ),
}  # fmt: skip


def for_character(
    system: str, computed: Mapping[str, Any], data: Mapping[str, Any]
) -> dict[str, Any]:
    """A player character's block: the defaults, then the values the engines computed from
    the sheet (``app.characters.combat``), then any ``statblock`` the GM set on the sheet."""
    block = {**defaults(system), **computed}
    override = data.get("statblock")
    if isinstance(override, Mapping):
        block.update(override)
    return block
