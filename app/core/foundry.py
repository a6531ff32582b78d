"""Telling foreign files apart by their shape: a Pathbuilder 2e export, a Foundry VTT actor of
the pf2e or the ds4 system (``docs/imports.md``). Pure: no I/O.

Foundry actors keep their values under ``system`` (Foundry 10 and later) or ``data``
(before); the pf2e system names ``saves``/``details.level``, the ds4 system ``combatValues``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: Pathbuilder's proficiency steps (+2 per rank) → our rank keys.
PF2E_RANKS = {
    0: "untrained",
    1: "trained",
    2: "trained",
    3: "expert",
    4: "expert",
    5: "master",
    6: "master",
    7: "legendary",
    8: "legendary",
}
#: Foundry pf2e stores a rank as 0–4.
FOUNDRY_RANKS = ("untrained", "trained", "expert", "master", "legendary")
#: PF2e skills: the English slugs of Pathbuilder and Foundry → the German sheet's names.
PF2E_SKILLS = {
    "acrobatics": "Akrobatik",
    "arcana": "Arkane Künste",
    "athletics": "Athletik",
    "thievery": "Diebeskunst",
    "diplomacy": "Diplomatie",
    "intimidation": "Einschüchtern",
    "performance": "Gaukelei",
    "society": "Gesellschaftskunde",
    "crafting": "Handwerkskunst",
    "stealth": "Heimlichkeit",
    "medicine": "Medizin",
    "nature": "Naturkunde",
    "occultism": "Okkultismus",
    "religion": "Religionskunde",
    "deception": "Täuschung",
    "survival": "Überlebenskunst",
}
PF2E_ABILITIES = {
    "str": "strength",
    "dex": "dexterity",
    "con": "constitution",
    "int": "intelligence",
    "wis": "wisdom",
    "cha": "charisma",
}
#: Weapon traits as the German sheet names them (others keep the file's slug).
PF2E_TRAITS = {
    "agile": "Agil",
    "finesse": "Finesse",
    "backstabber": "Heimtückisch",
    "forceful": "Wuchtig",
    "reach": "Reichweite",
    "sweep": "Schwungvoll",
    "thrown": "Wurfwaffe",
    "trip": "Zu Fall bringen",
    "disarm": "Entwaffnen",
    "shove": "Stoßen",
    "nonlethal": "Nicht tödlich",
    "parry": "Parade",
    "propulsive": "Antreibend",
    "unarmed": "Waffenlos",
    "versatile-s": "Vielseitig S",
    "versatile-p": "Vielseitig P",
    "versatile-b": "Vielseitig B",
}


def pf2e_trait(slug: str) -> str:
    """``deadly-d10`` → ``Tödlich W10``, ``agile`` → ``Agil``; unknown slugs as they are."""
    slug = slug.strip().lower()
    if slug in PF2E_TRAITS:
        return PF2E_TRAITS[slug]
    for prefix, label in (("deadly-", "Tödlich"), ("fatal-", "Fatal"), ("two-hand-", "Zweihändig")):
        if slug.startswith(prefix):
            return f"{label} {slug.removeprefix(prefix).upper().replace('D', 'W')}"
    return slug


def german_dice(expression: str) -> str:
    """``2d6+3`` → ``2W6+3`` (the sheet's notation; the parser reads both)."""
    return expression.replace("d", "W").replace("D", "W")


def feet_to_metres(feet: float) -> float:
    """PF2e German: 5 feet are 1.5 m."""
    return round(feet * 0.3, 1)


@dataclass(frozen=True, slots=True)
class FoundryActor:
    """A Foundry actor: its rule system (``pf2e``/``ds4``), type and values."""

    system: str
    type: str
    name: str
    values: Mapping[str, Any]
    items: list[Mapping[str, Any]]


def foundry_actor(document: Any) -> FoundryActor | None:
    """The document as a Foundry actor, if it is one of the pf2e or ds4 system."""
    if not isinstance(document, Mapping):
        return None
    values = document.get("system", document.get("data"))
    kind, name = document.get("type"), document.get("name")
    if not isinstance(values, Mapping) or not isinstance(kind, str) or not isinstance(name, str):
        return None
    raw_items = document.get("items", [])
    items = [i for i in raw_items if isinstance(i, Mapping)] if isinstance(raw_items, list) else []
    if "combatValues" in values or "body" in (values.get("attributes") or {}):
        return FoundryActor("ds4", kind, name, values, items)
    if "saves" in values or ("details" in values and "abilities" in values):
        return FoundryActor("pf2e", kind, name, values, items)
    return None


def item_values(item: Mapping[str, Any]) -> Mapping[str, Any]:
    """An item's values (``system`` or, before Foundry 10, ``data``)."""
    values = item.get("system", item.get("data"))
    return values if isinstance(values, Mapping) else {}


def dig(values: Any, *path: str, default: Any = None) -> Any:
    """``values[path[0]][path[1]]…``, or ``default`` where a step is missing."""
    for key in path:
        if not isinstance(values, Mapping) or key not in values:
            return default
        values = values[key]
    return values


def number(value: Any, default: int = 0) -> int:
    try:
        return int(value) if not isinstance(value, bool) else default
    except (TypeError, ValueError):
        return default


def is_pathbuilder(document: Any) -> bool:
    return (
        isinstance(document, Mapping)
        and document.get("success") is True
        and isinstance(document.get("build"), Mapping)
    )
