"""Pathfinder 2e: Wissen abrufen (Recall Knowledge) about a creature."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.i18n import gettext
from app.knowledge.systems.protocol import CheckSetup, Fact, Learned, about, wrong
from app.rules.pf2e.degrees import Degree
from app.rules.pf2e.knowledge import recall_dc, recall_knowledge

#: The values the attack forecast needs of its target (``encounters.systems.pf2e.forecast``).
FORECAST = frozenset({"rk", "tp"})


class Pf2eKnowledge:
    name = "pf2e"

    def facts(self, name: str, block: Mapping[str, Any]) -> tuple[Fact, ...]:
        level = int(block.get("stufe", 0))
        traits = str(block.get("merkmale", "") or "")
        tp, rk = int(block.get("tp", 0)), int(block.get("rk", 0))
        saves = (
            f"Zähigkeit {int(block.get('zaehigkeit', 0)):+d}, "
            f"Reflex {int(block.get('reflex', 0)):+d}, Wille {int(block.get('wille', 0)):+d}"
        )
        out = [
            Fact("name", "Name", name, ""),
            Fact("type", "Merkmale", f"Kreatur {level}" + (f", {traits}" if traits else ""), ""),
            Fact("tp", "TP", f"TP {about(tp)}", f"TP {about(wrong(tp))}"),
            Fact("rk", "RK", f"RK {rk}", f"RK {rk + 4 if rk < 20 else rk - 4}"),
            Fact("saves", "Rettungswürfe", saves, ""),
        ]
        out += [
            Fact(
                f"strike:{i}",
                "Angriff",
                f"{s['name']} {int(s.get('bonus', 0)):+d}, {s.get('schaden', '')}",
                "",
            )
            for i, s in enumerate(block.get("angriffe") or [])
        ]
        return tuple(out)

    def forecast_needs(self, facts: tuple[Fact, ...]) -> frozenset[str]:
        return FORECAST

    def check_problem(self, block: Mapping[str, Any], target: str) -> str | None:
        if not target.startswith("skill:"):
            return gettext("Wissen abrufen is a skill check.")
        return None

    def setup(self, block: Mapping[str, Any], settings: Mapping[str, str]) -> CheckSetup:
        return CheckSetup(
            dc=recall_dc(int(block.get("stufe", 0))),
            secret=settings.get("secret_checks", "secret") == "secret",
        )

    def learned(self, outcome: Mapping[str, Any]) -> Learned:
        degree = outcome.get("degree")
        if degree is None:
            return Learned(0)
        recall = recall_knowledge(Degree(int(degree)))
        return Learned(recall.facts, recall.false_fact)


RULES = Pf2eKnowledge()
