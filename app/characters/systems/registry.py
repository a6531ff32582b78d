"""The rule systems of the characters domain, keyed by the campaign's ``system``
(``app.core.systems.RuleSystem``); ``app.wiring`` registers each system's module."""

from __future__ import annotations

from app.characters.systems.protocol import CharacterSystem

SYSTEMS: dict[str, CharacterSystem] = {}


def character_system(key: str) -> CharacterSystem:
    """The system a campaign plays (``KeyError`` for a key no campaign can have)."""
    return SYSTEMS[key]
