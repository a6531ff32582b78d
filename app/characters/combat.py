"""A character's combat stat block, for encounters: every number from the rules engines.

The encounter keeps a stat block per participant (``app.encounters.statblocks``); for a
player character it is built here from the sheet and the equipped items, through the same
engine functions the sheet shows, so a fight and the sheet never disagree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.characters.sheets import (
    ItemLike,
    ds4_character,
    hh_skill_value,
    pf2e_agile,
    pf2e_statistic,
    pf2e_strike_strength,
)
from app.rules import ds4, hh


def _weapon(items: Sequence[ItemLike], *slots: str) -> ItemLike | None:
    return next((i for i in items if i.equipped and (i.slot in slots or not slots)), None)


def _die_sides(text: Any, default: int) -> int:
    """``"W10"`` / ``"1W10"`` / ``"d8"`` → 10 / 10 / 8."""
    digits = str(text or "").lower().replace("d", "w").rpartition("w")[2]
    return int(digits) if digits.isdigit() else default


def _hh(data: Mapping[str, Any], items: Sequence[ItemLike]) -> dict[str, Any]:
    be = int(data.get("be", 0))
    spuersinn = hh_skill_value(data, "Spürsinn")
    kampfkunst = hh_skill_value(data, "Kampfkunst")
    weapon = _weapon(items, "waffenhand")
    fields = weapon.fields if weapon is not None else {}
    npc = data.get("monsterstufe") is not None
    beute = data.get("beute") or []
    return {
        "monsterstufe": int(data.get("monsterstufe") or 0),
        "gefahr": str(data.get("gefahr") or "") if npc else "",
        "beute": ", ".join(beute) if isinstance(beute, list) else str(beute),
        "resistenzen": dict(data.get("resistances") or {}),
        "lp": int(data.get("lp_max", 20)),
        "rs": int(data.get("rs", 0)),
        "be": be,
        "initiative": hh.initiative(spuersinn, be),
        "bewegung": int(data.get("bewegung", 8)),
        "angriff": kampfkunst,
        "verteidigung": kampfkunst,
        "magiekunde": hh_skill_value(data, "Magiekunde"),
        "unbeugsamkeit": hh_skill_value(data, "Unbeugsamkeit"),
        "willenskraft": hh_skill_value(data, "Willenskraft"),
        "interaktion": hh_skill_value(data, "Interaktion"),
        "glueck": hh_skill_value(data, "Glück"),
        "gp": int(data.get("gp_max", 0)),
        "waffe": weapon.name if weapon is not None else "Waffenlos",
        "schaden_w": _die_sides(fields.get("damage"), 10),
        "schaden_bonus": int(fields.get("damage_bonus", 0)),
        "spuersinn": spuersinn,
    }


def _ds4(data: Mapping[str, Any], items: Sequence[ItemLike]) -> dict[str, Any]:
    character = ds4_character(data, items)
    values = ds4.combat_values(character)
    melee, ranged = _weapon(items, "melee"), _weapon(items, "ranged")
    return {
        "stufe": ds4.stufe_for_ep(character.ep),
        "lk": values.lebenskraft.value,
        "koerper": character.attributes.koerper,
        "abwehr": values.abwehr.value,
        "initiative": values.initiative.value,
        "laufen": values.laufen.value,
        "schlagen": values.schlagen.value,
        "schiessen": values.schiessen.value,
        "zielzauber": values.zielzauber.value,
        "waffe": melee.name if melee is not None else "Waffenlos",
        "ga": int(melee.fields.get("ga", 0)) if melee is not None else 5,
        "fernwaffe": ranged.name if ranged is not None else "",
        "fern_ga": int(ranged.fields.get("ga", 0)) if ranged is not None else 0,
    }


def _pf2e(data: Mapping[str, Any], items: Sequence[ItemLike]) -> dict[str, Any]:
    def modifier(target: str) -> int:
        stat = pf2e_statistic(data, items, target)
        return stat.modifier if stat is not None else 0

    armor = pf2e_statistic(data, items, "ac")
    strikes = []
    for item in items:
        if not item.equipped or item.fields.get("kind") != "weapon":
            continue
        attack = pf2e_statistic(data, items, f"attack:{item.id}")
        if attack is None:
            continue
        strikes.append(
            {
                "name": item.name,
                "bonus": attack.modifier,
                "schaden": str(item.fields.get("damage") or "1W4"),
                **pf2e_strike_strength(data, item),
                "agil": pf2e_agile(items, str(item.id)),
                "fernkampf": bool(item.fields.get("ranged", False)),
                "entfernung": float(item.fields.get("range_increment") or 0),
                "merkmale": str(item.fields.get("traits", "")),
            }
        )
    return {
        "stufe": int(data.get("level", 1)),
        "wahrnehmung": modifier("perception"),
        "rk": armor.dc if armor is not None else 10,
        "zaehigkeit": modifier("save:fortitude"),
        "reflex": modifier("save:reflex"),
        "wille": modifier("save:will"),
        "tp": int(data.get("hp_max", 15)),
        "angriffe": strikes,
    }


def combat_statblock(
    system: str, data: Mapping[str, Any], items: Sequence[ItemLike]
) -> dict[str, Any]:
    """The encounter stat block of a character of ``system`` (keys of its bestiary schema)."""
    if system == "hh":
        return _hh(data, items)
    if system == "ds4":
        return _ds4(data, items)
    return _pf2e(data, items)
