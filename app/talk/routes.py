"""HTML pages of table talk: the chat page (forms post and redirect), its live stream, the
unread badge for the campaign page, the handouts page."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Annotated, Literal

from fastapi import Depends, File, Form, Query, Request, UploadFile
from fastapi.responses import HTMLResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from app import limits
from app.accounts.models import User
from app.campaigns import service as campaigns
from app.campaigns.models import Campaign
from app.characters import service as characters
from app.characters.rolling import RollRequest
from app.core.viewer import Role, Viewer
from app.errors import ValidationFailed
from app.i18n import N_, _
from app.knowledge import service as knowledge
from app.media.images import UPLOAD_BODY_BYTES, ImageRejected, process_upload
from app.talk import handouts, journal, lore, service, views
from app.talk.live import CHAT_PAGE, ChatPage, chat_page_context
from app.web.calls import CampaignAt, CampaignCall
from app.web.confirm import ConfirmText, confirmed
from app.web.deps import Ctx, afterwards, attempt
from app.web.idempotency import IDEMPOTENT, IdempotentRoute
from app.web.ids import MAX_ROW_ID, PathId
from app.web.media import image_response
from app.web.pages import FormPage, Refusal, page_route
from app.web.routers import Router
from app.web.sse import LiveStream
from app.web.streams import MemberStream
from app.web.templating import is_htmx, page, redirect

router = Router(include_in_schema=False, route_class=IdempotentRoute)


def _member_ids(chosen: list[str]) -> list[int]:
    """The members a form's ``to`` boxes name (anything but an id: 0, which is refused)."""
    return [int(t) if t.isdigit() else 0 for t in chosen]


@dataclass(frozen=True, slots=True)
class NoteForm:
    """A journal note's form fields, as typed (new note and edited note alike)."""

    title: str
    body: str
    sharing: str
    to: list[str]
    quest: str

    def draft(self) -> journal.NoteDraft:
        readers = _member_ids(self.to)
        return journal.NoteDraft(self.title, self.body, self.sharing, readers, self.quest or None)

    def values(self) -> dict[str, object]:
        """What the form shows again after a refusal."""
        return {
            "title": self.title, "body": self.body, "sharing": self.sharing,
            "to": self.to, "quest": self.quest,
        }  # fmt: skip


async def _note_form(
    title: Annotated[str, Form()] = "",
    body: Annotated[str, Form()] = "",
    sharing: Annotated[str, Form()] = "private",
    to: Annotated[list[str] | None, Form()] = None,
    quest: Annotated[str, Form()] = "",
) -> NoteForm:
    return NoteForm(title, body, sharing, to or [], quest)


NoteFields = Annotated[NoteForm, Depends(_note_form)]


@dataclass(frozen=True, slots=True)
class ChatForm:
    """The chat form's fields, as typed: ``to`` holds ``gm`` and/or user ids."""

    text: str
    kind: str
    as_character_id: str
    to: list[str]

    def draft(self) -> service.Draft:
        chosen: list[int] | Literal["gm"] | None = None
        if "gm" in self.to:
            chosen = "gm"
        elif self.to:
            chosen = _member_ids(self.to)
        return service.Draft(
            text=self.text,
            to=chosen,
            as_character_id=int(self.as_character_id) if self.as_character_id.isdigit() else None,
            kind=self.kind or None,
        )

    def values(self) -> dict[str, object]:
        """What the form shows again after a refusal: every field as typed."""
        return asdict(self)


async def _chat_form(
    text: Annotated[str, Form()] = "",
    kind: Annotated[str, Form()] = "",
    as_character_id: Annotated[str, Form()] = "",
    to: Annotated[list[str] | None, Form()] = None,
) -> ChatForm:
    return ChatForm(text, kind, as_character_id, to or [])


ChatFields = Annotated[ChatForm, Depends(_chat_form)]


