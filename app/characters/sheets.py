"""What a sheet holds per system, how its fields are validated, and its derived values.

Every derived number comes from the rules engines (``app/rules/<system>``); this module only
translates between the stored sheet (``Character.data``, ``Item`` rows) and the engines'
types, and labels the results for display. Rule terms stay German in every language.

A sheet field is addressed by a dotted key: ``be``, ``skills.Spürsinn``,
``attributes.koerper``. Text fields hold lists (Talente) or ``Name: Wert`` lines
(Spezialisierungen).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal, Protocol

from app.i18n import N_, gettext
from app.rules import ds4, pf2e
from app.rules.hh import inventory as hh_inventory
from app.rules.hh.initiative import initiative as hh_initiative_value
from app.rules.hh.initiative import initiative_steps, movement_per_action, reactions
from app.rules.hh.options import RuleOptions

FieldKind = Literal["int", "choice", "text", "bool", "line"]


class ItemLike(Protocol):
    """What the sheet needs of an item row (``app.characters.models.Item``)."""

    @property
    def id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def quantity(self) -> int: ...
    @property
    def fields(self) -> dict[str, Any]: ...
    @property
    def slot(self) -> str | None: ...
    @property
    def equipped(self) -> bool: ...
    @property
    def container(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class FieldSpec:
    key: str
    label: str
    kind: FieldKind = "int"
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[tuple[str, str], ...] = ()
    group: str = "main"
    hint: str = ""
    #: Rollable target this field stands for (a click opens the roll dialog).
    roll: str | None = None
    #: An ``int`` field that may be left empty (stored as ``None``).
    optional: bool = False


@dataclass(frozen=True, slots=True)
class Derived:
    """One derived value with the parts it is made of (``(label, value)`` pairs)."""

    key: str
    label: str
    value: str
    breakdown: tuple[tuple[str, str], ...] = ()
    roll: str | None = None
    dc: str | None = None


@dataclass(frozen=True, slots=True)
class Warning:
    message: str
    severity: Literal["error", "warning", "info"] = "warning"
    field: str | None = None


@dataclass(frozen=True, slots=True)
class SheetView:
    """Everything the sheet page shows besides the raw fields."""

    derived: tuple[Derived, ...]
    warnings: tuple[Warning, ...] = ()
    conditions: tuple[str, ...] = ()
    load: Mapping[str, object] | None = None


GROUP_LABELS: dict[str, str] = {
    "main": N_("Basics"),
    "skills": "Fertigkeiten",
    "resources": N_("Resources"),
    "attributes": "Attribute",
    "traits": "Eigenschaften",
    "ranks": "Kompetenzgrade",
    "pf2e_skills": N_("Skills"),
    "npc": "NSC",
}


def signed(value: int) -> str:
    return f"+{value}" if value >= 0 else f"−{abs(value)}"


def number(value: float) -> str:
    """German decimal comma for fractional values (Laufen 4,5 m)."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.1f}".replace(".", ",")


def percent(p: Fraction) -> str:
    return f"{float(p) * 100:.0f} %".replace(".", ",")


# --- access by dotted key --------------------------------------------------------------------


def get_value(data: Mapping[str, Any], key: str) -> Any:
    head, _, rest = key.partition(".")
    if rest:
        inner = data.get(head)
        return inner.get(rest) if isinstance(inner, Mapping) else None
    return data.get(head)


def set_value(data: dict[str, Any], key: str, value: Any) -> None:
    head, _, rest = key.partition(".")
    if rest:
        inner = dict(data.get(head) or {})
        inner[rest] = value
        data[head] = inner
    else:
        data[head] = value


# --- H&H ------------------------------------------------------------------------------------

HH_SKILLS = (
    "Kampfkunst",
    "Magiekunde",
    "Unbeugsamkeit",
    "Willenskraft",
    "Spürsinn",
    "Geschick",
    "Heilkunde",
    "Handwerk",
    "Interaktion",
    "Reisekunde",
    "Gassenwissen",
    "Glück",
)
HH_SLOT_LABELS: dict[str, str] = {
    "waffenhand": "Waffenhand",
    "schildhand": "Schildhand",
    "waffengurt": "Waffengurt",
    "guerteltasche": "Gürteltasche",
    "koecher": "Köcher",
    "koerper": "Körper",
    "tattoos": "Tattoos",
    "kopf": "Kopf",
    "ohren": "Ohren",
    "hals": "Hals",
    "ruecken": "Rücken",
    "arme": "Arme",
    "finger": "Finger",
    "huefte": "Hüfte",
    "fuesse": "Füsse",
}
HH_SIZES = (("medium", N_("medium")), ("small", N_("small")), ("bundle", N_("bundle")))
RUCKSACK = "rucksack"


