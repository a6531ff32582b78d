"""Creatures from other tools: a Foundry pf2e NPC or a Foundry ds4 creature, converted into a
stat block of our bestiary and checked like one the GM typed (``docs/imports.md``). Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from app.core import foundry as f
from app.core.imports import Report
from app.errors import ValidationFailed
from app.i18n import _

if TYPE_CHECKING:
    from app.encounters.systems.pf2e_figures import PF2eStrikeData

MAX_STRIKES = 6


def _bad(message: str) -> ValidationFailed:
    return ValidationFailed({"file": message})


def convert(document: Any, campaign_system: str) -> tuple[str, dict[str, object], Report]:
    """The creature's name, stat block and report; 422 at ``file`` for anything else."""
    actor = f.foundry_actor(document)
    if actor is None:
        raise _bad(_("This is not a Foundry actor of the pf2e or ds4 system."))
    if actor.system != campaign_system:
        raise _bad(
            _(
                "This creature belongs to %(file)s, the campaign plays %(campaign)s.",
                file=actor.system,
                campaign=campaign_system,
            )
        )
    if actor.type not in ("npc", "creature"):
        raise _bad(_("This is a character: import it on the characters page."))
    name, block, report = CONVERTERS[actor.system](actor)
    return name, block, report


# --- Foundry pf2e NPC -----------------------------------------------------------------------


def _damage(rolls: Any) -> str:
    """``{id: {damage: "1d6+2", damageType: …}, …}`` → ``1W6+2`` (several rolls summed)."""
    parts = [
        f.german_dice(str(r.get("damage", "")).replace(" ", ""))
        for r in (rolls.values() if isinstance(rolls, Mapping) else [])
        if isinstance(r, Mapping) and r.get("damage")
    ]
    return "+".join(p for p in parts if p) or "1W4"


def _range_feet(traits: list[str], values: Mapping[str, Any]) -> int:
    for trait in traits:
        for prefix in ("range-increment-", "range-"):
            if trait.startswith(prefix) and trait.removeprefix(prefix).isdigit():
                return int(trait.removeprefix(prefix))
    return f.number(f.dig(values, "range", "increment"), 0)


def _strike(item: Mapping[str, Any], n: int, report: Report) -> PF2eStrikeData:
    v = f.item_values(item)
    name = str(item.get("name") or _("Strike"))[:60]
    traits = [str(t) for t in f.dig(v, "traits", "value", default=[]) or []]
    feet = _range_feet(traits, v)
    ranged = feet > 0 or f.dig(v, "weaponType", "value") == "ranged"
    strike: PF2eStrikeData = {
        "name": name,
        "bonus": f.number(f.dig(v, "bonus", "value")),
        "schaden": _damage(v.get("damageRolls")),
        "agil": "agile" in traits,
        "fernkampf": ranged,
        "entfernung": f.feet_to_metres(feet) if ranged else 0,
        "merkmale": ", ".join(f.pf2e_trait(t) for t in traits)[:200],
    }
    report.convert(f"items.{n}", name, ", ".join(traits), strike["schaden"])
    return strike


def _perception(v: Mapping[str, Any]) -> int:
    found = f.dig(v, "perception", "mod")
    return f.number(found if found is not None else f.dig(v, "attributes", "perception", "value"))


def from_pf2e_npc(actor: f.FoundryActor) -> tuple[str, dict[str, object], Report]:
    report = Report()
    v = actor.values
    block: dict[str, object] = {
        "stufe": f.number(f.dig(v, "details", "level", "value"), 1),
        "wahrnehmung": _perception(v),
        "rk": f.number(f.dig(v, "attributes", "ac", "value"), 10),
        "zaehigkeit": f.number(f.dig(v, "saves", "fortitude", "value")),
        "reflex": f.number(f.dig(v, "saves", "reflex", "value")),
        "wille": f.number(f.dig(v, "saves", "will", "value")),
        "tp": max(1, f.number(f.dig(v, "attributes", "hp", "max"), 1)),
    }
    for key, label in (("stufe", "Stufe"), ("wahrnehmung", "Wahrnehmung"), ("rk", "RK"),
                       ("zaehigkeit", "Zähigkeit"), ("reflex", "Reflex"), ("wille", "Wille"),
                       ("tp", "TP")):  # fmt: skip
        report.take(key, label, block[key])
    traits = [str(t) for t in f.dig(v, "traits", "value", default=[]) or []]
    block["merkmale"] = ", ".join(traits)[:200]
    report.take("system.traits.value", "Merkmale", block["merkmale"])
    strikes: list[PF2eStrikeData] = []
    for n, item in enumerate(actor.items):
        if item.get("type") == "melee" and len(strikes) < MAX_STRIKES:
            strikes.append(_strike(item, n, report))
        else:
            report.skip(
                f"items.{n}",
                str(item.get("name") or ""),
                _("Stored in Foundry as a %(kind)s item; not in our stat block.",
                  kind=str(item.get("type"))),
            )  # fmt: skip
    block["angriffe"] = strikes
    for key, label in (("skills", _("Skills")), ("attributes.speed", _("Speed"))):
        if f.dig(v, *key.split(".")):
            report.skip(f"system.{key}", label, _("Our stat block has no field for it."))
    return actor.name, block, report


