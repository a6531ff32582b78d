"""The chat page's live region: new, edited and deleted messages and the handouts list,
rendered for one viewer from the log.

Every event the viewer may see (``app.events.service.project`` has already dropped the
whispers and GM rolls not meant for them) becomes one SSE message ``chat`` of out-of-band
swaps into the page's hidden sink: a new message is appended to the log, an edited or
deleted one replaces its line, a shown handout re-renders the handouts list. Lines are
rendered from the current rows with the page's own templates (``app.talk.views``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.viewer import Viewer
from app.events.service import VisibleEvent
from app.events.stream import Outgoing
from app.events.types import (
    ChatMessageDeleted,
    ChatMessageEdited,
    ChatMessagePosted,
    HandoutCreated,
    HandoutShown,
)
from app.talk import service, views
from app.web.templating import render

MESSAGE_EVENTS = frozenset(
    {ChatMessagePosted.TYPE, ChatMessageEdited.TYPE, ChatMessageDeleted.TYPE}
)
HANDOUT_EVENTS = frozenset({HandoutCreated.TYPE, HandoutShown.TYPE})


def reacts(event: VisibleEvent) -> bool:
    """Whether the chat region shows something for this (projected) event."""
    return not event.redacted and event.type in MESSAGE_EVENTS | HANDOUT_EVENTS


async def render_chat(
    sessions: async_sessionmaker[AsyncSession], viewer: Viewer, events: Sequence[VisibleEvent]
) -> list[Outgoing]:
    mine = [e for e in events if reacts(e)]
    if not mine:
        return []
    campaign_id = mine[0].event.campaign_id
    ids = [int(e.event.payload["message_id"]) for e in mine if e.type in MESSAGE_EVENTS]
    async with sessions() as session:
        rows = await service.messages_by_id(session, viewer, campaign_id, ids)
        lines = {
            m["id"]: m for m in await views.messages_context(session, viewer, campaign_id, rows)
        }
        shelf = (
            await views.handouts_context(session, viewer, campaign_id)
            if any(e.type in HANDOUT_EVENTS for e in mine)
            else None
        )
    out: list[Outgoing] = []
    for event in mine:
        if event.type in HANDOUT_EVENTS and shelf is not None:
            out.append(
                Outgoing(event.seq, "chat", render("talk/_handouts.html", **shelf, oob=True))
            )
            continue
        line = lines.get(int(event.event.payload.get("message_id", 0)))
        if line is not None:
            out.append(Outgoing(event.seq, "chat", _line(line, viewer, campaign_id, event.type)))
    return out


def _line(line: views.View, viewer: Viewer, campaign_id: int, type_: str) -> str:
    """A new message appended to the log, a changed one replacing its line."""
    context: dict[str, Any] = {
        "m": line,
        "viewer": viewer,
        "campaign_id": campaign_id,
        "text_max": service.TEXT_MAX,
    }
    if type_ == ChatMessagePosted.TYPE:
        html = render("talk/_message.html", **context)
        return f'<div hx-swap-oob="beforeend:#chat-log">{html}</div>'
    return render("talk/_message.html", **context, oob_replace=True)
