"""Characters from other tools: a Pathbuilder 2e export, a Foundry pf2e or ds4 character,
converted into our own character file and checked by the same import as our exports
(``docs/imports.md``). Pure functions: the file in, our file and the report out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, TypedDict

from app.characters.systems.pf2e import PF2eSheetData
from app.core import foundry as f
from app.core.imports import Report
from app.errors import ValidationFailed
from app.i18n import _
from app.rules import ds4

#: Our character file's format (``app.characters.service.EXPORT_FORMAT``/``EXPORT_VERSION``).
FORMAT = {"format": "tafelrunde-character", "format_version": 1}
STRIKING = {"": 1, "striking": 2, "greaterstriking": 3, "majorstriking": 4}
#: Core armour: AC bonus and Dex cap (Pathbuilder names the armour, not its numbers).
PF2E_ARMOUR = {
    "padded armor": (1, 3),
    "leather armor": (1, 4),
    "studded leather armor": (2, 3),
    "chain shirt": (2, 3),
    "hide armor": (3, 2),
    "scale mail": (3, 2),
    "chain mail": (4, 1),
    "breastplate": (4, 1),
    "splint mail": (5, 1),
    "half plate": (5, 1),
    "full plate": (6, 0),
    "explorer's clothing": (0, 5),
}
#: Weapon traits and range increments (feet) of common weapons (Pathbuilder has no traits).
PF2E_WEAPONS: dict[str, tuple[tuple[str, ...], int]] = {
    "dagger": (("agile", "finesse", "thrown", "versatile-s"), 0),
    "shortsword": (("agile", "finesse", "versatile-s"), 0),
    "rapier": (("deadly-d8", "disarm", "finesse"), 0),
    "longsword": (("versatile-p",), 0),
    "greatsword": (("versatile-p",), 0),
    "scimitar": (("forceful", "sweep"), 0),
    "spear": (("thrown",), 0),
    "staff": (("two-hand-d8",), 0),
    "club": (("thrown",), 0),
    "mace": (("shove",), 0),
    "warhammer": (("shove",), 0),
    "battle axe": (("sweep",), 0),
    "greataxe": (("sweep",), 0),
    "fist": (("agile", "finesse", "nonlethal", "unarmed"), 0),
    "shortbow": (("deadly-d10",), 60),
    "longbow": (("deadly-d10", "volley-30"), 100),
    "composite shortbow": (("deadly-d10", "propulsive"), 60),
    "composite longbow": (("deadly-d10", "propulsive", "volley-30"), 100),
    "crossbow": ((), 120),
    "hand crossbow": ((), 60),
    "sling": (("propulsive",), 50),
    "javelin": (("thrown",), 30),
}


def _bad(message: str) -> ValidationFailed:
    return ValidationFailed({"file": message})


def _expect_system(found: str, campaign_system: str) -> None:
    if found != campaign_system:
        raise _bad(
            _(
                "This character belongs to %(file)s, the campaign plays %(campaign)s.",
                file=found,
                campaign=campaign_system,
            )
        )


def convert(document: Any, campaign_system: str) -> tuple[Any, Report | None]:
    """Our character file for a foreign one (and what became of its fields); our own files
    pass unchanged (``None``: nothing was converted)."""
    if f.is_pathbuilder(document):
        _expect_system("pf2e", campaign_system)
        return from_pathbuilder(document["build"])
    actor = f.foundry_actor(document)
    if actor is None:
        return document, None
    _expect_system(actor.system, campaign_system)
    if actor.type != "character":
        raise _bad(_("This is a creature: import it into the bestiary."))
    convert_actor = FOUNDRY_CHARACTERS[actor.system]
    return convert_actor(actor)


# --- Pathbuilder 2e -------------------------------------------------------------------------


def _modifier(score: int) -> int:
    return (score - 10) // 2


def _pb_attributes(build: Mapping[str, Any], report: Report) -> dict[str, int]:
    raw = build.get("abilities") or {}
    scores = {k: f.number(raw.get(k), 10) for k in f.PF2E_ABILITIES}
    as_scores = any(v > 7 for v in scores.values())
    out: dict[str, int] = {}
    for short, key in f.PF2E_ABILITIES.items():
        value = _modifier(scores[short]) if as_scores else scores[short]
        out[key] = max(-5, min(value, 10))
        if as_scores:
            report.convert(f"abilities.{short}", short.upper(), scores[short], f"{out[key]:+d}")
        else:
            report.take(f"abilities.{short}", short.upper(), out[key])
    return out


def _pb_ranks(build: Mapping[str, Any], report: Report) -> tuple[dict[str, str], dict[str, str]]:
    prof = build.get("proficiencies") or {}
    ranks: dict[str, str] = {}
    for key in (
        "perception",
        "fortitude",
        "reflex",
        "will",
        "unarmored",
        "light",
        "medium",
        "heavy",
        "unarmed",
        "simple",
        "martial",
        "advanced",
    ):
        ranks[key] = f.PF2E_RANKS.get(f.number(prof.get(key)), "untrained")
        report.convert(f"proficiencies.{key}", key, prof.get(key, 0), ranks[key])
    casting = max(
        f.number(prof.get(k))
        for k in ("castingArcane", "castingDivine", "castingOccult", "castingPrimal")
    )
    ranks["spellcasting"] = f.PF2E_RANKS.get(casting, "untrained")
    report.convert("proficiencies.casting*", "Zauberei", casting, ranks["spellcasting"])
    skills = {}
    for slug, name in f.PF2E_SKILLS.items():
        skills[name] = f.PF2E_RANKS.get(f.number(prof.get(slug)), "untrained")
        report.convert(f"proficiencies.{slug}", name, prof.get(slug, 0), skills[name])
    return ranks, skills


def _pb_hp(build: Mapping[str, Any], level: int, con: int, report: Report) -> int:
    a = build.get("attributes") or {}
    per_level = f.number(a.get("classhp")) + f.number(a.get("bonushpPerLevel")) + con
    hp = f.number(a.get("ancestryhp")) + f.number(a.get("bonushp")) + per_level * level
    report.convert("attributes.*hp", "TP", _("class, ancestry, Konstitution and Stufe"), hp)
    return max(1, hp)


DIE = re.compile(r"^d(4|6|8|10|12)$")


class ImportedItem(TypedDict):
    """An item of an imported character as the transfer format holds it; ``fields`` are
    the system's item fields (``kind`` first: weapon, armour, other)."""

    name: str
    description: str
    quantity: int
    price: int | None
    fields: dict[str, object]
    slot: str | None
    equipped: bool
    container: int | None


