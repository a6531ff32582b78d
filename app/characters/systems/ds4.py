"""Dungeonslayers 4 for the characters domain: the sheet (Volk, Klasse, Attribute,
Eigenschaften), creation limits and equipment rules, Proben and Kampfwerte, and the stat
block for combat.

Every number comes from ``app.rules.ds4``; this module translates the stored sheet and items
into the engine's types and labels the results.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypedDict

from app import i18n
from app.characters.catalog import KIND_FIELD, ItemField, StarterItem
from app.characters.rolling import Odds, RollOutcome, RollRequest, Target, bad
from app.characters.sheets import (
    Derived,
    FieldSpec,
    ItemLike,
    SheetView,
    Warning,
    equipped_in,
    item_names,
    number,
    percent,
    section,
    whole,
)
from app.characters.systems.protocol import OneSheet, Rest, SheetDefaults
from app.i18n import N_, gettext
from app.rules import ds4
from app.rules.dice import Roller
from app.rules.ds4.check import final_pw
from app.rules.ds4.named import ATTRIBUTES, TRAITS

KEY = "ds4"

VOLK = {"mensch": "Mensch", "elf": "Elf", "zwerg": "Zwerg"}
KLASSE = {
    "krieger": "Krieger",
    "spaeher": "Späher",
    "heiler": "Heiler",
    "zauberer": "Zauberer",
    "schwarzmagier": "Schwarzmagier",
}
ATTR = ATTRIBUTES
TRAIT = TRAITS
KAMPFWERTE = {
    "lebenskraft": "Lebenskraft",
    "abwehr": "Abwehr",
    "initiative": "Initiative",
    "laufen": "Laufen",
    "schlagen": "Schlagen",
    "schiessen": "Schießen",
    "zaubern": "Zaubern",
    "zielzauber": "Zielzauber",
}
ROLLABLE = ("abwehr", "initiative", "schlagen", "schiessen", "zaubern", "zielzauber")
EQUIP_SLOTS = {
    "melee": N_("melee weapon"),
    "ranged": N_("ranged weapon"),
    "armour": N_("armour"),
}


def _fields() -> list[FieldSpec]:
    traits = tuple((k, v[0]) for k, v in TRAIT.items())
    out = [
        FieldSpec("volk", "Volk", "choice", choices=tuple(VOLK.items())),
        FieldSpec("volk_bonus", "Volksbonus", "choice", choices=traits),
        FieldSpec("klasse", "Klasse", "choice", choices=tuple(KLASSE.items())),
        FieldSpec("klasse_bonus", "Klassenbonus", "choice", choices=traits),
        FieldSpec("ep", "EP", minimum=0, maximum=1_000_000),
        FieldSpec("lk", N_("LK (current)"), minimum=-99, maximum=999),
        FieldSpec(
            "in_hand",
            N_("Weapon in hand"),
            "choice",
            choices=(("melee", N_("melee weapon")), ("ranged", N_("ranged weapon"))),
        ),
    ]
    out += [
        FieldSpec(f"attributes.{k}", f"{v[0]} ({v[1]})", minimum=0, maximum=20, group="attributes")
        for k, v in ATTR.items()
    ]
    out += [
        FieldSpec(f"traits.{k}", f"{v[0]} ({v[1]})", minimum=0, maximum=20, group="traits")
        for k, v in TRAIT.items()
    ]
    return out


class DS4Attributes(TypedDict):
    """The three Attribute (ds4.md §1)."""

    koerper: int
    agilitaet: int
    geist: int


class DS4Traits(TypedDict):
    """The six Eigenschaften (ds4.md §1)."""

    staerke: int
    haerte: int
    bewegung: int
    geschick: int
    verstand: int
    aura: int


class DS4SheetData(TypedDict, total=False):
    """A DS4 sheet's JSON (``Character.data``): what :meth:`DS4System.default_data` writes,
    plus what a rest or the GM keeps. Sheets from before a field existed may lack it."""

    volk: str
    volk_bonus: str
    klasse: str
    klasse_bonus: str
    ep: int
    #: What the hero holds ready: ``melee`` or ``ranged``.
    in_hand: str
    attributes: DS4Attributes
    traits: DS4Traits
    #: Current Lebenskraft.
    lk: int
    #: The LK right after the last Verschnaufen (:data:`RESTED_LK`).
    verschnauft_lk: int
    #: Stat block values the GM fixed for fights (``app.encounters.statblocks.ds4``).
    statblock: dict[str, object]


def _default() -> DS4SheetData:
    data = _default_values()
    data["lk"] = max_lk(data)
    return data


def _default_values() -> DS4SheetData:
    return {
        "volk": "mensch",
        "volk_bonus": "staerke",
        "klasse": "krieger",
        "klasse_bonus": "staerke",
        "ep": 0,
        "in_hand": "melee",
        "attributes": {"koerper": 8, "agilitaet": 6, "geist": 6},
        "traits": {
            "staerke": 2,
            "haerte": 2,
            "bewegung": 1,
            "geschick": 1,
            "verstand": 1,
            "aura": 1,
        },
    }


def weapon_of(item: ItemLike) -> ds4.Weapon:
    f = item.fields or {}
    return ds4.Weapon(
        id=f"item{item.id}",
        wb=int(f.get("wb", 0)),
        ini=int(f.get("ini", 0)),
        ga=int(f.get("ga", 0)),
        two_handed=bool(f.get("two_handed", False)),
        not_for_dwarves=bool(f.get("not_for_dwarves", False)),
        ranged=bool(f.get("ranged", False)),
        wooden=bool(f.get("wooden", False)),
        zielzauber=int(f.get("zielzauber", 0)),
    )


def armour_of(item: ItemLike) -> ds4.Armour:
    f = item.fields or {}
    slots = frozenset(
        ds4.Slot(s) for s in f.get("armour_slots") or ["body"] if s in {x.value for x in ds4.Slot}
    )
    material = f.get("material")
    return ds4.Armour(
        id=f"item{item.id}",
        pa=int(f.get("pa", 0)),
        slots=slots or frozenset({ds4.Slot.BODY}),
        material=ds4.Material(material) if material in {m.value for m in ds4.Material} else None,
        ini=int(f.get("ini", 0)),
        laufen=float(f.get("laufen", 0.0)),
    )


def engine_character(data: Mapping[str, object], items: Sequence[ItemLike]) -> ds4.Character:
    attrs = section(data, "attributes")
    traits = section(data, "traits")
    melee = ranged = None
    armour: list[ds4.Armour] = []
    for item in items:
        if not item.equipped:
            continue
        if item.slot == "melee":
            melee = weapon_of(item)
        elif item.slot == "ranged":
            ranged = weapon_of(item)
        elif item.slot == "armour":
            armour.append(armour_of(item))
    return ds4.Character(
        attributes=ds4.Attributes(*(whole(attrs.get(k, 0)) for k in ATTR)),
        traits=ds4.Traits(*(whole(traits.get(k, 0)) for k in TRAIT)),
        volk=ds4.Volk(str(data.get("volk", "mensch"))),
        volk_bonus=ds4.Eigenschaft(str(data.get("volk_bonus", "staerke"))),
        klasse=ds4.Klasse(str(data.get("klasse", "krieger"))),
        klasse_bonus=ds4.Eigenschaft(str(data.get("klasse_bonus", "staerke"))),
        equipment=ds4.Equipment(
            melee_weapon=melee,
            ranged_weapon=ranged,
            in_hand="ranged" if data.get("in_hand") == "ranged" else "melee",
            armour=tuple(armour),
        ),
        ep=whole(data.get("ep", 0)),
    )


def _part_label(code: str, names: Mapping[str, str]) -> str:
    kind, _, ident = code.partition(":")
    if kind == "attribute":
        if ident.endswith("/2"):
            return f"{ATTR[ident[:-2]][1]} ÷ 2"
        return ATTR.get(ident, (ident, ident))[1]
    if kind == "trait":
        return TRAIT.get(ident, (ident, ident))[1]
    if kind == "constant":
        return gettext("base")
    if kind in ("weapon", "armour"):
        return names.get(ident, ident.replace("_", " ").title())
    if kind == "klassenfremd":
        return f"Klassenfremde Rüstung ({names.get(ident, ident)})"
    if kind == "volk":
        return "Zäh (Zwerg)"
    if kind == "difficulty":
        return ident
    return code


PROBLEM_TEXTS: dict[str, str] = {
    "weapon_not_for_dwarves": N_("Zwerge cannot use %(weapon)s."),
    "weapon_wrong_slot": N_("%(weapon)s does not belong in this weapon slot."),
    "shield_with_two_handed_weapon": N_("No shield with a two-handed weapon in hand (%(weapon)s)."),
    "slot_used_twice": N_("Only one armour piece per slot (%(slot)s: %(items)s)."),
    "armour_not_allowed_for_class": N_(
        "Klassenfremde Rüstung: %(armour)s (PA %(pa)s) — AGI −%(pa)s and Zaubern/Zielzauber −PA×4."
    ),
    "attribute_above_max": N_("At creation an Attribut is at most %(max)s."),
    "trait_above_max": N_("At creation an Eigenschaft is at most %(max)s before bonuses."),
    "attribute_points_exceeded": N_("%(spent)s of %(total)s Attribut points spent: too many."),
    "trait_points_exceeded": N_("%(spent)s of %(total)s Eigenschaft points spent: too many."),
    "attribute_points_unspent": N_("%(spent)s of %(total)s Attribut points spent."),
    "trait_points_unspent": N_("%(spent)s of %(total)s Eigenschaft points spent."),
    "attribute_negative": N_("Values cannot be negative."),
    "trait_negative": N_("Values cannot be negative."),
    "volk_bonus_not_allowed": N_("This Volk cannot raise that Eigenschaft."),
    "klasse_bonus_not_allowed": N_("This Klasse cannot raise that Eigenschaft."),
    "ep_negative": N_("EP cannot be negative."),
    "creation_ep_not_zero": N_("A new character starts with 0 EP."),
}


def problem_text(problem: ds4.Problem, names: Mapping[str, str]) -> str:
    params = {
        k: names.get(str(v), v) if k in ("weapon", "armour", "shield") else v
        for k, v in problem.params.items()
    }
    template = PROBLEM_TEXTS.get(problem.code)
    if template is None:
        return problem.code
    return gettext(template, **params)


def problem_field(problem: ds4.Problem) -> str | None:
    """The sheet field a creation/bonus problem belongs to."""
    name = str(problem.params.get("name", ""))
    if problem.code.startswith("attribute_"):
        return f"attributes.{name}" if name else "attributes"
    if problem.code.startswith("trait_"):
        return f"traits.{name}" if name else "traits"
    if problem.code == "volk_bonus_not_allowed":
        return "volk_bonus"
    if problem.code == "klasse_bonus_not_allowed":
        return "klasse_bonus"
    if problem.code in ("ep_negative", "creation_ep_not_zero"):
        return "ep"
    return None


def problems(data: Mapping[str, object], items: Sequence[ItemLike]) -> list[ds4.Problem]:
    character = engine_character(data, items)
    return ds4.validate_character(character, creation=character.ep == 0)


def _view(data: Mapping[str, object], items: Sequence[ItemLike]) -> SheetView:
    character = engine_character(data, items)
    names = item_names(items)
    values = ds4.combat_values(character)
    derived = [
        Derived(
            "stufe",
            "Stufe",
            str(character.stufe),
            (("EP", str(character.ep)), (gettext("EP to next Stufe"), _ep_next(character.ep))),
        )
    ]
    for key, label in KAMPFWERTE.items():
        kw = getattr(values, key)
        value = number(kw.value) + (" m" if key == "laufen" else "")
        derived.append(
            Derived(
                key,
                label,
                value,
                tuple((_part_label(code, names), number(v)) for code, v in kw.breakdown),
                roll=f"kampfwert:{key}" if key in ROLLABLE else None,
            )
        )
    warnings = tuple(
        Warning(problem_text(p, names), p.severity, problem_field(p))
        for p in ds4.validate_character(character, creation=character.ep == 0)
    )
    return SheetView(tuple(derived), warnings)


def _ep_next(ep: int) -> str:
    remaining = ds4.ep_to_next_stufe(ep)
    return "—" if remaining is None else str(remaining)


def cross_check(data: Mapping[str, object], items: Sequence[ItemLike]) -> dict[str, str]:
    """The creation and bonus rules the engine reports as errors, at their fields."""
    errors: dict[str, str] = {}
    names = item_names(items)
    for problem in problems(data, items):
        target = problem_field(problem)
        if problem.severity == "error" and target is not None:
            errors.setdefault(target, problem_text(problem, names))
    return errors


def follow_up(
    before: Mapping[str, object], data: dict[str, object], touched: Sequence[str]
) -> list[str]:
    """A new Volk or Klasse may not allow the old bonus: take the first one it allows. An
    unhurt hero's current LK follow the maximum (docs/rules/ds4.md)."""
    changed = _allowed_bonuses(data, touched)
    if "lk" not in touched and _unhurt(before) and data.get("lk") != max_lk(data):
        data["lk"] = max_lk(data)
        changed.append("lk")
    return changed