async def _chat_page(
    request: Request,
    session: AsyncSession,
    user: User,
    campaign_id: int,
    *,
    before: int | None = None,
) -> HTMLResponse:
    campaign, viewer = await campaigns.open_campaign(session, user, campaign_id)
    context = await chat_page_context(session, viewer, campaign, before)
    return page(request, "talk/chat.html", context)


#: The chat form alone (HTMX) or, without JS after bad input, the chat page with it.
_CHAT_FORM = FormPage(
    "talk/chat.html",
    campaigns.open_campaign,
    chat_page_context,
    fragment="talk/_form.html",
    fragment_view=views.chat_form_context,
)


@router.get("/campaigns/{campaign_id}/chat", response_class=HTMLResponse)
async def chat(
    call: CampaignAt, before: int | None = Query(default=None, ge=1, le=MAX_ROW_ID)
) -> Response:
    """The chat page; opening its newest page marks the chat read."""
    request, session, user, campaign_id = call.parts()
    response = await _chat_page(*call.parts(), before=before)
    if before is None:
        # Read up to the newest line the page shows, marked once the page was read.
        _campaign, viewer = await campaigns.open_campaign(session, user, campaign_id)
        shown = await service.newest_line(session, campaign_id)
        afterwards(request, lambda own: service.mark_read(own, viewer, campaign_id, shown))
    return response


_BACK = re.compile(r"^/campaigns/(\d+)(/encounters/\d+)?$")


def _returns_within(back: str, campaign_id: int) -> bool:
    """Only the campaign's own page or one of its combat pages (never elsewhere)."""
    match = _BACK.match(back)
    return match is not None and int(match.group(1)) == campaign_id


@router.post("/campaigns/{campaign_id}/chat", dependencies=[IDEMPOTENT])
async def send(
    call: CampaignAt, ctx: Ctx, form: ChatFields, back: Annotated[str, Form()] = ""
) -> Response:
    request, session, user, campaign_id = call.parts()
    back = back if _returns_within(back, campaign_id) else ""
    extra = {"on_campaign_page": bool(back), "back": back}
    opened = await campaigns.open_campaign(session, user, campaign_id)  # read with the sign-in
    try:
        async with attempt(session):
            sent = await service.send(session, ctx.roller, user, campaign_id, form.draft())
    except ValidationFailed as exc:
        refused = {**extra, "errors": exc.fields, "values": form.values()}
        return await _CHAT_FORM.render(call, refused, status_code=422)
    await service.mark_read(session, sent.viewer, campaign_id, sent.message.seq)
    if is_htmx(request):
        # The message itself arrives over the live stream, like everyone else's.
        values = {"kind": form.kind, "as_character_id": form.as_character_id}
        return await _CHAT_FORM.render(call, {**extra, "values": values}, opened=opened)
    return redirect(request, back or f"/campaigns/{campaign_id}/chat")


@router.post("/campaigns/{campaign_id}/chat/{message_id}/edit")
async def edit(
    call: CampaignAt,
    message_id: PathId,
    text: Annotated[str, Form()] = "",
    version: Annotated[int | None, Form(ge=0, le=MAX_ROW_ID)] = None,
) -> Response:
    await service.edit(call.session, call.user, call.campaign_id, message_id, text, version)
    return redirect(call.request, f"/campaigns/{call.campaign_id}/chat")


_DELETE_MESSAGE = ConfirmText(
    N_("Delete this message?"),
    N_("The chat shows everyone who could read it that it was deleted."),
    N_("Delete the message"),
)


@router.post("/campaigns/{campaign_id}/chat/{message_id}/delete")
async def delete(call: CampaignAt, message_id: PathId) -> Response:
    request, session, user, campaign_id = call.parts()
    chat = f"/campaigns/{campaign_id}/chat"
    if not confirmed(await request.form()):
        await service.deletable(session, user, campaign_id, message_id)
        return _DELETE_MESSAGE.page(request, f"{chat}/{message_id}/delete", chat)
    await service.delete(session, user, campaign_id, message_id)
    return redirect(request, chat)


