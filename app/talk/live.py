"""The chat's live regions, on the region registry (``app.web.regions``).

- ``CHAT_PAGE`` (``/campaigns/{id}/chat``, the chat on a phone) with its region ``chat``:
  new, edited and deleted messages and the handouts list.
- The region ``chat`` on the campaign page (``CAMPAIGN_PAGE``, slot ``main``) and on the
  combat page (``COMBAT_PAGE``, slot ``side``, bundled into its ``combat`` messages): the
  newest messages, the form, and the same pushes.

Every event the viewer may see (``app.events.service.project`` has already dropped the
whispers and GM rolls not meant for them) becomes one SSE message ``chat`` of out-of-band
swaps into the region's hidden sink: a new message is appended to ``#chat-log``, an edited
or deleted one replaces its line, a shown handout re-renders ``#handouts``. Lines are
rendered with the page's own templates (``app.talk.views``): a new one from its event (the
message as it was written, with its time), a changed one from its current row.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from markupsafe import Markup
from sqlalchemy.ext.asyncio import AsyncSession

from app.campaigns.live import CAMPAIGN_PAGE
from app.campaigns.models import Campaign
from app.campaigns.views import CampaignPage
from app.core.remembered import remembered
from app.core.viewer import Viewer
from app.encounters.live import COMBAT_PAGE, CombatPage
from app.events.service import VisibleEvent
from app.events.stream import Outgoing
from app.i18n import get_locale
from app.talk import service, views
from app.talk.events import (
    ChatMessageDeleted,
    ChatMessageEdited,
    ChatMessagePosted,
    HandoutCreated,
    HandoutShown,
)
from app.talk.models import ChatMessage
from app.web.regions import Batch, Context, Page, Region, shared_load
from app.web.templating import render, render_macro

MESSAGE_EVENTS = frozenset(
    {ChatMessagePosted.TYPE, ChatMessageEdited.TYPE, ChatMessageDeleted.TYPE}
)
HANDOUT_EVENTS = frozenset({HandoutCreated.TYPE, HandoutShown.TYPE})
#: One chat line (a macro: the panels list them, the push sends one at a time).
MESSAGE = "talk/_message.html"
#: Messages the campaign page's chat panel shows (the chat page pages back further).
PANEL_SIZE = 20


@dataclass(frozen=True, slots=True)
class ChatPage:
    """What a chat page is about (the key of its live stream)."""

    campaign_id: int


async def chat_live_context(
    session: AsyncSession, viewer: Viewer, key: ChatPage, parts: frozenset[str]
) -> dict[str, object] | None:
    """The chat page's context for a push: the region loads its rows itself."""
    if await session.get(Campaign, key.campaign_id) is None:
        return None
    return {"campaign_id": key.campaign_id, "viewer": viewer}


CHAT_PAGE: Page[ChatPage] = Page("chat", load=chat_live_context)


def reacts(event: VisibleEvent) -> bool:
    """Whether the chat region shows something for this (projected) event."""
    return not event.redacted and event.type in MESSAGE_EVENTS | HANDOUT_EVENTS


async def push_chat(
    session: AsyncSession, viewer: Viewer, campaign_id: int, events: Sequence[VisibleEvent]
) -> list[Outgoing]:
    """One ``chat`` message of out-of-band swaps per event."""
    said = [e for e in events if e.type in MESSAGE_EVENTS and not e.redacted]
    told = await _told(session, campaign_id, said) if said else {}
    # The members' names are only for a whisper's recipients.
    names = (
        await shared_load(
            ("chat names", campaign_id), lambda: views.member_names(session, campaign_id)
        )
        if any(recipients for _message, recipients in told.values())
        else {}
    )
    shelf = (
        await views.handouts_context(session, viewer, campaign_id)
        if any(e.type in HANDOUT_EVENTS for e in events)
        else None
    )
    out: list[Outgoing] = []
    for event in events:
        if event.type in HANDOUT_EVENTS and shelf is not None:
            html = render("talk/_handouts.html", **shelf, oob=True)
            out.append(Outgoing(event.seq, "chat", html))
            continue
        found = told.get(event.seq)
        if found is not None:
            html = _line(*found, names, viewer, event)
            out.append(Outgoing(event.seq, "chat", html))
    return out


async def _told(
    session: AsyncSession, campaign_id: int, events: Sequence[VisibleEvent]
) -> dict[int, tuple[ChatMessage, list[int]]]:
    """The message each event is about and its recipients, by the event's ``seq``: a new
    one as its event tells it (no row to read), a changed one as its row is now (and a new
    one too where its change is in the same batch, a stream resumed after it: its first
    line shows what the page shows).

    Those rows and their recipients are the same for every viewer: read once per push for
    all of them, without the chat's visibility clause, because the events come from those
    this viewer received: their projection has decided, and
    :func:`app.talk.service.readable_by` is that audience in SQL.
    """
    changed = {_message_id(e) for e in events if e.type != ChatMessagePosted.TYPE}
    told = {
        e.seq: service.as_posted(e.event)
        for e in events
        if e.type == ChatMessagePosted.TYPE and _message_id(e) not in changed
    }
    changes = [e for e in events if e.seq not in told]
    if changes:
        ids = sorted({_message_id(e) for e in changes})
        rows = await shared_load(
            ("chat lines", campaign_id, tuple(ids)),
            lambda: service.messages_of(session, campaign_id, ids),
        )
        recipients = await shared_load(
            ("chat recipients", campaign_id, tuple(ids)),
            lambda: service.recipients_of(session, ids),
        )
        by_id = {m.id: m for m in rows}
        told |= {
            e.seq: (by_id[i], recipients.get(i, []))
            for e in changes
            if (i := _message_id(e)) in by_id
        }
    return told


