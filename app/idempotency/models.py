from __future__ import annotations

from datetime import datetime

from sqlalchemy import Integer, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, UTCDateTime, owned_by, utcnow


class IdempotentRequest(Base):
    """The answer to one creating request, remembered under the caller's idempotency key.

    Written in the same transaction as what the request created, once it answered, so a
    rollback forgets both. ``status`` is NULL only in the row of a request that claimed its
    key before it answered, as requests did until 2026-12-07, while it still runs.
    """

    __tablename__ = "idempotent_request"

    user_id: Mapped[int] = owned_by("user_account.id", primary_key=True)
    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    #: SHA-256 of method, path and body (see ``app.idempotency.service.fingerprint``).
    fingerprint: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, index=True)
    status: Mapped[int | None] = mapped_column(Integer)
    #: The response headers worth replaying (content type, location, HTMX headers), as JSON.
    headers: Mapped[str | None] = mapped_column(Text)
    body: Mapped[bytes | None] = mapped_column(LargeBinary)