@router.get("/campaigns/{campaign_id}/chat/live")
async def live(stream: MemberStream) -> LiveStream:
    """The chat page's live region as HTML, for the HTMX SSE extension."""
    return stream(CHAT_PAGE.stream(ChatPage(stream.campaign_id)))


@router.get("/campaigns/{campaign_id}/chat/badge", response_class=HTMLResponse)
async def badge(call: CampaignAt) -> Response:
    """The chat link with the viewer's unread count (loaded into the campaign page)."""
    request, session, user, campaign_id = call.parts()
    _campaign, viewer = await campaigns.open_campaign(session, user, campaign_id)
    count = await service.unread(session, viewer, campaign_id)
    return page(request, "talk/_badge.html", {"campaign_id": campaign_id, "unread": count})


async def _handouts(session: AsyncSession, viewer: Viewer, campaign: Campaign) -> dict[str, object]:
    """The handouts the viewer may see, and the players and observers to show one to."""
    members = await campaigns.members(session, campaign.id)
    return {
        **await views.handouts_context(session, viewer, campaign.id),
        "campaign": campaign,
        "players": [m for m in members if m.role in (Role.player, Role.observer)],
    }


_HANDOUTS = FormPage(
    "talk/handouts.html", campaigns.open_campaign, _handouts,
    {"errors": {}, "values": {}, "show_errors": {}},
)  # fmt: skip
handouts_page = page_route(
    router, "/campaigns/{campaign_id}/handouts", "handouts_page", _HANDOUTS.render
)


@router.post("/campaigns/{campaign_id}/handouts", dependencies=[IDEMPOTENT])
async def create_handout(
    call: CampaignAt, title: Annotated[str, Form()] = "", body: Annotated[str, Form()] = ""
) -> Response:
    _request, session, user, campaign_id = call.parts()
    return await _HANDOUTS.answer(
        call,
        lambda: handouts.create(session, user, campaign_id, title, body),
        lambda exc: {"errors": exc.fields, "values": {"title": title, "body": body}},
        f"/campaigns/{campaign_id}/handouts",
    )  # fmt: skip


@router.post("/campaigns/{campaign_id}/handouts/{handout_id}/show")
async def show_handout(
    call: CampaignAt, handout_id: PathId, to: Annotated[list[str] | None, Form()] = None
) -> Response:
    _request, session, user, campaign_id = call.parts()
    chosen = to or []
    audience: handouts.Audience = "all" if "all" in chosen else _member_ids(chosen)
    return await _HANDOUTS.answer(
        call,
        lambda: handouts.show(session, user, campaign_id, handout_id, audience),
        lambda exc: {"show_errors": {handout_id: next(iter(exc.fields.values()))}},
        f"/campaigns/{campaign_id}/handouts",
    )  # fmt: skip


@router.post(
    "/campaigns/{campaign_id}/handouts/{handout_id}/image", max_body_size=UPLOAD_BODY_BYTES
)
async def upload_handout_image(
    call: CampaignAt, handout_id: PathId, image: Annotated[UploadFile, File()]
) -> Response:
    request, session, user, campaign_id = call.parts()
    _campaign, _viewer = await campaigns.open_campaign(session, user, campaign_id)
    try:
        stored = await process_upload(await image.read(limits.IMAGE_UPLOAD_BYTES + 1))
        async with attempt(session):
            await handouts.set_image(session, user, campaign_id, handout_id, stored)
    except ImageRejected as exc:
        extra = {"show_errors": {handout_id: exc.message}}
        return await _HANDOUTS.render(call, extra, exc.status)
    return redirect(request, f"/campaigns/{campaign_id}/handouts")


