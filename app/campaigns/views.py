"""What one viewer sees of the campaign page: one context builder for the full page, its
HTMX fragments and its live regions (``app.campaigns.live``)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from app.campaigns import service
from app.campaigns.models import Campaign
from app.campaigns.permissions import Action, allowed
from app.core.systems import RULE_SYSTEMS, RuleSystem
from app.core.viewer import Viewer

#: The parts of the page that need the database: built only when asked for (a live push
#: asks for the parts its regions render from).
PARTS = frozenset({"members", "invites"})


@dataclass(frozen=True, slots=True)
class CampaignPage:
    """What a campaign page is about (the key of its live stream); ``log_before`` pages its
    dice log back (``app.rolls.live``; the stream's key never does)."""

    campaign_id: int
    log_before: int | None = None


async def page_context(
    session: AsyncSession,
    campaign: Campaign,
    viewer: Viewer,
    *,
    parts: Collection[str] = PARTS,
) -> dict[str, object]:
    """The campaign page for ``viewer``; its regions add theirs (``CAMPAIGN_PAGE``)."""
    context: dict[str, object] = {
        "campaign": campaign,
        "campaign_id": campaign.id,
        "viewer": viewer,
        "system_name": RULE_SYSTEMS[RuleSystem(campaign.system)].label,
        "members": [],
        "invites": [],
        "invite_errors": {},
    }
    if "members" in parts:
        context["members"] = await service.members(session, campaign.id)
    if "invites" in parts and allowed(viewer.role, Action.manage_invites):
        context["invites"] = await service.active_invites(session, campaign.id)
    return context
