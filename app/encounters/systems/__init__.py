"""The rule systems in combat, registered once (interface: ``systems.protocol.CombatCore``,
and the capabilities each adapter has beside it)."""

from __future__ import annotations

from app.encounters.systems import ds4, hh, pf2e
from app.encounters.systems.protocol import CombatCore

SYSTEMS: dict[str, CombatCore] = {r.name: r for r in (hh.RULES, ds4.RULES, pf2e.RULES)}


def system(name: str) -> CombatCore:
    return SYSTEMS[name]