@router.get("/campaigns/{campaign_id}/handouts/{handout_id}/image")
async def handout_image(call: CampaignAt, handout_id: PathId) -> Response:
    """A handout's picture, for the handout's readers only (ETag, long private caching)."""
    request, session, user, campaign_id = call.parts()
    _campaign, viewer = await campaigns.open_campaign(session, user, campaign_id)
    image = await handouts.image_for(session, viewer, campaign_id, handout_id)
    return image_response(request, image.data, image.mime, image.etag)


#: The journal page; after a refusal (422) with the refused form's values and messages.
_JOURNAL = FormPage("talk/journal.html", campaigns.open_campaign, views.journal_context)
journal_page = page_route(
    router, "/campaigns/{campaign_id}/journal", "journal_page", _JOURNAL.render
)


@router.post("/campaigns/{campaign_id}/journal", dependencies=[IDEMPOTENT])
async def write_note(call: CampaignAt, form: NoteFields) -> Response:
    _request, session, user, campaign_id = call.parts()
    return await _JOURNAL.answer(
        call,
        lambda: journal.create(session, user, campaign_id, form.draft()),
        lambda exc: {"errors": exc.fields, "values": form.values()},
        f"/campaigns/{campaign_id}/journal",
    )  # fmt: skip


def _note_refused(note_id: int, values: Mapping[str, object]) -> Refusal:
    """The journal again (422), the refused note's form open with its values and messages."""
    return lambda exc: {"edit_id": note_id, "edit_errors": exc.fields, "edit_values": values}


@router.post("/campaigns/{campaign_id}/journal/{note_id}")
async def edit_note(
    call: CampaignAt,
    note_id: PathId,
    form: NoteFields,
    version: Annotated[int | None, Form()] = None,
) -> Response:
    """Change a note: its author, or a GM a shared note (journal.update)."""
    _request, session, user, campaign_id = call.parts()
    return await _JOURNAL.answer(
        call,
        lambda: journal.update(session, user, campaign_id, note_id, form.draft(), version),
        _note_refused(note_id, form.values()),
        f"/campaigns/{campaign_id}/journal#note-{note_id}",
    )  # fmt: skip


@router.post("/campaigns/{campaign_id}/journal/{note_id}/quest")
async def note_quest(
    call: CampaignAt,
    note_id: PathId,
    quest: Annotated[str, Form()] = "",
    version: Annotated[int | None, Form()] = None,
) -> Response:
    """A quest's status at one click: open, done (erledigt) or failed (gescheitert)."""
    _request, session, user, campaign_id = call.parts()
    return await _JOURNAL.answer(
        call,
        lambda: journal.set_quest(session, user, campaign_id, note_id, quest or None, version),
        _note_refused(note_id, {}),
        f"/campaigns/{campaign_id}/journal#note-{note_id}",
    )  # fmt: skip


_DELETE_NOTE = ConfirmText(
    N_("Delete this note?"),
    N_("It is gone for everyone who reads it; this cannot be undone."),
    N_("Delete the note"),
)


@router.post("/campaigns/{campaign_id}/journal/{note_id}/delete")
async def delete_note(
    call: CampaignAt, note_id: PathId, version: Annotated[int | None, Form()] = None
) -> Response:
    """Delete a note, after the confirmation the page asks for without JavaScript."""
    request, session, user, campaign_id = call.parts()
    if not confirmed(await request.form()):
        await journal.deletable(session, user, campaign_id, note_id)
        return _DELETE_NOTE.page(
            request,
            f"/campaigns/{campaign_id}/journal/{note_id}/delete",
            f"/campaigns/{campaign_id}/journal#note-{note_id}",
            {"version": "" if version is None else str(version)},
        )
    await journal.delete(session, user, campaign_id, note_id, version)
    return redirect(request, f"/campaigns/{campaign_id}/journal")


# --- what the heroes know --------------------------------------------------------------------


_KNOWLEDGE = FormPage("talk/knowledge.html", campaigns.open_campaign, lore.cards_context)


