"""The campaign page's live regions as HTML fragments, rendered for one viewer."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.campaigns import service
from app.core.viewer import Viewer
from app.events.service import VisibleEvent
from app.events.stream import Outgoing
from app.web.templating import render

MEMBER_EVENTS = frozenset(
    {"member_joined", "member_removed", "member_role_changed", "gm_transferred"}
)


async def render_campaign_page(
    sessions: async_sessionmaker[AsyncSession], viewer: Viewer, events: Sequence[VisibleEvent]
) -> list[Outgoing]:
    out: list[Outgoing] = []
    for event in events:
        if event.type == "roll":
            html = render("campaigns/_roll_entry.html", entry=event.data(), viewer=viewer)
            out.append(Outgoing(event.seq, "roll", html))
    member_events = [e for e in events if e.type in MEMBER_EVENTS]
    if member_events:
        async with sessions() as session:
            members = await service.members(session, member_events[-1].event.campaign_id)
        html = render(
            "campaigns/detail.html",
            "members",
            members=members,
            viewer=viewer,
            campaign_id=member_events[-1].event.campaign_id,
        )
        # Carry the batch's last seq so a resume after this push never repeats an event.
        out.append(Outgoing(events[-1].seq, "members", html))
    return out
