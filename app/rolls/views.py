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
    """One page of the dice log for ``viewer`` (``before`` pages it back), and whether they
    may roll. Its entries are places (``service.log_places``): ``app.rolls.live.with_entries``
    renders them, reading whole only those not rendered before."""
    log = await service.log_places(session, viewer, campaign_id, before)
    return {
        "campaign_id": campaign_id,
        "entries": log.entries,
        "next_before": log.next_before,
        "can_roll": allowed(viewer.role, Action.roll),
    }
