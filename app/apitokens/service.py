"""A user's personal API tokens: create (for one campaign of theirs or all), list, revoke.

The tokens themselves and how a request is signed in with one live in ``app.accounts``
(below every package); this package adds what needs the campaigns: the membership check of
a token bound to one campaign and the campaigns' names in the list.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app import limits
from app.accounts import tokens
from app.accounts.models import ApiToken, User
from app.campaigns.models import Campaign, Membership


@dataclass(frozen=True, slots=True)
class TokenView:
    token: ApiToken
    campaign_name: str | None


async def create(
    session: AsyncSession,
    user: User,
    name: str,
    scope: tokens.Scope,
    campaign_id: int | None,
    expires_at: datetime | None,
) -> tuple[ApiToken, str]:
    """A new token of ``user`` and its secret, shown once."""
    name = limits.check_name(name)
    member = campaign_id is not None and await _is_member(session, user.id, campaign_id)
    return await tokens.create(session, user, name, scope, campaign_id, expires_at, member)


async def _is_member(session: AsyncSession, user_id: int, campaign_id: int) -> bool:
    found = await session.scalar(
        select(Membership.role).where(
            Membership.campaign_id == campaign_id, Membership.user_id == user_id
        )
    )
    return found is not None


async def mine(session: AsyncSession, user: User) -> list[TokenView]:
    """The user's tokens with the name of the campaign each is bound to."""
    found = await tokens.mine(session, user)
    ids = {t.campaign_id for t in found if t.campaign_id is not None}
    names: dict[int, str] = {}
    if ids:
        rows = await session.execute(select(Campaign.id, Campaign.name).where(Campaign.id.in_(ids)))
        names = {row.id: row.name for row in rows}
    return [TokenView(t, names.get(t.campaign_id) if t.campaign_id else None) for t in found]


async def campaigns_of(session: AsyncSession, user: User) -> list[tuple[int, str]]:
    """The campaigns a token may be bound to: the user's own, by name."""
    rows = await session.execute(
        select(Campaign.id, Campaign.name)
        .join(Membership, Membership.campaign_id == Campaign.id)
        .where(Membership.user_id == user.id)
        .order_by(Campaign.name)
    )
    return [(row.id, row.name) for row in rows]


async def revoke(session: AsyncSession, user: User, token_id: int) -> None:
    await tokens.revoke(session, user, token_id)