def _hh_fields() -> list[FieldSpec]:
    out = [
        FieldSpec(f"skills.{s}", s, minimum=0, maximum=30, group="skills", roll=f"skill:{s}")
        for s in HH_SKILLS
    ]
    out += [
        FieldSpec(
            "specializations",
            "Spezialisierungen",
            "text",
            group="skills",
            hint=N_("One per line: Kampfkunst (waffenlos): 10"),
        ),
        FieldSpec(
            "extra_skills",
            N_("More Fertigkeiten"),
            "text",
            group="skills",
            hint=N_("Those the GM adds, one per line: Reiten: 8"),
        ),
        FieldSpec("talents", "Talente", "text", group="skills", hint=N_("One per line")),
        FieldSpec("lp", "LP", minimum=-99, maximum=999, group="resources"),
        FieldSpec("lp_max", "LP max", minimum=1, maximum=999, group="resources"),
        FieldSpec("wp", "WP", minimum=0, maximum=999, group="resources"),
        FieldSpec("wp_max", "WP max", minimum=0, maximum=999, group="resources"),
        FieldSpec("gp", "GP", minimum=0, maximum=99, group="resources"),
        FieldSpec("gp_max", "GP max", minimum=0, maximum=99, group="resources"),
        FieldSpec("rs", "RS", minimum=0, maximum=30, group="resources"),
        FieldSpec("be", "BE", minimum=0, maximum=30, group="resources"),
        FieldSpec("bewegung", "Bewegung", minimum=0, maximum=50, group="resources"),
        FieldSpec("xp", "XP", minimum=0, maximum=1_000_000, group="resources"),
        FieldSpec("wears_rucksack", N_("Wears a Rucksack"), "bool", group="resources"),
    ]
    return out


#: H&H resistance levels as the sheet writes them (rule terms, German in both languages) →
#: the engine's levels (``app.rules.hh.damage.RESISTANCES``).
HH_RESISTANCE_WORDS: dict[str, str] = {
    "resistent": "resistant",
    "resistant": "resistant",
    "anfällig": "vulnerable",
    "vulnerable": "vulnerable",
    "immun": "immune",
    "immune": "immune",
}
HH_RESISTANCE_LABELS: dict[str, str] = {
    "resistant": "resistent",
    "vulnerable": "anfällig",
    "immune": "immun",
}
LINE_MAX = 100


def _hh_npc_fields() -> list[FieldSpec]:
    """An NSC's sheet (hh.md §13): Fertigkeiten may stay empty (the Monsterstufe applies),
    plus Monsterstufe, Gefahr, Beute and resistances per damage type."""
    skills = [
        FieldSpec(
            f"skills.{s}",
            s,
            minimum=0,
            maximum=30,
            group="skills",
            roll=f"skill:{s}",
            optional=True,
        )
        for s in HH_SKILLS
    ]
    npc = [
        FieldSpec(
            "monsterstufe",
            "Monsterstufe",
            minimum=0,
            maximum=40,
            group="npc",
            hint=N_("The Probenwert of every Probe not listed"),
            roll="skill:Monsterstufe",
            optional=True,
        ),
        FieldSpec("gefahr", "Gefahr", "line", group="npc"),
        FieldSpec("beute", "Beute", "text", group="npc", hint=N_("One per line")),
        FieldSpec(
            "resistances",
            N_("Resistances"),
            "text",
            group="npc",
            hint=N_("One per line: damage type: resistent, anfällig or immun"),
        ),
    ]
    rest = [f for f in _hh_fields() if not f.key.startswith("skills.")]
    return [*skills, *rest, *npc]


def _hh_npc_default() -> dict[str, Any]:
    return {
        **_hh_default(),
        "skills": {},
        "monsterstufe": 8,
        "gefahr": "",
        "beute": [],
        "resistances": {},
    }


def parse_extra_skills(text: str) -> dict[str, int]:
    """``Reiten: 8`` lines → ``{"Reiten": 8}``: Fertigkeiten the GM adds (hh.md §13)."""
    out: dict[str, int] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        name, sep, value = line.rpartition(":")
        name = name.strip()
        if not sep or not name or len(name) > 40 or "(" in name:
            raise FieldError(gettext("Write each Fertigkeit as “Name: Wert”."))
        if name in HH_SKILLS or name == "Monsterstufe":
            raise FieldError(gettext("%(name)s is already on the sheet.", name=name))
        try:
            number_ = int(value.strip())
        except ValueError:
            raise FieldError(gettext("%(name)s needs a whole number.", name=name)) from None
        if not 0 <= number_ <= 30:
            raise FieldError(gettext("Between %(min)d and %(max)d.", min=0, max=30))
        out[name] = number_
    return out


