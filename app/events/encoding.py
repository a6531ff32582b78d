"""The campaign's events as JSON, for the event stream of the API
(``GET /api/v1/campaigns/{id}/events``, ``app.campaigns.api``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from weakref import WeakKeyDictionary

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.viewer import Viewer
from app.events.models import CampaignEvent
from app.events.service import VisibleEvent
from app.events.stream import Outgoing

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
