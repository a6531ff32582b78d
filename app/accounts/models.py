from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, String
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, UTCDateTime, owned_by, utcnow


class User(Base):
    __tablename__ = "user_account"

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(32))
    #: The login key of the name (NFKC, case-folded: ``app.accounts.service.login_key``):
    #: names are unique regardless of case and width.
    username_key: Mapped[str] = mapped_column(String(32), unique=True)
    email: Mapped[str | None] = mapped_column(String(254))
    password_hash: Mapped[str] = mapped_column(String(255))
    locale: Mapped[str] = mapped_column(String(8), default="de")
    is_active: Mapped[bool] = mapped_column(default=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class UserSession(Base):
    """A login. The cookie/bearer token is never stored, only its SHA-256."""

    __tablename__ = "user_session"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = owned_by("user_account.id", index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    user_agent: Mapped[str | None] = mapped_column(String(255))


class LoginFailure(Base):
    """One failed login; counted per account and per address to throttle guessing."""

    __tablename__ = "login_failure"
    __table_args__ = (
        Index("ix_login_failure_username_key_created_at", "username_key", "created_at"),
        Index("ix_login_failure_address_created_at", "address", "created_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    username_key: Mapped[str] = mapped_column(String(32))
    address: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class ApiToken(Base):
    """A personal API token (``tfr_pat_…``) for scripts: stored as the SHA-256 of the token
    only, like a login session, with what it may do (``docs/api.md``)."""

    __tablename__ = "api_token"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = owned_by("user_account.id", index=True)
    name: Mapped[str] = mapped_column(String(100))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    #: ``read``, ``play`` or ``manage``.
    scope: Mapped[str] = mapped_column(String(10))
    #: The one campaign the token may reach; ``None``: every campaign of its user.
    campaign_id: Mapped[int | None] = owned_by("campaign.id")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    #: Written at most once a minute, outside the request's transaction.
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
