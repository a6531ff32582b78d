from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.campaigns.columns import CampaignOwned, Stamped
from app.db import Base, UTCDateTime, owned_by, utcnow


class Campaign(Stamped, Base):
    __tablename__ = "campaign"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    system: Mapped[str] = mapped_column(String(8))
    settings: Mapped[dict[str, object]] = mapped_column(JSON, default=dict)
    #: Last event sequence number handed out; bumped under this row's lock (gap-free log).
    last_seq: Mapped[int] = mapped_column(default=0)
    #: The open fair-play game session (``app.sessions``), read and written by the log under
    #: the same lock as ``last_seq`` to chain the session's events; NULL when none is open.
    fairplay_session_id: Mapped[int | None] = mapped_column(default=None)
    #: The newest link of that session's hash chain (its commitment before the first event).
    fairplay_chain: Mapped[str | None] = mapped_column(String(64), default=None)


class Membership(Base):
    __tablename__ = "membership"
    __table_args__ = (UniqueConstraint("campaign_id", "user_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = owned_by("campaign.id")
    user_id: Mapped[int] = owned_by("user_account.id", index=True)
    role: Mapped[str] = mapped_column(String(16))
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Invite(CampaignOwned, Base):
    __tablename__ = "invite"

    code: Mapped[str] = mapped_column(String(32), unique=True)
    role: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
