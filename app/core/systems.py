"""The rule systems: their keys and what the app says of each, the one place naming them all.

:class:`RuleSystem` holds the keys (a campaign's ``system``, a sheet's, a stat block's);
:data:`RULE_SYSTEMS` what every page shows of a system. Everything else is keyed by these: the
per-system registries (listed in ``docs/architecture.md``, «A new rule system») must have
exactly these keys, which ``tests/test_system_seams.py`` checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class RuleSystem(StrEnum):
    hh = "hh"
    ds4 = "ds4"
    pf2e = "pf2e"


@dataclass(frozen=True, slots=True)
class SystemInfo:
    #: The game's name, a proper name shown as it is in every language.
    label: str
    #: What the system calls a figure's hit points (a rule term, shown as it is).
    hit_points: str


#: Every rule system, in the order a choice offers them.
RULE_SYSTEMS: dict[RuleSystem, SystemInfo] = {
    RuleSystem.hh: SystemInfo("Helden & Halunken", "LP"),
    RuleSystem.ds4: SystemInfo("Dungeonslayers 4", "LK"),
    RuleSystem.pf2e: SystemInfo("Pathfinder 2e", "TP"),
}


#: The game's name of every system, for a choice of them.
LABELS: dict[RuleSystem, str] = {key: info.label for key, info in RULE_SYSTEMS.items()}
