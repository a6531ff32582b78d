"""Pathfinder 2e for the characters domain: the sheet (Stufe, Attribute, Kompetenzgrade,
Fertigkeiten), Statistiken with their modifiers, checks against a SG/RK with their degree
odds, and the stat block for combat.

Every number comes from ``app.rules.pf2e``; this module translates the stored sheet and items
into the engine's types and labels the results. The one thing computed here is the degree
distribution, by asking the engine's ``degree_of_success`` for every possible W20 face
(the engine has no odds function).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TypedDict

from app.characters.catalog import KIND_FIELD, ItemField, StarterItem
from app.characters.rolling import Odds, RollOutcome, RollRequest, Target, bad
from app.characters.sheets import (
    Derived,
    FieldSpec,
    ItemLike,
    SheetView,
    percent,
    section,
    signed,
    whole,
)
from app.characters.systems.protocol import OneSheet, SheetDefaults, SheetPartials
from app.i18n import N_, gettext
from app.rules import pf2e
from app.rules.dice import Roller
from app.rules.pf2e.checks import RECALL_SKILLS, SECRET_ACTIONS
from app.rules.pf2e.modifiers import PROFICIENCY

KEY = "pf2e"

ATTRS = tuple((a.value, f"{a.label} ({a.abbreviation})") for a in pf2e.Attribute)
RANKS = tuple((r.value, r.label) for r in pf2e.Rank)
RANK_KEYS = frozenset(r.value for r in pf2e.Rank)
ATTRIBUTE_KEYS = frozenset(a.value for a in pf2e.Attribute)
#: The skills of the German core rules and their key attributes.
SKILLS: dict[str, str] = {
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
PROFICIENCIES: dict[str, str] = {
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
EQUIP_SLOTS = {"weapon": N_("weapon"), "armour": N_("armour")}


def _fields() -> list[FieldSpec]:
    out = [
        FieldSpec("level", "Stufe", minimum=-1, maximum=25),
        FieldSpec("hp", "TP", minimum=-999, maximum=9999),
        FieldSpec("hp_max", N_("TP max"), minimum=0, maximum=9999),
        FieldSpec("wounded", "Verwundet", minimum=0, maximum=3),
        FieldSpec("doomed", "Todgeweiht", minimum=0, maximum=3),
        FieldSpec("dead", N_("Dead"), "bool"),
        FieldSpec("spell_attribute", "Zauberattribut", "choice", choices=ATTRS),
    ]
    out += [
        FieldSpec(f"attributes.{k}", label, minimum=-5, maximum=10, group="attributes")
        for k, label in ATTRS
    ]
    rolls = {
        "perception": "perception",
        "fortitude": "save:fortitude",
        "reflex": "save:reflex",
        "will": "save:will",
        "spellcasting": "spell",
    }
    out += [
        FieldSpec(f"ranks.{k}", label, "choice", choices=RANKS, group="ranks", roll=rolls.get(k))
        for k, label in PROFICIENCIES.items()
    ]
    out += [
        FieldSpec(
            f"skills.{name}",
            f"{name} ({pf2e.Attribute(attr).abbreviation})",
            "choice",
            choices=RANKS,
            group="pf2e_skills",
            roll=f"skill:{name}",
        )
        for name, attr in SKILLS.items()
    ]
    return out


class PF2eSheetData(TypedDict, total=False):
    """A PF2e sheet's JSON (``Character.data``): what :meth:`PF2eSystem.default_data`
    writes, plus stat block values the GM fixed. Sheets from before a field existed may
    lack it."""

    level: int
    hp: int
    hp_max: int
    wounded: int
    doomed: int
    dead: bool
    spell_attribute: str
    #: Attribute key (``app.rules.pf2e.Attribute``) → modifier.
    attributes: dict[str, int]
    #: Proficiency → rank key (``untrained`` … ``legendary``).
    ranks: dict[str, str]
    #: Skill → rank key.
    skills: dict[str, str]
    #: Stat block values the GM fixed for fights (``app.encounters.statblocks.pf2e``).
    statblock: dict[str, object]


class StrikeStrength(TypedDict):
    """Stärke on a Strike's damage and how the Strike delivers it (pf2e.md §3)."""

    staerke: int
    lieferung: str