def _weapon_item(name: str, die: str, count: int, fields: Mapping[str, object]) -> ImportedItem:
    if not DIE.match(die):
        raise _bad(_("Weapon “%(name)s”: “%(die)s” is not a damage die.", name=name, die=die))
    damage = f"{count}{f.german_dice(die)}"
    return {
        "name": name[:100],
        "description": "",
        "quantity": 1,
        "price": None,
        "fields": {"kind": "weapon", "damage": damage, **fields},
        "slot": "weapon",
        "equipped": True,
        "container": None,
    }


def _weapon_table(name: str) -> tuple[tuple[str, ...], int] | None:
    return PF2E_WEAPONS.get(name.strip().lower())


def _pb_weapon(raw: Mapping[str, Any], n: int, report: Report) -> ImportedItem | None:
    name = str(raw.get("display") or raw.get("name") or _("Weapon"))
    if not raw.get("die"):
        report.skip(f"weapons.{n}", name, _("No damage die in the file."))
        return None
    striking = str(raw.get("str") or "").replace(" ", "").lower()
    count = STRIKING.get(striking, 1)
    category = str(raw.get("prof") or "simple")
    known = _weapon_table(str(raw.get("name", "")))
    traits, feet = known if known else ((), 0)
    if known is None:
        report.skip(
            f"weapons.{n}.traits", name, _("Traits are not in the file; add them on the sheet.")
        )
    fields = {
        "category": category
        if category in ("simple", "martial", "advanced", "unarmed")
        else "simple",
        "traits": ", ".join(f.pf2e_trait(t) for t in traits),
        "ranged": feet > 0,
        "range_increment": round(f.feet_to_metres(feet)),
        "item_bonus": max(0, min(f.number(raw.get("pot")), 3)),
    }
    item = _weapon_item(name, str(raw.get("die") or ""), count, fields)
    report.convert(
        f"weapons.{n}",
        name,
        f"{raw.get('die')} {raw.get('str') or ''}".strip(),
        item["fields"]["damage"],
    )
    return item


