"""The rule systems' knowledge rules, registered once (interface: ``protocol.KnowledgeRules``)."""

from __future__ import annotations

from app.knowledge.systems import ds4, hh, pf2e
from app.knowledge.systems.protocol import KnowledgeRules

SYSTEMS: dict[str, KnowledgeRules] = {r.name: r for r in (hh.RULES, ds4.RULES, pf2e.RULES)}


def knowledge_rules(name: str) -> KnowledgeRules:
    return SYSTEMS[name]
