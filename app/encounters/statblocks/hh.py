"""The H&H stat block: Monsterstufe and Kampfwerte, resistances, spells, starter monsters."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from app.encounters.statblocks import Extra, Field, StatBlockRules, rows, sample
from app.i18n import N_, _
from app.rules.hh.state import SIZES

if TYPE_CHECKING:
    from app.encounters.systems.hh_figures import HHSpellData
    from app.rules.hh.magic import Grade

HH_DAMAGE_KINDS = ("normal", "brechend", "direkt")
HH_GRADES = ("C", "B", "A", "S")
#: Conditions a spell may give its target on success (hh.md §8).
HH_SPELL_CONDITIONS = (
    "angeschlagen", "benommen", "eingeschränkt", "entmutigt", "niedergeworfen", "verwirrt",
)  # fmt: skip
MAX_SPELLS = 10
RESISTANCES = ("resistant", "vulnerable", "immune")

SCHEMA = (
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
)


def _spells(raw: Any, errors: dict[str, str]) -> list[HHSpellData]:
    """H&H spells: key, name, grade, focus (minimum focus), range (Schritt, 0 = Berührung),
    optional damage (``schaden_w`` die, ``schaden_bonus``, ``schadensart``), ``zustand`` (a
    condition on success), ``verteidigung`` (the target may defend with Magiekunde) and
    ``flaeche`` (a Flächenzauber: cast on an area of the board, each figure in it defends
    with Unbeugsamkeit; docs/rules/hh.md «Flächeneffekte»)."""
    out: list[HHSpellData] = []
    keys: set[str] = set()
    too_many = _("A list of at most %(n)d spells.", n=MAX_SPELLS)
    not_a_row = _("Each spell needs a name, a Güteklasse and a range.")
    for key, item in rows(raw, errors, "zauber", MAX_SPELLS, too_many, not_a_row):
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
                "grade": cast("Grade", grade),
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


RULES = StatBlockRules(
    SCHEMA, (Extra("resistenzen", _resistances, dict), Extra("zauber", _spells, list))
).with_samples(
    sample(
        "Goblin",
        monsterstufe=6, gefahr="gering", lp=12, rs=1, initiative=9, bewegung=8,
        angriff=10, verteidigung=8, unbeugsamkeit=6, willenskraft=5, waffe="Kurzschwert",
        schaden_w=6, schaden_bonus=1, groesse="klein", beute="3 Lira, rostiger Dolch",
    ),
    sample(
        "Wolf",
        monsterstufe=8, gefahr="mittel", lp=16, rs=1, initiative=12, bewegung=12,
        angriff=12, verteidigung=9, unbeugsamkeit=8, willenskraft=6, waffe="Biss",
        schaden_w=8, schaden_bonus=1, beute="Wolfsfell",
    ),
    sample(
        "Ork-Krieger",
        monsterstufe=10, gefahr="hoch", lp=26, rs=2, initiative=7, bewegung=8,
        angriff=13, verteidigung=10, unbeugsamkeit=11, willenskraft=7, waffe="Streitaxt",
        schaden_w=10, schaden_bonus=2, groesse="mittel", beute="12 Lira, Streitaxt",
    ),
    sample(
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
)  # fmt: skip