def parse_resistances(text: str) -> dict[str, str]:
    """``Feuer: resistent`` lines → ``{"Feuer": "resistant"}`` (the engine's levels)."""
    out: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        name, sep, level = line.rpartition(":")
        name = name.strip()
        word = HH_RESISTANCE_WORDS.get(level.strip().lower())
        if not sep or not name or len(name) > 40:
            raise FieldError(gettext("Write each line as “damage type: resistent”."))
        if word is None:
            raise FieldError(gettext("%(name)s: write resistent, anfällig or immun.", name=name))
        out[name] = word
    return out


def _hh_default() -> dict[str, Any]:
    return {
        "skills": dict.fromkeys(HH_SKILLS, 5),
        "specializations": {},
        "extra_skills": {},
        "talents": [],
        "lp": 20,
        "lp_max": 20,
        "wp": 10,
        "wp_max": 10,
        "gp": 3,
        "gp_max": 3,
        "rs": 0,
        "be": 0,
        "bewegung": 8,
        "xp": 0,
        "wears_rucksack": True,
    }


def hh_skill_value(data: Mapping[str, Any], name: str) -> int:
    """A Fertigkeit or Spezialisierung value (a Spezialisierung defaults to its parent).

    On an NSC sheet (one with a ``monsterstufe``) a Fertigkeit not listed is rolled with the
    Monsterstufe (hh.md §13)."""
    listed = hh_listed_value(data, name)
    if listed is not None:
        return listed
    monsterstufe = data.get("monsterstufe")
    return int(monsterstufe) if monsterstufe is not None else 0


def hh_listed_value(data: Mapping[str, Any], name: str) -> int | None:
    """The value the sheet lists for a Fertigkeit or Spezialisierung, else ``None``."""
    specs: Mapping[str, int | None] = data.get("specializations") or {}
    skills: Mapping[str, int | None] = data.get("skills") or {}
    extra: Mapping[str, int] = data.get("extra_skills") or {}
    for value in (specs.get(name), skills.get(name), extra.get(name)):
        if value is not None:
            return int(value)
    parent = skills.get(name.split("(", 1)[0].strip())
    return int(parent) if parent is not None else None


def hh_item(item: ItemLike) -> hh_inventory.Item:
    f = item.fields or {}
    size = f.get("size", "medium")
    slots = f.get("slots") or list(hh_inventory.SLOTS)
    return hh_inventory.Item(
        key=str(f.get("bundle_key") or item.name),
        size=size if size in ("small", "medium", "bundle") else "medium",
        quantity=max(1, item.quantity),
        slots=frozenset(s for s in slots if s in hh_inventory.SLOT_CAPACITY),
    )


def hh_rucksack(items: Sequence[ItemLike]) -> list[hh_inventory.Item]:
    return [hh_item(i) for i in items if not i.equipped and i.container == RUCKSACK]


def hh_state(data: Mapping[str, Any], items: Sequence[ItemLike]) -> hh_inventory.InventoryState:
    return hh_inventory.inventory_state(
        hh_rucksack(items),
        max(0, hh_skill_value(data, "Reisekunde")),
        wears_rucksack=bool(data.get("wears_rucksack", True)),
    )


def hh_options(settings: Mapping[str, Any]) -> RuleOptions:
    """The campaign's H&H options; the campaign stores ``summary`` where the engine says
    ``half`` for the movement variant."""
    mapped = dict(settings)
    if mapped.get("movement") == "summary":
        mapped["movement"] = "half"
    try:
        return RuleOptions.from_mapping(mapped)
    except ValueError:
        return RuleOptions()


def _hh_view(
    data: Mapping[str, Any], items: Sequence[ItemLike], settings: Mapping[str, Any]
) -> SheetView:
    spuersinn = hh_skill_value(data, "Spürsinn")
    be = int(data.get("be", 0))
    ini = hh_initiative_value(spuersinn, be)
    state = hh_state(data, items)
    load = state.load
    movement = movement_per_action(
        int(data.get("bewegung", 0)), hh_options(settings), eingeschraenkt=state.encumbered
    )
    derived = [
        Derived(
            "initiative",
            "Initiative",
            str(ini),
            (("Spürsinn", str(spuersinn)), ("BE", signed(-be)), (gettext("minimum"), "1")),
        ),
        Derived(
            "steps",
            "Initiativeschritte",
            ", ".join(str(s) for s in initiative_steps(ini)),
        ),
        Derived(
            "reactions",
            "Reaktionen",
            str(reactions(ini)),
            (("Initiative ÷ 4", str(ini)),),
        ),
        Derived("movement", "Bewegung pro Handlung", str(movement)),
        Derived(
            "rucksack",
            gettext("Rucksack places"),
            f"{load.used} / {load.capacity}",
            (
                ("Reisekunde", str(load.free_capacity)),
                (gettext("extra places («eingeschränkt»)"), str(hh_inventory.ENCUMBERED_PLACES)),
            ),
        ),
    ]
    warnings: list[Warning] = []
    if state.encumbered:
        warnings.append(
            Warning(
                gettext(
                    "The Rucksack is heavy: «eingeschränkt» (Bewegung halved, −2 on reactions)."
                )
            )
        )
    if load.over_capacity:
        warnings.append(Warning(gettext("The Rucksack holds more than it can."), "error"))
    for skill in ("Kampfkunst", "Magiekunde"):
        derived.append(
            Derived(
                f"attack:{skill}",
                f"{skill} − BE",
                str(hh_skill_value(data, skill) - be),
                ((skill, str(hh_skill_value(data, skill))), ("BE", signed(-be))),
                roll=f"attack:{skill}",
            )
        )
    return SheetView(tuple(derived), tuple(warnings), state.conditions, load.as_dict())


