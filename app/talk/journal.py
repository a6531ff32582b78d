"""Journal notes: each member's campaign notes, private or shared.

A note is private to its author, shared with the group (every member), or, for the GMs,
shared with chosen members. A private note is nobody else's business: not even the GMs
read it, and it writes no event (like the chat's last-read mark, it is no shared state).
Writing or changing a shared note is a ``journal_note_shared`` event to its readers only.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import exists, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.exc import StaleDataError

from app import limits
from app.accounts.models import User
from app.campaigns import service as campaigns
from app.campaigns.permissions import Action, authorize_viewer
from app.core.queries import all_rows
from app.core.viewer import Viewer
from app.db import utcnow
from app.errors import Conflict, Forbidden, NotFound, ValidationFailed
from app.events.audience import listed, public
from app.events.service import append_event
from app.i18n import _
from app.talk.events import JournalNoteDeleted, JournalNoteShared
from app.talk.handouts import BODY_MAX, TITLE_MAX
from app.talk.models import JournalNote, JournalReader
from app.talk.readers import listed_users

SHARINGS = ("private", "group", "listed")
#: A quest's or thread's status; a note without one is a plain note.
QUEST_STATES = ("open", "done", "failed")
#: Notes listed per member and campaign (the newest first).
LIST_MAX = 200


@dataclass(frozen=True, slots=True)
class NoteDraft:
    title: str
    body: str
    sharing: str = "private"
    #: ``listed``: the members it is shared with.
    to: list[int] | None = None
    #: A quest: ``open``, ``done`` or ``failed``; ``None``: a plain note.
    quest: str | None = None


async def create(
    session: AsyncSession, user: User, campaign_id: int, draft: NoteDraft
) -> JournalNote:
    viewer = await authorize_viewer(session, campaign_id, user.id, user.username, Action.chat)
    readers = await _check(session, viewer, campaign_id, draft)
    note = JournalNote(
        campaign_id=campaign_id,
        author_id=user.id,
        author_name=user.username,
        title=draft.title.strip(),
        body=draft.body.strip(),
        sharing=draft.sharing,
        quest=draft.quest,
    )
    session.add(note)
    return await _save(session, user, note, readers)


async def update(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    note_id: int,
    draft: NoteDraft,
    version: int | None = None,
) -> JournalNote:
    """Change a note (text, sharing, readers, a quest's status): the author their own, a GM
    any shared note they read (a group's quest); nobody else's private note."""
    viewer, note = await _editable(session, user, campaign_id, note_id, version)
    readers = await _check(session, viewer, campaign_id, draft)
    if draft.sharing == "private" and note.author_id != user.id:
        raise ValidationFailed({"sharing": _("Only its author makes a note private.")})
    note.title, note.body, note.sharing = draft.title.strip(), draft.body.strip(), draft.sharing
    note.quest = draft.quest
    note.updated_at = utcnow()
    return await _save(session, user, note, readers)


async def set_quest(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    note_id: int,
    quest: str | None,
    version: int | None = None,
) -> JournalNote:
    """Only a quest's status (open, done, failed), the rest of the note as it is."""
    _viewer, note = await _editable(session, user, campaign_id, note_id, version)
    readers = await _readers(session, note)
    draft = NoteDraft(note.title, note.body, note.sharing, readers, quest)
    return await update(session, user, campaign_id, note_id, draft, version)


async def delete(
    session: AsyncSession, user: User, campaign_id: int, note_id: int, version: int | None = None
) -> None:
    """Delete a note (who may change it may delete it); a shared one tells its readers."""
    _viewer, note = await _editable(session, user, campaign_id, note_id, version)
    readers = await _readers(session, note)
    if note.sharing != "private":
        await append_event(
            session,
            campaign_id,
            JournalNoteDeleted(actor_name=user.username, note_id=note.id, title=note.title,
                               to=readers),
            actor_id=user.id,
            audience=public() if note.sharing == "group" else listed(readers),
        )  # fmt: skip
    await _set_readers(session, note, [])
    await session.delete(note)
    await session.flush()


async def deletable(session: AsyncSession, user: User, campaign_id: int, note_id: int) -> None:
    """Raises unless ``user`` may delete the note (before the confirmation is asked)."""
    await _editable(session, user, campaign_id, note_id, None)


async def _editable(
    session: AsyncSession, user: User, campaign_id: int, note_id: int, version: int | None
) -> tuple[Viewer, JournalNote]:
    """The note if ``user`` may change it: its author, or a GM who reads it and it is not
    private (a player's private note stays theirs alone: 404, as if it did not exist)."""
    viewer = await authorize_viewer(session, campaign_id, user.id, user.username, Action.chat)
    note = await session.get(JournalNote, note_id)
    if note is None or note.campaign_id != campaign_id:
        raise NotFound(_("Note not found."))
    if note.author_id != user.id:
        reads = note.sharing == "group" or (
            note.sharing == "listed" and user.id in await _readers(session, note)
        )
        if not reads:
            raise NotFound(_("Note not found."))
        if not may_edit(note, viewer):
            raise Forbidden(_("Only its author and the GMs change a shared note."))
    if version is not None and version != note.version:
        raise Conflict(_("The note changed meanwhile."))
    return viewer, note


async def _readers(session: AsyncSession, note: JournalNote) -> list[int]:
    return await all_rows(
        session,
        select(JournalReader.user_id)
        .where(JournalReader.note_id == note.id)
        .order_by(JournalReader.user_id),
    )


async def _check(
    session: AsyncSession, viewer: Viewer, campaign_id: int, draft: NoteDraft
) -> list[int]:
    """The note's fields checked at once; its readers (``listed``) back."""
    errors: dict[str, str] = {}
    title = draft.title.strip()
    if not title:
        errors["title"] = _("Give the note a title.")
    elif problem := limits.name_problem(title, TITLE_MAX):
        errors["title"] = problem
    if problem := limits.text_problem(draft.body, BODY_MAX):
        errors["body"] = problem
    if draft.quest is not None and draft.quest not in QUEST_STATES:
        errors["quest"] = _("A quest is open, done or failed.")
    readers: list[int] = []
    if draft.sharing not in SHARINGS or (draft.sharing == "listed" and not viewer.is_gm):
        errors["sharing"] = _("Keep it private or share it with the group.")
    elif draft.sharing == "listed":
        readers = sorted(set(draft.to or []) - {viewer.user_id})
        if not readers or not await campaigns.all_members(session, campaign_id, readers):
            errors["to"] = _("Share it with members of this campaign.")
    if errors:
        raise ValidationFailed(errors)
    return readers


async def _set_readers(session: AsyncSession, note: JournalNote, readers: list[int]) -> None:
    for old in (
        await session.scalars(select(JournalReader).where(JournalReader.note_id == note.id))
    ).all():
        await session.delete(old)
    await session.flush()
    session.add_all(JournalReader(note_id=note.id, user_id=uid) for uid in readers)
    await session.flush()


async def _save(
    session: AsyncSession, user: User, note: JournalNote, readers: list[int]
) -> JournalNote:
    """Write the note (409 if it changed meanwhile) and its readers as written; a shared
    note is announced to them (an event)."""
    try:
        await session.flush()
    except StaleDataError as exc:
        raise Conflict(_("The note changed meanwhile.")) from exc
    await _set_readers(session, note, readers)
    if note.sharing == "private":
        return note
    await append_event(
        session,
        note.campaign_id,
        JournalNoteShared(
            actor_name=user.username,
            note_id=note.id,
            title=note.title,
            body=note.body,
            sharing=note.sharing,
            to=readers,
            quest=note.quest,
        ),
        actor_id=user.id,
        audience=public() if note.sharing == "group" else listed(readers),
    )
    return note


@dataclass(frozen=True, slots=True)
class NoteView:
    note: JournalNote
    #: Its readers, for those who may change it only (its author, the GMs).
    readers: list[int]


def may_edit(note: JournalNote, viewer: Viewer) -> bool:
    """Of a note ``viewer`` reads: the author's own, or a GM's to change when shared."""
    return note.author_id == viewer.user_id or (viewer.is_gm and note.sharing != "private")


async def readable(session: AsyncSession, viewer: Viewer, campaign_id: int) -> list[NoteView]:
    """The notes ``viewer`` may read: their own, the group's, those shared with them."""
    rows = (
        await session.scalars(
            select(JournalNote)
            .where(
                JournalNote.campaign_id == campaign_id,
                or_(
                    JournalNote.author_id == viewer.user_id,
                    JournalNote.sharing == "group",
                    exists().where(
                        JournalReader.note_id == JournalNote.id,
                        JournalReader.user_id == viewer.user_id,
                        JournalNote.sharing == "listed",
                    ),
                ),
            )
            .order_by(JournalNote.updated_at.desc(), JournalNote.id.desc())
            .limit(LIST_MAX)
        )
    ).all()
    own = [n.id for n in rows if n.author_id == viewer.user_id or may_edit(n, viewer)]
    readers = await listed_users(session, JournalReader.note_id, JournalReader.user_id, own)
    return [NoteView(n, readers.get(n.id, [])) for n in rows]