def _default() -> PF2eSheetData:
    return {
        "level": 1,
        "hp": 15,
        "hp_max": 15,
        "wounded": 0,
        "doomed": 0,
        "dead": False,
        "spell_attribute": "intelligence",
        "attributes": {a.value: 0 for a in pf2e.Attribute},
        "ranks": {
            **dict.fromkeys(PROFICIENCIES, "untrained"),
            "perception": "trained",
            "fortitude": "trained",
            "reflex": "trained",
            "will": "trained",
            "unarmored": "trained",
            "simple": "trained",
            "unarmed": "trained",
        },
        "skills": dict.fromkeys(SKILLS, "untrained"),
    }


def _attr(data: Mapping[str, object], name: str) -> int:
    return whole(section(data, "attributes").get(name, 0))


def _rank(data: Mapping[str, object], name: str) -> str:
    rank = section(data, "ranks").get(name, "untrained")
    return rank if isinstance(rank, str) and rank in RANK_KEYS else "untrained"


def statistic(
    data: Mapping[str, object], items: Sequence[ItemLike], target: str
) -> pf2e.Statistic | None:
    """The engine statistic for a rollable/derived target, or ``None`` if unknown."""
    level = whole(data.get("level", 1))
    kind, _, name = target.partition(":")
    if kind == "secret":
        inner = _secret_statistic_key(name)
        return None if inner is None else statistic(data, items, inner)
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
    if kind == "skill" and name in SKILLS:
        rank = section(data, "skills").get(name, "untrained")
        return pf2e.skill(
            name,
            SKILLS[name],
            level=level,
            rank=rank if isinstance(rank, str) and rank in RANK_KEYS else "untrained",
            attribute_modifier=_attr(data, SKILLS[name]),
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
            rank=_rank(data, category if category in PROFICIENCIES else "light"),
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
            rank=_rank(data, category if category in PROFICIENCIES else "simple"),
            strength_modifier=_attr(data, "strength"),
            dexterity_modifier=_attr(data, "dexterity"),
            finesse="finesse" in traits,
            item_bonus=int(f.get("item_bonus", 0)),
        )
    return None


def strike_strength(data: Mapping[str, object], weapon: ItemLike) -> StrikeStrength:
    """What a Strike with ``weapon`` needs for the Stärke part of its damage (pf2e.md §3)."""
    f = weapon.fields or {}
    delivery = pf2e.delivery_of(
        str(f.get("traits", "")).split(","), ranged=bool(f.get("ranged", False))
    )
    return {"staerke": _attr(data, "strength"), "lieferung": delivery.value}


def is_agile(items: Sequence[ItemLike], weapon_id: str) -> bool:
    weapon = next((i for i in items if str(i.id) == weapon_id), None)
    if weapon is None:
        return False
    traits = {t.strip().lower() for t in str((weapon.fields or {}).get("traits", "")).split(",")}
    return "agil" in traits or "agile" in traits


def _source_label(modifier: pf2e.Modifier) -> str:
    """A modifier's source as the reader's language names it: the proficiency bonus with its
    rank (a rule term: ``Proficiency bonus (Geübt)``); other sources are rule terms or names."""
    if modifier.type == PROFICIENCY and modifier.source.endswith(")"):
        rank = modifier.source[modifier.source.find("(") + 1 : -1]
        return gettext("Proficiency bonus (%(rank)s)", rank=rank)
    return modifier.source


def _breakdown(stat: pf2e.Statistic) -> tuple[tuple[str, str], ...]:
    b = stat.breakdown
    parts = tuple((_source_label(m), signed(m.value)) for m in b.applied)
    ignored = tuple((i.label, gettext("ignored")) for i in b.ignored)
    return parts + ignored


