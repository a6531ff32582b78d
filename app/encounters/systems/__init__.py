"""Per-system combat adapters with one interface (see ``app.encounters.combat``)."""

from __future__ import annotations

from types import ModuleType

from app.encounters.systems import ds4, hh, pf2e

SYSTEMS: dict[str, ModuleType] = {"hh": hh, "ds4": ds4, "pf2e": pf2e}


def system(name: str) -> ModuleType:
    return SYSTEMS[name]
