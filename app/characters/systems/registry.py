"""The rule systems of the characters domain, registered once, keyed by the campaign's
``system`` (``app.core.systems.RuleSystem``)."""

from __future__ import annotations

from collections.abc import Mapping

from app.characters.systems import ds4, hh, pf2e
from app.characters.systems.protocol import CharacterSystem

SYSTEMS: Mapping[str, CharacterSystem] = {
    system.key: system for system in (hh.SYSTEM, ds4.SYSTEM, pf2e.SYSTEM)
}


def character_system(key: str) -> CharacterSystem:
    """The system a campaign plays (``KeyError`` for a key no campaign can have)."""
    return SYSTEMS[key]
