"""The dice log as the campaign page shows it to one viewer: one context builder for the
page's slot, the roll form's answers and a page of older entries (``app.rolls.live``)."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from app.campaigns.permissions import Action, allowed
from app.core.viewer import Viewer
from app.rolls import service

#: What the roll form shows before anything was posted.
FORM_DEFAULTS: dict[str, object] = {"roll_errors": {}, "roll_values": {"visibility": "public"}}


async def log_context(
    session: AsyncSession, viewer: Viewer, campaign_id: int, before: int | None = None
) -> dict[str, object]:
    """One page of the dice log for ``viewer`` (``before`` pages it back, its entries in the
    viewer's forms: ``app.rolls.live.with_entries`` renders them), and whether they may roll."""
    entries, next_before = await service.log_page(session, viewer, campaign_id, before)
    return {
        "campaign_id": campaign_id,
        "entries": entries,
        "next_before": next_before,
        "can_roll": allowed(viewer.role, Action.roll),
    }
