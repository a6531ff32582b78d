"""The rule systems in combat, registered once (interface: ``systems.protocol.CombatRules``)."""

from __future__ import annotations

from app.encounters.systems import ds4, hh, pf2e
from app.encounters.systems.protocol import CombatRules

SYSTEMS: dict[str, CombatRules] = {r.name: r for r in (hh.RULES, ds4.RULES, pf2e.RULES)}


def system(name: str) -> CombatRules:
    return SYSTEMS[name]
