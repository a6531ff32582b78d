"""Helden & Halunken: what the heroes may learn of a creature, by a Probe the GM names."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.i18n import dice_notation, gettext
from app.knowledge.systems.protocol import CheckSetup, Fact, Learned, about, wrong
from app.rules.hh.knowledge import facts_learned

RESISTANCE_WORDS = {"resistant": "resistent", "vulnerable": "verwundbar", "immune": "immun"}
#: The opposite a false fact claims.
RESISTANCE_LIES = {"resistant": "verwundbar", "vulnerable": "resistent", "immune": "verwundbar"}
#: The values the attack forecast needs of its target (``encounters.systems.hh.forecast``).
FORECAST = frozenset({"verteidigung", "rs", "lp", "unbeugsamkeit"})


def _number(key: str, label: str, value: int) -> Fact:
    return Fact(key, label, f"{label} {value}", f"{label} {wrong(value)}")


def _resistances(block: Mapping[str, Any]) -> list[Fact]:
    res = block.get("resistenzen") or {}
    if not res:
        return [
            Fact("res:none", gettext("Resistances"), gettext("no resistances or weaknesses"), "")
        ]
    return [
        Fact(
            f"res:{kind}",
            gettext("Resistances"),
            gettext("%(how)s against %(kind)s", how=RESISTANCE_WORDS[how], kind=kind),
            gettext("%(how)s against %(kind)s", how=RESISTANCE_LIES[how], kind=kind),
        )
        for kind, how in res.items()
        if how in RESISTANCE_WORDS
    ]


class HhKnowledge:
    name = "hh"

    def facts(self, name: str, block: Mapping[str, Any]) -> tuple[Fact, ...]:
        level, danger = block.get("monsterstufe", 0), block.get("gefahr", "")
        kind = f"Monsterstufe {level}" + (f", Gefahr {danger}" if danger else "")
        lp = int(block.get("lp", 0))
        damage = f"W{block.get('schaden_w', 10)}{int(block.get('schaden_bonus', 0)):+d}"
        weapon = gettext(
            "%(skill)s %(value)s with %(weapon)s (%(damage)s)",
            skill="Angriff",
            value=block.get("angriff", 0),
            weapon=block.get("waffe", ""),
            damage=dice_notation(damage),
        )
        out = [
            Fact("name", "Name", name, ""),
            Fact("type", "Monsterstufe", kind, ""),
            Fact("lp", "LP", f"LP {about(lp)}", f"LP {about(wrong(lp))}"),
            _number("rs", "RS", int(block.get("rs", 0))),
            *_resistances(block),
            _number("verteidigung", "Verteidigung", int(block.get("verteidigung", 0))),
            _number("unbeugsamkeit", "Unbeugsamkeit", int(block.get("unbeugsamkeit", 0))),
            Fact("attack", "Angriff", weapon, ""),
        ]
        out += [
            Fact(f"spell:{z['key']}", "Zauber", f"Zauber: {z['name']}", "")
            for z in block.get("zauber") or []
        ]
        return tuple(out)

    def forecast_needs(self, facts: tuple[Fact, ...]) -> frozenset[str]:
        return FORECAST | {f.key for f in facts if f.key.startswith("res:")}

    def check_problem(self, block: Mapping[str, Any], target: str) -> str | None:
        kind, _, skill = target.partition(":")
        named = str(block.get("wissen", "") or "").strip()
        if kind != "skill":
            return gettext("A knowledge check is a Probe on a Fertigkeit.")
        if named and skill != named:
            return gettext("The GM asks for a Probe on %(skill)s.", skill=named)
        return None

    def setup(self, block: Mapping[str, Any], settings: Mapping[str, str]) -> CheckSetup:
        return CheckSetup(dc=None, secret=False)

    def learned(self, outcome: Mapping[str, Any]) -> Learned:
        return Learned(
            facts_learned(success=bool(outcome.get("success")), qs=int(outcome.get("qs", 0)))
        )


RULES = HhKnowledge()
