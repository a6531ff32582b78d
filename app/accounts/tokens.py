"""Personal API tokens: a user's named keys for scripts and assistants (``docs/api.md``).

A token is ``tfr_pat_`` and 43 random characters; only its SHA-256 is stored. It carries a
scope — ``read`` (every GET and live stream), ``play`` (read, and rolls, combat actions,
moves, chat and the user's own sheets) or ``manage`` (all the user may do but account
settings and tokens) — optionally one campaign and an expiry. It can never do more than its
user: every use case checks the user's role as for a login. Revoking it (or logging out
everywhere) ends its live streams on every process, as a logout does.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from sqlalchemy import func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app import limits
from app.accounts.models import ApiToken, User
from app.accounts.service import end_tokens, token_hash
from app.db import utcnow
from app.errors import NotFound, ValidationFailed
from app.i18n import _

PREFIX = "tfr_pat_"
#: ``last_used_at`` is written at most this often per token.
USE_INTERVAL = timedelta(minutes=1)


class Scope(StrEnum):
    read = "read"
    play = "play"
    manage = "manage"


@dataclass(frozen=True, slots=True)
class Grant:
    """What the token a request came with allows."""

    token_id: int
    scope: Scope
    campaign_id: int | None
    last_used_at: datetime | None

    @property
    def use_to_note(self) -> bool:
        """Whether this use must be written down (``last_used_at`` is a minute old)."""
        return self.last_used_at is None or utcnow() - self.last_used_at >= USE_INTERVAL


def is_api_token(token: str) -> bool:
    return token.startswith(PREFIX)


async def create(
    session: AsyncSession,
    user: User,
    name: str,
    scope: Scope,
    campaign_id: int | None,
    expires_at: datetime | None,
    campaign_ok: bool,
) -> tuple[ApiToken, str]:
    """A new token and its secret (shown once). ``campaign_ok``: the caller checked that the
    user is a member of ``campaign_id`` (campaigns sit above accounts)."""
    errors: dict[str, str] = {}
    if campaign_id is not None and not campaign_ok:
        errors["campaign_id"] = _("You are not a member of this campaign.")
    if expires_at is not None and expires_at <= utcnow():
        errors["expires_at"] = _("Choose a time in the future.")
    count = await session.scalar(
        select(func.count()).select_from(ApiToken).where(ApiToken.user_id == user.id)
    )
    if (count or 0) >= limits.API_TOKENS_PER_USER:
        errors["name"] = _("At most %(count)d tokens.", count=limits.API_TOKENS_PER_USER)
    if errors:
        raise ValidationFailed(errors)
    secret = PREFIX + secrets.token_urlsafe(32)
    token = ApiToken(
        user_id=user.id,
        name=name,
        token_hash=token_hash(secret),
        scope=scope.value,
        campaign_id=campaign_id,
        created_at=utcnow(),
        expires_at=expires_at,
    )
    session.add(token)
    await session.flush()
    return token, secret


async def mine(session: AsyncSession, user: User) -> list[ApiToken]:
    query = select(ApiToken).where(ApiToken.user_id == user.id).order_by(ApiToken.id)
    return list((await session.scalars(query)).all())


async def revoke(session: AsyncSession, user: User, token_id: int) -> None:
    """Delete one of the user's tokens and end its live streams everywhere."""
    revoked = await end_tokens(session, (ApiToken.id == token_id) & (ApiToken.user_id == user.id))
    if not revoked:
        raise NotFound(_("No such token."))


async def user_for_api_token(session: AsyncSession, token: str) -> tuple[User, Grant] | None:
    """The active user behind an unexpired token and what the token allows."""
    query = (
        select(User, ApiToken)
        .join(ApiToken, ApiToken.user_id == User.id)
        .where(
            ApiToken.token_hash == token_hash(token),
            or_(ApiToken.expires_at.is_(None), ApiToken.expires_at > utcnow()),
        )
    )
    row = (await session.execute(query)).first()
    if row is None or not row[0].is_active:
        return None
    user, api_token = row
    grant = Grant(
        api_token.id, Scope(api_token.scope), api_token.campaign_id, api_token.last_used_at
    )
    return user, grant


async def note_use(session: AsyncSession, token_id: int) -> None:
    """Set ``last_used_at`` if it is older than :data:`USE_INTERVAL` (the caller's own short
    session, committed at once: never the request's transaction)."""
    now = utcnow()
    await session.execute(
        update(ApiToken)
        .where(
            ApiToken.id == token_id,
            or_(ApiToken.last_used_at.is_(None), ApiToken.last_used_at < now - USE_INTERVAL),
        )
        .values(last_used_at=now)
    )
    await session.commit()
