"""Use cases of a campaign's webhooks: the GMs add, list, test and remove them."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import httpx
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app import limits
from app.accounts.models import User
from app.campaigns import service as campaigns
from app.campaigns.permissions import Action
from app.config import Settings
from app.db import utcnow
from app.errors import NotFound, ValidationFailed
from app.i18n import _, get_locale
from app.webhooks import guard
from app.webhooks.delivery import Outcome, post, record
from app.webhooks.messages import CATEGORIES, Message
from app.webhooks.models import Webhook


@dataclass(frozen=True, slots=True)
class Created:
    """A new hook, with what is shown once: its whole URL and its signing secret."""

    hook: Webhook
    url: str
    secret: str


def _check_events(events: Sequence[str]) -> list[str]:
    chosen = [e for e in CATEGORIES if e in events]
    if not chosen or len(chosen) != len(set(events)):
        raise ValidationFailed({"events": _("Choose at least one kind of message.")})
    return chosen


async def create(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    url: str,
    events: Sequence[str],
    *,
    allow_private: bool,
) -> Created:
    """A GM adds a webhook; it posts what happens from now on (not the log before)."""
    campaign, _viewer = await campaigns.open_campaign(
        session, user, campaign_id, Action.edit_settings
    )
    try:
        target = guard.parse(url, allow_private=allow_private)
    except guard.Refused as exc:
        raise ValidationFailed({"url": exc.message}) from None
    chosen = _check_events(events)
    count = await session.scalar(
        select(func.count()).select_from(Webhook).where(Webhook.campaign_id == campaign_id)
    )
    if (count or 0) >= limits.WEBHOOKS_PER_CAMPAIGN:
        raise ValidationFailed(
            {"url": _("At most %(count)d webhooks.", count=limits.WEBHOOKS_PER_CAMPAIGN)}
        )
    hook = Webhook(
        campaign_id=campaign_id,
        url=url.strip(),
        kind=target.kind,
        events=chosen,
        secret=secrets.token_hex(32),
        locale=get_locale(),
        created_by=user.id,
        created_at=utcnow(),
        cursor_seq=campaign.last_seq,
        failures=0,
        next_attempt_at=utcnow(),
    )
    session.add(hook)
    await session.flush()
    return Created(hook, hook.url, hook.secret)


async def hooks(session: AsyncSession, user: User, campaign_id: int) -> list[Webhook]:
    """The campaign's webhooks, oldest first (GMs only)."""
    await campaigns.open_campaign(session, user, campaign_id, Action.edit_settings)
    query = select(Webhook).where(Webhook.campaign_id == campaign_id).order_by(Webhook.id)
    return list((await session.scalars(query)).all())


async def _hook(session: AsyncSession, user: User, campaign_id: int, hook_id: int) -> Webhook:
    await campaigns.open_campaign(session, user, campaign_id, Action.edit_settings)
    hook = await session.get(Webhook, hook_id)
    if hook is None or hook.campaign_id != campaign_id:
        raise NotFound(_("No such webhook."))
    return hook


async def delete(session: AsyncSession, user: User, campaign_id: int, hook_id: int) -> None:
    await session.delete(await _hook(session, user, campaign_id, hook_id))


async def send_test(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    hook_id: int,
    settings: Settings,
    end_transaction: Callable[[], Awaitable[None]],
) -> Outcome:
    """Post a test message now and note its outcome on the hook (its cursor stays).

    The receiver may take seconds to answer. ``end_transaction`` (the route's commit) ends
    the transaction the check ran in before the post, so nothing waits for the receiver:
    on SQLite that transaction holds the one write lock, and every roll of the table would
    wait behind it. The outcome is noted in a transaction of its own, on the hook as it is
    then (unless it was removed meanwhile)."""
    hook = await _hook(session, user, campaign_id, hook_id)
    await end_transaction()
    message = Message(
        seq=0,
        category="test",
        text=_("Test message from Tafelrunde: this webhook works."),
        created_at=utcnow().isoformat(),
        event={},
    )
    async with httpx.AsyncClient(timeout=5.0, follow_redirects=False, trust_env=False) as client:
        outcome = await post(client, hook, message, allow_private=settings.webhooks_allow_private)
    now = await session.get(Webhook, hook_id, populate_existing=True)
    if now is not None:
        failures = now.failures
        record(now, outcome, utcnow())
        now.failures = failures  # a test does not delay the real messages
        now.next_attempt_at = min(now.next_attempt_at, utcnow())
    return outcome


def failing(hook: Webhook) -> bool:
    return hook.last_status is not None and not (200 <= hook.last_status < 300)