def _message_id(event: VisibleEvent) -> int:
    return int(event.event.payload["message_id"])


#: Chat lines' HTML, by their message (campaign, id, version, time: the version moves with an
#: edit or a deletion), the names of its recipients, the viewer's controls (edit, delete),
#: whether it replaces its line (a push of a change) and the language, the most recently
#: used kept: the panels of the pages and the pushes share them, so viewers with the same
#: controls share one render. About 1 KB each: some 2 MB.
_RENDERED: OrderedDict[Hashable, Markup] = OrderedDict()
RENDERED_KEPT = 2048


def line_html(
    message: ChatMessage,
    recipients: Sequence[int],
    names: Mapping[int, str],
    viewer: Viewer,
    *,
    replacing: bool = False,
) -> Markup:
    """One chat line as ``viewer`` sees it (``replacing``: swapped in for its line)."""
    key = (
        message.campaign_id,
        message.id,
        message.version,
        message.created_at,
        tuple(names.get(uid, "?") for uid in recipients),
        service.may_edit(message, viewer),
        service.may_delete(message, viewer),
        replacing,
        get_locale(),
    )

    def made() -> Markup:
        view = views.message_view(message, viewer, recipients, names)
        text_max = service.TEXT_MAX
        return render_macro(MESSAGE, "line", view, message.campaign_id, text_max, replacing)

    return remembered(_RENDERED, key, made, RENDERED_KEPT)


def with_lines(context: Mapping[str, Any]) -> dict[str, Any]:
    """The chat's context (``views.chat_context``) with its lines rendered, for every page
    its panel is on."""
    viewer, names = context["viewer"], context["names"]
    lines = Markup("").join(
        line_html(message, to, names, viewer) for message, to in context["lines"]
    )
    return {**context, "lines_html": lines}


async def chat_page_context(
    session: AsyncSession, viewer: Viewer, campaign: Campaign, before: int | None = None
) -> dict[str, object]:
    """The chat page's context with its lines rendered (``before`` pages it back)."""
    return with_lines(await views.chat_context(session, viewer, campaign, before))


def _line(
    message: ChatMessage,
    recipients: list[int],
    names: dict[int, str],
    viewer: Viewer,
    event: VisibleEvent,
) -> str:
    """A new message appended to the log, a changed one replacing its line."""
    if event.type == ChatMessagePosted.TYPE:
        html = line_html(message, recipients, names, viewer)
        return f'<div hx-swap-oob="beforeend:#chat-log">{html}</div>'
    return line_html(message, recipients, names, viewer, replacing=True)


class _OfCampaign(Protocol):
    """The key of a page the chat region is on: the chat page, the campaign or combat page."""

    @property
    def campaign_id(self) -> int: ...


KC = TypeVar("KC", bound=_OfCampaign)


async def _push(batch: Batch[KC]) -> list[Outgoing]:
    """The chat region's messages, on whichever page of the campaign it is."""
    assert batch.session is not None
    return await push_chat(batch.session, batch.viewer, batch.key.campaign_id, batch.events)


def _panel_region(
    load: Callable[[AsyncSession, Viewer, KC], Awaitable[Context]],
    slot: str,
    html: Callable[[Mapping[str, Any]], str],
) -> Region[KC]:
    """The chat as a region of another package's page, laid out in its ``slot``."""
    return Region("chat", lambda _key, e: reacts(e), _push, load=load, slot=slot, html=html)


async def _panel(
    session: AsyncSession, viewer: Viewer, campaign_id: int, back: str
) -> dict[str, object]:
    """The panel's context; its form returns to ``back`` (the page it is on)."""
    campaign = await session.get(Campaign, campaign_id)
    assert campaign is not None
    context = await views.chat_context(session, viewer, campaign, size=PANEL_SIZE)
    return {"talk": {**context, "on_campaign_page": True, "back": back}}


async def _load_panel(
    session: AsyncSession, viewer: Viewer, key: CampaignPage
) -> dict[str, object]:
    return await _panel(session, viewer, key.campaign_id, f"/campaigns/{key.campaign_id}")


def _panel_html(context: Mapping[str, Any]) -> str:
    return render("talk/_panel.html", **with_lines(context["talk"]))


def _combat_panel_html(context: Mapping[str, Any]) -> str:
    """Beside a fight the chat is a closed disclosure: the fight comes first on a phone."""
    return render("talk/_combat_panel.html", **with_lines(context["talk"]))


async def _load_combat_panel(
    session: AsyncSession, viewer: Viewer, key: CombatPage
) -> dict[str, object]:
    back = f"/campaigns/{key.campaign_id}/encounters/{key.encounter_id}"
    return await _panel(session, viewer, key.campaign_id, back)


def register_regions() -> None:
    """Put this module's regions on their pages (``app.wiring`` calls it once)."""
    CHAT_PAGE.register(Region("chat", lambda _key, e: reacts(e), _push, parts=frozenset({"chat"})))
    CAMPAIGN_PAGE.register(_panel_region(_load_panel, "main", _panel_html))
    COMBAT_PAGE.register(_panel_region(_load_combat_panel, "side", _combat_panel_html))
