"""Dungeonslayers 4: what the heroes may learn of a creature, by a GEI+VE check."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.i18n import gettext
from app.knowledge.systems.protocol import CheckSetup, Fact, Learned, about, wrong
from app.rules.ds4.knowledge import facts_learned

#: The roll from the sheet a knowledge check is (``characters.systems.ds4`` targets).
CHECK_TARGET = "probe:geist:verstand"
#: The values the attack forecast needs of its target (``encounters.systems.ds4.forecast``).
FORECAST = frozenset({"abwehr", "lk", "koerper"})


def _number(key: str, label: str, value: int) -> Fact:
    return Fact(key, label, f"{label} {value}", f"{label} {wrong(value)}")


def _with_weapon(skill: str, value: object, weapon: object) -> str:
    """``Schlagen 6 with Keule``: a Kampfwert (a rule term) and the weapon, in the reader's
    language."""
    return gettext("%(skill)s %(value)s with %(weapon)s", skill=skill, value=value, weapon=weapon)


class Ds4Knowledge:
    name = "ds4"

    def facts(self, name: str, block: Mapping[str, Any]) -> tuple[Fact, ...]:
        lk = int(block.get("lk", 0))
        out = [
            Fact("name", "Name", name, ""),
            Fact("type", "Stufe", f"Stufe {block.get('stufe', 0)}", ""),
            Fact("lk", "LK", f"LK {about(lk)}", f"LK {about(wrong(lk))}"),
            _number("abwehr", "Abwehr", int(block.get("abwehr", 0))),
            _number("koerper", "KÖR", int(block.get("koerper", 0))),
            Fact(
                "attack",
                "Schlagen",
                _with_weapon("Schlagen", block.get("schlagen", 0), block.get("waffe", "")),
                "",
            ),
        ]
        if int(block.get("schiessen", 0)):
            out.append(
                Fact(
                    "ranged",
                    "Schießen",
                    _with_weapon("Schießen", block.get("schiessen"), block.get("fernwaffe", "")),
                    "",
                )
            )
        if int(block.get("zielzauber", 0)):
            out.append(_number("spell", "Zielzauber", int(block.get("zielzauber", 0))))
        return tuple(out)

    def forecast_needs(self, facts: tuple[Fact, ...]) -> frozenset[str]:
        return FORECAST

    def check_problem(self, block: Mapping[str, Any], target: str) -> str | None:
        if target != CHECK_TARGET:
            return gettext("A knowledge check is a GEI + VE check.")
        return None

    def setup(self, block: Mapping[str, Any], settings: Mapping[str, str]) -> CheckSetup:
        return CheckSetup(dc=None, secret=False)

    def learned(self, outcome: Mapping[str, Any]) -> Learned:
        return Learned(
            facts_learned(
                success=bool(outcome.get("success")), immersieg=bool(outcome.get("immersieg"))
            )
        )


RULES = Ds4Knowledge()
