"""Game sessions, the members' client seeds and each campaign's fair-play rule.

A session owns the events of its campaign log from ``start_seq`` (its ``session_started``
event) to ``end_seq`` (its ``session_ended`` event; NULL while it is open). At most one
session per campaign is open: starting one takes the campaign row's lock (the log's lock)
and checks. ``campaign.fairplay_session_id`` names the open fair-play session, so that the
log (``app.events.service.append_event``) chains its events without a query of its own.
"""

from __future__ import annotations

from datetime import datetime
from typing import NotRequired, TypedDict

from sqlalchemy import JSON, Boolean, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.campaigns.columns import Versioned
from app.db import Base, UTCDateTime, owned_by, refers_to, utcnow


class Origin(TypedDict):
    """What an imported session's dice and chain were made from: the original campaign and
    session ids, and its events' payloads as they were hashed (``seq`` as text → payload,
    opaque JSON; a document may leave them out)."""

    campaign_id: int
    session_id: int
    payloads: NotRequired[dict[str, object]]


class GameSession(Base):
    __tablename__ = "game_session"
    __table_args__ = (Index("ix_game_session_campaign_id_start_seq", "campaign_id", "start_seq"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = owned_by("campaign.id")
    started_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    started_by: Mapped[int | None] = refers_to("user_account.id")
    start_seq: Mapped[int] = mapped_column(Integer)
    end_seq: Mapped[int | None] = mapped_column(Integer)
    #: Fair play: the commitment (SHA-256 hex of the seed), the seed (32 bytes as hex,
    #: published only at the end), and the table rule as it was at the start.
    commitment: Mapped[str | None] = mapped_column(String(64))
    server_seed: Mapped[str | None] = mapped_column(String(64))
    overrides: Mapped[str | None] = mapped_column(String(10))
    reveal_secret_rolls: Mapped[bool] = mapped_column(Boolean, default=False)
    #: An imported session (``app.transfer``): ``{campaign_id, session_id, payloads}``, the
    #: ids its dice were derived from and its events' payloads as they were hashed (``seq``
    #: → payload; the copy's log names its own rows), which the verifiers read; else NULL.
    origin: Mapped[Origin | None] = mapped_column(JSON, default=None)


class ClientSeed(Base):
    """A member's client seed for one session (the default is the empty text)."""

    __tablename__ = "session_client_seed"

    session_id: Mapped[int] = owned_by("game_session.id", primary_key=True)
    user_id: Mapped[int] = owned_by("user_account.id", primary_key=True)
    client_seed: Mapped[str] = mapped_column(String(64))


class FairPlayRule(Versioned, Base):
    """A campaign's fair-play rule; a campaign without a row plays without fair play."""

    __tablename__ = "fairplay_rule"

    campaign_id: Mapped[int] = owned_by("campaign.id", primary_key=True)
    enabled: Mapped[bool] = mapped_column(Boolean, default=False)
    #: ``forbidden``, ``marked`` or ``silent``: what a GM override (LP edit, undo) does.
    overrides: Mapped[str] = mapped_column(String(10), default="marked")
    reveal_secret_rolls: Mapped[bool] = mapped_column(Boolean, default=True)