def max_lk(data: Mapping[str, object]) -> int:
    """The sheet's Lebenskraft (KÖR + HÄ with the bonuses of Volk and Klasse + 10; no item
    changes it)."""
    return ds4.combat_values(engine_character(data, ())).lebenskraft.value


def _unhurt(data: Mapping[str, object]) -> bool:
    """Current LK at the maximum: the hero has lost none (or is healed in full)."""
    return "lk" not in data or whole(data["lk"]) >= max_lk(data)


def _allowed_bonuses(data: dict[str, object], touched: Sequence[str]) -> list[str]:
    changed: list[str] = []
    if "volk" in touched:
        allowed_bonus = ds4.VOLK_BONUS[ds4.Volk(str(data["volk"]))]
        if ds4.Eigenschaft(str(data.get("volk_bonus", "staerke"))) not in allowed_bonus:
            data["volk_bonus"] = _first(allowed_bonus)
            changed.append("volk_bonus")
    if "klasse" in touched:
        allowed_bonus = ds4.KLASSE_BONUS[ds4.Klasse(str(data["klasse"]))]
        if ds4.Eigenschaft(str(data.get("klasse_bonus", "staerke"))) not in allowed_bonus:
            data["klasse_bonus"] = _first(allowed_bonus)
            changed.append("klasse_bonus")
    return changed


