"""The rule systems' knowledge rules (interface: ``protocol.KnowledgeRules``), by system key;
``app.wiring`` registers each system's module."""

from __future__ import annotations

from app.knowledge.systems.protocol import KnowledgeRules

SYSTEMS: dict[str, KnowledgeRules] = {}


def knowledge_rules(name: str) -> KnowledgeRules:
    return SYSTEMS[name]