def _armour_item(name: str, category: str, bonus: int, cap: int | None, worn: bool) -> ImportedItem:
    cap_field = {"dex_cap": cap} if cap is not None else {}
    return {
        "name": name[:100],
        "description": "",
        "quantity": 1,
        "price": None,
        "fields": {
            **cap_field,
            "kind": "armour",
            "category": category,
            "ac_bonus": bonus,
        },
        "slot": "armour" if worn else None,
        "equipped": worn,
        "container": None,
    }


def _pb_armour(raw: Mapping[str, Any], n: int, report: Report, worn_taken: bool) -> ImportedItem:
    name = str(raw.get("display") or raw.get("name") or _("Armour"))
    known = PF2E_ARMOUR.get(str(raw.get("name", "")).strip().lower())
    if known is None:
        report.skip(
            f"armor.{n}",
            name,
            _("RK bonus and Dex cap are not in the file; set them on the sheet."),
        )
    bonus, cap = known if known else (0, None)
    bonus += max(0, min(f.number(raw.get("pot")), 3))
    category = str(raw.get("prof") or "light")
    category = category if category in ("unarmored", "light", "medium", "heavy") else "light"
    worn = bool(raw.get("worn")) and not worn_taken
    report.convert(f"armor.{n}", name, raw.get("name"), f"RK +{bonus}")
    return _armour_item(name, category, bonus, cap, worn)


def _other_item(name: str, quantity: int) -> ImportedItem:
    return {
        "name": name[:100],
        "description": "",
        "quantity": max(1, min(quantity, 9999)),
        "price": None,
        "fields": {"kind": "other"},
        "slot": None,
        "equipped": False,
        "container": None,
    }


def _pb_items(build: Mapping[str, Any], report: Report) -> list[ImportedItem]:
    weapons = (_pb_weapon(w, n, report) for n, w in enumerate(_list(build.get("weapons"))))
    items = [w for w in weapons if w is not None]
    worn = False
    for n, a in enumerate(_list(build.get("armor"))):
        item = _pb_armour(a, n, report, worn)
        worn = worn or item["equipped"]
        items.append(item)
    for n, entry in enumerate(build.get("equipment") or []):
        if isinstance(entry, list) and entry and isinstance(entry[0], str):
            qty = f.number(entry[1], 1) if len(entry) > 1 else 1
            items.append(_other_item(entry[0], qty))
            report.take(f"equipment.{n}", entry[0], qty)
    return items


def _gear_or_skip(
    item: Mapping[str, Any], n: int, gear: tuple[str, ...], report: Report
) -> ImportedItem | None:
    """A Foundry item of one of the ``gear`` types as an item with its quantity; any other
    type (feats, spells, class, ancestry …) is skipped with the reason."""
    name = str(item.get("name") or "")[:100]
    kind = item.get("type")
    if kind in gear:
        quantity = f.number(f.item_values(item).get("quantity"), 1)
        report.take(f"items.{n}", name, quantity)
        return _other_item(name, quantity)
    report.skip(
        f"items.{n}",
        name,
        _("Stored in Foundry as a %(kind)s item; not on our sheet.", kind=str(kind)),
    )
    return None


def _list(value: Any) -> list[Mapping[str, Any]]:
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


