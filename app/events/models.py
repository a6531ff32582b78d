from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ColumnElement, Index, String, UniqueConstraint, inspect
from sqlalchemy.ext.hybrid import hybrid_property
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, UTCDateTime, owned_by, refers_to, utcnow


class CampaignEvent(Base):
    """One entry of a campaign's log. ``seq`` is gap-free per campaign."""

    __tablename__ = "campaign_event"
    __table_args__ = (
        UniqueConstraint("campaign_id", "seq"),
        #: The log of one encounter or the history of one sheet, newest first, in SQL.
        Index("ix_campaign_event_subject", "campaign_id", "subject", "seq"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = owned_by("campaign.id")
    seq: Mapped[int]
    type: Mapped[str] = mapped_column(String(40))
    #: What the event is about, ``character:<id>`` or ``encounter:<id>``, else NULL (set from
    #: the payload's ``subject``, see ``app.events.payload``).
    subject: Mapped[str | None] = mapped_column(String(40))
    actor_id: Mapped[int | None] = refers_to("user_account.id")
    #: Who sees what form of it: ``app.events.audience.Audience.to_json()``.
    audience: Mapped[dict[str, object]] = mapped_column(JSON, default=dict)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    #: In a fair-play session: ``{version, session_id, user_id, client_seed, draws, salt,
    #: digest, chain}`` (``docs/fairplay.md``; the salt is sent only with the payload, see
    #: ``app.events.fairplay.shown``); NULL outside one.
    fairplay: Mapped[dict[str, object] | None] = mapped_column(JSON, default=None)

    @hybrid_property
    def visibility(self) -> str:
        """The word the event shows of its audience: public, gm, self or listed (in SQL
        too, for queries that select by it)."""
        return str(self.audience.get("v", "public"))

    @visibility.inplace.expression
    @classmethod
    def _visibility_sql(cls) -> ColumnElement[str]:
        word: ColumnElement[str] = cls.audience["v"].as_string()
        return word


_MANAGER = inspect(CampaignEvent).class_manager


def logged_event(**values: Any) -> CampaignEvent:
    """A row of the log as written, for this process's own use (returned to the writer,
    published at commit, or read from another process's ``NOTIFY``): never added to a
    session, so built without the ORM's attribute events — about 1 µs against the
    constructor's 12, for each of the 22 events a step along a wall may write."""
    event = _MANAGER.new_instance()
    event.__dict__.update(values)
    return event
