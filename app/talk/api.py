"""JSON API of table talk: chat messages (send, page back, edit, delete, unread) and handouts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from fastapi import File, Query, Response, UploadFile
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from app import limits
from app.campaigns import service as campaigns
from app.core.viewer import Viewer
from app.knowledge import service as knowledge
from app.limits import RowId, Seq, Version
from app.media.images import UPLOAD_BODY_BYTES, ImageRejected, process_upload
from app.talk import handouts, journal, lore, service, views
from app.web.answers import no_content
from app.web.deps import Ctx, CurrentUser, Session
from app.web.idempotency import IDEMPOTENT, IdempotentRoute
from app.web.ids import MAX_ROW_ID, PathId
from app.web.routers import Router

router = Router(
    prefix="/api/v1/campaigns/{campaign_id}", tags=["talk"], route_class=IdempotentRoute
)

#: Bodies are cut off well above the services' own limits (which answer at the field).
RAW_MAX = 100_000


class MessageIn(BaseModel):
    text: str = Field(max_length=RAW_MAX)
    to: list[RowId] | Literal["gm"] | None = Field(default=None, max_length=service.RECIPIENTS_MAX)
    as_character_id: RowId | None = None
    kind: Literal["ooc", "ic", "emote"] | None = None


class MessageEdit(BaseModel):
    text: str = Field(max_length=RAW_MAX)
    version: Version | None = None


class MessagePage(BaseModel):
    messages: list[dict[str, object]]
    next_before: int | None
    unread: int


class Unread(BaseModel):
    unread: int


class ReadMark(BaseModel):
    seq: Seq | None = None


class HandoutIn(BaseModel):
    title: str = Field(max_length=RAW_MAX)
    body: str = Field(default="", max_length=RAW_MAX)
    shown_to: list[RowId] | Literal["all"] | None = Field(default=None, max_length=200)


class ShowIn(BaseModel):
    to: list[RowId] | Literal["all"] = Field(max_length=200)


class HandoutList(BaseModel):
    handouts: list[dict[str, object]]


def _html_text(entry: Mapping[str, object]) -> dict[str, object]:
    """An entry as JSON: its ``html`` (the rendered Markdown-lite, markup-safe) as a string."""
    return {**entry, "html": str(entry["html"])}


def _out(view: views.MessageView) -> dict[str, object]:
    """A message as JSON, with its seq as ``event_id``."""
    return {**_html_text(view), "event_id": view["seq"]}


async def _message_out(
    session: Session, user: CurrentUser, campaign_id: int, message_id: int
) -> dict[str, object]:
    _campaign, viewer = await campaigns.open_campaign(session, user, campaign_id)
    rows = await service.messages_by_id(session, viewer, campaign_id, [message_id])
    return _out((await views.messages_context(session, viewer, campaign_id, rows))[0])


@router.post("/messages", status_code=201, dependencies=[IDEMPOTENT])
async def send(
    campaign_id: PathId, body: MessageIn, session: Session, user: CurrentUser, ctx: Ctx
) -> dict[str, object]:
    draft = service.Draft(body.text, body.to, body.as_character_id, body.kind)
    sent = await service.send(session, ctx.roller, user, campaign_id, draft)
    # Answered from what was just written: nothing read back (the names only for a whisper).
    names = await views.member_names(session, campaign_id) if sent.recipients else {}
    return _out(views.message_view(sent.message, sent.viewer, sent.recipients, names))


@router.get("/messages", response_model=MessagePage)
async def messages(
    campaign_id: PathId,
    session: Session,
    user: CurrentUser,
    before: int | None = Query(default=None, ge=1, le=MAX_ROW_ID),
) -> MessagePage:
    """A page of messages the caller may read, oldest first; ``next_before`` pages back."""
    _campaign, viewer = await campaigns.open_campaign(session, user, campaign_id)
    page = await service.page(session, viewer, campaign_id, before)
    shown = await views.messages_context(
        session, viewer, campaign_id, page.messages, recipients=page.recipients
    )
    return MessagePage(
        messages=[_out(m) for m in shown],
        next_before=page.next_before,
        unread=await service.unread(session, viewer, campaign_id),
    )


@router.get("/messages/unread", response_model=Unread)
async def unread(campaign_id: PathId, session: Session, user: CurrentUser) -> Unread:
    _campaign, viewer = await campaigns.open_campaign(session, user, campaign_id)
    return Unread(unread=await service.unread(session, viewer, campaign_id))


@router.post("/messages/read", response_model=Unread)
async def mark_read(
    campaign_id: PathId, body: ReadMark, session: Session, user: CurrentUser
) -> Unread:
    """Move the caller's last-read mark to ``seq`` (default: the newest message)."""
    _campaign, viewer = await campaigns.open_campaign(session, user, campaign_id)
    await service.mark_read(session, viewer, campaign_id, body.seq)
    return Unread(unread=await service.unread(session, viewer, campaign_id))