def _first(allowed: frozenset[ds4.Eigenschaft]) -> str:
    return sorted(allowed, key=list(ds4.Eigenschaft).index)[0].value


# --- inventory ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Trial:
    """An item as it would be after equipping (for the equipment check): equipped in
    ``slot``, in no container."""

    id: int
    name: str
    quantity: int
    fields: dict[str, object]
    slot: str | None
    equipped: bool = True
    container: str | None = None


def equip_problem(
    data: Mapping[str, object], items: Sequence[ItemLike], item: ItemLike, slot: str
) -> str | None:
    """Weapons in weapon slots, armour worn, and the engine's equipment rules (Zwerge,
    two-handed weapons and shields, one piece per slot) for the sheet as it would be."""
    if slot not in EQUIP_SLOTS:
        return gettext("Choose one of the listed values.")
    kind = (item.fields or {}).get("kind")
    if slot in ("melee", "ranged") and kind not in ("weapon", None):
        return gettext("Only weapons go into a weapon slot.")
    if slot == "armour" and kind != "armour":
        return gettext("Only armour can be worn.")
    others = [i for i in items if i.id != item.id]
    trial = [
        _Trial(i.id, i.name, i.quantity, i.fields, slot if i.id == item.id else i.slot)
        for i in [*others, item]
        if i.id == item.id or i.equipped
    ]
    if slot in ("melee", "ranged"):
        trial = [t for t in trial if t.slot != slot or t.id == item.id]
    found = [
        p for p in ds4.validate_equipment(engine_character(data, trial)) if p.severity == "error"
    ]
    return problem_text(found[0], item_names([*others, item])) if found else None


