"""The event log in the campaign document (``events``; docs/transfer.md).

The log travels as it is (same seqs, types, payloads and times), its ids renumbered; an
import appends no event. What the log keeps in an event's audience travels in its payload
under :data:`WITHHELD_KEY` and :data:`PLAYER_FORM_KEY`; the one user a ``self`` event is
for as its ``audience``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TypedDict

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.transfer import Document, IdMaps, Import, remap
from app.errors import ValidationFailed
from app.events.audience import Audience, chosen
from app.events.models import CampaignEvent
from app.events.payload import EVENT_TYPES, EventPayload
from app.i18n import _
from app.limits import INT_MAX, Int32

#: The document's payload keys for what the log keeps in the event's audience: the parties
#: withheld from players and the form players get instead of a map event.
WITHHELD_KEY = "withheld_parties"
PLAYER_FORM_KEY = "player_form"


class _Doc(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EventDoc(_Doc):
    seq: int = Field(ge=1, le=INT_MAX)
    type: str
    actor: Int32 | None
    visibility: str
    audience: Int32 | None
    payload: dict[str, object]
    created_at: datetime
    #: The event's fair-play record as stored (original ids: the dice were derived from them).
    fairplay: dict[str, object] | None = None


class EventsDoc(_Doc):
    """The document's fields of this part."""

    events: list[EventDoc]


class EventExport(TypedDict):
    """A log event as the document holds it (read back as :class:`EventDoc`)."""

    seq: int
    type: str
    actor: int | None
    visibility: str
    audience: int | None
    payload: object
    created_at: str
    fairplay: Mapping[str, object] | None


def _only_reader(e: CampaignEvent) -> int | None:
    """The one user a ``self`` event is for (the document's ``audience``)."""
    readers = Audience.from_json(e.audience).readers
    return next(iter(readers)) if e.visibility == "self" and readers else None


def _event_doc(e: CampaignEvent, maps: IdMaps) -> EventExport:
    heard = Audience.from_json(e.audience)
    payload = dict(e.payload)
    if heard.withheld:
        payload[WITHHELD_KEY] = list(heard.withheld)
    if heard.party_form is not None:
        payload[PLAYER_FORM_KEY] = dict(heard.party_form)
    return {
        "seq": e.seq,
        "type": e.type,
        "actor": maps.id("user", e.actor_id),
        "visibility": e.visibility,
        "audience": maps.id("user", _only_reader(e)),
        "payload": remap(payload, maps, pids=e.type == "combat"),
        "created_at": e.created_at.isoformat(),
        "fairplay": e.fairplay,
    }


@dataclass
class _Rows:
    events: list[CampaignEvent] = field(default_factory=list)

    def user_ids(self) -> set[int]:
        named = {e.actor_id for e in self.events} | {_only_reader(e) for e in self.events}
        return {i for i in named if i is not None}

    def number(self, maps: IdMaps) -> None:
        """No ids of its own that other parts refer to."""

    async def write(self, maps: IdMaps) -> dict[str, object]:
        # The log is the unbounded part: renumbered in a worker thread, off the event loop.
        docs = await asyncio.to_thread(lambda: [_event_doc(e, maps) for e in self.events])
        return {"events": docs}


def _check_events(events: list[EventDoc]) -> None:
    seqs = [e.seq for e in events]
    if seqs != sorted(set(seqs)):
        raise ValidationFailed({"events": _("The log's seqs must be distinct and ascending.")})
    for n, event in enumerate(events):
        cls = EVENT_TYPES.get(event.type)
        if cls is None or event.visibility not in cls.VISIBILITIES:
            raise ValidationFailed({f"events.{n}": _("Unknown event type or visibility.")})
        try:
            cls.from_json(event.payload)
            _check_player_form(event.payload.get(PLAYER_FORM_KEY))
        except TypeError:
            raise ValidationFailed(
                {f"events.{n}.payload": _("Not a payload of this type.")}
            ) from None


def _check_player_form(form: object) -> None:
    """A map event's player form (``PLAYER_FORM_KEY``) is itself a payload of a known type."""
    if form is None:
        return
    if not isinstance(form, dict) or form.get("type") not in EVENT_TYPES:
        raise TypeError("not a player form")
    EVENT_TYPES[form["type"]].from_json({"actor_name": "", **form})


def _audience(
    event: EventDoc, payload: EventPayload, raw: dict[str, object], maps: IdMaps
) -> Audience:
    """The event's audience from the document: its visibility and user, the parties the
    log withholds from players (``app.events.audience.about`` marks those of hidden
    characters), the form players get instead (a map event: ``PLAYER_FORM_KEY``; ``raw``
    is renumbered already), and a map event's scene and token."""
    to = raw.get("to")
    heard = chosen(
        event.visibility, maps.id("user", event.audience), to if isinstance(to, list) else []
    )
    withheld = raw.get(WITHHELD_KEY)
    if isinstance(withheld, list) and all(isinstance(k, str) for k in withheld):
        heard = replace(heard, withheld=tuple(withheld))
    form = raw.get(PLAYER_FORM_KEY)
    if isinstance(form, dict):
        cls = EVENT_TYPES[form["type"]]
        typed = cls.from_json({"actor_name": "", **form}).to_json()
        del typed["actor_name"]
        heard = replace(heard, party_form={"type": cls.TYPE, **typed})
    scene_id, token_id = payload.scene_ref()
    heard = replace(heard, scene_id=scene_id, token_id=token_id)
    heard = heard.read_by(maps.id("user", event.actor))
    return heard.stubbed() if payload.STUB_WHEN_HIDDEN else heard


def _imported_payloads(
    events: list[EventDoc], maps: IdMaps
) -> list[tuple[EventPayload, dict[str, object]]]:
    """The log's payloads renumbered, typed and as renumbered JSON (CPU work, run in a
    worker thread)."""
    out = []
    for e in events:
        raw = remap(e.payload, maps, pids=e.type == "combat")
        out.append((EVENT_TYPES[e.type].from_json(raw), raw))
    return out


class EventsPart:
    """The whole event log (after every other part's rows on import: payloads name them)."""

    tables = {"campaign_event": "events"}  # noqa: RUF012
    model = EventsDoc

    async def load(self, session: AsyncSession, campaign_id: int, exporter_id: int) -> _Rows:
        events = await session.scalars(
            select(CampaignEvent)
            .where(CampaignEvent.campaign_id == campaign_id)
            .order_by(CampaignEvent.seq)
        )
        return _Rows(list(events.all()))

    def check(self, document: Document) -> None:
        _check_events(document.part(EventsDoc).events)

    async def import_(self, into: Import) -> None:
        events, maps = into.document.part(EventsDoc).events, into.maps
        payloads = await asyncio.to_thread(_imported_payloads, events, maps)
        for event, (payload, raw) in zip(events, payloads, strict=True):
            into.session.add(
                CampaignEvent(
                    campaign_id=into.campaign_id,
                    seq=event.seq,
                    type=event.type,
                    subject=payload.subject,
                    actor_id=maps.id("user", event.actor),
                    audience=_audience(event, payload, raw, maps).to_json(),
                    payload=payload.to_json(),
                    created_at=event.created_at,
                    fairplay=event.fairplay,
                )
            )
        into.last_seq = max((e.seq for e in events), default=0)


PART = EventsPart()