# --- Foundry ds4 creature -------------------------------------------------------------------


def _value(v: Mapping[str, Any], group: str, key: str) -> int:
    return f.number(f.dig(v, group, key, "base")) + f.number(f.dig(v, group, key, "mod"))


def _mod(v: Mapping[str, Any], key: str) -> int:
    return f.number(f.dig(v, "combatValues", key, "mod"))


def _equipped(actor: f.FoundryActor, kind: str) -> list[Mapping[str, Any]]:
    return [i for i in actor.items if i.get("type") == kind and f.item_values(i).get("equipped")]


def _weapon(actor: f.FoundryActor, ranged: bool) -> Mapping[str, Any] | None:
    wanted = ("ranged", "meleeRanged") if ranged else ("melee", "meleeRanged")
    found = [w for w in _equipped(actor, "weapon") if f.item_values(w).get("attackType") in wanted]
    return found[0] if found else None


def from_ds4_creature(actor: f.FoundryActor) -> tuple[str, dict[str, object], Report]:
    """DS4's Kampfwerte from attributes, traits, equipment and the modifiers Foundry keeps
    (Foundry stores the sources, not the totals): as the rules compute them (ds4.md §3)."""
    report = Report()
    v = actor.values
    body, mobility, mind = (_value(v, "attributes", k) for k in ("body", "mobility", "mind"))
    st, ha, be, ge = (_value(v, "traits", k) for k in ("strength", "constitution", "agility",
                                                       "dexterity"))  # fmt: skip
    armour = sum(
        f.number(f.item_values(i).get("armorValue"))
        for kind in ("armor", "shield")
        for i in _equipped(actor, kind)
    )
    melee, ranged = _weapon(actor, False), _weapon(actor, True)
    melee_v = f.item_values(melee) if melee else {}
    ranged_v = f.item_values(ranged) if ranged else {}
    block: dict[str, object] = {
        "lk": max(1, body + ha + 10 + _mod(v, "hitPoints")),
        "koerper": body,
        "abwehr": body + ha + armour + _mod(v, "defense"),
        "initiative": mobility + be + _mod(v, "initiative"),
        "laufen": mobility / 2 + 1 + _mod(v, "movement"),
        "schlagen": body + st + f.number(melee_v.get("weaponBonus")) + _mod(v, "meleeAttack"),
        "schiessen": (mobility + ge + f.number(ranged_v.get("weaponBonus"))
                      + _mod(v, "rangedAttack")) if ranged else 0,
        "zielzauber": mind + ge + _mod(v, "targetedSpellcasting"),
        "waffe": str(melee.get("name")) if melee else _("Attack"),
        "ga": f.number(melee_v.get("opponentDefense")),
        "fernwaffe": str(ranged.get("name")) if ranged else "",
        "fern_ga": f.number(ranged_v.get("opponentDefense")),
        "beute": str(f.dig(v, "baseInfo", "loot", default="") or "")[:200],
    }  # fmt: skip
    source = _("from attributes, traits, equipment and modifiers")
    for key, label in (("lk", "LK"), ("abwehr", "Abwehr"), ("initiative", "Initiative"),
                       ("laufen", "Laufen"), ("schlagen", "Schlagen"), ("schiessen", "Schießen"),
                       ("zielzauber", "Zielzauber")):  # fmt: skip
        report.convert(f"system.combatValues.{key}", label, source, block[key])
    report.take("system.attributes.body", "KÖR", body)
    for n, item in enumerate(actor.items):
        if item.get("type") not in ("weapon", "armor", "shield"):
            report.skip(f"items.{n}", str(item.get("name") or ""),
                        _("Stored in Foundry as a %(kind)s item; not in our stat block.",
                          kind=str(item.get("type"))))  # fmt: skip
    return actor.name, block, report


CONVERTERS: dict[str, Callable[[f.FoundryActor], tuple[str, dict[str, object], Report]]] = {
    "pf2e": from_pf2e_npc,
    "ds4": from_ds4_creature,
}