def _pb_skipped(build: Mapping[str, Any], report: Report) -> None:
    why_no_field = _("The sheet has no field for it.")
    for key, label in (
        ("class", _("Class")),
        ("ancestry", _("Ancestry")),
        ("heritage", _("Heritage")),
        ("background", _("Background")),
        ("deity", _("Deity")),
        ("feats", _("Feats")),
        ("specials", _("Class features")),
        ("lores", _("Lore skills")),
        ("spellCasters", _("Spells")),
        ("money", _("Money")),
        ("formula", _("Formulas")),
        ("pets", _("Companions")),
        ("familiars", _("Familiars")),
    ):
        if build.get(key):
            report.skip(key, label, why_no_field)


def from_pathbuilder(build: Mapping[str, Any]) -> tuple[dict[str, object], Report]:
    report = Report()
    name = str(build.get("name") or "").strip()
    report.take("name", _("Name"), name)
    level = max(-1, min(f.number(build.get("level"), 1), 25))
    report.take("level", "Stufe", level)
    attributes = _pb_attributes(build, report)
    ranks, skills = _pb_ranks(build, report)
    hp = _pb_hp(build, level, attributes["constitution"], report)
    data: PF2eSheetData = {
        "level": level,
        "hp": hp,
        "hp_max": hp,
        "attributes": attributes,
        "ranks": ranks,
        "skills": skills,
    }
    casters = _list(build.get("spellCasters"))
    ability = str(casters[0].get("ability", "")) if casters else ""
    if ability in f.PF2E_ABILITIES:
        data["spell_attribute"] = f.PF2E_ABILITIES[ability]
        report.convert("spellCasters.0.ability", "Zauberattribut", ability, data["spell_attribute"])
    items = _pb_items(build, report)
    _pb_skipped(build, report)
    return {
        **FORMAT,
        "system": "pf2e",
        "name": name,
        "kind": "pc",
        "data": data,
        "items": items,
    }, report


# --- Foundry pf2e character -----------------------------------------------------------------


def _fd_pf2e_item(item: Mapping[str, Any], n: int, report: Report) -> ImportedItem | None:
    v = f.item_values(item)
    name = str(item.get("name") or "")[:100]
    kind = item.get("type")
    if kind == "weapon":
        traits = [str(t) for t in f.dig(v, "traits", "value", default=[]) or []]
        feet = f.number(f.dig(v, "range"), 0)
        striking = f.number(f.dig(v, "runes", "striking"), 0)
        fields = {
            "category": str(v.get("category") or "simple"),
            "traits": ", ".join(f.pf2e_trait(t) for t in traits),
            "ranged": feet > 0,
            "range_increment": round(f.feet_to_metres(feet)),
            "item_bonus": max(0, min(f.number(f.dig(v, "runes", "potency")), 3)),
        }
        die = str(f.dig(v, "damage", "die", default="d4"))
        count = max(f.number(f.dig(v, "damage", "dice"), 1), 1 + striking)
        report.take(f"items.{n}", name, f"{count}{die}")
        return _weapon_item(name, die, count, fields)
    if kind == "armor":
        worn = f.dig(v, "equipped", "inSlot", default=False) is True
        bonus = f.number(v.get("acBonus")) + f.number(f.dig(v, "runes", "potency"))
        cap = v.get("dexCap")
        category = str(v.get("category") or "light")
        report.take(f"items.{n}", name, f"RK +{bonus}")
        return _armour_item(
            name,
            category if category in ("unarmored", "light", "medium", "heavy") else "light",
            bonus,
            f.number(cap) if cap is not None else None,
            worn,
        )
    return _gear_or_skip(item, n, ("equipment", "consumable", "treasure", "backpack"), report)


