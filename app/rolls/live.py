"""The dice log on the campaign page (:data:`CAMPAIGN_PAGE`, slot ``log``): the page shows a
page of it, and every roll the viewer may see is pushed to its top (``app.web.regions``)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from markupsafe import Markup
from sqlalchemy.ext.asyncio import AsyncSession

from app.campaigns.live import CAMPAIGN_PAGE
from app.campaigns.permissions import Action, allowed
from app.campaigns.views import CampaignPage
from app.core.remembered import recalled, remembered
from app.core.viewer import Viewer
from app.events import events as log_events
from app.events.places import Place, events_by_id
from app.events.service import VisibleEvent
from app.events.stream import Outgoing
from app.i18n import get_locale
from app.rolls import service, views
from app.web.regions import Batch, Region
from app.web.templating import render, render_macro

#: The log with its roll form; its blocks ``roll_form`` and ``log_page`` answer HTMX.
TEMPLATE = "rolls/_log.html"
#: One entry of the dice log: the page lists them, the push prepends one at a time.
ENTRY = "rolls/_entry.html"


def _is_roll(_key: CampaignPage, event: VisibleEvent) -> bool:
    return event.type == log_events.Roll.TYPE


#: Entries of the dice log as HTML, by (event, form, language), the most recently used kept:
#: the page, its older entries and the push of a new roll share them, so an entry is
#: rendered once per process for everyone who gets it in the same form (the page's viewers
#: and the streams of a roll). An event never changes once written, so it is known by where
#: it was written: its campaign, ``seq``, row and time (a database made anew in the same
#: process, as the tests do, does not repeat all four). About 0.7 KB each: some 1.5 MB.
_RENDERED: OrderedDict[tuple[int, int, int, datetime, str, str], Markup] = OrderedDict()
RENDERED_KEPT = 2048


def _entry_key(
    campaign_id: int, seq: int, event_id: int, created_at: datetime, form: str
) -> tuple[int, int, int, datetime, str, str]:
    return (campaign_id, seq, event_id, created_at, form, get_locale())


def _entry_html(event: VisibleEvent) -> Markup:
    e = event.event
    return remembered(
        _RENDERED,
        _entry_key(e.campaign_id, e.seq, e.id, e.created_at, event.form),
        lambda: render_macro(ENTRY, "entry", event.data()),
        RENDERED_KEPT,
    )


async def _entries_html(
    session: AsyncSession, viewer: Viewer, campaign_id: int, entries: list[tuple[Place, str]]
) -> Markup:
    """The dice log's entries, newest first, as the viewer's page shows them: those rendered
    before as they were, the others read whole (``app.events.places``) and rendered."""
    shown: dict[int, Markup] = {}
    for p, form in entries:
        key = _entry_key(p.campaign_id, p.seq, p.event_id, p.created_at, form)
        if (html := recalled(_RENDERED, key)) is not None:
            shown[p.event_id] = html
    missing = [place.event_id for place, _form in entries if place.event_id not in shown]
    for event_id, event in (await events_by_id(session, viewer, campaign_id, missing)).items():
        shown[event_id] = _entry_html(event)
    return Markup("").join(shown[p.event_id] for p, _form in entries if p.event_id in shown)


async def log_context(
    session: AsyncSession, viewer: Viewer, campaign_id: int, before: int | None = None
) -> dict[str, object]:
    """One page of the dice log for ``viewer`` (``before`` pages it back) with its entries
    rendered, and whether they may roll: for the page's slot and the older entries' block
    alike. The entries are read as places (``service.log_places``), whole only where they
    were not rendered before."""
    log = await service.log_places(session, viewer, campaign_id, before)
    return {
        "campaign_id": campaign_id,
        "entries": log.entries,
        "entries_html": await _entries_html(session, viewer, campaign_id, log.entries),
        "next_before": log.next_before,
        "can_roll": allowed(viewer.role, Action.roll),
    }


async def _push_rolls(batch: Batch[CampaignPage]) -> list[Outgoing]:
    return [Outgoing(e.seq, "roll", _entry_html(e)) for e in batch.events]


async def _load(session: AsyncSession, viewer: Viewer, key: CampaignPage) -> dict[str, object]:
    return await log_context(session, viewer, key.campaign_id, key.log_before)


def _html(context: Mapping[str, Any]) -> str:
    return render(TEMPLATE, **{**views.FORM_DEFAULTS, **context})


def _never(_key: CampaignPage, _event: VisibleEvent) -> bool:
    return False


async def _nothing(_batch: Batch[CampaignPage]) -> list[Outgoing]:
    return []


def register_regions() -> None:
    """Put the dice log on the campaign page (``app.wiring`` calls it once). Two regions:
    the push of a roll needs no database (no ``load``), the page's log does; the log itself
    is never re-rendered by a push (new rolls are prepended by "roll")."""
    CAMPAIGN_PAGE.register(Region("roll", _is_roll, _push_rolls))
    CAMPAIGN_PAGE.register(Region("log", _never, _nothing, load=_load, slot="log", html=_html))
