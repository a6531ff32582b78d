"""The campaign page's live regions: the dice log and the members, registered on
:data:`CAMPAIGN_PAGE` (other packages register theirs there too)."""

from __future__ import annotations

from app.campaigns.views import CampaignPage, live_context
from app.events import events as log_events
from app.events.service import VisibleEvent
from app.events.stream import Outgoing
from app.web.regions import Batch, Page, Region
from app.web.templating import render

TEMPLATE = "campaigns/detail.html"
#: Entries of the dice log: the page includes them once, the push prepends one at a time.
ENTRIES = "campaigns/_roll_entries.html"
MEMBER_EVENTS = frozenset(
    {
        log_events.MemberJoined.TYPE,
        log_events.MemberRemoved.TYPE,
        log_events.MemberRoleChanged.TYPE,
        log_events.GmTransferred.TYPE,
    }
)

CAMPAIGN_PAGE: Page[CampaignPage] = Page("campaign", load=live_context)


def _is_roll(_key: CampaignPage, event: VisibleEvent) -> bool:
    return event.type == log_events.Roll.TYPE


async def _push_rolls(batch: Batch[CampaignPage]) -> list[Outgoing]:
    return [
        Outgoing(e.seq, "roll", render(ENTRIES, entries=[e.data()], viewer=batch.viewer))
        for e in batch.events
    ]


def _is_member_change(_key: CampaignPage, event: VisibleEvent) -> bool:
    return event.type in MEMBER_EVENTS


async def _push_members(batch: Batch[CampaignPage]) -> list[Outgoing]:
    html = render(TEMPLATE, "members", **batch.context)
    # Carry the batch's last seq so a resume after this push never repeats an event.
    return [Outgoing(batch.last_seq, "members", html)]


def register_regions() -> None:
    """Put this module's regions on their pages (``app.wiring`` calls it once)."""
    CAMPAIGN_PAGE.register(Region("roll", _is_roll, _push_rolls))
    CAMPAIGN_PAGE.register(
        Region("members", _is_member_change, _push_members, parts=frozenset({"members"}))
    )