def from_foundry_pf2e(actor: f.FoundryActor) -> tuple[dict[str, object], Report]:
    report = Report()
    v = actor.values
    report.take("name", _("Name"), actor.name)
    level = max(-1, min(f.number(f.dig(v, "details", "level", "value"), 1), 25))
    report.take("system.details.level.value", "Stufe", level)
    hp = max(1, f.number(f.dig(v, "attributes", "hp", "value"), 1))
    report.take("system.attributes.hp.value", "TP", hp)
    report.skip(
        "system.attributes.hp.max",
        "TP max",
        _("Foundry derives it from the class and ancestry items; it is set to the current TP."),
    )
    attributes = {
        key: max(-5, min(f.number(f.dig(v, "abilities", short, "mod")), 10))
        for short, key in f.PF2E_ABILITIES.items()
    }
    if not f.dig(v, "abilities"):
        report.skip(
            "system.abilities",
            _("Attributes"),
            _("Foundry derives them from boosts on the class, ancestry and background items."),
        )
    skills = {}
    for slug, name in f.PF2E_SKILLS.items():
        rank = f.number(f.dig(v, "skills", slug, "rank"))
        skills[name] = f.FOUNDRY_RANKS[max(0, min(rank, 4))]
        report.convert(f"system.skills.{slug}.rank", name, rank, skills[name])
    report.skip(
        "saves, perception",
        _("Saves and Perception ranks"),
        _("Foundry derives them from the class item; set them on the sheet."),
    )
    items = [i for n, raw in enumerate(actor.items) if (i := _fd_pf2e_item(raw, n, report))]
    data = {"level": level, "hp": hp, "hp_max": hp, "attributes": attributes, "skills": skills}
    return {
        **FORMAT,
        "system": "pf2e",
        "name": actor.name,
        "kind": "pc",
        "data": data,
        "items": items,
    }, report


# --- Foundry ds4 character ------------------------------------------------------------------

DS4_ATTRIBUTES = {"body": "koerper", "mobility": "agilitaet", "mind": "geist"}
DS4_TRAITS = {
    "strength": "staerke",
    "constitution": "haerte",
    "agility": "bewegung",
    "dexterity": "geschick",
    "intellect": "verstand",
    "aura": "aura",
}
DS4_VOLK = {
    "mensch": "mensch",
    "human": "mensch",
    "elf": "elf",
    "elfe": "elf",
    "zwerg": "zwerg",
    "dwarf": "zwerg",
}
DS4_KLASSE = {
    "krieger": "krieger",
    "fighter": "krieger",
    "warrior": "krieger",
    "späher": "spaeher",
    "spaeher": "spaeher",
    "scout": "spaeher",
    "heiler": "heiler",
    "healer": "heiler",
    "zauberer": "zauberer",
    "wizard": "zauberer",
    "sorcerer": "zauberer",
    "mage": "zauberer",
    "schwarzmagier": "schwarzmagier",
    "black mage": "schwarzmagier",
}
DS4_MATERIAL = {"cloth": "stoff", "leather": "leder", "chain": "kette", "plate": "platte"}
DS4_SLOTS = {
    "body": ["body"],
    "helmet": ["helmet"],
    "vambrace": ["arm"],
    "greaves": ["leg"],
    "vambraceGreaves": ["arm", "leg"],
}


def _ds4_choice(
    raw: Any, table: Mapping[str, str], default: str, label: str, field: str, report: Report
) -> str:
    key = str(raw or "").strip().lower()
    if key in table:
        report.convert(field, label, raw, table[key])
        return table[key]
    report.skip(
        field,
        label,
        _(
            "“%(value)s” is not one of the rules' choices; %(default)s is set.",
            value=str(raw or ""),
            default=default,
        ),
    )
    return default


def _take_bonus(
    traits: dict[str, int], allowed: frozenset[ds4.Eigenschaft], label: str, report: Report
) -> str:
    """Foundry stores each Eigenschaft with its bonuses; ours keeps the bonus apart. The
    highest Eigenschaft the rules allow (``ds4.VOLK_BONUS``, ``ds4.KLASSE_BONUS``) is taken
    to hold it, the first in the rules' order on a tie (the sheet's choice can be changed)."""
    order = [e.value for e in ds4.Eigenschaft if e in allowed]
    chosen = max(order, key=lambda k: (traits[k], -order.index(k)))
    if traits[chosen] > 0:
        traits[chosen] -= 1
    report.convert("system.traits", label, _("in the Eigenschaft"), chosen)
    return chosen


