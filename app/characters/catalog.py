"""Starter items per system and the system fields an item may carry.

DS4 weapons and armour come from the engine's starter data (ds4.md §4, numbers from the
rulebook tables). H&H and PF2e items are sample data (``sample: True``), editable like any
other item: the rules files give no item numbers for them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from app.i18n import N_, gettext
from app.rules import ds4
from app.rules.hh import inventory as hh_inventory

ItemFieldKind = Literal["int", "text", "bool", "choice", "float", "list"]


@dataclass(frozen=True, slots=True)
class ItemField:
    key: str
    label: str
    kind: ItemFieldKind = "int"
    choices: tuple[tuple[str, str], ...] = ()
    minimum: float = -99
    maximum: float = 999


ITEM_FIELDS: dict[str, tuple[ItemField, ...]] = {
    "hh": (
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
    ),
    "ds4": (
        ItemField(
            "kind",
            N_("Kind"),
            "choice",
            (("weapon", N_("weapon")), ("armour", N_("armour")), ("other", N_("other"))),
        ),
        ItemField("wb", "WB", minimum=-10, maximum=10),
        ItemField("ini", "INI", minimum=-10, maximum=10),
        ItemField("ga", "GA", minimum=-10, maximum=10),
        ItemField("two_handed", "2h", "bool"),
        ItemField("ranged", N_("Ranged"), "bool"),
        ItemField("not_for_dwarves", N_("Not for Zwerge"), "bool"),
        ItemField("wooden", N_("Wooden"), "bool"),
        ItemField("zielzauber", N_("Zielzauber bonus"), minimum=-10, maximum=10),
        ItemField("pa", "PA", minimum=0, maximum=10),
        ItemField(
            "armour_slots",
            N_("Armour slots"),
            "list",
            tuple((s.value, s.value) for s in ds4.Slot),
        ),
        ItemField(
            "material",
            N_("Material"),
            "choice",
            (("", "—"), *((m.value, m.value.title()) for m in ds4.Material)),
        ),
        ItemField("laufen", N_("Laufen malus (m)"), "float", minimum=-5, maximum=0),
    ),
    "pf2e": (
        ItemField(
            "kind",
            N_("Kind"),
            "choice",
            (("weapon", N_("weapon")), ("armour", N_("armour")), ("other", N_("other"))),
        ),
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
        ItemField("two_handed", "2h", "bool"),
        ItemField("item_bonus", N_("Item bonus"), minimum=0, maximum=3),
        ItemField("ac_bonus", N_("RK bonus"), minimum=0, maximum=10),
        ItemField("dex_cap", N_("Dex cap"), minimum=0, maximum=10),
    ),
}


def parse_item_fields(system: str, raw: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """Validate submitted system fields; returns (fields, errors by ``fields.<key>``)."""
    out: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for spec in ITEM_FIELDS[system]:
        if spec.key not in raw:
            continue
        value = raw[spec.key]
        name = f"fields.{spec.key}"
        if value is None or (value == "" and spec.kind not in ("bool", "text")):
            continue
        try:
            if spec.kind == "bool":
                out[spec.key] = (
                    value
                    if isinstance(value, bool)
                    else str(value).lower() in ("1", "true", "on", "yes")
                )
            elif spec.kind in ("int", "float"):
                number = (
                    float(str(value).replace(",", ".")) if spec.kind == "float" else int(str(value))
                )
                if not spec.minimum <= number <= spec.maximum:
                    errors[name] = gettext(
                        "Between %(min)s and %(max)s.", min=spec.minimum, max=spec.maximum
                    )
                    continue
                out[spec.key] = number
            elif spec.kind == "choice":
                if str(value) not in {c[0] for c in spec.choices}:
                    errors[name] = gettext("Choose one of the listed values.")
                    continue
                if value:
                    out[spec.key] = str(value)
            elif spec.kind == "list":
                items = (
                    [str(v).strip() for v in value]
                    if isinstance(value, list)
                    else [v.strip() for v in str(value).split(",")]
                )
                allowed = {c[0] for c in spec.choices}
                bad = [v for v in items if v and v not in allowed]
                if bad:
                    errors[name] = gettext(
                        "Unknown: %(bad)s. Allowed: %(allowed)s.",
                        bad=", ".join(bad),
                        allowed=", ".join(sorted(allowed)),
                    )
                    continue
                out[spec.key] = [v for v in items if v]
            else:
                text = str(value).strip()
                if len(text) > 200:
                    errors[name] = gettext("At most %(max)d characters.", max=200)
                    continue
                out[spec.key] = text
        except ValueError:
            errors[name] = gettext("Enter a number.")
    return out, errors


# --- starter items --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StarterItem:
    key: str
    name: str
    fields: dict[str, Any] = field(default_factory=dict)
    quantity: int = 1
    price: int | None = None
    sample: bool = False


DS4_WEAPON_NAMES = {
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
DS4_ARMOUR_NAMES = {
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


def _ds4_starters() -> list[StarterItem]:
    out: list[StarterItem] = []
    for key, name in DS4_WEAPON_NAMES.items():
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
    for key, name in DS4_ARMOUR_NAMES.items():
        a = ds4.armour(key)
        fields: dict[str, Any] = {
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


_HH_STARTERS = [
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

_PF2E_STARTERS = [
    StarterItem(
        "pf2e:langschwert",
        "Langschwert",
        {"kind": "weapon", "damage": "1W8", "category": "martial", "traits": "Vielseitig S"},
        sample=True,
    ),
    StarterItem(
        "pf2e:dolch",
        "Dolch",
        {"kind": "weapon", "damage": "1W4", "category": "simple", "traits": "Agil, Finesse"},
        sample=True,
    ),
    StarterItem(
        "pf2e:rapier",
        "Rapier",
        {"kind": "weapon", "damage": "1W6", "category": "martial", "traits": "Finesse"},
        sample=True,
    ),
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
    StarterItem(
        "pf2e:lederruestung",
        "Lederrüstung",
        {"kind": "armour", "category": "light", "ac_bonus": 1, "dex_cap": 4},
        sample=True,
    ),
    StarterItem(
        "pf2e:kettenhemd",
        "Kettenhemd",
        {"kind": "armour", "category": "medium", "ac_bonus": 4, "dex_cap": 1},
        sample=True,
    ),
    StarterItem(
        "pf2e:ritterruestung",
        "Ritterrüstung",
        {"kind": "armour", "category": "heavy", "ac_bonus": 6, "dex_cap": 0},
        sample=True,
    ),
    StarterItem("pf2e:heiltrank", "Heiltrank (schwach)", {"kind": "other"}, sample=True),
]


def starter_items(system: str) -> list[StarterItem]:
    if system == "ds4":
        return _ds4_starters()
    if system == "hh":
        return list(_HH_STARTERS)
    return list(_PF2E_STARTERS)


def starter_item(system: str, key: str) -> StarterItem | None:
    return next((s for s in starter_items(system) if s.key == key), None)
