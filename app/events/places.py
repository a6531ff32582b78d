"""Where events stand in the log and the form a viewer gets each in, read without their
payloads: enough to find an entry rendered before (``app.rolls.live``).

A page of the dice log is 50 entries, nearly all of them rendered already. Reading their
payloads and fair-play records as JSON into full rows cost about 13 µs a row, more than the
rest of the statement; their places cost under 2. Only the entries not rendered yet are read
whole (:func:`events_by_id`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Select, Text, bindparam, cast, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.remembered import remembered
from app.core.viewer import Viewer
from app.db import json_value
from app.events.audience import Audience, Form, form_for
from app.events.models import CampaignEvent
from app.events.service import VisibleEvent, form_name, project_one

_EVENT = CampaignEvent.__table__


@dataclass(frozen=True, slots=True)
class Place:
    """An event's row without its payload or fair-play record."""

    event_id: int
    campaign_id: int
    seq: int
    type: str
    created_at: datetime
    audience: Audience

    def form(self, viewer: Viewer) -> str | None:
        """The form ``viewer`` gets (as :attr:`VisibleEvent.form` names it), ``None``: none.
        Map events are not read this way (they need the scenes as they are)."""
        kind = form_for(self.audience, viewer, None, self.type)
        return None if kind is Form.nothing else form_name(kind, viewer.user_id)


def _places_statement(paged: bool) -> Select[int, int, int, str, datetime, str]:
    c = _EVENT.c
    query = select(c.id, c.campaign_id, c.seq, c.type, c.created_at, cast(c.audience, Text))
    query = query.where(c.campaign_id == bindparam("campaign_id"))
    if paged:
        query = query.where(c.seq < bindparam("before"))
    query = query.where(c.type.in_(bindparam("types", expanding=True)))
    return query.order_by(c.seq.desc()).limit(bindparam("limit"))


#: :func:`places_before`'s statement, by whether it pages back: built once.
_PLACES = {paged: _places_statement(paged) for paged in (False, True)}

#: Audiences by their stored JSON text: most events of a campaign share a handful.
_AUDIENCES: OrderedDict[str, Audience] = OrderedDict()
AUDIENCES_KEPT = 1024


def _audience(text: str) -> Audience:
    return remembered(
        _AUDIENCES, text, lambda: Audience.from_json(json_value(text)), AUDIENCES_KEPT
    )


async def places_before(
    session: AsyncSession, campaign_id: int, before: int | None, limit: int, types: Sequence[str]
) -> list[Place]:
    """The places of the newest ``limit`` events of these types older than ``before``
    (newest first): :func:`app.events.service.events_before` without the payloads."""
    values = {"campaign_id": campaign_id, "before": before, "types": types, "limit": limit}
    rows = await session.execute(_PLACES[before is not None], values)
    return [
        Place(event_id, cid, seq, kind, created_at, _audience(audience))
        for event_id, cid, seq, kind, created_at, audience in rows
    ]


_BY_ID = select(CampaignEvent).where(
    CampaignEvent.campaign_id == bindparam("campaign_id"),
    CampaignEvent.id.in_(bindparam("ids", expanding=True)),
)


async def events_by_id(
    session: AsyncSession, viewer: Viewer, campaign_id: int, ids: Collection[int]
) -> dict[int, VisibleEvent]:
    """These events of the campaign read whole, as ``viewer`` gets them, by id (one that
    ``viewer`` no longer gets is left out)."""
    if not ids:
        return {}
    events = await session.scalars(_BY_ID, {"campaign_id": campaign_id, "ids": list(ids)})
    return {e.id: v for e in events if (v := project_one(e, viewer)) is not None}