def _view(data: Mapping[str, object], items: Sequence[ItemLike]) -> SheetView:
    derived: list[Derived] = []

    def add(key: str, target: str, *, dc: bool = True, as_dc: bool = False) -> None:
        stat = statistic(data, items, target)
        if stat is None:
            return
        value = str(stat.dc) if as_dc else signed(stat.modifier)
        derived.append(
            Derived(
                key,
                stat.name,
                value,
                _breakdown(stat),
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
    for name in SKILLS:
        add(f"skill:{name}", f"skill:{name}")
    conditions = tuple(
        f"{label} {whole(data.get(key) or 0)}"
        for key, label in (("wounded", "verwundet"), ("doomed", "todgeweiht"))
        if whole(data.get(key) or 0)
    )
    return SheetView(tuple(derived), conditions=conditions)


def cross_check(data: Mapping[str, object]) -> dict[str, str]:
    """Current TP at most the maximum."""
    if whole(data.get("hp", 0)) > whole(data.get("hp_max", 0)):
        return {"hp": gettext("At most the maximum (%(max)d).", max=whole(data.get("hp_max", 0)))}
    return {}


# --- inventory ------------------------------------------------------------------------------


def equip_problem(items: Sequence[ItemLike], item: ItemLike, slot: str) -> str | None:
    """Weapons in the weapon slot, one armour worn."""
    if slot not in EQUIP_SLOTS:
        return gettext("Choose one of the listed values.")
    kind = (item.fields or {}).get("kind")
    if slot == "armour":
        if kind != "armour":
            return gettext("Only armour can be worn.")
        if any(o.equipped and o.slot == "armour" for o in items if o.id != item.id):
            return gettext("Take off the other armour first.")
    if slot == "weapon" and kind != "weapon":
        return gettext("Only weapons go into a weapon slot.")
    return None


# --- items ---------------------------------------------------------------------------------

ITEM_FIELDS = (
    KIND_FIELD,
    ItemField("damage", N_("Damage die"), "text"),
    ItemField(
        "category",
        N_("Category"),
        "choice",
        (
            ("simple", "Einfach"),
            ("martial", "Kriegswaffe"),
            ("advanced", "Fortgeschritten"),
            ("unarmed", "Waffenlos"),
            ("unarmored", "Ungerüstet"),
            ("light", "Leicht"),
            ("medium", "Mittelschwer"),
            ("heavy", "Schwer"),
        ),
    ),
    ItemField("traits", N_("Traits"), "text"),
    ItemField("ranged", N_("Ranged"), "bool"),
    ItemField("range_increment", N_("Range increment (m)"), minimum=0, maximum=500),
    ItemField("two_handed", N_("Two-handed"), "bool"),
    ItemField("item_bonus", N_("Item bonus"), minimum=0, maximum=3),
    ItemField("ac_bonus", N_("RK bonus"), minimum=0, maximum=10),
    ItemField("dex_cap", N_("Dex cap"), minimum=0, maximum=10),
)


def _weapon(key: str, name: str, damage: str, category: str, traits: str) -> StarterItem:
    """A melee weapon of the sample starter list."""
    fields: dict[str, object] = dict(kind="weapon", damage=damage, category=category, traits=traits)
    return StarterItem(f"pf2e:{key}", name, fields, sample=True)


def _armour(key: str, name: str, category: str, ac_bonus: int, dex_cap: int) -> StarterItem:
    """A suit of armour of the sample starter list."""
    fields: dict[str, object] = dict(
        kind="armour", category=category, ac_bonus=ac_bonus, dex_cap=dex_cap
    )
    return StarterItem(f"pf2e:{key}", name, fields, sample=True)


STARTERS = [
    _weapon("langschwert", "Langschwert", "1W8", "martial", "Vielseitig S"),
    _weapon("dolch", "Dolch", "1W4", "simple", "Agil, Finesse"),
    _weapon("rapier", "Rapier", "1W6", "martial", "Finesse"),
    StarterItem(
        "pf2e:kurzbogen",
        "Kurzbogen",
        {
            "kind": "weapon",
            "damage": "1W6",
            "category": "martial",
            "ranged": True,
            "range_increment": 18,
            "two_handed": True,
        },
        sample=True,
    ),
    _armour("lederruestung", "Lederrüstung", "light", 1, 4),
    _armour("kettenhemd", "Kettenhemd", "medium", 4, 1),
    _armour("ritterruestung", "Ritterrüstung", "heavy", 6, 0),
    StarterItem("pf2e:heiltrank", "Heiltrank (schwach)", {"kind": "other"}, sample=True),
]


# --- rolls ---------------------------------------------------------------------------------


def roll_targets(data: Mapping[str, object], items: Sequence[ItemLike]) -> list[Target]:
    keys = ["perception", "save:fortitude", "save:reflex", "save:will", "spell"]
    keys += [f"attack:{i.id}" for i in items if i.equipped and i.slot == "weapon"]
    keys += [f"skill:{s}" for s in section(data, "skills")]
    keys += ["secret:search", "secret:sense_motive"]
    keys += [f"secret:recall:{s}" for s in sorted(RECALL_SKILLS)]
    out: list[Target] = []
    for key in keys:
        stat = statistic(data, items, key)
        if stat is not None:
            out.append(Target(key, _roll_label(key, stat)))
    return out


def _roll_label(key: str, stat: pf2e.Statistic) -> str:
    """A secret action is named with its statistic: «Wissen abrufen (Arkane Künste)»."""
    kind, _, rest = key.partition(":")
    if kind != "secret":
        return stat.name
    return f"{SECRET_ACTIONS[rest.partition(':')[0]]} ({stat.name})"


def _secret_statistic_key(name: str) -> str | None:
    """The statistic behind a secret action target (``secret:<action>[:<skill>]``)."""
    action, _, skill = name.partition(":")
    if action in ("search", "sense_motive") and not skill:
        return "perception"
    if action == "recall" and skill in RECALL_SKILLS:
        return f"skill:{skill}"
    return None


def roll_visibility(req: RollRequest, settings: Mapping[str, object]) -> str:
    """Checks the rules make secret (``SECRET_ACTIONS``) are a Verdeckter Wurf while the
    campaign's ``secret_checks`` is «secret» (the default); with «open» the roller chooses."""
    secret = req.target.startswith("secret:") and settings.get("secret_checks") != "open"
    return "gm" if secret else req.visibility


def degree_odds(
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


def _check_setup(
    data: Mapping[str, object], items: Sequence[ItemLike], req: RollRequest
) -> tuple[pf2e.Statistic, list[pf2e.Modifier], bool]:
    stat = statistic(data, items, req.target)
    if stat is None or req.target == "ac":
        raise bad("target", gettext("Choose a value of this sheet."))
    extra: list[pf2e.Modifier] = []
    if req.modifier:
        extra.append(pf2e.Modifier("Modifikator", "untyped", req.modifier))
    is_attack = req.target.startswith("attack:")
    if is_attack:
        if not 1 <= req.attack_number <= 3:
            raise bad("attack_number", gettext("Between %(min)d and %(max)d.", min=1, max=3))
        agile = is_agile(items, req.target.partition(":")[2])
        mapm = pf2e.map_modifier(req.attack_number, agile)
        if mapm is not None:
            extra.append(mapm)
    if req.dc is not None and not -10 <= req.dc <= 80:
        raise bad("dc", gettext("Between %(min)d and %(max)d.", min=-10, max=80))
    return stat, extra, is_attack


def _check_odds(data: Mapping[str, object], items: Sequence[ItemLike], req: RollRequest) -> Odds:
    stat, extra, is_attack = _check_setup(data, items, req)
    modifier = stat.with_modifiers(extra).modifier
    if req.dc is None:
        return Odds(gettext("Modifier %(m)s — give a SG to see the chance.", m=f"{modifier:+d}"))
    dist = degree_odds(modifier, req.dc, fortune=req.fortune, misfortune=req.misfortune)
    success = sum((p for d, p in dist.items() if d.is_success), Fraction(0))
    return Odds(
        gettext("Success chance: %(p)s", p=percent(success)),
        tuple(
            (d.attack_label if is_attack else d.label, percent(dist[d]))
            for d in sorted(dist, reverse=True)
        ),
    )


def _check_roll(
    roller: Roller, data: Mapping[str, object], items: Sequence[ItemLike], req: RollRequest
) -> RollOutcome:
    stat, extra, is_attack = _check_setup(data, items, req)
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
        label=_roll_label(req.target, stat),
        expression=f"{len(die.faces)}W20",
        dice=result.dice,
        modifier=result.modifier,
        total=result.total,
        summary=result.describe(attack=is_attack),
        outcome=outcome,
    )


# --- combat --------------------------------------------------------------------------------


def combat_statblock(data: Mapping[str, object], items: Sequence[ItemLike]) -> dict[str, object]:
    def modifier(target: str) -> int:
        stat = statistic(data, items, target)
        return stat.modifier if stat is not None else 0

    armor = statistic(data, items, "ac")
    strikes = []
    for item in items:
        if not item.equipped or item.fields.get("kind") != "weapon":
            continue
        attack = statistic(data, items, f"attack:{item.id}")
        if attack is None:
            continue
        strikes.append(
            {
                "name": item.name,
                "bonus": attack.modifier,
                "schaden": str(item.fields.get("damage") or "1W4"),
                **strike_strength(data, item),
                "agil": is_agile(items, str(item.id)),
                "fernkampf": bool(item.fields.get("ranged", False)),
                "entfernung": float(item.fields.get("range_increment") or 0),
                "merkmale": str(item.fields.get("traits", "")),
            }
        )
    return {
        "stufe": whole(data.get("level", 1)),
        "wahrnehmung": modifier("perception"),
        "rk": armor.dc if armor is not None else 10,
        "zaehigkeit": modifier("save:fortitude"),
        "reflex": modifier("save:reflex"),
        "wille": modifier("save:will"),
        "tp": whole(data.get("hp_max", 15)),
        #: Verwundet and Todgeweiht outlast a fight (docs/rules/pf2e.md §9).
        "verwundet": whole(data.get("wounded") or 0),
        "todgeweiht": whole(data.get("doomed") or 0),
        "angriffe": strikes,
        #: The spell attack modifier (its Zauber-SG is 10 more), if the sheet casts at all.
        "zauberangriff": modifier("spell") if _rank(data, "spellcasting") != "untrained" else None,
    }


#: The sheet's values a fight changes and writes back (docs/rules/pf2e.md, "One figure"): hit
#: points, Verwundet and Todgeweiht (which outlast the fight) and death. «Sterbend» is the
#: fight's: the sheet has no field for it (project decision, documented there).
SHEET_STATE = ("hp", "wounded", "doomed", "dead")


def combat_values(data: Mapping[str, object]) -> dict[str, object]:
    """What a fight takes from the sheet at every step: current and maximum HP, Verwundet,
    Todgeweiht, dead — what the sheet holds; a maximum the GM fixed in the sheet's
    ``statblock`` stays the stat block's."""
    block = data.get("statblock")
    fixed: Mapping[str, object] = block if isinstance(block, Mapping) else {}
    values: dict[str, object] = {
        "hp": whole(data.get("hp") or 0),
        "wounded": whole(data.get("wounded") or 0),
        "doomed": whole(data.get("doomed") or 0),
        "dead": bool(data.get("dead", False)),
    }
    out = {k: v for k, v in values.items() if k in data}
    if "hp_max" in data and "tp" not in fixed:
        out["hp_max"] = whole(data["hp_max"])
    return out


def sheet_values(data: Mapping[str, object], values: Mapping[str, object]) -> dict[str, object]:
    """Sheet field → value for what a fight changed, for the fields the sheet holds; death
    also on a sheet made before it had the field."""
    out = {key: values[key] for key in SHEET_STATE if key in values and key in data}
    if values.get("dead"):
        out["dead"] = True
    return out


# --- the system -----------------------------------------------------------------------------


class PF2eSystem(OneSheet, SheetDefaults):
    """Pathfinder 2e as a :class:`~app.characters.systems.protocol.CharacterCore` with an
    inventory, sheet rolls, rests and a combat sheet (no guided checks, no Gefährten): one
    sheet for PCs and NPCs (:class:`~app.characters.systems.protocol.OneSheet`). Where a
    module function already has the protocol's signature, it is the method; it offers no rest
    (:meth:`~app.characters.systems.protocol.SheetDefaults.rest` refuses each)."""

    key = KEY
    equip_slots: Mapping[str, str] = EQUIP_SLOTS
    item_fields = ITEM_FIELDS
    partials = SheetPartials(roll_fields="characters/systems/pf2e/_roll_fields.html")

    def cross_check(self, data: Mapping[str, object], items: Sequence[ItemLike]) -> dict[str, str]:
        return cross_check(data)

    def follow_up(
        self, before: Mapping[str, object], data: dict[str, object], touched: Sequence[str]
    ) -> list[str]:
        return []

    def starter_items(self) -> list[StarterItem]:
        return list(STARTERS)

    def equip_problem(
        self, data: Mapping[str, object], items: Sequence[ItemLike], item: ItemLike, slot: str
    ) -> str | None:
        return equip_problem(items, item, slot)

    roll_targets = staticmethod(roll_targets)
    odds = staticmethod(_check_odds)
    roll_visibility = staticmethod(roll_visibility)
    roll = staticmethod(_check_roll)
    combat_statblock = staticmethod(combat_statblock)

    def combat_values(
        self, data: Mapping[str, object], items: Sequence[ItemLike]
    ) -> dict[str, object]:
        return combat_values(data)

    sheet_values = staticmethod(sheet_values)


SYSTEM = PF2eSystem(_fields, _default, _view)
