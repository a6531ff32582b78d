"""The chat page's context, one builder for the page, the HTMX answers and the live push.

Everything a template shows of a message is prepared here for one viewer (its text already
rendered as safe Markdown-lite, the names of a whisper's recipients, whether the viewer may
edit it), so the page and the push cannot differ.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypedDict

from sqlalchemy.ext.asyncio import AsyncSession

from app.campaigns import service as campaigns
from app.campaigns.models import Campaign
from app.campaigns.permissions import Action, allowed
from app.core.viewer import Viewer
from app.i18n import N_, gettext
from app.talk import handouts, journal, service
from app.talk.markup import render_markup
from app.talk.models import ChatMessage, Handout, JournalNote


class MessageView(TypedDict):
    """A chat message as one viewer sees it (the page, the live push and the JSON API)."""

    id: int
    seq: int
    kind: str
    author_id: int | None
    author_name: str
    speaker: str | None
    character_id: int | None
    text: str
    #: The text rendered as safe Markdown-lite (``Markup``; ``""`` once deleted).
    html: str
    created_at: str
    edited: bool
    deleted: bool
    visibility: str
    whisper: bool
    to: list[int]
    to_names: list[str]
    to_gm: bool
    roll: dict[str, object] | None
    version: int
    may_edit: bool
    may_delete: bool


class HandoutImage(TypedDict):
    """A handout's picture: where its readers get it and its size."""

    url: str
    width: int
    height: int


class WrittenEntry(TypedDict):
    """What a handout and a journal note show alike: their text, as written and rendered."""

    id: int
    title: str
    body: str
    html: str


def _written_entry(row: Handout | JournalNote) -> WrittenEntry:
    return {"id": row.id, "title": row.title, "body": row.body, "html": render_markup(row.body)}


class HandoutEntry(WrittenEntry):
    """A handout as one viewer sees it."""

    shown: bool
    shown_to_all: bool
    readers: list[int]
    reader_names: list[str]
    version: int
    image: HandoutImage | None


class HandoutShelf(TypedDict):
    """The handouts a viewer may read and whether they may manage them."""

    handouts: list[HandoutEntry]
    can_manage_talk: bool
    campaign_id: int
    viewer: Viewer


class NoteEntry(WrittenEntry):
    """A journal note as one viewer sees it."""

    author_id: int | None
    author_name: str
    sharing: str
    quest: str | None
    quest_label: str | None
    mine: bool
    can_edit: bool
    readers: list[int]
    reader_names: list[str]
    updated_at: str
    version: int


QUEST_LABELS = {"open": N_("open"), "done": N_("done"), "failed": N_("failed")}


def message_view(
    message: ChatMessage, viewer: Viewer, recipients: Sequence[int], names: Mapping[int, str]
) -> MessageView:
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


def handout_view(view: handouts.HandoutView, names: dict[int, str]) -> HandoutEntry:
    h = view.handout
    return {
        **_written_entry(h),
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
    recipients: dict[int, list[int]] | None = None,
) -> list[MessageView]:
    """The messages as ``viewer`` sees them (the JSON API); ``recipients`` where the caller
    has read them already (a page of messages has them)."""
    names = await member_names(session, campaign_id)
    if recipients is None:
        recipients = await service.whispered_to(session, messages)
    return [message_view(m, viewer, recipients.get(m.id, []), names) for m in messages]


async def handouts_context(session: AsyncSession, viewer: Viewer, campaign_id: int) -> HandoutShelf:
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
) -> dict[str, object]:
    """The chat page for ``viewer``: a page of messages, the form's choices, the handouts."""
    form = await chat_form_context(session, viewer, campaign)
    page = await service.page(session, viewer, campaign.id, before, size)
    return {
        **form,
        # The lines as rows with their recipients; ``app.talk.live.with_lines`` renders them.
        "lines": [(m, page.recipients.get(m.id, [])) for m in page.messages],
        "next_before": page.next_before,
        "before": before,
        "edit_minutes": service.EDIT_MINUTES,
        **await handouts_context(session, viewer, campaign.id),
    }


async def chat_form_context(
    session: AsyncSession, viewer: Viewer, campaign: Campaign
) -> dict[str, object]:
    """The chat form's choices for ``viewer`` (whom to whisper to, whom to speak as): what
    the form alone needs when HTMX gets it back after a line was sent."""
    members = await campaigns.members(session, campaign.id)
    return {
        "campaign": campaign,
        "campaign_id": campaign.id,
        "viewer": viewer,
        "names": {m.user_id: m.username for m in members},
        "recipients": [m for m in members if m.user_id != viewer.user_id],
        "speakers": await service.speakers(session, viewer, campaign.id),
        "can_chat": allowed(viewer.role, Action.chat),
        "can_roll": allowed(viewer.role, Action.roll),
        "text_max": service.TEXT_MAX,
        "errors": {},
        "values": {},
    }


def note_view(view: journal.NoteView, viewer: Viewer, names: dict[int, str]) -> NoteEntry:
    n = view.note
    return {
        **_written_entry(n),
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


async def readable_notes(
    session: AsyncSession, viewer: Viewer, campaign_id: int, names: dict[int, str]
) -> list[NoteEntry]:
    """The notes ``viewer`` may read (``names``: the members' names by user id)."""
    notes = await journal.readable(session, viewer, campaign_id)
    return [note_view(n, viewer, names) for n in notes]


async def journal_context(
    session: AsyncSession, viewer: Viewer, campaign: Campaign
) -> dict[str, object]:
    """The journal page for ``viewer``: the notes they may read and the form's choices."""
    members = await campaigns.members(session, campaign.id)
    names = {m.user_id: m.username for m in members}
    return {
        "campaign": campaign,
        "campaign_id": campaign.id,
        "viewer": viewer,
        "notes": await readable_notes(session, viewer, campaign.id, names),
        "others": [m for m in members if m.user_id != viewer.user_id],
        "can_write": allowed(viewer.role, Action.chat),
        "errors": {},
        "values": {},
    }
