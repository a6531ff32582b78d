"""The dice log on the campaign page (:data:`CAMPAIGN_PAGE`, slot ``log``): the page shows a
page of it, and every roll the viewer may see is pushed to its top (``app.web.regions``)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.campaigns.live import CAMPAIGN_PAGE
from app.campaigns.views import CampaignPage
from app.core.remembered import remembered
from app.core.viewer import Viewer
from app.events import events as log_events
from app.events.service import VisibleEvent
from app.events.stream import Outgoing
from app.i18n import get_locale
from app.rolls import views
from app.web.regions import Batch, Region
from app.web.templating import render

#: The log with its roll form; its blocks ``roll_form`` and ``log_page`` answer HTMX.
TEMPLATE = "rolls/_log.html"
#: Entries of the dice log: the page includes them once, the push prepends one at a time.
ENTRIES = "rolls/_entries.html"


def _is_roll(_key: CampaignPage, event: VisibleEvent) -> bool:
    return event.type == log_events.Roll.TYPE


#: Entries rendered for a push, by (event, form, language), the most recently used kept: the
#: viewers of a roll who get it in the same form share one render (the campaign page's
#: streams render each for itself, as its other regions differ by viewer). The event is kept
#: with its HTML, so the id in the key cannot be another object's meanwhile (streams of a
#: campaign share the event objects of its tail).
_RENDERED: OrderedDict[tuple[int, str, str], tuple[object, str]] = OrderedDict()
RENDERED_KEPT = 256


def _entry_html(event: VisibleEvent) -> str:
    key = (id(event.event), event.form, get_locale())
    kept = remembered(
        _RENDERED,
        key,
        lambda: (event.event, render(ENTRIES, entries=[event.data()])),
        RENDERED_KEPT,
    )
    return kept[1]


async def _push_rolls(batch: Batch[CampaignPage]) -> list[Outgoing]:
    return [Outgoing(e.seq, "roll", _entry_html(e)) for e in batch.events]


async def _load(session: AsyncSession, viewer: Viewer, key: CampaignPage) -> dict[str, object]:
    return await views.log_context(session, viewer, key.campaign_id, key.log_before)


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