# --- items ---------------------------------------------------------------------------------

ARMOUR_SLOT_NAMES = {
    ds4.Slot.HELMET: N_("helmet"),
    ds4.Slot.BODY: N_("body"),
    ds4.Slot.ARM: N_("arms"),
    ds4.Slot.LEG: N_("legs"),
    ds4.Slot.SHIELD: N_("shield"),
}

ITEM_FIELDS = (
    KIND_FIELD,
    ItemField("wb", "WB", minimum=-10, maximum=10),
    ItemField("ini", "INI", minimum=-10, maximum=10),
    ItemField("ga", "GA", minimum=-10, maximum=10),
    ItemField("two_handed", N_("Two-handed"), "bool"),
    ItemField("ranged", N_("Ranged"), "bool"),
    ItemField("not_for_dwarves", N_("Not for a Zwerg"), "bool"),
    ItemField("wooden", N_("Wooden"), "bool"),
    ItemField("zielzauber", N_("Zielzauber bonus"), minimum=-10, maximum=10),
    ItemField("pa", "PA", minimum=0, maximum=10),
    ItemField(
        "armour_slots",
        N_("Armour slots"),
        "list",
        tuple((s.value, ARMOUR_SLOT_NAMES[s]) for s in ds4.Slot),
    ),
    ItemField(
        "material",
        N_("Material"),
        "choice",
        (("", "—"), *((m.value, m.value.title()) for m in ds4.Material)),
    ),
    ItemField("laufen", N_("Penalty to Laufen (m)"), "float", minimum=-5, maximum=0),
)

