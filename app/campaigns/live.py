"""The campaign page's live regions: the members, registered on :data:`CAMPAIGN_PAGE` (other
packages register theirs there too: the dice log is ``app.rolls.live``)."""

from __future__ import annotations

from app.campaigns.views import CampaignPage, live_context
from app.events import events as log_events
from app.events.service import VisibleEvent
from app.events.stream import Outgoing
from app.web.regions import Batch, Page, Region
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
