"""The chat page's context, one builder for the page, the HTMX answers and the live push.

Everything a template shows of a message is prepared here for one viewer (its text already
rendered as safe Markdown-lite, the names of a whisper's recipients, whether the viewer may
edit it), so the page and the push cannot differ.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.campaigns import service as campaigns
from app.campaigns.models import Campaign
from app.campaigns.permissions import Action, allowed
from app.core.viewer import Viewer
from app.i18n import N_, gettext
from app.talk import handouts, journal, service
from app.talk.markup import render_markup
from app.talk.models import ChatMessage

View = dict[str, Any]

QUEST_LABELS = {"open": N_("open"), "done": N_("done"), "failed": N_("failed")}


def message_view(
    message: ChatMessage, viewer: Viewer, recipients: Sequence[int], names: dict[int, str]
) -> View:
    deleted = message.deleted_at is not None
    return {
        "id": message.id,
        "seq": message.seq,
        "kind": message.kind,
        "author_id": message.author_id,
        "author_name": message.author_name,
        "speaker": message.speaker,
        "character_id": message.character_id,
        "text": "" if deleted else message.text,
        "html": "" if deleted else render_markup(message.text),
        "created_at": message.created_at.isoformat(),
        "edited": message.edited_at is not None,
        "deleted": deleted,
        "visibility": message.visibility,
        "whisper": message.visibility == "listed",
        "to": list(recipients),
        "to_names": [names.get(uid, "?") for uid in recipients],
        "to_gm": message.to_gm,
        "roll": None if deleted else message.roll,
        "version": message.version,
        "may_edit": service.may_edit(message, viewer),
        "may_delete": service.may_delete(message, viewer),
    }


def handout_view(view: handouts.HandoutView, names: dict[int, str]) -> View:
    h = view.handout
    return {
        "id": h.id,
        "title": h.title,
        "body": h.body,
        "html": render_markup(h.body),
        "shown": h.shown_to_all or bool(view.readers) or h.shown_seq > 0,
        "shown_to_all": h.shown_to_all,
        "readers": view.readers,
        "reader_names": [names.get(uid, "?") for uid in view.readers],
        "version": h.version,
        "image": None
        if view.image is None
        else {
            "url": f"/campaigns/{h.campaign_id}/handouts/{h.id}/image?v={view.image.etag[:12]}",
            "width": view.image.width,
            "height": view.image.height,
        },
    }


async def member_names(session: AsyncSession, campaign_id: int) -> dict[int, str]:
    return {m.user_id: m.username for m in await campaigns.members(session, campaign_id)}


async def messages_context(
    session: AsyncSession,
    viewer: Viewer,
    campaign_id: int,
    messages: Sequence[ChatMessage],
    names: dict[int, str] | None = None,
) -> list[View]:
    names = names if names is not None else await member_names(session, campaign_id)
    recipients = await service.recipients_of(session, [m.id for m in messages])
    return [message_view(m, viewer, recipients.get(m.id, []), names) for m in messages]


async def handouts_context(session: AsyncSession, viewer: Viewer, campaign_id: int) -> View:
    names = await member_names(session, campaign_id)
    shown = await handouts.visible(session, viewer, campaign_id)
    return {
        "handouts": [handout_view(h, names) for h in shown],
        "can_manage_talk": allowed(viewer.role, Action.manage_talk),
        "campaign_id": campaign_id,
        "viewer": viewer,
    }


async def chat_context(
    session: AsyncSession,
    viewer: Viewer,
    campaign: Campaign,
    before: int | None = None,
    size: int = service.PAGE_SIZE,
) -> View:
    """The chat page for ``viewer``: a page of messages, the form's choices, the handouts."""
    members = await campaigns.members(session, campaign.id)
    names = {m.user_id: m.username for m in members}
    page = await service.page(session, viewer, campaign.id, before, size)
    return {
        "campaign": campaign,
        "campaign_id": campaign.id,
        "viewer": viewer,
        "messages": await messages_context(session, viewer, campaign.id, page.messages, names),
        "next_before": page.next_before,
        "before": before,
        "recipients": [m for m in members if m.user_id != viewer.user_id],
        "speakers": await service.speakers(session, viewer, campaign.id),
        "can_chat": allowed(viewer.role, Action.chat),
        "can_roll": allowed(viewer.role, Action.roll),
        "text_max": service.TEXT_MAX,
        "edit_minutes": service.EDIT_MINUTES,
        "errors": {},
        "values": {},
        **await handouts_context(session, viewer, campaign.id),
    }


def note_view(view: journal.NoteView, viewer: Viewer, names: dict[int, str]) -> View:
    n = view.note
    return {
        "id": n.id,
        "title": n.title,
        "body": n.body,
        "html": render_markup(n.body),
        "author_id": n.author_id,
        "author_name": n.author_name,
        "sharing": n.sharing,
        "quest": n.quest,
        "quest_label": gettext(QUEST_LABELS[n.quest]) if n.quest in QUEST_LABELS else None,
        "mine": n.author_id == viewer.user_id,
        "can_edit": journal.may_edit(n, viewer),
        "readers": view.readers,
        "reader_names": [names.get(uid, "?") for uid in view.readers],
        "updated_at": n.updated_at.isoformat(),
        "version": n.version,
    }


async def journal_context(session: AsyncSession, viewer: Viewer, campaign: Campaign) -> View:
    """The journal page for ``viewer``: the notes they may read and the form's choices."""
    members = await campaigns.members(session, campaign.id)
    names = {m.user_id: m.username for m in members}
    notes = await journal.readable(session, viewer, campaign.id)
    return {
        "campaign": campaign,
        "campaign_id": campaign.id,
        "viewer": viewer,
        "notes": [note_view(n, viewer, names) for n in notes],
        "others": [m for m in members if m.user_id != viewer.user_id],
        "can_write": allowed(viewer.role, Action.chat),
        "errors": {},
        "values": {},
    }
