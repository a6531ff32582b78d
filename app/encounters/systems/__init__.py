"""The rule systems in combat (interface: ``systems.protocol.CombatRules``), by system key;
``app.wiring`` registers each system's module."""

from __future__ import annotations

from app.encounters.systems.protocol import CombatRules

SYSTEMS: dict[str, CombatRules] = {}


def system(name: str) -> CombatRules:
    return SYSTEMS[name]