@router.patch("/messages/{message_id}")
async def edit(
    campaign_id: PathId, message_id: PathId, body: MessageEdit, session: Session, user: CurrentUser
) -> dict[str, object]:
    await service.edit(session, user, campaign_id, message_id, body.text, body.version)
    return await _message_out(session, user, campaign_id, message_id)


@router.delete("/messages/{message_id}", status_code=204)
async def delete(
    campaign_id: PathId, message_id: PathId, session: Session, user: CurrentUser
) -> Response:
    return await no_content(service.delete(session, user, campaign_id, message_id))


async def _handout_out(
    session: Session, user: CurrentUser, campaign_id: int, handout_id: int
) -> dict[str, object]:
    _campaign, viewer = await campaigns.open_campaign(session, user, campaign_id)
    shelf = await views.handouts_context(session, viewer, campaign_id)
    return _html_text(next(h for h in shelf["handouts"] if h["id"] == handout_id))


@router.post("/handouts", status_code=201, dependencies=[IDEMPOTENT])
async def create_handout(
    campaign_id: PathId, body: HandoutIn, session: Session, user: CurrentUser
) -> dict[str, object]:
    handout = await handouts.create(
        session, user, campaign_id, body.title, body.body, body.shown_to
    )
    return await _handout_out(session, user, campaign_id, handout.id)


@router.post("/handouts/{handout_id}/show")
async def show_handout(
    campaign_id: PathId, handout_id: PathId, body: ShowIn, session: Session, user: CurrentUser
) -> dict[str, object]:
    await handouts.show(session, user, campaign_id, handout_id, body.to)
    return await _handout_out(session, user, campaign_id, handout_id)


@router.post("/handouts/{handout_id}/image", max_body_size=UPLOAD_BODY_BYTES)
async def handout_image(
    campaign_id: PathId,
    handout_id: PathId,
    session: Session,
    user: CurrentUser,
    image: Annotated[UploadFile, File(description="PNG, JPEG or WebP")],
) -> Any:
    """Give a handout its picture (GMs); it is re-encoded and served only to its readers
    (413 too large, 422 no image or a decompression bomb)."""
    _campaign, _viewer = await campaigns.open_campaign(session, user, campaign_id)
    try:
        stored = await process_upload(await image.read(limits.IMAGE_UPLOAD_BYTES + 1))
    except ImageRejected as exc:
        errors = {"image": exc.message}
        return JSONResponse({"detail": exc.message, "errors": errors}, status_code=exc.status)
    await handouts.set_image(session, user, campaign_id, handout_id, stored)
    return await _handout_out(session, user, campaign_id, handout_id)


@router.get("/handouts", response_model=HandoutList)
async def list_handouts(campaign_id: PathId, session: Session, user: CurrentUser) -> HandoutList:
    """The handouts the caller may read (the GMs: all, with whom each was shown to)."""
    _campaign, viewer = await campaigns.open_campaign(session, user, campaign_id)
    shelf = await views.handouts_context(session, viewer, campaign_id)
    return HandoutList(handouts=[_html_text(h) for h in shelf["handouts"]])


class NoteIn(BaseModel):
    title: str = Field(max_length=RAW_MAX)
    body: str = Field(default="", max_length=RAW_MAX)
    sharing: Literal["private", "group", "listed"] = "private"
    to: list[RowId] | None = Field(default=None, max_length=200)
    quest: Literal["open", "done", "failed"] | None = Field(
        default=None, description="a quest's status; none: a plain note"
    )
    version: Version | None = None


class NoteList(BaseModel):
    notes: list[dict[str, object]]


async def _note_out(
    session: Session, user: CurrentUser, campaign_id: int, note_id: int
) -> dict[str, object]:
    _campaign, viewer = await campaigns.open_campaign(session, user, campaign_id)
    notes = await _readable(session, viewer, campaign_id)
    return _html_text(next(n for n in notes if n["id"] == note_id))


