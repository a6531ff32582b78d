"""The PF2e stat block: level, defences and saves, Strikes, starter monsters."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

from app.encounters.statblocks import Extra, Field, StatBlockRules, rows, sample
from app.i18n import N_, _
from app.rules import expression as dice_expression
from app.rules import pf2e

if TYPE_CHECKING:
    from app.encounters.systems.pf2e_figures import PF2eStrikeData

MAX_STRIKES = 6

SCHEMA = (
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
)


def _strikes(raw: Any, errors: dict[str, str]) -> list[PF2eStrikeData]:
    out: list[PF2eStrikeData] = []
    too_many = _("A list of at most %(n)d Strikes.", n=MAX_STRIKES)
    not_a_row = _("Each Strike needs a name, a bonus and damage.")
    for key, item in rows(raw, errors, "angriffe", MAX_STRIKES, too_many, not_a_row):
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
        strike: PF2eStrikeData = {
            "name": name,
            "bonus": bonus,
            "schaden": damage,
            "agil": bool(item.get("agil", False)),
            "fernkampf": ranged,
            "entfernung": increment if ranged else 0,
            "merkmale": str(item.get("merkmale", "")).strip()[:200],
        }
        if strength:
            added = _strike_strength(strength, item.get("lieferung"), ranged)
            strike["staerke"], strike["lieferung"] = added["staerke"], added["lieferung"]
        out.append(strike)
    return out


class StrikeStrength(TypedDict):
    """Stärke on a Strike's damage and how the Strike delivers it."""

    staerke: int
    lieferung: str


def _strike_strength(strength: int, delivery: Any, ranged: bool) -> StrikeStrength:
    """Stärke on a Strike's damage (a sheet's Strikes; bestiary dice usually include it)."""
    values = {d.value for d in pf2e.Delivery}
    fallback = pf2e.Delivery.RANGED if ranged else pf2e.Delivery.MELEE
    return {
        "staerke": max(-5, min(strength, 10)),
        "lieferung": delivery if delivery in values else fallback.value,
    }


RULES = StatBlockRules(SCHEMA, (Extra("angriffe", _strikes, list),)).with_samples(
    sample(
        "Goblin-Krieger", stufe=-1, wahrnehmung=2, rk=16, zaehigkeit=5, reflex=7,
        wille=3, tp=6, merkmale="Goblin, Humanoid",
        angriffe=[
            {"name": "Hundeschlitzer", "bonus": 8, "schaden": "1W6", "agil": True,
             "fernkampf": False, "entfernung": 0, "merkmale": "agil, finesse"},
            {"name": "Kurzbogen", "bonus": 6, "schaden": "1W6", "agil": False,
             "fernkampf": True, "entfernung": 18, "merkmale": "tödlich W10"},
        ],
    ),
    sample(
        "Kobold-Krieger", stufe=-1, wahrnehmung=3, rk=16, zaehigkeit=4, reflex=7,
        wille=3, tp=8, merkmale="Kobold, Humanoid",
        angriffe=[
            {"name": "Speer", "bonus": 7, "schaden": "1W8", "agil": False,
             "fernkampf": False, "entfernung": 0, "merkmale": ""},
        ],
    ),
    sample(
        "Wolf", stufe=1, wahrnehmung=7, rk=15, zaehigkeit=7, reflex=9, wille=4, tp=24,
        merkmale="Tier",
        angriffe=[
            {"name": "Kiefer", "bonus": 9, "schaden": "1W6+2", "agil": False,
             "fernkampf": False, "entfernung": 0, "merkmale": "Niederwerfen"},
        ],
    ),
)  # fmt: skip
