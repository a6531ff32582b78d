"""The sessions panel on the campaign page (``CAMPAIGN_PAGE``, slot ``side``): the GM
starts and ends sessions there, everyone finds the records; re-rendered when a session
starts or ends (``app.web.regions``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.campaigns.live import CAMPAIGN_PAGE
from app.campaigns.models import Campaign
from app.campaigns.views import CampaignPage
from app.core.viewer import Viewer
from app.events.service import VisibleEvent
from app.events.stream import Outgoing
from app.sessions import views
from app.sessions.events import FairPlayConfigured, SessionEnded, SessionStarted
from app.web.regions import Batch, Region
from app.web.templating import render

SESSION_EVENTS = frozenset({SessionStarted.TYPE, SessionEnded.TYPE, FairPlayConfigured.TYPE})


async def _load(session: AsyncSession, viewer: Viewer, key: CampaignPage) -> dict[str, Any]:
    campaign = await session.get(Campaign, key.campaign_id)
    assert campaign is not None
    context = await views.sessions_context(session, viewer, campaign, limit=views.PANEL_SIZE)
    return {"sessions_panel": context}


def _html(context: Mapping[str, Any]) -> str:
    return render("sessions/_panel.html", **context["sessions_panel"])


def reacts(_key: CampaignPage, event: VisibleEvent) -> bool:
    return event.type in SESSION_EVENTS


async def _push(batch: Batch[CampaignPage]) -> list[Outgoing]:
    assert batch.session is not None
    context = await _load(batch.session, batch.viewer, batch.key)
    html = render("sessions/_panel.html", **context["sessions_panel"], oob=True)
    return [Outgoing(batch.events[-1].seq, "sessions", html)]


def register_regions() -> None:
    """Put this module's regions on their pages (``app.wiring`` calls it once)."""
    CAMPAIGN_PAGE.register(Region("sessions", reacts, _push, load=_load, slot="side", html=_html))
