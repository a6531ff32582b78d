"""The campaign event stream as JSON (API) over server-sent events."""

from __future__ import annotations

import json
from collections.abc import Sequence
from weakref import WeakKeyDictionary

from fastapi import APIRouter, Header, Query, Request
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.campaigns import service as campaigns
from app.core.viewer import Viewer
from app.events.models import CampaignEvent
from app.events.service import VisibleEvent
from app.events.stream import Outgoing
from app.web.deps import Ctx, CurrentUser, Session, TransactionalRoute
from app.web.ids import MAX_ROW_ID, PathId
from app.web.sse import LiveStream
from app.web.streams import event_stream, resume_point

router = APIRouter(tags=["events"], route_class=TransactionalRoute)


#: Encoded events, shared by every stream: a log entry never changes, and a roll seen by N
#: viewers (who share the campaign's tail, so the same event object) is encoded once per
#: form (whole, reduced or stub) instead of N times. Keyed by the object, not by ids, which SQLite
#: may hand out again after a delete; an entry goes with its event.
_encoded: WeakKeyDictionary[CampaignEvent, dict[str, str]] = WeakKeyDictionary()


def encode(event: VisibleEvent) -> str:
    forms = _encoded.setdefault(event.event, {})
    data = forms.get(event.form)
    if data is None:
        data = forms[event.form] = json.dumps(
            event.data(), separators=(",", ":"), ensure_ascii=False
        )
    return data


async def render_json(
    _sessions: async_sessionmaker[AsyncSession], _viewer: Viewer, events: Sequence[VisibleEvent]
) -> list[Outgoing]:
    return [Outgoing(e.seq, e.type, encode(e)) for e in events]


@router.get(
    "/api/v1/campaigns/{campaign_id}/events",
    response_class=LiveStream,
    # LiveStream's constructor names no status code, from which the OpenAPI schema would take it.
    status_code=200,
    responses={200: {"content": {"text/event-stream": {}}}},
)
async def campaign_events(
    request: Request,
    campaign_id: PathId,
    session: Session,
    user: CurrentUser,
    ctx: Ctx,
    after: int | None = Query(default=None, ge=0, le=MAX_ROW_ID),
    last_event_id: str | None = Header(default=None),
) -> LiveStream:
    """Every event the caller may see after ``Last-Event-ID`` / ``?after=``, then live."""
    _campaign, viewer = await campaigns.open_campaign(session, user, campaign_id)
    return event_stream(
        request, ctx, campaign_id, viewer, resume_point(last_event_id, after), render_json
    )