# --- DS4 ------------------------------------------------------------------------------------

DS4_VOLK = {"mensch": "Mensch", "elf": "Elf", "zwerg": "Zwerg"}
DS4_KLASSE = {
    "krieger": "Krieger",
    "spaeher": "Späher",
    "heiler": "Heiler",
    "zauberer": "Zauberer",
    "schwarzmagier": "Schwarzmagier",
}
DS4_ATTR = {
    "koerper": ("Körper", "KÖR"),
    "agilitaet": ("Agilität", "AGI"),
    "geist": ("Geist", "GEI"),
}
DS4_TRAIT = {
    "staerke": ("Stärke", "ST"),
    "haerte": ("Härte", "HÄ"),
    "bewegung": ("Bewegung", "BE"),
    "geschick": ("Geschick", "GE"),
    "verstand": ("Verstand", "VE"),
    "aura": ("Aura", "AU"),
}
DS4_KAMPFWERTE = {
    "lebenskraft": "Lebenskraft",
    "abwehr": "Abwehr",
    "initiative": "Initiative",
    "laufen": "Laufen",
    "schlagen": "Schlagen",
    "schiessen": "Schießen",
    "zaubern": "Zaubern",
    "zielzauber": "Zielzauber",
}
DS4_ROLLABLE = ("abwehr", "initiative", "schlagen", "schiessen", "zaubern", "zielzauber")
DS4_EQUIP_SLOTS = {
    "melee": N_("melee weapon"),
    "ranged": N_("ranged weapon"),
    "armour": N_("armour"),
}


def _ds4_fields() -> list[FieldSpec]:
    traits = tuple((k, v[0]) for k, v in DS4_TRAIT.items())
    out = [
        FieldSpec("volk", "Volk", "choice", choices=tuple(DS4_VOLK.items())),
        FieldSpec("volk_bonus", "Volksbonus", "choice", choices=traits),
        FieldSpec("klasse", "Klasse", "choice", choices=tuple(DS4_KLASSE.items())),
        FieldSpec("klasse_bonus", "Klassenbonus", "choice", choices=traits),
        FieldSpec("ep", "EP", minimum=0, maximum=1_000_000),
        FieldSpec("lk", "LK (aktuell)", minimum=-99, maximum=999),
        FieldSpec(
            "in_hand",
            N_("Weapon in hand"),
            "choice",
            choices=(("melee", N_("melee weapon")), ("ranged", N_("ranged weapon"))),
        ),
    ]
    out += [
        FieldSpec(f"attributes.{k}", f"{v[0]} ({v[1]})", minimum=0, maximum=20, group="attributes")
        for k, v in DS4_ATTR.items()
    ]
    out += [
        FieldSpec(f"traits.{k}", f"{v[0]} ({v[1]})", minimum=0, maximum=20, group="traits")
        for k, v in DS4_TRAIT.items()
    ]
    return out