WEAPON_NAMES = {
    "axt": "Axt",
    "armbrust_leicht": "Armbrust, leicht",
    "armbrust_schwer": "Armbrust, schwer",
    "bihaender": "Bihänder",
    "elfenbogen": "Elfenbogen",
    "kurzbogen": "Kurzbogen",
    "langbogen": "Langbogen",
    "dolch": "Dolch",
    "flegel": "Flegel",
    "hammer": "Hammer",
    "hellebarde": "Hellebarde",
    "kampfstab": "Kampfstab",
    "keule": "Keule",
    "schlachtbeil": "Schlachtbeil",
    "breitschwert": "Breitschwert",
    "kurzschwert": "Kurzschwert",
    "langschwert": "Langschwert",
    "speer": "Speer",
    "streitaxt": "Streitaxt",
    "streitkolben": "Streitkolben",
}
ARMOUR_NAMES = {
    "robe": "Robe",
    "lederpanzer": "Lederpanzer",
    "lederschienen": "Lederschienen",
    "kettenpanzer": "Kettenpanzer",
    "plattenarmschienen": "Plattenarmschienen",
    "plattenbeinschienen": "Plattenbeinschienen",
    "plattenpanzer": "Plattenpanzer",
    "metallhelm": "Metallhelm",
    "holzschild": "Holzschild",
    "metallschild": "Metallschild",
    "turmschild": "Turmschild",
}


def starter_items() -> list[StarterItem]:
    out: list[StarterItem] = []
    for key, name in WEAPON_NAMES.items():
        w = ds4.weapon(key)
        out.append(
            StarterItem(
                f"ds4:{key}",
                name,
                {
                    "kind": "weapon",
                    "wb": w.wb,
                    "ini": w.ini,
                    "ga": w.ga,
                    "two_handed": w.two_handed,
                    "ranged": w.ranged,
                    "not_for_dwarves": w.not_for_dwarves,
                    "wooden": w.wooden,
                    "zielzauber": w.zielzauber,
                },
            )
        )
    for key, name in ARMOUR_NAMES.items():
        a = ds4.armour(key)
        fields: dict[str, object] = {
            "kind": "armour",
            "pa": a.pa,
            "armour_slots": sorted(s.value for s in a.slots),
            "ini": a.ini,
            "laufen": a.laufen,
        }
        if a.material is not None:
            fields["material"] = a.material.value
        out.append(StarterItem(f"ds4:{key}", name, fields))
    return out