async def _card_form(
    call: CampaignCall, entry_id: int, change: Callable[[], Awaitable[object]]
) -> Response:
    """A monster card's form: ``change`` in a savepoint, then back to the cards; a refusal
    shows at the card (422)."""
    return await _KNOWLEDGE.answer(
        call, change,
        lambda exc: {"card_errors": {entry_id: "; ".join(exc.fields.values())}},
        f"/campaigns/{call.campaign_id}/knowledge",
    )  # fmt: skip


@router.get("/campaigns/{campaign_id}/knowledge", response_class=HTMLResponse)
async def knowledge_page(
    call: CampaignAt,
    entry: int | None = Query(default=None, ge=1, le=MAX_ROW_ID),
    checked: Literal["open", "secret"] | None = None,
) -> Response:
    """The monster cards: what the viewer knows of each creature (the GMs: everything);
    ``entry`` preselects the creature of the check form (the combat rows link it);
    ``checked``: the viewer's check about it was just rolled (openly or secretly), which the
    page says, so a secret check leaves its roller a trace (issue 31)."""
    extra: dict[str, object] = {"values": {"entry_id": str(entry)}} if entry else {}
    if checked and entry:
        extra["checked"] = checked
    return await _KNOWLEDGE.render(call, extra)


@router.post("/campaigns/{campaign_id}/knowledge/check", dependencies=[IDEMPOTENT])
async def knowledge_check(
    call: CampaignAt,
    ctx: Ctx,
    check: Annotated[str, Form()] = "",
    entry_id: Annotated[str, Form()] = "",
    modifier: Annotated[str, Form()] = "0",
) -> Response:
    """A knowledge check from the sheet: the character and roll (``check`` = "id:target")
    about a creature; what it reveals shows on the cards."""
    request, session, user, campaign_id = call.parts()
    character, _sep, target = check.partition(":")
    values = {"check": check, "entry_id": entry_id, "modifier": modifier}
    try:
        if not character.isdigit() or not entry_id.isdigit() or int(entry_id) > MAX_ROW_ID:
            raise ValidationFailed({"check": _("Choose a hero, a roll and a creature.")})
        bonus = int(modifier) if modifier.lstrip("-").isdigit() else 0
        async with attempt(session):
            event = await characters.roll(
                session, ctx.roller, user, campaign_id, int(character),
                RollRequest(target, modifier=max(-50, min(bonus, 50)), knowledge_of=int(entry_id)),
            )  # fmt: skip
    except ValidationFailed as exc:
        extra = {"errors": {"check": "; ".join(exc.fields.values())}, "values": values}
        return await _KNOWLEDGE.render(call, extra, 422)
    checked = "secret" if event.visibility == "gm" else "open"
    return redirect(
        request, f"/campaigns/{campaign_id}/knowledge?entry={entry_id}&checked={checked}"
    )


@router.post("/campaigns/{campaign_id}/knowledge/{entry_id}/reveal")
async def reveal_facts(
    call: CampaignAt,
    entry_id: PathId,
    facts: Annotated[list[str] | None, Form()] = None,
    to: Annotated[list[str] | None, Form()] = None,
) -> Response:
    _request, session, user, campaign_id = call.parts()
    chosen = to or ["party"]
    audience: knowledge.Audience = "party" if "party" in chosen else _member_ids(chosen)
    return await _card_form(
        call, entry_id,
        lambda: knowledge.reveal(session, user, campaign_id, entry_id, facts or [], audience),
    )  # fmt: skip


@router.post("/campaigns/{campaign_id}/knowledge/{entry_id}/facts/{fact_id}/confirm")
async def confirm_fact(
    call: CampaignAt,
    entry_id: PathId,
    fact_id: PathId,
    text: Annotated[str, Form()] = "",
    version: Annotated[int | None, Form(ge=0, le=MAX_ROW_ID)] = None,
) -> Response:
    _request, session, user, campaign_id = call.parts()
    return await _card_form(
        call, entry_id,
        lambda: knowledge.confirm(session, user, campaign_id, entry_id, fact_id, text, version),
    )  # fmt: skip
