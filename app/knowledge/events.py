"""The bestiary knowledge's event types (``app.knowledge``)."""

from __future__ import annotations

from typing import ClassVar

from app.events.payload import EventPayload, event_type


@event_type("knowledge_revealed")
class KnowledgeRevealed(EventPayload):
    """Facts of a bestiary entry told to the party (``public``, ``to`` empty) or to the
    members in ``to`` (``listed``), by a GM or a knowledge check (``app/knowledge/``)."""

    VISIBILITIES: ClassVar[frozenset[str]] = frozenset({"public", "listed"})

    entry_id: int
    #: ``[{"key", "text"}]``: only the facts told, in their words (never the entry's name
    #: unless ``name`` is among them).
    facts: list[dict[str, str]]
    to: list[int]


@event_type("knowledge_false_pending")
class KnowledgeFalsePending(EventPayload):
    """A critically failed check proposes a false fact; the GMs confirm or replace it."""

    VISIBILITIES: ClassVar[frozenset[str]] = frozenset({"gm"})

    entry_id: int
    fact_id: int
    fact: str
    text: str
    #: The one player it is for; empty: the party.
    to: list[int]


#: The payload classes of this package; ``app.wiring`` registers them.
EVENTS: tuple[type[EventPayload], ...] = (
    KnowledgeRevealed,
    KnowledgeFalsePending,
)