# --- rolls ---------------------------------------------------------------------------------

#: The difficulty guide's names as the rules write them (rule terms: German in both languages).
DIFFICULTY_NAMES: dict[ds4.Difficulty, str] = {
    ds4.Difficulty.ROUTINE: "Routine",
    ds4.Difficulty.SEHR_LEICHT: "Sehr leicht",
    ds4.Difficulty.LEICHT: "Leicht",
    ds4.Difficulty.NORMAL: "Normal",
    ds4.Difficulty.SCHWER: "Schwer",
    ds4.Difficulty.SEHR_SCHWER: "Sehr schwer",
    ds4.Difficulty.AEUSSERST_SCHWER: "Äußerst schwer",
}
DIFFICULTIES = tuple(
    (d.value, f"{DIFFICULTY_NAMES[d]} ({ds4.DIFFICULTY_MODIFIER[d]:+d})".replace("-", "−"))
    for d in ds4.Difficulty
)


def roll_targets() -> list[Target]:
    out = [Target(f"kampfwert:{k}", KAMPFWERTE[k]) for k in ROLLABLE]
    out += [
        Target(f"probe:{a}:{t}", f"{av[1]} + {tv[1]}")
        for a, av in ATTR.items()
        for t, tv in TRAIT.items()
    ]
    return out


def _check_setup(
    data: Mapping[str, object], items: Sequence[ItemLike], req: RollRequest
) -> tuple[str, int, list[tuple[str, int]], ds4.Difficulty | None]:
    kind, _, name = req.target.partition(":")
    character = engine_character(data, items)
    if kind == "kampfwert" and name in ROLLABLE:
        base = int(getattr(ds4.combat_values(character), name).value)
        label = KAMPFWERTE[name]
    elif kind == "probe":
        attr, _, trait = name.partition(":")
        if attr not in ATTR or trait not in TRAIT:
            raise bad("target", gettext("Choose a value of this sheet."))
        base = character.attributes.get(ds4.Attribut(attr)) + character.trait(
            ds4.Eigenschaft(trait)
        )
        label = f"{ATTR[attr][1]} + {TRAIT[trait][1]}"
    else:
        raise bad("target", gettext("Choose a value of this sheet."))
    difficulty = None
    if req.difficulty:
        if req.difficulty not in {d.value for d in ds4.Difficulty}:
            raise bad("difficulty", gettext("Choose one of the listed values."))
        difficulty = ds4.Difficulty(req.difficulty)
    modifiers = [("modifier", req.modifier)] if req.modifier else []
    return label, base, modifiers, difficulty


def _check_odds(data: Mapping[str, object], items: Sequence[ItemLike], req: RollRequest) -> Odds:
    _label, base, modifiers, difficulty = _check_setup(data, items, req)
    pw, _ = final_pw(base, modifiers, difficulty)
    odds = ds4.check_odds(pw)
    return Odds(
        gettext("Success chance: %(p)s", p=percent(odds.success)),
        (
            ("PW", str(pw)),
            ("Immersieg", percent(odds.immersieg)),
            ("Patzer", percent(odds.patzer)),
            (gettext("Expected result"), i18n.number(float(odds.expected_result), fixed=True)),
        ),
    )


def _check_roll(
    roller: Roller, data: Mapping[str, object], items: Sequence[ItemLike], req: RollRequest
) -> RollOutcome:
    label, base, modifiers, difficulty = _check_setup(data, items, req)
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


# --- combat --------------------------------------------------------------------------------


def combat_statblock(data: Mapping[str, object], items: Sequence[ItemLike]) -> dict[str, object]:
    character = engine_character(data, items)
    values = ds4.combat_values(character)
    melee, ranged = equipped_in(items, "melee"), equipped_in(items, "ranged")
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
        "zaubern": values.zaubern.value,
        **{a: character.attributes.get(ds4.Attribut(a)) for a in ATTR},
        **{t: character.trait(ds4.Eigenschaft(t)) for t in TRAIT},
        "waffe": melee.name if melee is not None else "Waffenlos",
        "ga": int(melee.fields.get("ga", 0)) if melee is not None else 5,
        "fernwaffe": ranged.name if ranged is not None else "",
        "fern_ga": int(ranged.fields.get("ga", 0)) if ranged is not None else 0,
    }


