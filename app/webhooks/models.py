"""A campaign's webhooks: where to post, what, and how far delivery has come."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, UTCDateTime, owned_by, refers_to, utcnow


class Webhook(Base):
    """One receiver of a campaign's events.

    ``cursor_seq`` is the last log ``seq`` delivered (or passed over as nothing for this
    hook): delivery follows the log from there, in order, at least once. ``lease_until`` and
    ``lease_owner`` let one process at a time deliver for the hook.
    """

    __tablename__ = "webhook"
    __table_args__ = (Index("ix_webhook_campaign_id", "campaign_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = owned_by("campaign.id")
    #: The receiver's URL: a secret (a Discord webhook URL is its own credential).
    url: Mapped[str] = mapped_column(String(2048))
    #: ``discord`` (Discord's message format) or ``json`` (ours, signed).
    kind: Mapped[str] = mapped_column(String(10))
    #: What to post: any of ``rolls``, ``turns``, ``combat``, ``session``.
    events: Mapped[list[str]] = mapped_column(JSON, default=list)
    #: The key of the ``X-Tafelrunde-Signature`` HMAC (hex), shown once at creation.
    secret: Mapped[str] = mapped_column(String(64))
    #: The language of the messages (the creating GM's, ``de`` or ``en``).
    locale: Mapped[str] = mapped_column(String(5))
    created_by: Mapped[int | None] = refers_to("user_account.id")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    cursor_seq: Mapped[int] = mapped_column(Integer, default=0)
    #: The HTTP status of the last attempt (0: no answer), ``None`` before the first.
    last_status: Mapped[int | None] = mapped_column(Integer)
    last_error: Mapped[str | None] = mapped_column(String(200))
    last_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    #: Failed attempts in a row; the wait before the next one doubles with each.
    failures: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    lease_until: Mapped[datetime | None] = mapped_column(UTCDateTime())
    lease_owner: Mapped[str | None] = mapped_column(String(32))
