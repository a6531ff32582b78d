"""The combat page's live regions as HTML, rendered for one viewer from the log.

Every ``combat`` event of the encounter becomes one SSE message ``combat`` whose body holds
out-of-band swaps of the regions it changed: its log entry (prepended to the log), the
roster rows of changed figures (or the whole roster when participants or the order
changed), the turn marker, the pending step and the viewer's controls. Regions are
rendered from the current state with the same template blocks as the page.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.viewer import Viewer
from app.encounters import service, views
from app.events.models import CampaignEvent
from app.events.service import VisibleEvent, can_see
from app.events.stream import Outgoing, Render
from app.web.templating import render

TEMPLATE = "encounters/combat.html"


def region(block: str, context: dict[str, object]) -> str:
    return render(TEMPLATE, block, **{**context, "oob": True})


def renderer(encounter_id: int) -> Render:
    async def render_combat(
        sessions: async_sessionmaker[AsyncSession], viewer: Viewer, events: Sequence[VisibleEvent]
    ) -> list[Outgoing]:
        mine = [
            e
            for e in events
            if e.type == "combat"
            and not e.redacted
            and e.event.payload.get("encounter_id") == encounter_id
        ]
        if not mine:
            return []
        campaign_id = mine[0].event.campaign_id
        async with sessions() as session:
            loaded = await service.load_as(session, viewer, campaign_id, encounter_id)
            if loaded is None:
                return []
            context = views.page_context(loaded, [])
            state = loaded.encounter.state or {}
            undone = {int(s) for s in state.get("undone", [])}
            out: list[Outgoing] = []
            for visible in mine:
                html = await _push(session, loaded, visible.event, context, undone)
                out.append(Outgoing(visible.seq, "combat", html))
        return out

    return render_combat


async def _push(
    session: AsyncSession,
    loaded: service.Loaded,
    event: CampaignEvent,
    context: dict[str, object],
    undone: set[int],
) -> str:
    p = event.payload
    parts: list[str] = []
    entry = views.entry_view(event, undone)
    if entry["lines"]:
        parts.append(render(TEMPLATE, "log_push", **{**context, "entry": entry, "oob": True}))
    for seq in p.get("undo_of", []):
        old = await session.scalar(
            select(CampaignEvent).where(
                CampaignEvent.campaign_id == event.campaign_id, CampaignEvent.seq == seq
            )
        )
        if old is not None and can_see(old, loaded.viewer):
            parts.append(
                render(
                    TEMPLATE,
                    "log_entry",
                    **{**context, "entry": views.entry_view(old, undone), "oob": True},
                )
            )
    if p.get("roster_changed") or p.get("order_changed") or p.get("turn_changed"):
        parts.append(region("roster", context))
    else:
        rows = {r["pid"]: r for r in context["rows"]}  # type: ignore[attr-defined]
        for pid in p.get("changed", []):
            row = rows.get(str(pid))
            if row is not None:
                parts.append(render(TEMPLATE, "row", **{**context, "row": row, "oob": True}))
    parts.append(region("turn", context))
    parts.append(region("pending", context))
    parts.append(region("controls", context))
    return "\n".join(parts)
