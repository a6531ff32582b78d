"""Helden & Halunken for the characters domain: the sheet (Fertigkeiten, Spezialisierungen,
NSC values), the Rucksack and slots, Proben with Glück, and the stat block for combat.

Every number comes from ``app.rules.hh``; this module translates the stored sheet and items
into the engine's types and labels the results.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any, NotRequired, TypedDict, cast

from app.characters.catalog import ItemField, StarterItem
from app.characters.rolling import HelperSheet, Odds, RollOutcome, RollRequest, Target, bad
from app.characters.sheets import (
    COMPANION_KEY,
    RUCKSACK,
    Derived,
    FieldError,
    FieldSpec,
    ItemLike,
    SheetView,
    Warning,
    equipped_in,
    get_value,
    listing,
    name_value_lines,
    percent,
    section,
    signed,
    whole,
)
from app.characters.systems.protocol import ItemDraft, Rest, SheetCheck, SheetPartials
from app.i18n import N_, gettext
from app.limits import REST_HOURS_MAX, REST_RECORDS_KEPT, XP_GAIN_MAX, XP_MAX
from app.rules import hh
from app.rules.dice import Roller
from app.rules.hh import companions, crafting, procurement
from app.rules.hh import inventory as hh_inventory
from app.rules.hh import luck as hh_luck
from app.rules.hh import probe as hh_probe
from app.rules.hh import rest as rest_rules
from app.rules.hh.conditions import zustand_from_label
from app.rules.hh.helping import Helper, Helping, help_problems, roll_help
from app.rules.hh.initiative import initiative as hh_initiative_value
from app.rules.hh.initiative import initiative_steps, movement_per_action, reactions
from app.rules.hh.life import set_lp
from app.rules.hh.magic import Grade
from app.rules.hh.modifiers import Breakdown, Part, breakdown
from app.rules.hh.options import RuleOptions
from app.rules.hh.state import Figure, Zustand

KEY = "hh"

SKILLS = (
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
SLOT_LABELS: dict[str, str] = {
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
SIZES = (("medium", N_("medium")), ("small", N_("small")), ("bundle", N_("bundle")))


def _pc_fields() -> list[FieldSpec]:
    out = [
        FieldSpec(f"skills.{s}", s, minimum=0, maximum=30, group="skills", roll=f"skill:{s}")
        for s in SKILLS
    ]
    out += [
        FieldSpec(
            "specializations",
            "Spezialisierungen",
            "text",
            group="skills",
            hint=N_("One per line: Kampfkunst (waffenlos): 10"),
            parse=parse_specializations,
            show=name_value_lines,
        ),
        FieldSpec(
            "extra_skills",
            N_("More Fertigkeiten"),
            "text",
            group="skills",
            hint=N_("Those the GM adds, one per line: Reiten: 8"),
            parse=parse_extra_skills,
            show=name_value_lines,
        ),
        FieldSpec("talents", "Talente", "text", group="skills", hint=N_("One per line")),
        FieldSpec("lp", "LP", minimum=-99, maximum=999, group="resources"),
        FieldSpec("lp_max", N_("LP max"), minimum=1, maximum=999, group="resources"),
        FieldSpec("wp", "WP", minimum=0, maximum=999, group="resources"),
        FieldSpec("wp_max", N_("WP max"), minimum=0, maximum=999, group="resources"),
        FieldSpec("gp", "GP", minimum=0, maximum=99, group="resources"),
        FieldSpec("gp_max", N_("GP max"), minimum=0, maximum=99, group="resources"),
        # The sheet's own RS and BE; what counts is the derived value with the worn armour.
        FieldSpec(
            "rs",
            N_("RS without armour"),
            minimum=0,
            maximum=30,
            group="resources",
            hint=N_(
                "Natural armour only. The derived RS (with worn armour) is the one that counts."
            ),
        ),
        FieldSpec(
            "be",
            N_("BE without armour"),
            minimum=0,
            maximum=30,
            group="resources",
            hint=N_(
                "Other burdens only. The derived BE (with worn armour) is the one that counts."
            ),
        ),
        FieldSpec("bewegung", "Bewegung", minimum=0, maximum=50, group="resources"),
        FieldSpec("xp", "XP", minimum=0, maximum=1_000_000, group="resources"),
        FieldSpec("lira", "Lira", minimum=0, maximum=100_000_000, group="resources"),
        FieldSpec("wears_rucksack", N_("Wears a Rucksack"), "bool", group="resources"),
        FieldSpec(
            "conditions",
            "Zustände",
            "text",
            group="resources",
            hint=N_("One per line: angeschlagen, zehrend (LP, Blutung)"),
            parse=parse_conditions,
            show=show_conditions,
        ),
        FieldSpec("unconscious", N_("Unconscious"), "bool", group="resources"),
        FieldSpec("dead", N_("Dead"), "bool", group="resources"),
    ]
    return out


def parse_conditions(text: str) -> dict[str, str]:
    """Condition lines → ``{label: key}`` (labels as the engine writes them)."""
    out: dict[str, str] = {}
    for raw in text.splitlines():
        if not raw.strip():
            continue
        try:
            z = zustand_from_label(raw)
        except ValueError:
            raise FieldError(
                gettext("%(name)s is not a Zustand of the rules.", name=raw.strip()[:40])
            ) from None
        out[z.label] = z.key
    return out


def show_conditions(value: Mapping[str, object]) -> str:
    return "\n".join(value)


#: H&H resistance levels as the sheet writes them (rule terms, German in both languages) →
#: the engine's levels (``app.rules.hh.damage.RESISTANCES``).
RESISTANCE_WORDS: dict[str, str] = {
    "resistent": "resistant",
    "resistant": "resistant",
    "anfällig": "vulnerable",
    "vulnerable": "vulnerable",
    "immun": "immune",
    "immune": "immune",
}
RESISTANCE_LABELS: dict[str, str] = {
    "resistant": "resistent",
    "vulnerable": "anfällig",
    "immune": "immun",
}


def _npc_fields() -> list[FieldSpec]:
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
        for s in SKILLS
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
        FieldSpec("beute", N_("Loot"), "text", group="npc", hint=N_("One per line")),
        FieldSpec(
            "resistances",
            N_("Resistances"),
            "text",
            group="npc",
            hint=N_("One per line: damage type: resistent, anfällig or immun"),
            parse=parse_resistances,
            show=show_resistances,
        ),
    ]
    rest = [f for f in _pc_fields() if not f.key.startswith("skills.")]
    return [*skills, *rest, *npc]


class HHRestRecord(TypedDict):
    """A rest taken, as the sheet keeps it (:data:`REST_RECORDS`): its kind (``kurz``,
    ``lang``), its start in minutes of game time and the rule text."""

    kind: str
    start: int
    detail: NotRequired[str]


class HHPoints(TypedDict, total=False):
    """The points and armour values an H&H sheet and a fight's figure both keep, under the
    same keys (a character's figure starts from its sheet's)."""

    lp: int
    lp_max: int
    wp: int
    wp_max: int
    gp: int
    gp_max: int
    rs: int
    be: int
    bewegung: int


class HHSheetData(HHPoints, total=False):
    """An H&H sheet's JSON (``Character.data``): what :meth:`HHSystem.default_data` writes
    for a Held (``pc``), plus an NSC's values and what rests, checks and Gefährten keep.

    Sheets from before a field existed may lack it, hence ``total=False``."""

    skills: dict[str, int | None]
    specializations: dict[str, int]
    extra_skills: dict[str, int]
    talents: list[str]
    xp: int
    lira: int
    wears_rucksack: bool
    #: Zustand label → key (``app.rules.hh.conditions``).
    conditions: dict[str, str]
    unconscious: bool
    dead: bool
    # an NSC (hh.md §13) or a Gefährte
    monsterstufe: int | None
    gefahr: str
    beute: list[str]
    #: Damage type → ``resistant``, ``vulnerable`` or ``immune``.
    resistances: dict[str, str]
    #: Exact growth of a Gefährte beyond its whole values (:data:`GROWTH`): key → fraction.
    companion_growth: dict[str, str]
    #: The hero a Gefährte belongs to (``sheets.COMPANION_KEY``).
    companion_of: int
    rests: list[HHRestRecord]
    #: Stat block values the GM fixed for fights (``app.encounters.statblocks.hh``).
    statblock: dict[str, object]


def _npc_default() -> HHSheetData:
    return {
        **_pc_default(),
        "skills": {},
        "monsterstufe": 8,
        "gefahr": "",
        "beute": [],
        "resistances": {},
    }


def _entries(text: str) -> Iterator[tuple[str, str, str]]:
    """The ``name: value`` lines of a field with its own line format, each split at its
    last colon (``str.rpartition``); blank lines skipped."""
    for raw in text.splitlines():
        line = raw.strip()
        if line:
            yield line.rpartition(":")


def _skill_value(name: str, value: str) -> int:
    """The value written after Fertigkeit ``name``: a whole number from 0 to 30."""
    try:
        number = int(value.strip())
    except ValueError:
        raise FieldError(gettext("%(name)s needs a whole number.", name=name)) from None
    if not 0 <= number <= 30:
        raise FieldError(gettext("Between %(min)d and %(max)d.", min=0, max=30))
    return number


def parse_extra_skills(text: str) -> dict[str, int]:
    """``Reiten: 8`` lines → ``{"Reiten": 8}``: Fertigkeiten the GM adds (hh.md §13)."""
    out: dict[str, int] = {}
    for name, sep, value in _entries(text):
        name = name.strip()
        if not sep or not name or len(name) > 40 or "(" in name:
            raise FieldError(gettext("Write each Fertigkeit as “Name: Wert”."))
        if name in SKILLS or name == "Monsterstufe":
            raise FieldError(gettext("%(name)s is already on the sheet.", name=name))
        out[name] = _skill_value(name, value)
    return out


def parse_resistances(text: str) -> dict[str, str]:
    """``Feuer: resistent`` lines → ``{"Feuer": "resistant"}`` (the engine's levels)."""
    out: dict[str, str] = {}
    for name, sep, level in _entries(text):
        name = name.strip()
        word = RESISTANCE_WORDS.get(level.strip().lower())
        if not sep or not name or len(name) > 40:
            raise FieldError(gettext("Write each line as “damage type: resistent”."))
        if word is None:
            raise FieldError(gettext("%(name)s: write resistent, anfällig or immun.", name=name))
        out[name] = word
    return out


def _pc_default() -> HHSheetData:
    return {
        "skills": dict.fromkeys(SKILLS, 5),
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
        "lira": 0,
        "wears_rucksack": True,
        "conditions": {},
        "unconscious": False,
        "dead": False,
    }


def skill_value(data: Mapping[str, object], name: str) -> int:
    """A Fertigkeit or Spezialisierung value (a Spezialisierung defaults to its parent).

    On an NSC sheet (one with a ``monsterstufe``) a Fertigkeit not listed is rolled with the
    Monsterstufe (hh.md §13)."""
    listed = listed_value(data, name)
    if listed is not None:
        return listed
    monsterstufe = data.get("monsterstufe")
    return whole(monsterstufe) if monsterstufe is not None else 0


def listed_value(data: Mapping[str, object], name: str) -> int | None:
    """The value the sheet lists for a Fertigkeit or Spezialisierung, else ``None``."""
    specs = section(data, "specializations")
    skills = section(data, "skills")
    extra = section(data, "extra_skills")
    for value in (specs.get(name), skills.get(name), extra.get(name)):
        if value is not None:
            return whole(value)
    parent = skills.get(name.split("(", 1)[0].strip())
    return whole(parent) if parent is not None else None


def inventory_item(item: ItemLike) -> hh_inventory.Item:
    f = item.fields or {}
    size = f.get("size", "medium")
    slots = f.get("slots") or list(hh_inventory.SLOTS)
    return hh_inventory.Item(
        key=str(f.get("bundle_key") or item.name),
        size=size if size in ("small", "medium", "bundle") else "medium",
        quantity=max(1, item.quantity),
        slots=frozenset(s for s in slots if s in hh_inventory.SLOT_CAPACITY),
    )


def rucksack_items(items: Sequence[ItemLike]) -> list[hh_inventory.Item]:
    return [inventory_item(i) for i in items if not i.equipped and i.container == RUCKSACK]


def inventory_state(
    data: Mapping[str, object], items: Sequence[ItemLike]
) -> hh_inventory.InventoryState:
    return hh_inventory.inventory_state(
        rucksack_items(items),
        max(0, skill_value(data, "Reisekunde")),
        wears_rucksack=bool(data.get("wears_rucksack", True)),
    )


def rule_options(settings: Mapping[str, object]) -> RuleOptions:
    """The campaign's H&H options; the campaign stores ``summary`` where the engine says
    ``half`` for the movement variant."""
    mapped = dict(settings)
    if mapped.get("movement") == "summary":
        mapped["movement"] = "half"
    try:
        return RuleOptions.from_mapping(mapped)
    except ValueError:
        return RuleOptions()


# --- one figure: the sheet's values as the engine's Figure (issue 13) -------------------------

#: The cause of the «eingeschränkt» a heavy Rucksack gives: it is the inventory's, not stored.
RUCKSACK_CAUSE = "Rucksack"


def _item_number(item: ItemLike, key: str) -> int:
    try:
        return max(0, int((item.fields or {}).get(key) or 0))
    except (TypeError, ValueError):
        return 0


def armour(
    data: Mapping[str, object], items: Sequence[ItemLike], key: str
) -> tuple[int, list[Part]]:
    """RS or BE (``key``): the sheet's own value (natural armour, other burdens) plus that of
    every equipped item (armour, shield) — project decision, docs/rules/hh.md."""
    parts = [Part(gettext("sheet"), whole(data.get(key, 0) or 0))]
    parts += [Part(i.name, _item_number(i, key)) for i in items if i.equipped]
    parts = [p for p in parts if p.value]
    return sum(p.value for p in parts), parts


def stored_conditions(data: Mapping[str, object]) -> tuple[Zustand, ...]:
    out: list[Zustand] = []
    for label in section(data, "conditions"):
        try:
            out.append(zustand_from_label(str(label)))
        except ValueError:
            continue
    return tuple(out)


def sheet_conditions(data: Mapping[str, object], items: Sequence[ItemLike]) -> tuple[Zustand, ...]:
    """The stored conditions and those of the inventory (a heavy Rucksack: «eingeschränkt»)."""
    stored = stored_conditions(data)
    keys = {z.key for z in stored}
    extra = [
        Zustand(c, cause=RUCKSACK_CAUSE)
        for c in inventory_state(data, items).conditions
        if c not in keys
    ]
    return (*stored, *extra)


def sheet_figure(data: Mapping[str, object], items: Sequence[ItemLike]) -> Figure:
    """The character as the engine sees it, from the sheet and its equipped items."""
    skills = {
        k: whole(v)
        for k, v in {
            **section(data, "extra_skills"),
            **section(data, "skills"),
            **section(data, "specializations"),
        }.items()
        if v is not None
    }
    monsterstufe = data.get("monsterstufe")
    return Figure(
        id="sheet",
        skills=skills,
        monsterstufe=whole(monsterstufe) if monsterstufe is not None else None,
        lp=whole(data.get("lp", 0)),
        lp_max=whole(data.get("lp_max", 0)),
        wp=whole(data.get("wp", 0)),
        wp_max=whole(data.get("wp_max", 0)),
        gp=whole(data.get("gp", 0)),
        gp_max=whole(data.get("gp_max", 0)),
        rs=armour(data, items, "rs")[0],
        be=armour(data, items, "be")[0],
        conditions=sheet_conditions(data, items),
        unconscious=bool(data.get("unconscious", False)),
        dead=bool(data.get("dead", False)),
    )


#: Combat value → the sheet key that holds it.
COMBAT_KEYS = {
    "lp": "lp",
    "lp_max": "lp_max",
    "wp": "wp",
    "wp_max": "wp_max",
    "gp": "gp",
    "gp_max": "gp_max",
    "glueck": "skills.Glück",
    "conditions": "conditions",
    "unconscious": "unconscious",
    "dead": "dead",
}


#: Values every sheet with LP holds, also one saved before they were fields (issue 13).
WITH_LP = frozenset({"conditions", "unconscious", "dead"})


def _holds(data: Mapping[str, object], key: str) -> bool:
    """Whether the sheet has a place for the combat value ``key``."""
    if get_value(data, COMBAT_KEYS[key]) is not None:
        return True
    return key in WITH_LP and data.get("lp") is not None


def combat_values(data: Mapping[str, object], items: Sequence[ItemLike]) -> dict[str, object]:
    """What a fight takes from the sheet at every step: the current values, conditions
    (with the Rucksack's) and the worn armour's RS and BE. Only what the sheet holds: a value
    the GM fixed in the sheet's ``statblock`` stays the stat block's."""
    fig = sheet_figure(data, items)
    values: dict[str, object] = {
        "lp": fig.lp,
        "lp_max": fig.lp_max,
        "wp": fig.wp,
        "wp_max": fig.wp_max,
        "gp": fig.gp,
        "gp_max": fig.gp_max,
        "glueck": fig.glueck,
        "conditions": [
            {"key": z.key, "resource": z.resource, "cause": z.cause, "probe_skill": z.probe_skill}
            for z in fig.conditions
        ],
        "unconscious": fig.unconscious,
        "dead": fig.dead,
    }
    out = {k: v for k, v in values.items() if _holds(data, k)}
    if data.get("skills"):
        out["skills"] = dict(fig.skills)
    block = data.get("statblock")
    fixed: Mapping[str, object] = block if isinstance(block, Mapping) else {}
    out.update({k: v for k, v in (("rs", fig.rs), ("be", fig.be)) if k not in fixed})
    return out


def _zustand(data: object) -> Zustand:
    """A Zustand as a fight's values hold it (``combat_values``' ``conditions``)."""
    if not isinstance(data, Mapping):
        raise TypeError(f"not a Zustand: {data!r}")
    return Zustand(**data)


def sheet_values(data: Mapping[str, object], values: Mapping[str, object]) -> dict[str, object]:
    """Sheet key → value for what a fight changed (``combat_values``' keys), for the keys the
    sheet holds; the Rucksack's «eingeschränkt» stays the inventory's."""
    out: dict[str, object] = {}
    for key, value in values.items():
        sheet_key = COMBAT_KEYS.get(key)
        if sheet_key is None or not _holds(data, key) or key.endswith("_max"):
            continue
        if key == "conditions":
            if not isinstance(value, list):
                raise TypeError(f"conditions is not a list: {value!r}")
            zs = [_zustand(z) for z in value]
            value = {
                z.label: z.key
                for z in zs
                if not (z.key == "eingeschränkt" and z.cause == RUCKSACK_CAUSE)
            }
        out[sheet_key] = value
    return out


def follow_up(
    before: Mapping[str, object], data: dict[str, object], touched: Sequence[str]
) -> list[str]:
    """LP or their maximum written on the sheet, also by creating or importing it: the
    engine's thresholds (§7) add their conditions. LP at or below a threshold count as
    having fallen to it (project decision, docs/rules/hh.md): a condition follows from the
    values however the sheet got them."""
    if "lp" not in touched and "lp_max" not in touched:
        return []
    fig = Figure(
        id="sheet",
        skills={"Unbeugsamkeit": skill_value(data, "Unbeugsamkeit")},
        lp=max(1, whole(data.get("lp_max", 0))) + 1,
        lp_max=whole(data.get("lp_max", 0)),
        conditions=stored_conditions(data),
        dead=bool(data.get("dead", False)),
    )
    return _book_lp(data, fig)


def _book_lp(data: dict[str, object], fig: Figure) -> list[str]:
    out = set_lp(fig, whole(data["lp"]))
    changed: list[str] = []
    conditions = {z.label: z.key for z in out.figure.conditions}
    if conditions != (data.get("conditions") or {}):
        data["conditions"] = conditions
        changed.append("conditions")
    if out.figure.dead and not data.get("dead"):
        data["dead"] = True
        changed.append("dead")
    return changed


def _view(
    data: Mapping[str, object], items: Sequence[ItemLike], settings: Mapping[str, object]
) -> SheetView:
    spuersinn = skill_value(data, "Spürsinn")
    be, be_parts = armour(data, items, "be")
    rs, rs_parts = armour(data, items, "rs")
    ini = hh_initiative_value(spuersinn, be)
    state = inventory_state(data, items)
    load = state.load
    movement = movement_per_action(
        whole(data.get("bewegung", 0)), rule_options(settings), eingeschraenkt=state.encumbered
    )
    derived = [
        Derived("rs", "RS", str(rs), tuple((p.label, str(p.value)) for p in rs_parts)),
        Derived("be", "BE", str(be), tuple((p.label, str(p.value)) for p in be_parts)),
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
        Derived("movement", gettext("Bewegung per Handlung"), str(movement)),
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
    derived += _last_rest(data)
    derived += _companion_derived(data)
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
    fig = sheet_figure(data, items)
    for skill in ("Kampfkunst", "Magiekunde"):
        b = breakdown(fig.evolve(skills={skill: skill_value(data, skill)}), skill, "attack")
        derived.append(
            Derived(
                f"attack:{skill}",
                f"{skill} − BE",
                str(b.target),
                ((skill, str(b.value)), *((p.label, signed(p.value)) for p in b.parts)),
                roll=f"attack:{skill}",
            )
        )
    return SheetView(tuple(derived), tuple(warnings), _shown_conditions(fig), load.as_dict())


def _shown_conditions(fig: Figure) -> tuple[str, ...]:
    """The badges of the sheet: a dead figure's are «tot» only (issue 13, defect 9); dead and
    unconscious in the reader's language, the conditions as the rule terms they are."""
    if fig.dead:
        return (gettext("dead"),)
    labels = tuple(dict.fromkeys(z.label for z in fig.conditions))
    return (*labels, gettext("unconscious")) if fig.unconscious else labels


# --- fields with their own line format ----------------------------------------------------


def parse_specializations(text: str) -> dict[str, int]:
    """``Kampfkunst (waffenlos): 10`` lines → mapping; a bare name takes no value (error)."""
    out: dict[str, int] = {}
    for name, sep, value in _entries(text):
        if not sep or not name.strip():
            raise FieldError(gettext("Write each Spezialisierung as “Name (Fach): Wert”."))
        name = name.strip()
        if name.split("(", 1)[0].strip() not in SKILLS or "(" not in name:
            raise FieldError(
                gettext("%(name)s is not a Spezialisierung of a Fertigkeit.", name=name)
            )
        out[name] = _skill_value(name, value)
    return out


def show_resistances(value: Mapping[str, object]) -> str:
    return "\n".join(f"{k}: {RESISTANCE_LABELS.get(str(v), v)}" for k, v in value.items())


def cross_check(data: Mapping[str, object]) -> dict[str, str]:
    """Current LP, WP and GP at most their maximum."""
    errors: dict[str, str] = {}
    for cur, top in (("lp", "lp_max"), ("wp", "wp_max"), ("gp", "gp_max")):
        if whole(data.get(cur, 0)) > whole(data.get(top, 0)):
            errors[cur] = gettext("At most the maximum (%(max)d).", max=whole(data.get(top, 0)))
    return errors


# --- inventory ------------------------------------------------------------------------------

INVENTORY_MESSAGES = {
    "rucksack_full": "The Rucksack is full: %(used)s of %(capacity)s places used, "
    "%(item)s needs %(needed)s more.",
    "no_rucksack": "This character carries no Rucksack.",
    "slot_full": "%(slot)s is full: %(used)s of %(capacity)s taken, %(item)s needs %(needed)s.",
    "slot_not_allowed": "%(item)s does not fit into %(slot)s.",
    "not_small_item": "Only small items go into the Gürteltasche.",
    "unknown_slot": "There is no slot %(slot)s.",
}


def _inventory_message(check: hh_inventory.InventoryCheck, item: ItemLike) -> str:
    params: dict[str, object] = {**check.params, "item": item.name}
    if "slot" in params:
        params["slot"] = SLOT_LABELS.get(str(params["slot"]), params["slot"])
    return gettext(INVENTORY_MESSAGES.get(check.error or "", "%(item)s cannot go there."), **params)


def _others(items: Sequence[ItemLike], item: ItemLike) -> list[ItemLike]:
    return [i for i in items if i.id != item.id]


def equip_problem(items: Sequence[ItemLike], item: ItemLike, slot: str) -> str | None:
    """The slot rules of hh.md (capacity, allowed slots, small items in the Gürteltasche)."""
    equipped: dict[Any, list[hh_inventory.Item]] = {}
    for other in _others(items, item):
        if other.equipped and other.slot:
            equipped.setdefault(other.slot, []).append(inventory_item(other))
    check = hh_inventory.check_equip(equipped, inventory_item(item), slot)
    return None if check.ok else _inventory_message(check, item)


def rucksack_problem(
    data: Mapping[str, object], items: Sequence[ItemLike], item: ItemLike
) -> str | None:
    """Whether ``item`` fits into the Rucksack beside the others (Reisekunde places)."""
    check = hh_inventory.check_rucksack_add(
        rucksack_items(_others(items, item)),
        inventory_item(item),
        max(0, skill_value(data, "Reisekunde")),
        wears_rucksack=bool(data.get("wears_rucksack", True)),
    )
    return None if check.ok else _inventory_message(check, item)


# --- items ---------------------------------------------------------------------------------

ITEM_FIELDS = (
    ItemField(
        "size",
        N_("Size class"),
        "choice",
        (("medium", N_("medium")), ("small", N_("small")), ("bundle", N_("bundle"))),
    ),
    ItemField(
        "slots",
        N_("Slots"),
        "list",
        tuple((s, s) for s in hh_inventory.SLOTS),
    ),
    ItemField("damage", N_("Damage die"), "text"),
    ItemField("damage_bonus", N_("Damage bonus"), minimum=-20, maximum=20),
    ItemField("rs", "RS", minimum=0, maximum=30),
    ItemField("be", "BE", minimum=0, maximum=30),
)

STARTERS = [
    StarterItem(
        "hh:schwert",
        "Schwert",
        {
            "size": "medium",
            "slots": ["waffenhand", "waffengurt"],
            "damage": "W10",
            "damage_bonus": 1,
        },
        sample=True,
    ),
    StarterItem(
        "hh:dolch",
        "Dolch",
        {
            "size": "medium",
            "slots": ["waffenhand", "waffengurt"],
            "damage": "W10",
            "damage_bonus": 0,
        },
        sample=True,
    ),
    StarterItem(
        "hh:bogen",
        "Bogen",
        {"size": "medium", "slots": ["waffenhand", "ruecken"], "damage": "W10", "damage_bonus": 0},
        sample=True,
    ),
    StarterItem(
        "hh:pfeile",
        "Pfeile",
        {"size": "bundle", "slots": ["koecher"], "bundle_key": "pfeile"},
        quantity=20,
        sample=True,
    ),
    StarterItem(
        "hh:schild", "Schild", {"size": "medium", "slots": ["schildhand"], "rs": 1}, sample=True
    ),
    StarterItem(
        "hh:lederruestung",
        "Lederrüstung",
        {"size": "medium", "slots": ["koerper"], "rs": 1, "be": 0},
        sample=True,
    ),
    StarterItem(
        "hh:kettenhemd",
        "Kettenhemd",
        {"size": "medium", "slots": ["koerper"], "rs": 2, "be": 1},
        sample=True,
    ),
    StarterItem(
        "hh:heiltrank",
        "Heiltrank",
        {"size": "small", "slots": ["guerteltasche"]},
        sample=True,
    ),
    StarterItem("hh:seil", "Seil", {"size": "medium"}, sample=True),
    StarterItem("hh:fackel", "Fackel", {"size": "medium", "slots": ["waffenhand"]}, sample=True),
    StarterItem(
        "hh:proviant",
        "Proviant",
        {"size": "bundle", "bundle_key": "proviant"},
        quantity=5,
        sample=True,
    ),
    StarterItem("hh:decke", "Decke", {"size": "medium"}, sample=True),
]


# --- rolls ---------------------------------------------------------------------------------

DIFFICULTIES = tuple((d.key, f"{d.name} ({d.modifier:+d})") for d in hh_probe.DIFFICULTIES)
LUCK_OPTIONS = (
    ("", "—"),
    ("bonus", hh_luck.LUCK_NAMES["bonus"]),
    ("cancel_penalty", hh_luck.LUCK_NAMES["cancel_penalty"]),
    ("auto_volltreffer", hh_luck.LUCK_NAMES["auto_volltreffer"]),
)


def roll_targets(data: Mapping[str, object]) -> list[Target]:
    out = [Target(f"skill:{s}", s) for s in SKILLS]
    if data.get("monsterstufe") is not None:
        out.append(Target("skill:Monsterstufe", "Monsterstufe"))
    out += [Target(f"skill:{s}", s) for s in section(data, "extra_skills")]
    out += [Target(f"skill:{s}", s) for s in section(data, "specializations")]
    out += [
        Target(f"attack:{s}", f"{s} (Angriff/Verteidigung, − BE)")
        for s in ("Kampfkunst", "Magiekunde")
    ]
    return out


def _probe_setup(
    data: Mapping[str, object], items: Sequence[ItemLike], req: RollRequest
) -> tuple[str, Breakdown, Figure]:
    """The Probe's label, its target with every modifier (one path: BE, conditions, the
    difficulty and the roller's modifier, ``app.rules.hh.modifiers``) and the figure."""
    kind, _, name = req.target.partition(":")
    known = set(SKILLS) | set(section(data, "specializations")) | set(section(data, "extra_skills"))
    npc = data.get("monsterstufe") is not None
    if npc:
        known.add("Monsterstufe")
    if kind not in ("skill", "attack") or name not in known:
        raise bad("target", gettext("Choose a Fertigkeit of this sheet."))
    difficulty = 0
    if req.difficulty:
        try:
            difficulty = hh_probe.difficulty_modifier(req.difficulty)
        except ValueError:
            raise bad("difficulty", gettext("Choose one of the listed values.")) from None
    label = name
    if npc and name != "Monsterstufe" and listed_value(data, name) is None:
        # An NSC's Fertigkeit that is not listed: the Monsterstufe is its Probenwert.
        label = f"{name} (Monsterstufe)"
    if kind == "attack":
        label = f"{name} − BE"
    figure = sheet_figure(data, items)
    figure = figure.evolve(skills={**figure.skills, name: skill_value(data, name)})
    target = breakdown(
        figure,
        name,
        "attack" if kind == "attack" else "action",
        (Part("Schwierigkeit", difficulty), Part("Modifikator", req.modifier)),
    )
    if req.luck:
        problems = hh_luck.luck_problems(figure, req.luck, before_roll=True)
        if req.luck not in ("bonus", "cancel_penalty", "auto_volltreffer"):
            problems = [gettext("Choose one of the listed values.")]
        if problems:
            raise bad("luck", "; ".join(problems))
    return label, target, figure


def _probe_odds(data: Mapping[str, object], items: Sequence[ItemLike], req: RollRequest) -> Odds:
    _label, target, _figure = _probe_setup(data, items, req)
    if req.luck == "auto_volltreffer":
        return Odds(gettext("Success chance: %(p)s", p="100 %"), (("Volltreffer", "100 %"),))
    modifier = target.modifier
    if req.luck in ("bonus", "cancel_penalty"):
        modifier = hh_luck.luck_modifier(modifier, req.luck)  # type: ignore[arg-type]
    odds = hh_probe.probe_odds(target.value, modifier)
    return Odds(
        gettext("Success chance: %(p)s", p=percent(odds.success)),
        (
            (gettext("Target"), target.describe()),
            ("Volltreffer", percent(odds.volltreffer_chance)),
            ("Patzer", percent(odds.patzer_chance)),
        ),
    )


def _help(roller: Roller, req: RollRequest, target: Breakdown, figure: Figure) -> Helping | None:
    """The helper of a sheet roll (hh.md §3) rolls first, with its own sheet's value and
    conditions and the main Probe's situational modifiers; no Reaktion outside a fight."""
    sheet = req.helper
    if sheet is None:
        return None
    skill = target.skill
    helper = sheet_figure(sheet.data, sheet.items)
    helper = helper.evolve(
        id=f"c{sheet.character_id}",
        name=sheet.name,
        skills={**helper.skills, skill: skill_value(sheet.data, skill)},
    )
    problems = help_problems(helper, figure, in_fight=False)
    if problems:
        raise bad("helper_id", "; ".join(problems))
    kind, _, _name = req.target.partition(":")
    situational = [p for p in target.parts if p.label in ("Schwierigkeit", "Modifikator")]
    return roll_help(
        roller, [Helper(helper, skill)], "attack" if kind == "attack" else "action", situational
    )


def _probe_roll(
    roller: Roller, data: Mapping[str, object], items: Sequence[ItemLike], req: RollRequest
) -> RollOutcome:
    label, target, figure = _probe_setup(data, items, req)
    helping = _help(roller, req, target, figure)
    if helping is not None:
        target = target.plus(helping.part)
    value, modifier = target.value, target.modifier
    changes: dict[str, object] = {}
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
    outcome = {**result.as_dict(), "outcome": result.outcome, "breakdown": target.describe()}
    if req.luck:
        outcome["luck"] = hh_luck.LUCK_NAMES[req.luck]
    helped = "".join(f"{line}; " for line in helping.lines()) if helping else ""
    return RollOutcome(
        label=label,
        expression="2W10",
        dice=(*(helping.rolls if helping else ()), *result.rolls),
        modifier=0,
        total=result.roll,
        summary=f"{helped}{target.describe()}: {result.describe()}",
        outcome=outcome,
        sheet_changes=changes,
    )


# --- rest (issue 13: kurze and lange Rast from the sheet) -----------------------------------

RESTS = (("kurz", "Kurze Rast"), ("lang", "Lange Rast"))
#: The rests taken, kept on the sheet (the last :data:`~app.limits.REST_RECORDS_KEPT`):
#: ``[{"kind": "kurz", "start": minute}, …]`` on the sheet's own in-game clock.
REST_RECORDS = "rests"
#: The sheet's clock starts at Tag 1, 08:00 (minute 480); hours are counted from there.
CLOCK_START = 8 * 60
#: The highest Probenwert the sheet holds (skills 0–30).
SKILL_VALUE_MAX = 30
#: Hours after the end of the last rest when the form leaves them empty (the first rest of
#: a sheet: at the clock's start).
DEFAULT_HOURS = {"kurz": rest_rules.SHORT_REST_GAP_MINUTES // 60, "lang": 0}


def rest_records(data: Mapping[str, object]) -> list[rest_rules.RestRecord]:
    out: list[rest_rules.RestRecord] = []
    for r in listing(data, REST_RECORDS):
        if isinstance(r, Mapping) and r.get("kind") in rest_rules.REST_MINUTES:
            try:
                out.append(rest_rules.RestRecord(r["kind"], int(r["start"])))
            except (TypeError, ValueError, KeyError):
                continue
    return out


def clock_text(minute: int) -> str:
    """``Tag 2, 06:00`` (the sheet's clock; Tag 1 is the first)."""
    day, rest_of_day = divmod(minute, rest_rules.MINUTES_PER_DAY)
    return f"Tag {day + 1}, {rest_of_day // 60:02d}:{rest_of_day % 60:02d}"


def _last_rest(data: Mapping[str, object]) -> list[Derived]:
    """The sheet's last rest: when, and its rule text (the dice and what came back)."""
    records = [r for r in listing(data, REST_RECORDS) if isinstance(r, Mapping)]
    last = max(rest_records(data), key=lambda r: r.end, default=None)
    if last is None:
        return []
    detail = str(records[-1].get("detail", "")) if records else ""
    when = f"{dict(RESTS)[last.kind]}, {clock_text(last.start)} – {clock_text(last.end)}"
    parts = ((gettext("Rolls"), detail),) if detail else ()
    return [Derived("last_rest", gettext("Last rest"), when, parts)]


def _rest_hours(params: Mapping[str, str], kind: rest_rules.RestKind) -> int | str:
    text = str(params.get("hours", "") or "").strip()
    if not text:
        return DEFAULT_HOURS[kind]
    try:
        hours = int(text)
    except ValueError:
        return gettext("Enter a whole number.")
    if not 0 <= hours <= REST_HOURS_MAX:
        return gettext("Between %(min)d and %(max)d.", min=0, max=REST_HOURS_MAX)
    return hours


def _rest_refusal(code: str, rest_params: Mapping[str, object]) -> str:
    """The engine's refusal (``check_rest``'s codes) as a message at the rest."""
    if code == "short_rest_too_soon":
        return gettext(
            "Kurze Rast at the earliest 2 hours after the end of the last rest (%(when)s).",
            when=clock_text(int(str(rest_params["earliest"]))),
        )
    if code == "daily_limit" and rest_params.get("kind") == "kurz":
        return gettext("At most 2 Kurze Rasten a day: enter more hours for the next day.")
    if code == "daily_limit":
        return gettext("One Lange Rast a day: enter more hours for the next day.")
    if code == "no_camp_site":
        return gettext("A Lange Rast needs a suitable camp site.")
    if code == "companion_not_healable":
        return gettext("Heilkunde does not work on a Gefährte.")
    return gettext("The last rest has not ended yet.")


def _camp_value(params: Mapping[str, str]) -> int | str | None:
    text = str(params.get("camp_value", "") or "").strip()
    if not text:
        return None
    try:
        value = int(text)
    except ValueError:
        return gettext("Enter a whole number.")
    return (
        value
        if 0 <= value <= SKILL_VALUE_MAX
        else gettext("Between %(min)d and %(max)d.", min=0, max=SKILL_VALUE_MAX)
    )


def _healing(healer: HelperSheet | None) -> tuple[Figure, Breakdown] | None:
    """The healer's figure and its Heilkunde target, with the healer's own conditions on the
    Probe (the one modifier path)."""
    if healer is None:
        return None
    tending = sheet_figure(healer.data, healer.items).evolve(id=HEALER_ID, name=healer.name)
    return tending, breakdown(tending, "Heilkunde", "action")


#: The healer's figure id in a rest (the resting character is ``sheet``).
HEALER_ID = "healer"


def _rest_lines(result: rest_rules.RestResult) -> list[str]:
    """The rule text of a rest: every Probe with its faces, the dice and what came back."""
    lines: list[str] = []
    if result.camp_probe is not None:
        lines.append(f"Lagerprobe {result.camp_probe.describe()}")
    p = result.participant("sheet")
    if p.morning_probe is not None:
        lines.append(
            f"kein Regenerieren (Patzer); Unbeugsamkeit am Morgen {p.morning_probe.describe()}"
        )
    if p.regeneration is not None:
        lines.append(f"Unbeugsamkeit {p.regeneration.describe()}")
    for name, roll, healed in (("WP", p.wp_roll, p.wp_healed), ("LP", p.lp_roll, p.lp_healed)):
        if roll is not None:
            faces = " + ".join(str(f) for f in roll.faces)
            lines.append(f"{len(roll.faces)}W10 {name}: {faces} → +{healed} {name}")
    if p.gp_gained:
        lines.append(f"+{p.gp_gained} GP")
    lines += [f"«{c}» entfernt" for c in p.conditions_removed]
    lines += [f"«{c}» dazu" for c in p.conditions_gained]
    return lines


def _healing_line(result: rest_rules.RestResult, healer: HelperSheet, target: Breakdown) -> str:
    """E.g. "Heilkunde (Brida) 10 − angeschlagen 2 = 8; 2W10: 3 + 4 …; 1W10: 6 → +6 LP"."""
    p = result.participant("sheet")
    assert p.healing_probe is not None
    line = f"Heilkunde ({healer.name}) {target.describe().removeprefix('Heilkunde ')}"
    line += f"; {p.healing_probe.describe()}"
    if p.healing_roll is not None:
        line += f"; {len(p.healing_roll.faces)}W10: " + " + ".join(map(str, p.healing_roll.faces))
    return f"{line} → +{p.healing_lp} LP"


def _rest_changes(
    data: Mapping[str, object], result: rest_rules.RestResult, detail: str
) -> dict[str, object]:
    after = result.participant("sheet").after
    assert result.record is not None
    records = [
        {"kind": r["kind"], "start": int(r["start"])}
        for r in listing(data, REST_RECORDS)
        if isinstance(r, Mapping) and r.get("kind") in rest_rules.REST_MINUTES
    ][-REST_RECORDS_KEPT + 1 :]
    record = result.record
    records.append({"kind": record.kind, "start": record.start, "detail": detail})
    changes: dict[str, object] = {
        "lp": after.lp,
        "wp": after.wp,
        "gp": after.gp,
        REST_RECORDS: records,
    }
    conditions = {
        z.label: z.key
        for z in after.conditions
        if not (z.key == "eingeschränkt" and z.cause == RUCKSACK_CAUSE)
    }
    if conditions != dict(section(data, "conditions")):
        changes["conditions"] = conditions
    return {k: v for k, v in changes.items() if data.get(k) != v}


def rest(
    roller: Roller,
    data: Mapping[str, object],
    items: Sequence[ItemLike],
    key: str,
    params: Mapping[str, str],
    settings: Mapping[str, object],
    healer: HelperSheet | None = None,
) -> Rest | str:
    """Kurze or Lange Rast (``app.rules.hh.rest``) on the sheet's own clock: the rest starts
    ``hours`` after the end of the last one the sheet keeps (docs/rules/hh.md, "Rasten");
    ``healer``'s Heilkunde tends the character (not a Gefährte) during it."""
    if key not in dict(RESTS):
        return gettext("This rest does not exist in this rule system.")
    kind: rest_rules.RestKind = "kurz" if key == "kurz" else "lang"
    fig = sheet_figure(data, items)
    if fig.dead or fig.unconscious:
        return gettext("A dead or unconscious character does not rest.")
    history = rest_records(data)
    hours = _rest_hours(params, kind if history else "lang")
    camp_value = _camp_value(params)
    if isinstance(hours, str) or isinstance(camp_value, str):
        return str(hours if isinstance(hours, str) else camp_value)
    last_end = max((r.end for r in history), default=CLOCK_START)
    now = last_end + hours * 60
    tending = _healing(healer)
    healing = [rest_rules.Healing(tending[0], fig.id, tending[1].modifier)] if tending else []
    companions = [fig.id] if data.get(COMPANION_OF) else []
    if kind == "kurz":
        result = rest_rules.short_rest(
            roller, [fig], now=now, history=history, healing=healing, companions=companions
        )
    else:
        result = rest_rules.long_rest(
            roller, [fig], rule_options(settings), now=now, history=history,
            camp_site=str(params.get("camp_site", "")) in ("on", "true", "1"),
            camp_value=camp_value, healing=healing, companions=companions,
        )  # fmt: skip
    if result.error is not None:
        return _rest_refusal(result.error, result.params)
    head = f"{dict(RESTS)[key]} ({clock_text(now)})"
    lines = _rest_lines(result)
    if tending and healer:
        lines.append(_healing_line(result, healer, tending[1]))
    detail = ": ".join([head, "; ".join(lines)])
    return Rest(_rest_changes(data, result, detail), detail)


# --- guided checks (issue 13: Beschaffung and Herstellung from the sheet) -------------------

CHECKS = (("beschaffung", "Beschaffung"), ("herstellung", "Herstellung"))
#: The sheet's purse (whole Lira; the texts name no smaller coin).
LIRA = "lira"
CATEGORIES = (("ausruestung", "Ausrüstung"), ("konstruktion", "Konstruktion"))
PROCUREMENT_STEPS = (
    ("glueck", "Glück (sofort)"),
    ("gassenwissen", "Gassenwissen (Beschaffung), 1 Tag"),
)
EQUIPMENT = (
    ("passend", N_("Tools and workplace fit")),
    ("fehlt_erschwert", N_("Missing: −4")),
    ("fehlt_unmoeglich", N_("Missing: impossible")),
)
#: The largest modifier a check form takes.
CHECK_MODIFIER_MAX = 20
PRICE_MAX = 100_000_000


def _choice(params: Mapping[str, str], key: str, choices: Sequence[tuple[str, str]]) -> str:
    value = str(params.get(key, "") or "").strip()
    return value if value in dict(choices) else ""


def _check_number(
    params: Mapping[str, str], key: str, low: int, high: int, errors: dict[str, str]
) -> int | None:
    """The whole number in ``params[key]`` (empty: ``None``); a bad one goes to ``errors``."""
    text = str(params.get(key, "") or "").strip()
    if not text:
        return None
    try:
        value = int(text)
    except ValueError:
        errors[key] = gettext("Enter a whole number.")
        return None
    if not low <= value <= high:
        errors[key] = gettext("Between %(min)d and %(max)d.", min=low, max=high)
        return None
    return value


def _check_basics(
    data: Mapping[str, object],
    items: Sequence[ItemLike],
    params: Mapping[str, str],
    item: ItemDraft,
) -> tuple[int, int, bool, dict[str, str]]:
    """Price (the form's, else the item's), modifier, pay, and the errors of all three."""
    errors: dict[str, str] = {}
    price = _check_number(params, "price", 0, PRICE_MAX, errors)
    if price is None and "price" not in errors:
        price = item.price
        if price is None:
            errors["price"] = gettext("Enter the price in Lira.")
    modifier = _check_number(params, "modifier", -CHECK_MODIFIER_MAX, CHECK_MODIFIER_MAX, errors)
    pay = str(params.get("pay", "") or "") in ("on", "true", "1")
    fig = sheet_figure(data, items)
    if fig.dead or fig.unconscious:
        errors["check"] = gettext("A dead or unconscious character cannot do this.")
    return price or 0, modifier or 0, pay, errors


def _purse(data: Mapping[str, object]) -> int:
    try:
        return max(0, whole(data.get(LIRA, 0) or 0))
    except (TypeError, ValueError):
        return 0


def _short_purse(data: Mapping[str, object], cost: int) -> str | None:
    have = _purse(data)
    if cost <= have:
        return None
    return gettext("Not enough Lira: %(cost)d needed, %(have)d on the sheet.", cost=cost, have=have)


def _procure(
    roller: Roller,
    data: Mapping[str, object],
    items: Sequence[ItemLike],
    params: Mapping[str, str],
    item: ItemDraft,
) -> SheetCheck | dict[str, str]:
    """Beschaffung (``app.rules.hh.procurement.procure``); on success the item, paid for
    from the sheet's Lira when «pay» is ticked (docs/rules/hh.md, "Beschaffung")."""
    price, modifier, pay, errors = _check_basics(data, items, params, item)
    step = cast(procurement.Step, _choice(params, "step", PROCUREMENT_STEPS) or "glueck")
    category = cast(procurement.Category, _choice(params, "category", CATEGORIES) or "ausruestung")
    if pay and "price" not in errors:
        short = _short_purse(data, price)
        if short:
            errors["pay"] = short
    if errors:
        return errors
    fig = sheet_figure(data, items)
    row = procurement.procurement_row(price, category)
    if (row.glueck if step == "glueck" else row.gassenwissen).kind == "niemals":
        return {"step": gettext("Never to be had this way at this price: try Gassenwissen.")}
    result = procurement.procure(roller, fig, step, price, category=category, modifier=modifier)
    head = f"Beschaffung «{item.name}» ({price} Lira, {dict(CATEGORIES)[category]})"
    if result.probe is None:
        lines = [f"{dict(PROCUREMENT_STEPS)[step]}: immer erhältlich"]
    else:
        assert result.target is not None
        lines = [f"{result.target.describe()}: {result.probe.describe()}"]
    lines.append("gefunden" if result.found else "nicht erhältlich")
    changes: dict[str, object] = {}
    if result.found and pay and price:
        changes[LIRA] = _purse(data) - price
        lines.append(f"−{price} Lira")
    detail = f"{head}: {'; '.join(lines)}"
    found = replace(item, price=price) if result.found else None
    return SheetCheck(result.found, changes, found, detail)


def _craft(
    roller: Roller,
    data: Mapping[str, object],
    items: Sequence[ItemLike],
    params: Mapping[str, str],
    item: ItemDraft,
) -> SheetCheck | dict[str, str]:
    """Herstellung (``app.rules.hh.crafting``): the plan on the sheet's Probenwert, the
    GM's Probe if asked for, the cost paid on the attempt (docs/rules/hh.md, "Herstellung")."""
    price, modifier, pay, errors = _check_basics(data, items, params, item)
    grades = tuple((g, g) for g in crafting.CRAFTING_HOURS)
    grade = cast("Grade", _choice(params, "grade", grades) or "C")
    equipment = cast(crafting.Equipment, _choice(params, "equipment", EQUIPMENT) or "passend")
    skill = str(params.get("skill", "") or "").strip() or "Handwerk"
    if skill not in {t.label for t in roll_targets(data) if t.key.startswith("skill:")}:
        errors["skill"] = gettext("Choose a Fertigkeit of this sheet.")
    if errors:
        return errors
    fig = sheet_figure(data, items)
    fig = fig.evolve(skills={**fig.skills, skill: skill_value(data, skill)})
    plan = crafting.plan_for(fig, skill, price, grade, equipment=equipment, modifier=modifier)
    cost = math.ceil(plan.cost)
    if plan.error == "missing_equipment":
        return {"equipment": gettext("Without fitting tools this cannot be made.")}
    if plan.error is not None:
        assert plan.target is not None
        reachable = plan.reachable or "—"
        return {
            "grade": gettext(
                "%(target)s reaches Güte %(reachable)s at most.",
                target=plan.target.describe(), reachable=reachable,
            )
        }  # fmt: skip
    if pay and (short := _short_purse(data, cost)):
        return {"pay": short}
    probe_required = str(params.get("probe", "") or "") in ("on", "true", "1")
    outcome = crafting.crafting_probe(roller, plan, probe_required=probe_required)
    assert plan.target is not None
    lines = [f"{plan.target.describe()} → Güte {plan.reachable} erreichbar"]
    lines.append(f"Probe {outcome.probe.describe()}" if outcome.probe else "ohne Probe")
    lines.append(f"{plan.hours} h")
    changes: dict[str, object] = {}
    if pay and cost:
        changes[LIRA] = _purse(data) - cost
        lines.append(f"−{cost} Lira")
    lines.append("hergestellt" if outcome.success else "misslungen")
    made = replace(item, price=price, description=f"Güte {grade}") if outcome.success else None
    detail = f"Herstellung «{item.name}» (Güte {grade}, {price} Lira): {'; '.join(lines)}"
    return SheetCheck(outcome.success, changes, made, detail)


def check(
    roller: Roller,
    data: Mapping[str, object],
    items: Sequence[ItemLike],
    key: str,
    params: Mapping[str, str],
    item: ItemDraft,
) -> SheetCheck | dict[str, str]:
    if key == "beschaffung":
        return _procure(roller, data, items, params, item)
    if key == "herstellung":
        return _craft(roller, data, items, params, item)
    return {"check": gettext("This check does not exist in this rule system.")}


# --- Gefährten (issue 13: companions of their own, Band der Erfahrung) ------------------------

#: The data key of a Gefährte's sheet that names its hero (``app.characters.sheets``).
COMPANION_OF = COMPANION_KEY
#: Exact growth a Gefährte's sheet keeps beyond its whole values (Bewegung, RS: +½ a level).
GROWTH = "companion_growth"
#: The growth a Steigerung books on the sheet (the rest of ``GROWTH_PER_LEVEL`` is derived).
BOOKED_GROWTH = ("bewegung", "rs")


def new_companion() -> HHSheetData:
    """A new Gefährte: an NSC sheet at Monsterstufe 1 without XP; the player or GM types
    the spirit's values (docs/rules/hh.md, "Gefährten")."""
    return {**_npc_default(), "monsterstufe": 1, "xp": 0, "companion_growth": {}}


def share_xp(
    hero: Mapping[str, object], companion: Mapping[str, object] | None, amount: int
) -> tuple[dict[str, object], dict[str, object]] | str:
    """XP the hero gains; with «Band der Erfahrung» the chosen Gefährte gains as many."""
    if not 1 <= amount <= XP_GAIN_MAX:
        return gettext("Between %(min)d and %(max)d.", min=1, max=XP_GAIN_MAX)
    hero_xp = whole(hero.get("xp", 0) or 0) + amount
    if hero_xp > XP_MAX:
        return gettext("At most %(max)d XP.", max=XP_MAX)
    if companion is None:
        return {"xp": hero_xp}, {}
    return {"xp": hero_xp}, {"xp": whole(companion.get("xp", 0) or 0) + amount}


def _growth(data: Mapping[str, object], key: str) -> Fraction:
    try:
        return Fraction(str(section(data, GROWTH).get(key, "0")))
    except (ValueError, ZeroDivisionError):
        return Fraction(0)


def companion_stats(data: Mapping[str, object]) -> companions.CompanionStats:
    """The sheet's values as the engine's stats (Bewegung and RS with their kept growth)."""
    level = whole(data.get("monsterstufe") or 0)
    stats = companions.companion_stats(
        level, bewegung=whole(data.get("bewegung", 0) or 0), rs=whole(data.get("rs", 0) or 0),
        lp=whole(data.get("lp_max", 0) or 0),
    )  # fmt: skip
    return replace(
        stats,
        bewegung=stats.bewegung + _growth(data, "bewegung"),
        rs=stats.rs + _growth(data, "rs"),
    )


def raise_companion(data: Mapping[str, object]) -> dict[str, object] | str:
    """One Monsterstufe up for its XP (``companions.level_up``): Monsterstufe +1 (every
    Probe not listed), each listed Fertigkeit +1, LP max and LP +2, Bewegung and RS +½
    kept exact; Initiative and Reaktionen follow from Spürsinn (docs/rules/hh.md)."""
    if not data.get(COMPANION_OF):
        return gettext("Only a Gefährte raises its Monsterstufe for XP.")
    stats = companion_stats(data)
    if stats.level < 1:
        return gettext("Enter the Gefährte's Monsterstufe first.")
    up = companions.level_up(stats, stats.level + 1)
    xp = whole(data.get("xp", 0) or 0)
    if xp < up.xp_cost:
        return gettext(
            "Monsterstufe %(level)d costs %(cost)d XP; the Gefährte has %(xp)d.",
            level=up.after.level, cost=up.xp_cost, xp=xp,
        )  # fmt: skip
    effective = up.after.effective()
    skills = {k: (whole(v) + 1 if v is not None else v) for k, v in section(data, "skills").items()}
    gained_lp = effective["lp"] - whole(data.get("lp_max", 0) or 0)
    return {
        "monsterstufe": up.after.level,
        "xp": xp - up.xp_cost,
        "skills": skills,
        "lp_max": effective["lp"],
        "lp": whole(data.get("lp", 0) or 0) + gained_lp,
        **{k: effective[k] for k in BOOKED_GROWTH},
        GROWTH: {k: str(getattr(up.after, k) - effective[k]) for k in BOOKED_GROWTH},
    }


def _companion_derived(data: Mapping[str, object]) -> list[Derived]:
    """A Gefährte's Steigerungskosten and what it carries (LP ÷ 2 places)."""
    if not data.get(COMPANION_OF):
        return []
    level = whole(data.get("monsterstufe") or 0)
    out = [Derived("carry", "Traglast", f"{companions.carry_places(whole(data.get('lp', 0)))} IP")]
    if level >= 1:
        cost = companions.level_up_cost(level + 1)
        out.append(
            Derived(
                "level_up_cost",
                "Steigerungskosten",
                f"Monsterstufe {level + 1}: {cost} XP",
                (("XP", str(data.get("xp", 0))),),
            )
        )
    return out


# --- combat --------------------------------------------------------------------------------


def _die_sides(text: object, default: int) -> int:
    """``"W10"`` / ``"1W10"`` / ``"d8"`` → 10 / 10 / 8."""
    digits = str(text or "").lower().replace("d", "w").rpartition("w")[2]
    return int(digits) if digits.isdigit() else default


def combat_statblock(data: Mapping[str, object], items: Sequence[ItemLike]) -> dict[str, object]:
    be = armour(data, items, "be")[0]
    spuersinn = skill_value(data, "Spürsinn")
    kampfkunst = skill_value(data, "Kampfkunst")
    weapon = equipped_in(items, "waffenhand")
    fields = weapon.fields if weapon is not None else {}
    npc = data.get("monsterstufe") is not None
    beute = data.get("beute") or []
    return {
        "monsterstufe": whole(data.get("monsterstufe") or 0),
        "gefahr": str(data.get("gefahr") or "") if npc else "",
        "beute": ", ".join(beute) if isinstance(beute, list) else str(beute),
        "resistenzen": dict(section(data, "resistances")),
        "lp": whole(data.get("lp_max", 20)),
        "rs": armour(data, items, "rs")[0],
        "be": be,
        "initiative": hh.initiative(spuersinn, be),
        "bewegung": whole(data.get("bewegung", 8)),
        "angriff": kampfkunst,
        "verteidigung": kampfkunst,
        "magiekunde": skill_value(data, "Magiekunde"),
        "unbeugsamkeit": skill_value(data, "Unbeugsamkeit"),
        "willenskraft": skill_value(data, "Willenskraft"),
        "interaktion": skill_value(data, "Interaktion"),
        "glueck": skill_value(data, "Glück"),
        "gp": whole(data.get("gp_max", 0)),
        "waffe": weapon.name if weapon is not None else "Waffenlos",
        "schaden_w": _die_sides(fields.get("damage"), 10),
        "schaden_bonus": int(fields.get("damage_bonus", 0)),
        "spuersinn": spuersinn,
    }


# --- the system -----------------------------------------------------------------------------


class HHSystem:
    """Helden & Halunken as a :class:`~app.characters.systems.protocol.CharacterCore` with every
    capability of the characters domain. Where a module function already has the protocol's
    signature, it is the method."""

    key = KEY
    equip_slots: Mapping[str, str] = SLOT_LABELS
    item_fields = ITEM_FIELDS
    partials = SheetPartials(
        item_actions="characters/systems/hh/_item_actions.html",
        rest_fields="characters/systems/hh/_rest_fields.html",
        check_fields="characters/systems/hh/_check_fields.html",
    )
    roll_difficulties = DIFFICULTIES
    luck_options = LUCK_OPTIONS
    helping = True
    rests = RESTS
    checks = CHECKS

    def fields(self, kind: str) -> list[FieldSpec]:
        return _npc_fields() if kind == "npc" else _pc_fields()

    def default_data(self, kind: str) -> dict[str, object]:
        return dict(_npc_default() if kind == "npc" else _pc_default())

    view = staticmethod(_view)

    def cross_check(self, data: Mapping[str, object], items: Sequence[ItemLike]) -> dict[str, str]:
        return cross_check(data)

    follow_up = staticmethod(follow_up)

    def starter_items(self) -> list[StarterItem]:
        return list(STARTERS)

    def default_container(self, data: Mapping[str, object]) -> str | None:
        return RUCKSACK if bool(data.get("wears_rucksack", True)) else None

    def equip_problem(
        self, data: Mapping[str, object], items: Sequence[ItemLike], item: ItemLike, slot: str
    ) -> str | None:
        return equip_problem(items, item, slot)

    def stow_problem(
        self, data: Mapping[str, object], items: Sequence[ItemLike], item: ItemLike
    ) -> str | None:
        return rucksack_problem(data, items, item) if item.container == RUCKSACK else None

    def edit_problems(
        self, data: Mapping[str, object], items: Sequence[ItemLike], item: ItemLike
    ) -> dict[str, str]:
        """A changed size or slot list must still fit where the item is."""
        if item.container == RUCKSACK:
            problem = rucksack_problem(data, items, item)
            return {"container": problem} if problem else {}
        if item.equipped and item.slot:
            problem = equip_problem(items, item, item.slot)
            return {"slot": problem} if problem else {}
        return {}

    def import_problem(self, data: Mapping[str, object], items: Sequence[ItemLike]) -> str | None:
        if inventory_state(data, items).load.over_capacity:
            return gettext("The items do not fit into the Rucksack.")
        return None

    def roll_targets(self, data: Mapping[str, object], items: Sequence[ItemLike]) -> list[Target]:
        return roll_targets(data)

    odds = staticmethod(_probe_odds)

    def roll_visibility(self, req: RollRequest, settings: Mapping[str, object]) -> str:
        return req.visibility

    roll = staticmethod(_probe_roll)
    rest = staticmethod(rest)

    def check(
        self,
        roller: Roller,
        data: Mapping[str, object],
        items: Sequence[ItemLike],
        key: str,
        params: Mapping[str, str],
        item: ItemDraft,
        settings: Mapping[str, object],
    ) -> SheetCheck | dict[str, str]:
        return check(roller, data, items, key, params, item)

    def new_companion(self) -> dict[str, object] | None:
        return dict(new_companion())

    share_xp = staticmethod(share_xp)
    raise_companion = staticmethod(raise_companion)
    combat_statblock = staticmethod(combat_statblock)
    combat_values = staticmethod(combat_values)
    sheet_values = staticmethod(sheet_values)


SYSTEM = HHSystem()