def _ds4_default() -> dict[str, Any]:
    return {
        "volk": "mensch",
        "volk_bonus": "staerke",
        "klasse": "krieger",
        "klasse_bonus": "staerke",
        "ep": 0,
        "lk": 18,
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


def ds4_weapon(item: ItemLike) -> ds4.Weapon:
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


def ds4_armour(item: ItemLike) -> ds4.Armour:
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


def ds4_character(data: Mapping[str, Any], items: Sequence[ItemLike]) -> ds4.Character:
    attrs = data.get("attributes") or {}
    traits = data.get("traits") or {}
    melee = ranged = None
    armour: list[ds4.Armour] = []
    for item in items:
        if not item.equipped:
            continue
        if item.slot == "melee":
            melee = ds4_weapon(item)
        elif item.slot == "ranged":
            ranged = ds4_weapon(item)
        elif item.slot == "armour":
            armour.append(ds4_armour(item))
    return ds4.Character(
        attributes=ds4.Attributes(*(int(attrs.get(k, 0)) for k in DS4_ATTR)),
        traits=ds4.Traits(*(int(traits.get(k, 0)) for k in DS4_TRAIT)),
        volk=ds4.Volk(data.get("volk", "mensch")),
        volk_bonus=ds4.Eigenschaft(data.get("volk_bonus", "staerke")),
        klasse=ds4.Klasse(data.get("klasse", "krieger")),
        klasse_bonus=ds4.Eigenschaft(data.get("klasse_bonus", "staerke")),
        equipment=ds4.Equipment(
            melee_weapon=melee,
            ranged_weapon=ranged,
            in_hand="ranged" if data.get("in_hand") == "ranged" else "melee",
            armour=tuple(armour),
        ),
        ep=int(data.get("ep", 0)),
    )


def _ds4_part_label(code: str, names: Mapping[str, str]) -> str:
    kind, _, ident = code.partition(":")
    if kind == "attribute":
        if ident.endswith("/2"):
            return f"{DS4_ATTR[ident[:-2]][1]} ÷ 2"
        return DS4_ATTR.get(ident, (ident, ident))[1]
    if kind == "trait":
        return DS4_TRAIT.get(ident, (ident, ident))[1]
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


DS4_PROBLEMS: dict[str, str] = {
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


def ds4_problem_text(problem: ds4.Problem, names: Mapping[str, str]) -> str:
    params = {
        k: names.get(str(v), v) if k in ("weapon", "armour", "shield") else v
        for k, v in problem.params.items()
    }
    template = DS4_PROBLEMS.get(problem.code)
    if template is None:
        return problem.code
    return gettext(template, **params)


def ds4_problem_field(problem: ds4.Problem) -> str | None:
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


def ds4_problems(data: Mapping[str, Any], items: Sequence[ItemLike]) -> list[ds4.Problem]:
    character = ds4_character(data, items)
    return ds4.validate_character(character, creation=character.ep == 0)


def item_names(items: Sequence[ItemLike]) -> dict[str, str]:
    return {f"item{i.id}": i.name for i in items}


def _ds4_view(
    data: Mapping[str, Any], items: Sequence[ItemLike], _settings: Mapping[str, Any]
) -> SheetView:
    character = ds4_character(data, items)
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
    for key, label in DS4_KAMPFWERTE.items():
        kw = getattr(values, key)
        value = number(kw.value) + (" m" if key == "laufen" else "")
        derived.append(
            Derived(
                key,
                label,
                value,
                tuple((_ds4_part_label(code, names), number(v)) for code, v in kw.breakdown),
                roll=f"kampfwert:{key}" if key in DS4_ROLLABLE else None,
            )
        )
    problems = ds4.validate_character(character, creation=character.ep == 0)
    warnings = tuple(
        Warning(ds4_problem_text(p, names), p.severity, ds4_problem_field(p)) for p in problems
    )
    return SheetView(tuple(derived), warnings)


def _ep_next(ep: int) -> str:
    remaining = ds4.ep_to_next_stufe(ep)
    return "—" if remaining is None else str(remaining)


# --- PF2e -----------------------------------------------------------------------------------

PF2E_ATTRS = tuple((a.value, f"{a.label} ({a.abbreviation})") for a in pf2e.Attribute)
PF2E_RANKS = tuple((r.value, r.label) for r in pf2e.Rank)
RANK_KEYS = frozenset(r.value for r in pf2e.Rank)
ATTRIBUTE_KEYS = frozenset(a.value for a in pf2e.Attribute)
#: The skills of the German core rules and their key attributes.
PF2E_SKILLS: dict[str, str] = {
    "Akrobatik": "dexterity",
    "Arkane Künste": "intelligence",
    "Athletik": "strength",
    "Diebeskunst": "dexterity",
    "Diplomatie": "charisma",
    "Einschüchtern": "charisma",
    "Gaukelei": "charisma",
    "Gesellschaftskunde": "intelligence",
    "Handwerkskunst": "intelligence",
    "Heimlichkeit": "dexterity",
    "Medizin": "wisdom",
    "Naturkunde": "wisdom",
    "Okkultismus": "intelligence",
    "Religionskunde": "wisdom",
    "Täuschung": "charisma",
    "Überlebenskunst": "wisdom",
}
PF2E_PROFICIENCIES: dict[str, str] = {
    "perception": "Wahrnehmung",
    "fortitude": "Zähigkeit",
    "reflex": "Reflex",
    "will": "Wille",
    "unarmored": "Ungerüstete Verteidigung",
    "light": "Leichte Rüstung",
    "medium": "Mittelschwere Rüstung",
    "heavy": "Schwere Rüstung",
    "unarmed": "Waffenlose Angriffe",
    "simple": "Einfache Waffen",
    "martial": "Kriegswaffen",
    "advanced": "Fortgeschrittene Waffen",
    "spellcasting": "Zauberei",
}
PF2E_EQUIP_SLOTS = {"weapon": N_("weapon"), "armour": N_("armour")}


def _pf2e_fields() -> list[FieldSpec]:
    out = [
        FieldSpec("level", "Stufe", minimum=-1, maximum=25),
        FieldSpec("hp", "TP", minimum=-999, maximum=9999),
        FieldSpec("hp_max", "TP max", minimum=0, maximum=9999),
        FieldSpec("spell_attribute", "Zauberattribut", "choice", choices=PF2E_ATTRS),
    ]
    out += [
        FieldSpec(f"attributes.{k}", label, minimum=-5, maximum=10, group="attributes")
        for k, label in PF2E_ATTRS
    ]
    rolls = {
        "perception": "perception",
        "fortitude": "save:fortitude",
        "reflex": "save:reflex",
        "will": "save:will",
        "spellcasting": "spell",
    }
    out += [
        FieldSpec(
            f"ranks.{k}", label, "choice", choices=PF2E_RANKS, group="ranks", roll=rolls.get(k)
        )
        for k, label in PF2E_PROFICIENCIES.items()
    ]
    out += [
        FieldSpec(
            f"skills.{name}",
            f"{name} ({pf2e.Attribute(attr).abbreviation})",
            "choice",
            choices=PF2E_RANKS,
            group="pf2e_skills",
            roll=f"skill:{name}",
        )
        for name, attr in PF2E_SKILLS.items()
    ]
    return out


def _pf2e_default() -> dict[str, Any]:
    return {
        "level": 1,
        "hp": 15,
        "hp_max": 15,
        "spell_attribute": "intelligence",
        "attributes": {a.value: 0 for a in pf2e.Attribute},
        "ranks": {
            **dict.fromkeys(PF2E_PROFICIENCIES, "untrained"),
            "perception": "trained",
            "fortitude": "trained",
            "reflex": "trained",
            "will": "trained",
            "unarmored": "trained",
            "simple": "trained",
            "unarmed": "trained",
        },
        "skills": dict.fromkeys(PF2E_SKILLS, "untrained"),
    }


def _attr(data: Mapping[str, Any], name: str) -> int:
    return int((data.get("attributes") or {}).get(name, 0))


def _rank(data: Mapping[str, Any], name: str) -> str:
    rank = (data.get("ranks") or {}).get(name, "untrained")
    return rank if rank in RANK_KEYS else "untrained"


def pf2e_statistic(
    data: Mapping[str, Any], items: Sequence[ItemLike], target: str
) -> pf2e.Statistic | None:
    """The engine statistic for a rollable/derived target, or ``None`` if unknown."""
    level = int(data.get("level", 1))
    kind, _, name = target.partition(":")
    if kind == "perception":
        return pf2e.perception(
            level=level, rank=_rank(data, "perception"), wisdom_modifier=_attr(data, "wisdom")
        )
    if kind == "save" and name in ("fortitude", "reflex", "will"):
        save = pf2e.Save(name)
        return pf2e.saving_throw(
            name,
            level=level,
            rank=_rank(data, name),
            attribute_modifier=_attr(data, save.attribute.value),
        )
    if kind == "skill" and name in PF2E_SKILLS:
        rank = (data.get("skills") or {}).get(name, "untrained")
        return pf2e.skill(
            name,
            PF2E_SKILLS[name],
            level=level,
            rank=rank if rank in RANK_KEYS else "untrained",
            attribute_modifier=_attr(data, PF2E_SKILLS[name]),
        )
    if kind == "spell":
        attribute = data.get("spell_attribute", "intelligence")
        if attribute not in ATTRIBUTE_KEYS:
            attribute = "intelligence"
        return pf2e.spellcasting(
            attribute,
            level=level,
            rank=_rank(data, "spellcasting"),
            attribute_modifier=_attr(data, attribute),
        )
    if kind == "ac":
        armour = next((i for i in items if i.equipped and i.slot == "armour"), None)
        if armour is None:
            return pf2e.armor_class(
                level=level,
                rank=_rank(data, "unarmored"),
                dexterity_modifier=_attr(data, "dexterity"),
            )
        f = armour.fields or {}
        category = f.get("category", "light")
        cap = f.get("dex_cap")
        return pf2e.armor_class(
            level=level,
            rank=_rank(data, category if category in PF2E_PROFICIENCIES else "light"),
            dexterity_modifier=_attr(data, "dexterity"),
            dex_cap=int(cap) if cap is not None and cap != "" else None,
            armor_bonus=int(f.get("ac_bonus", 0)),
            armor_name=armour.name,
        )
    if kind == "attack":
        weapon = next((i for i in items if str(i.id) == name and i.equipped), None)
        if weapon is None:
            return None
        f = weapon.fields or {}
        traits = {t.strip().lower() for t in str(f.get("traits", "")).split(",")}
        category = f.get("category", "simple")
        return pf2e.weapon_attack(
            weapon.name,
            ranged=bool(f.get("ranged", False)),
            level=level,
            rank=_rank(data, category if category in PF2E_PROFICIENCIES else "simple"),
            strength_modifier=_attr(data, "strength"),
            dexterity_modifier=_attr(data, "dexterity"),
            finesse="finesse" in traits,
            item_bonus=int(f.get("item_bonus", 0)),
        )
    return None


def pf2e_strike_strength(data: Mapping[str, Any], weapon: ItemLike) -> dict[str, Any]:
    """What a Strike with ``weapon`` needs for the Stärke part of its damage (pf2e.md §3)."""
    f = weapon.fields or {}
    delivery = pf2e.delivery_of(
        str(f.get("traits", "")).split(","), ranged=bool(f.get("ranged", False))
    )
    return {"staerke": _attr(data, "strength"), "lieferung": delivery.value}


def pf2e_agile(items: Sequence[ItemLike], weapon_id: str) -> bool:
    weapon = next((i for i in items if str(i.id) == weapon_id), None)
    if weapon is None:
        return False
    traits = {t.strip().lower() for t in str((weapon.fields or {}).get("traits", "")).split(",")}
    return "agil" in traits or "agile" in traits


def _pf2e_breakdown(stat: pf2e.Statistic) -> tuple[tuple[str, str], ...]:
    b = stat.breakdown
    parts = tuple((m.source, signed(m.value)) for m in b.applied)
    ignored = tuple((i.label, gettext("ignored")) for i in b.ignored)
    return parts + ignored


def _pf2e_view(
    data: Mapping[str, Any], items: Sequence[ItemLike], _settings: Mapping[str, Any]
) -> SheetView:
    derived: list[Derived] = []

    def add(key: str, target: str, *, dc: bool = True, as_dc: bool = False) -> None:
        stat = pf2e_statistic(data, items, target)
        if stat is None:
            return
        value = str(stat.dc) if as_dc else signed(stat.modifier)
        derived.append(
            Derived(
                key,
                stat.name,
                value,
                _pf2e_breakdown(stat),
                roll=None if as_dc else target,
                dc=f"{stat.dc_name} {stat.dc}" if dc and not as_dc else None,
            )
        )

    add("ac", "ac", as_dc=True)
    add("perception", "perception")
    for save in ("fortitude", "reflex", "will"):
        add(f"save:{save}", f"save:{save}")
    if _rank(data, "spellcasting") != "untrained":
        add("spell", "spell")
    for item in items:
        if item.equipped and item.slot == "weapon":
            add(f"attack:{item.id}", f"attack:{item.id}", dc=False)
    for name in PF2E_SKILLS:
        add(f"skill:{name}", f"skill:{name}")
    return SheetView(tuple(derived))


# --- registry -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SystemSheet:
    fields: Callable[[], list[FieldSpec]]
    default: Callable[[], dict[str, Any]]
    view: Callable[[Mapping[str, Any], Sequence[ItemLike], Mapping[str, Any]], SheetView]
    equip_slots: Mapping[str, str] = field(default_factory=dict)


SHEETS: dict[str, SystemSheet] = {
    "hh": SystemSheet(_hh_fields, _hh_default, _hh_view, HH_SLOT_LABELS),
    "ds4": SystemSheet(_ds4_fields, _ds4_default, _ds4_view, DS4_EQUIP_SLOTS),
    "pf2e": SystemSheet(_pf2e_fields, _pf2e_default, _pf2e_view, PF2E_EQUIP_SLOTS),
}


def fields_for(system: str, kind: str = "pc") -> list[FieldSpec]:
    """The fields of a sheet: the system's, for an H&H NSC its NSC sheet."""
    if system == "hh" and kind == "npc":
        return _hh_npc_fields()
    return SHEETS[system].fields()


def field_specs(system: str, kind: str = "pc") -> dict[str, FieldSpec]:
    return {f.key: f for f in fields_for(system, kind)}


def default_data(system: str, kind: str = "pc") -> dict[str, Any]:
    if system == "hh" and kind == "npc":
        return _hh_npc_default()
    return SHEETS[system].default()


def sheet_view(
    system: str,
    data: Mapping[str, Any],
    items: Sequence[ItemLike],
    settings: Mapping[str, Any] | None = None,
) -> SheetView:
    return SHEETS[system].view(data, items, settings or {})


# --- parsing and validating one field --------------------------------------------------------


class FieldError(ValueError):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def parse_specializations(text: str) -> dict[str, int]:
    """``Kampfkunst (waffenlos): 10`` lines → mapping; a bare name takes no value (error)."""
    out: dict[str, int] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        name, sep, value = line.rpartition(":")
        if not sep or not name.strip():
            raise FieldError(gettext("Write each Spezialisierung as “Name (Fach): Wert”."))
        name = name.strip()
        if name.split("(", 1)[0].strip() not in HH_SKILLS or "(" not in name:
            raise FieldError(
                gettext("%(name)s is not a Spezialisierung of a Fertigkeit.", name=name)
            )
        try:
            number_ = int(value.strip())
        except ValueError:
            raise FieldError(gettext("%(name)s needs a whole number.", name=name)) from None
        if not 0 <= number_ <= 30:
            raise FieldError(gettext("Between %(min)d and %(max)d.", min=0, max=30))
        out[name] = number_
    return out


def format_value(spec: FieldSpec, value: Any) -> str:
    """The stored value as the form shows it."""
    if spec.key == "specializations" and isinstance(value, Mapping):
        return "\n".join(f"{k}: {v}" for k, v in value.items())
    if spec.key == "extra_skills" and isinstance(value, Mapping):
        return "\n".join(f"{k}: {v}" for k, v in value.items())
    if spec.key == "resistances" and isinstance(value, Mapping):
        return "\n".join(f"{k}: {HH_RESISTANCE_LABELS.get(v, v)}" for k, v in value.items())
    if spec.kind == "text" and isinstance(value, list):
        return "\n".join(str(v) for v in value)
    if value is None:
        return ""
    return str(value)


def parse_field(spec: FieldSpec, raw: Any) -> Any:
    """Turn submitted input (form string or JSON value) into the stored value."""
    if spec.kind == "bool":
        if isinstance(raw, bool):
            return raw
        return str(raw).strip().lower() in ("1", "true", "on", "yes")
    if spec.kind == "int" and spec.optional and (raw is None or str(raw).strip() == ""):
        return None
    if spec.kind == "line":
        line = str(raw if raw is not None else "").strip()
        if len(line) > LINE_MAX:
            raise FieldError(gettext("At most %(max)d characters.", max=LINE_MAX))
        return line
    if spec.kind == "int":
        if isinstance(raw, bool):
            raise FieldError(gettext("Enter a whole number."))
        try:
            value = int(str(raw).strip().replace("−", "-"))
        except ValueError:
            raise FieldError(gettext("Enter a whole number.")) from None
        if (
            spec.minimum is not None
            and spec.maximum is not None
            and not (spec.minimum <= value <= spec.maximum)
        ):
            raise FieldError(
                gettext("Between %(min)d and %(max)d.", min=spec.minimum, max=spec.maximum)
            )
        return value
    if spec.kind == "choice":
        value_s = str(raw)
        if value_s not in {c[0] for c in spec.choices}:
            raise FieldError(gettext("Choose one of the listed values."))
        return value_s
    text = raw if isinstance(raw, str) else "\n".join(str(x) for x in raw or [])
    if len(text) > 5000:
        raise FieldError(gettext("At most %(max)d characters.", max=5000))
    if spec.key == "specializations":
        if isinstance(raw, Mapping):
            return parse_specializations("\n".join(f"{k}: {v}" for k, v in raw.items()))
        return parse_specializations(text)
    if spec.key == "extra_skills":
        if isinstance(raw, Mapping):
            return parse_extra_skills("\n".join(f"{k}: {v}" for k, v in raw.items()))
        return parse_extra_skills(text)
    if spec.key == "resistances":
        if isinstance(raw, Mapping):
            return parse_resistances("\n".join(f"{k}: {v}" for k, v in raw.items()))
        return parse_resistances(text)
    return [line.strip() for line in text.splitlines() if line.strip()]


def cross_check(system: str, data: Mapping[str, Any], items: Sequence[ItemLike]) -> dict[str, str]:
    """Rules over several fields (current ≤ maximum, DS4 creation limits): field → message."""
    errors: dict[str, str] = {}
    if system == "hh":
        for cur, top in (("lp", "lp_max"), ("wp", "wp_max"), ("gp", "gp_max")):
            if int(data.get(cur, 0)) > int(data.get(top, 0)):
                errors[cur] = gettext("At most the maximum (%(max)d).", max=int(data.get(top, 0)))
    elif system == "pf2e":
        if int(data.get("hp", 0)) > int(data.get("hp_max", 0)):
            errors["hp"] = gettext("At most the maximum (%(max)d).", max=int(data.get("hp_max", 0)))
    elif system == "ds4":
        names = item_names(items)
        for problem in ds4_problems(data, items):
            target = ds4_problem_field(problem)
            if problem.severity == "error" and target is not None:
                errors.setdefault(target, ds4_problem_text(problem, names))
    return errors


def normalise_data(
    system: str, data: Mapping[str, Any], kind: str = "pc"
) -> tuple[dict[str, Any], dict[str, str]]:
    """A whole sheet (import): every known field parsed, unknown keys dropped; errors by field."""
    out = default_data(system, kind)
    errors: dict[str, str] = {}
    for key, spec in field_specs(system, kind).items():
        raw = get_value(data, key)
        if raw is None:
            continue
        try:
            set_value(out, key, parse_field(spec, raw))
        except FieldError as exc:
            errors[key] = exc.message
    return out, errors