def _fd_ds4_item(item: Mapping[str, Any], n: int, report: Report) -> ImportedItem | None:
    v = f.item_values(item)
    name = str(item.get("name") or "")[:100]
    kind = item.get("type")
    equipped = bool(v.get("equipped"))
    if kind == "weapon":
        ranged = v.get("attackType") == "ranged"
        fields = {
            "kind": "weapon",
            "wb": f.number(v.get("weaponBonus")),
            "ga": f.number(v.get("opponentDefense")),
            "ranged": ranged,
        }
        report.take(f"items.{n}", name, f"WB {fields['wb']}, GA {fields['ga']}")
        slot = ("ranged" if ranged else "melee") if equipped else None
        return {**_other_item(name, 1), "fields": fields, "slot": slot, "equipped": equipped}
    if kind in ("armor", "shield"):
        slots = ["shield"] if kind == "shield" else DS4_SLOTS.get(str(v.get("armorType")), ["body"])
        fields = {
            "kind": "armour",
            "pa": f.number(v.get("armorValue")),
            "armour_slots": slots,
            "material": DS4_MATERIAL.get(str(v.get("armorMaterialType")), ""),
        }
        report.take(f"items.{n}", name, f"PA {fields['pa']}")
        return {
            **_other_item(name, 1),
            "fields": fields,
            "slot": "armour" if equipped else None,
            "equipped": equipped,
        }
    return _gear_or_skip(item, n, ("equipment", "loot"), report)


def from_foundry_ds4(actor: f.FoundryActor) -> tuple[dict[str, object], Report]:
    report = Report()
    v = actor.values
    report.take("name", _("Name"), actor.name)
    attributes = {}
    for key, ours in DS4_ATTRIBUTES.items():
        attributes[ours] = max(0, min(f.number(f.dig(v, "attributes", key, "base")), 20))
        report.take(f"system.attributes.{key}.base", ours.title(), attributes[ours])
    traits = {}
    for key, ours in DS4_TRAITS.items():
        traits[ours] = max(0, min(f.number(f.dig(v, "traits", key, "base")), 20))
        report.take(f"system.traits.{key}.base", ours.title(), traits[ours])
    volk = _ds4_choice(
        f.dig(v, "baseInfo", "race"), DS4_VOLK, "mensch", "Volk", "system.baseInfo.race", report
    )
    klasse = _ds4_choice(
        f.dig(v, "baseInfo", "class"),
        DS4_KLASSE,
        "krieger",
        "Klasse",
        "system.baseInfo.class",
        report,
    )
    volk_bonus = _take_bonus(traits, ds4.VOLK_BONUS[ds4.Volk(volk)], "Volksbonus", report)
    klasse_bonus = _take_bonus(traits, ds4.KLASSE_BONUS[ds4.Klasse(klasse)], "Klassenbonus", report)
    data: dict[str, object] = {
        "volk": volk,
        "volk_bonus": volk_bonus,
        "klasse": klasse,
        "klasse_bonus": klasse_bonus,
        "ep": max(0, f.number(f.dig(v, "progression", "experiencePoints"))),
        "attributes": attributes,
        "traits": traits,
        "in_hand": "melee",
    }
    lk = f.dig(v, "combatValues", "hitPoints", "value")
    if lk is not None:
        data["lk"] = f.number(lk)
        report.take("system.combatValues.hitPoints.value", "LK (aktuell)", data["lk"])
    for key in ("level", "talentPoints", "progressPoints"):
        if f.dig(v, "progression", key) is not None:
            report.skip(f"system.progression.{key}", key, _("The sheet has no field for it."))
    items = [i for n, raw in enumerate(actor.items) if (i := _fd_ds4_item(raw, n, report))]
    return {
        **FORMAT,
        "system": "ds4",
        "name": actor.name,
        "kind": "pc",
        "data": data,
        "items": items,
    }, report


FOUNDRY_CHARACTERS: dict[str, Callable[[f.FoundryActor], tuple[dict[str, object], Report]]] = {
    "pf2e": from_foundry_pf2e,
    "ds4": from_foundry_ds4,
}
