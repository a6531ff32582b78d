"""The rule systems in combat (interface: ``systems.protocol.CombatCore``, and the
capabilities each adapter has beside it), by system key; ``app.wiring`` registers each
system's module."""

from __future__ import annotations

from app.encounters.systems.protocol import CombatCore

SYSTEMS: dict[str, CombatCore] = {}


def system(name: str) -> CombatCore:
    return SYSTEMS[name]