def combat_values(data: Mapping[str, object], items: Sequence[ItemLike]) -> dict[str, object]:
    """What a fight takes from the sheet at every step: the current LK (the sheet's «LK
    (aktuell)») and the maximum the sheet computes, unless the GM fixed the stat block's."""
    block = data.get("statblock")
    fixed: Mapping[str, object] = block if isinstance(block, Mapping) else {}
    out: dict[str, object] = {}
    if "lk" not in fixed:
        out["lk_max"] = ds4.combat_values(engine_character(data, items)).lebenskraft.value
    if "lk" in data:
        out["lk"] = whole(data["lk"])
    return out


def sheet_values(data: Mapping[str, object], values: Mapping[str, object]) -> dict[str, object]:
    """Sheet key → value for what a fight changed: the current LK, if the sheet holds it."""
    return {"lk": whole(values["lk"])} if "lk" in values and "lk" in data else {}


# --- rest ----------------------------------------------------------------------------------

RESTS = (("verschnaufen", "Verschnaufen"),)
#: The LK right after the last Verschnaufen: the next one needs a change of LK since (a fight).
RESTED_LK = "verschnauft_lk"


def rest(data: Mapping[str, object], items: Sequence[ItemLike], key: str) -> Rest | str:
    """Verschnaufen after a fight: half the LK lost back (``ds4.verschnaufen``), once per
    fight: refused while the LK are still those the last one left (docs/rules/ds4.md)."""
    if key != "verschnaufen":
        return gettext("This rest does not exist in this rule system.")
    character = engine_character(data, items)
    lk_max = ds4.combat_values(character).lebenskraft.value
    lk = whole(data.get("lk", lk_max))
    if ds4.condition(lk, character.attributes.koerper) is ds4.Condition.DEAD:
        return gettext("A dead character does not catch their breath.")
    if lk >= lk_max:
        return gettext("No Lebenskraft lost: Verschnaufen gives nothing back.")
    last = data.get(RESTED_LK)
    if isinstance(last, int) and lk == last:
        return gettext("Verschnaufen once after a fight: the LK have not changed since.")
    new = ds4.verschnaufen(lk, lk_max)
    detail = f"Verschnaufen: LK {lk} → {new} (+{new - lk} = {lk_max - lk} / 2)"  # rounded down
    return Rest({"lk": new, RESTED_LK: new}, detail)


# --- the system -----------------------------------------------------------------------------


class DS4System(OneSheet, SheetDefaults):
    """Dungeonslayers 4 as a :class:`~app.characters.systems.protocol.CharacterCore` with an
    inventory, sheet rolls, rests and a combat sheet (no guided checks, no Gefährten): one
    sheet for PCs and NPCs (:class:`~app.characters.systems.protocol.OneSheet`). Where a
    module function already has the protocol's signature, it is the method."""

    key = KEY
    equip_slots: Mapping[str, str] = EQUIP_SLOTS
    item_fields = ITEM_FIELDS
    roll_difficulties = DIFFICULTIES
    rests = RESTS

    cross_check = staticmethod(cross_check)
    follow_up = staticmethod(follow_up)
    starter_items = staticmethod(starter_items)
    equip_problem = staticmethod(equip_problem)

    def roll_targets(self, data: Mapping[str, object], items: Sequence[ItemLike]) -> list[Target]:
        return roll_targets()

    odds = staticmethod(_check_odds)
    roll = staticmethod(_check_roll)
    untended_rest = staticmethod(rest)
    combat_statblock = staticmethod(combat_statblock)
    combat_values = staticmethod(combat_values)
    sheet_values = staticmethod(sheet_values)


SYSTEM = DS4System(_fields, _default, _view)
