"""Bestiary entries, encounters, their participants and the running combat's state."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from sqlalchemy import JSON, Boolean, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.campaigns.columns import CampaignOwned, Edited, Stamped
from app.db import Base, UTCDateTime, owned_by, refers_to, utcnow


class ParticipantLike(Protocol):
    """What a participant is copied from: another participant, a participant's document."""

    name: str
    side: str
    hidden: bool
    position: int


class BestiaryEntry(CampaignOwned, Stamped, Base):
    """An NSC/monster stat block of one system; ``data`` follows its system's
    ``statblocks.StatBlockRules``."""

    __tablename__ = "bestiary_entry"

    system: Mapped[str] = mapped_column(String(8))
    name: Mapped[str] = mapped_column(String(100))
    data: Mapped[dict[str, object]] = mapped_column(JSON, default=dict)
    #: Starter monster shipped with the app (sample data), not made by the GM.
    sample: Mapped[bool] = mapped_column(Boolean, default=False)


class Encounter(CampaignOwned, Edited, Base):
    """A prepared fight and, once started, its combat state (``state``, see ``combat``).

    The GM's undo steps are rows of their own (:class:`UndoStep`); ``version`` guards
    every change (a stale write gets 409), an undo step's too.
    """

    __tablename__ = "encounter"

    name: Mapped[str] = mapped_column(String(100))
    notes: Mapped[str] = mapped_column(Text, default="")
    #: prepared, running, ended
    status: Mapped[str] = mapped_column(String(10), default="prepared")
    settings: Mapped[dict[str, object]] = mapped_column(JSON, default=dict)
    state: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class UndoStep(Base):
    """One step of an encounter's undo history: the combat state before an undoable action
    and the seqs of that action's log events (marked undone when it is undone).

    The order of creation is ``id`` (steps of one encounter are written one at a time,
    under its row lock); at most ``limits.UNDO_STEPS`` are kept, the newest is undone first.
    """

    __tablename__ = "encounter_undo"

    id: Mapped[int] = mapped_column(primary_key=True)
    encounter_id: Mapped[int] = owned_by("encounter.id")
    state: Mapped[dict[str, object]] = mapped_column(JSON)
    seqs: Mapped[list[int]] = mapped_column(JSON, default=list)

    #: Counting, finding the newest and cutting the oldest read this index only.
    __table_args__ = (Index("ix_encounter_undo_encounter_id_id", "encounter_id", "id"),)


class Participant(Base):
    """A figure in an encounter: a player character or a numbered copy of a bestiary entry.

    ``stats`` is the stat block the combat uses (copied from the bestiary entry or taken
    from the character sheet when added); the running values live in the encounter state.
    """

    __tablename__ = "encounter_participant"

    id: Mapped[int] = mapped_column(primary_key=True)
    encounter_id: Mapped[int] = owned_by("encounter.id", index=True)
    character_id: Mapped[int | None] = refers_to("character.id", index=True)
    bestiary_entry_id: Mapped[int | None] = refers_to("bestiary_entry.id", index=True)
    name: Mapped[str] = mapped_column(String(100))
    #: abenteurer, gegner, neutral
    side: Mapped[str] = mapped_column(String(12))
    hidden: Mapped[bool] = mapped_column(Boolean, default=False)
    stats: Mapped[dict[str, object]] = mapped_column(JSON, default=dict)
    position: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    @classmethod
    def like(
        cls,
        figure: ParticipantLike,
        encounter_id: int,
        character_id: int | None,
        bestiary_entry_id: int | None,
        stats: dict[str, object],
    ) -> Participant:
        """A new participant of ``encounter_id`` standing as ``figure`` does (its name, side,
        visibility and place): a copied encounter's, an imported document's."""
        return cls(
            encounter_id=encounter_id,
            character_id=character_id,
            bestiary_entry_id=bestiary_entry_id,
            name=figure.name,
            side=figure.side,
            hidden=figure.hidden,
            stats=stats,
            position=figure.position,
        )