async def _readable(session: Session, viewer: Viewer, campaign_id: int) -> list[views.NoteEntry]:
    names = await views.member_names(session, campaign_id)
    return await views.readable_notes(session, viewer, campaign_id, names)


def _note_draft(body: NoteIn) -> journal.NoteDraft:
    return journal.NoteDraft(body.title, body.body, body.sharing, body.to, body.quest)


@router.post("/journal", status_code=201, dependencies=[IDEMPOTENT])
async def create_note(
    campaign_id: PathId, body: NoteIn, session: Session, user: CurrentUser
) -> dict[str, object]:
    note = await journal.create(session, user, campaign_id, _note_draft(body))
    return await _note_out(session, user, campaign_id, note.id)


@router.patch("/journal/{note_id}")
async def update_note(
    campaign_id: PathId, note_id: PathId, body: NoteIn, session: Session, user: CurrentUser
) -> dict[str, object]:
    """Change a note: its author, or a GM a shared note they read (never a player's private
    one); the whole note is sent (title, body, sharing, to, quest)."""
    await journal.update(session, user, campaign_id, note_id, _note_draft(body), body.version)
    return await _note_out(session, user, campaign_id, note_id)


@router.delete("/journal/{note_id}", status_code=204)
async def delete_note(
    campaign_id: PathId,
    note_id: PathId,
    session: Session,
    user: CurrentUser,
    version: int | None = Query(default=None, ge=0, le=MAX_ROW_ID),
) -> Response:
    """Delete a note: its author, or a GM a shared note (a group's quest)."""
    return await no_content(journal.delete(session, user, campaign_id, note_id, version))


@router.get("/journal", response_model=NoteList)
async def notes(campaign_id: PathId, session: Session, user: CurrentUser) -> NoteList:
    """The notes the caller may read: their own, the group's, those shared with them."""
    _campaign, viewer = await campaigns.open_campaign(session, user, campaign_id)
    shown = await _readable(session, viewer, campaign_id)
    return NoteList(notes=[_html_text(n) for n in shown])


class RevealIn(BaseModel):
    facts: list[str] = Field(max_length=knowledge.FACTS_MAX)
    to: list[RowId] | Literal["party"] = Field(default="party", max_length=knowledge.RECIPIENTS_MAX)


class ConfirmIn(BaseModel):
    text: str | None = Field(default=None, max_length=RAW_MAX)
    version: Version | None = None


async def _knowledge_out(
    session: Session, user: CurrentUser, campaign_id: int, entry_id: int
) -> lore.Card:
    found = await knowledge.knowledge(session, user, campaign_id, entry_id)
    names = await views.member_names(session, campaign_id) if found.gm else {}
    return lore.card(found, names)


@router.get("/bestiary/{entry_id}/knowledge")
async def entry_knowledge(
    campaign_id: PathId, entry_id: PathId, session: Session, user: CurrentUser
) -> dict[str, object]:
    """The facts of a bestiary entry the caller may see: a player those revealed to the
    group or to them (404 when none), a GM every fact, who knows it and the false ones."""
    return dict(await _knowledge_out(session, user, campaign_id, entry_id))


@router.post("/bestiary/{entry_id}/reveal")
async def reveal(
    campaign_id: PathId, entry_id: PathId, body: RevealIn, session: Session, user: CurrentUser
) -> dict[str, object]:
    """Reveal facts (their keys) to the group (``"party"``) or to chosen members (GMs)."""
    told = await knowledge.reveal(session, user, campaign_id, entry_id, body.facts, body.to)
    return {"revealed": told, **await _knowledge_out(session, user, campaign_id, entry_id)}


@router.post("/bestiary/{entry_id}/knowledge/{fact_id}/confirm")
async def confirm_false_fact(
    campaign_id: PathId,
    entry_id: PathId,
    fact_id: PathId,
    body: ConfirmIn,
    session: Session,
    user: CurrentUser,
) -> dict[str, object]:
    """Confirm a pending false fact, or replace its ``text``; then its audience learns it."""
    await knowledge.confirm(session, user, campaign_id, entry_id, fact_id, body.text, body.version)
    return dict(await _knowledge_out(session, user, campaign_id, entry_id))
