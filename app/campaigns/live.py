"""The campaign page's live regions: the members, registered on :data:`CAMPAIGN_PAGE` (other
packages register theirs there too: the dice log is ``app.rolls.live``)."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from app.campaigns.models import Campaign
from app.campaigns.views import CampaignPage, page_context
from app.core.viewer import Viewer
from app.events import events as log_events
from app.events.service import VisibleEvent
from app.events.stream import Outgoing
from app.web.regions import Batch, Page, Region, shared_load
from app.web.templating import render

TEMPLATE = "campaigns/detail.html"
MEMBER_EVENTS = frozenset(
    {
        log_events.MemberJoined.TYPE,
        log_events.MemberRemoved.TYPE,
        log_events.MemberRoleChanged.TYPE,
        log_events.GmTransferred.TYPE,
    }
)


async def live_context(
    session: AsyncSession, viewer: Viewer, key: CampaignPage, parts: frozenset[str]
) -> dict[str, object] | None:
    """The page's context for a live push (the viewer's membership is checked by the stream).
    The campaign's row is read once for every viewer woken by the same events."""
    campaign = await shared_load(
        ("campaign row", key.campaign_id), lambda: _detached(session, key.campaign_id)
    )
    if campaign is None:
        return None
    return await page_context(session, campaign, viewer, parts=parts)


async def _detached(session: AsyncSession, campaign_id: int) -> Campaign | None:
    """The campaign's row, out of ``session``: other viewers' pushes read it too."""
    campaign = await session.get(Campaign, campaign_id)
    if campaign is not None:
        session.expunge(campaign)
    return campaign


CAMPAIGN_PAGE: Page[CampaignPage] = Page("campaign", load=live_context)


def _is_member_change(_key: CampaignPage, event: VisibleEvent) -> bool:
    return event.type in MEMBER_EVENTS


async def _push_members(batch: Batch[CampaignPage]) -> list[Outgoing]:
    html = render(TEMPLATE, "members", **batch.context)
    # Carry the batch's last seq so a resume after this push never repeats an event.
    return [Outgoing(batch.last_seq, "members", html)]


def register_regions() -> None:
    """Put this module's regions on their pages (``app.wiring`` calls it once)."""
    CAMPAIGN_PAGE.register(
        Region("members", _is_member_change, _push_members, parts=frozenset({"members"}))
    )
