"""The campaign chat: send (with ``/me``, ``/w``, ``/r``, ``/gr``), edit, delete, read, page.

Who reads a message is decided once, when it is sent: the audience of its
``chat_message`` event (``public``; ``self`` for a ``/gr`` roll: the GMs and the sender;
``listed`` for a whisper: its recipients, the sender and the GMs). **The GMs read every
whisper** (the table's rule, shown on the chat page): a whisper "to the GM" is a whisper to
the GMs. The chat's pages read through that audience too (:func:`readable_by`, the log's
SQL twin), so the page, the API, the stream and a replay agree by construction.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Literal, cast

from sqlalchemy import (
    ColumnElement,
    Select,
    Table,
    bindparam,
    exists,
    func,
    insert,
    or_,
    select,
)
from sqlalchemy.dialects.postgresql import Insert as PgInsert
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import Insert as SqliteInsert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import make_transient_to_detached
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.exc import StaleDataError

from app import limits
from app.accounts.models import User
from app.accounts.service import login_key
from app.campaigns import service as campaigns
from app.campaigns.models import Membership
from app.campaigns.permissions import Action, allowed, authorize_viewer
from app.characters.models import Character
from app.core.queries import all_rows
from app.core.remembered import remembered
from app.core.viewer import Viewer
from app.db import utcnow
from app.errors import Conflict, Forbidden, NotFound, TooManyRequests, ValidationFailed
from app.events.audience import chosen, sql_reader
from app.events.events import Roll
from app.events.models import CampaignEvent
from app.events.service import Stamp, append_event, audience_of, visible_to
from app.i18n import _
from app.rolls import service as rolls
from app.rules.dice import Roller
from app.talk.events import ChatMessageDeleted, ChatMessageEdited, ChatMessagePosted
from app.talk.models import ChatMessage, ChatRead, ChatRecipient
from app.talk.readers import listed_users

#: A message's text, in characters (a 100 kB paste is refused at the field).
TEXT_MAX = 2000
#: How long the sender may edit or delete a message.
EDIT_WINDOW = timedelta(minutes=5)
#: Messages per page (the chat page, ``GET …/messages``).
PAGE_SIZE = 50
#: Recipients of one whisper.
RECIPIENTS_MAX = 20
#: Messages one member may send per ``RATE_WINDOW`` in one campaign.
RATE_LIMIT = 20
RATE_WINDOW = timedelta(seconds=30)

Kind = Literal["ooc", "ic", "emote"]
KINDS: tuple[str, ...] = ("ooc", "ic", "emote")


@dataclass(frozen=True, slots=True)
class Draft:
    """A message as a member asks to send it (form or JSON)."""

    text: str
    #: User ids to whisper to, ``"gm"`` for the GMs only, ``None`` for everyone.
    to: list[int] | Literal["gm"] | None = None
    as_character_id: int | None = None
    kind: str | None = None


@dataclass(frozen=True, slots=True)
class Command:
    """What a draft means after its leading ``/command``."""

    kind: str
    text: str
    to: list[int] | Literal["gm"] | None
    #: ``/r`` and ``/gr``: the expression and the roll's visibility.
    roll: tuple[str, str] | None = None


@dataclass(frozen=True, slots=True)
class Checked:
    """A command that passed every check: whom it reaches, who speaks."""

    recipients: list[int]
    speaker: str | None
    character_id: int | None


@dataclass(frozen=True, slots=True)
class Sent:
    """A message just sent, with what its sender's answer shows of it without reading it
    back: its recipients and the sender as the viewer they are in the campaign."""

    message: ChatMessage
    recipients: list[int]
    viewer: Viewer


async def send(
    session: AsyncSession, roller: Roller, user: User, campaign_id: int, draft: Draft
) -> Sent:
    """Send a message for a member who may chat; a ``chat_message`` event (and a ``roll``)."""
    viewer = await authorize_viewer(session, campaign_id, user.id, user.username, Action.chat)
    command = await _parse(session, campaign_id, draft)
    checked = await _check(session, viewer, campaign_id, draft, command)
    roll = await _inline_roll(session, roller, user, campaign_id, command) if command.roll else None
    if command.roll is not None:
        visibility = command.roll[1]
    else:
        visibility = "public" if command.to is None else "listed"
    message = await _written(
        session,
        ChatMessage(
            campaign_id=campaign_id,
            author_id=user.id,
            author_name=user.username,
            kind=command.kind,
            text=command.text,
            speaker=checked.speaker,
            character_id=checked.character_id,
            visibility=visibility,
            to_gm=command.to == "gm",
            roll=roll,
            seq=0,
            version=1,
            created_at=utcnow(),
            edited_at=None,
            deleted_at=None,
        ),
    )
    session.add_all(ChatRecipient(message_id=message.id, user_id=uid) for uid in checked.recipients)
    await _log_posted(session, user, message, checked.recipients)
    return Sent(message, checked.recipients, viewer)


async def _check(
    session: AsyncSession, viewer: Viewer, campaign_id: int, draft: Draft, command: Command
) -> Checked:
    """Every field of the message checked at once (422 with a message per field)."""
    errors = _text_errors(command.text, required=command.roll is None)
    if command.kind not in (*KINDS, "roll"):
        errors["kind"] = _("Choose out of character, in character or emote.")
    recipients: list[int] = []
    if isinstance(command.to, list):
        recipients, error = await _recipients(session, campaign_id, viewer.user_id, command.to)
        if error:
            errors["to"] = error
    speaker, character_id = None, None
    if command.kind in ("ic", "emote") and draft.as_character_id is not None:
        character = await _speaking_as(session, viewer, campaign_id, draft.as_character_id)
        if character is None:
            errors["as_character_id"] = _("You cannot speak as this character.")
        else:
            speaker, character_id = character.name, character.id
    elif command.kind == "ic":
        errors["as_character_id"] = _("Choose the character you speak as.")
    if errors:
        raise ValidationFailed(errors)
    return Checked(recipients, speaker, character_id)


async def _log_posted(
    session: AsyncSession, user: User, message: ChatMessage, recipients: list[int]
) -> None:
    event = await append_event(
        session,
        message.campaign_id,
        ChatMessagePosted(
            actor_name=user.username,
            message_id=message.id,
            kind=message.kind,
            text=message.text,
            speaker=message.speaker,
            character_id=message.character_id,
            to=recipients,
            to_gm=message.to_gm,
            roll=message.roll,
        ),
        actor_id=user.id,
        audience=chosen(message.visibility, user.id, recipients),
        # Its order is its event's seq, known only then: set by the append, not an edit.
        stamp=Stamp(_MESSAGES, "seq", message.id),
        # Its time is its event's: a live push shows the message as its event tells it.
        at=message.created_at,
    )
    set_committed_value(message, "seq", event.seq)


def as_posted(event: CampaignEvent) -> tuple[ChatMessage, list[int]]:
    """A new message as its ``chat_message`` event tells it (the row :func:`post` wrote with
    it, before any edit), and its recipients: a live push reads no row for it. Not added to
    any session."""
    said = ChatMessagePosted.from_json(event.payload)
    message = ChatMessage(
        id=said.message_id,
        campaign_id=event.campaign_id,
        seq=event.seq,
        author_id=event.actor_id,
        author_name=said.actor_name,
        kind=said.kind,
        text=said.text,
        speaker=said.speaker,
        character_id=said.character_id,
        visibility=audience_of(event).visibility,
        to_gm=said.to_gm,
        roll=said.roll,
        version=1,
        created_at=event.created_at,
        edited_at=None,
        deleted_at=None,
    )
    return message, sorted(said.to)


_MESSAGES = cast(Table, ChatMessage.__table__)
#: What :func:`_written` writes of a new message: every column but its id.
_WRITTEN = [c for c in _MESSAGES.c if c.name != "id"]
#: A new message, written only while its author has sent fewer than ``limit`` messages in
#: the campaign since ``since``: the rate check and the INSERT in one statement (built once,
#: it runs with every message).
_INSERT_WITHIN_RATE = (
    insert(_MESSAGES)
    .from_select(
        _WRITTEN,
        select(*(bindparam(c.name, type_=c.type) for c in _WRITTEN)).where(
            select(func.count())
            .select_from(_MESSAGES)
            .where(
                _MESSAGES.c.campaign_id == bindparam("campaign_id"),
                _MESSAGES.c.author_id == bindparam("author_id"),
                _MESSAGES.c.created_at > bindparam("since"),
            )
            .scalar_subquery()
            < bindparam("limit")
        ),
    )
    .returning(_MESSAGES.c.id)
)


async def _written(session: AsyncSession, message: ChatMessage) -> ChatMessage:
    """Write ``message`` (every column given) unless its author has sent ``RATE_LIMIT``
    messages in the last ``RATE_WINDOW`` (429), and return it as a row of the session."""
    params = {c.name: getattr(message, c.key) for c in _WRITTEN}
    since = message.created_at - RATE_WINDOW
    found = await session.execute(
        _INSERT_WITHIN_RATE, {**params, "since": since, "limit": RATE_LIMIT}
    )
    message_id = found.scalar_one_or_none()
    if message_id is None:
        raise TooManyRequests(
            _("Too many messages; wait a moment."), int(RATE_WINDOW.total_seconds())
        )
    message.id = message_id
    make_transient_to_detached(message)
    session.add(message)
    return message


def _text_errors(text: str, *, required: bool = True) -> dict[str, str]:
    if required and not text.strip():
        return {"text": _("Write something.")}
    problem = limits.text_problem(text, TEXT_MAX)
    return {"text": problem} if problem else {}


async def _parse(session: AsyncSession, campaign_id: int, draft: Draft) -> Command:
    """Read ``/me text``, ``/w name[,name|gm] text``, ``/r expr [label]``, ``/gr expr [label]``;
    anything else is the draft as it is."""
    text = draft.text.strip()
    head, _sep, rest = text.partition(" ")
    rest = rest.strip()
    match head.lower():
        case "/me":
            return Command("emote", rest, draft.to)
        case "/w":
            names, said = split_recipients(rest)
            to = await _names_to_ids(session, campaign_id, names)
            return Command(draft.kind or "ooc", said.strip(), to)
        case "/r" | "/gr":
            expression, _sep, label = rest.partition(" ")
            visibility = "public" if head.lower() == "/r" else "self"
            return Command("roll", label.strip(), None, (expression, visibility))
    return Command(draft.kind or "ooc", text, draft.to)


def split_recipients(rest: str) -> tuple[list[str], str]:
    """``/w``'s names and the text after them. Names are comma-separated; a name with spaces
    ("Meisterin Mara") is written in quotes: ``/w "Meisterin Mara",Jürgen Psst``."""
    names: list[str] = []
    text = rest
    while text:
        if text.startswith('"'):
            name, closed, text = text[1:].partition('"')
            if not closed:
                return [*names, name], ""
        else:
            cut = min((i for i in (text.find(","), text.find(" ")) if i >= 0), default=len(text))
            name, text = text[:cut], text[cut:]
        if name.strip():
            names.append(name.strip())
        if not text.startswith(","):
            break
        text = text[1:]
    return names, text


async def _names_to_ids(
    session: AsyncSession, campaign_id: int, names: Sequence[str]
) -> list[int] | Literal["gm"]:
    """``/w`` recipients by name (as they log in: case and width do not matter) or ``gm``;
    unknown names become ``0`` so that the recipient check reports them."""
    if [n.lower() for n in names] == ["gm"]:
        return "gm"
    keys = [login_key(n) for n in names]
    rows = (
        await session.execute(
            select(User.username_key, User.id)
            .join(Membership, Membership.user_id == User.id)
            .where(Membership.campaign_id == campaign_id, User.username_key.in_(keys))
        )
    ).all()
    by_key = dict(rows)
    return [by_key.get(k, 0) for k in keys] or [0]


async def _recipients(
    session: AsyncSession, campaign_id: int, sender_id: int, wanted: Sequence[int]
) -> tuple[list[int], str | None]:
    """The whisper's recipients (each once), or the message for the ``to`` field."""
    unique = sorted(set(wanted) - {sender_id})
    if not unique:
        return [], _("Choose whom to whisper to.")
    if len(unique) > RECIPIENTS_MAX:
        return [], _("At most %(max)d recipients.", max=RECIPIENTS_MAX)
    if not await campaigns.all_members(session, campaign_id, unique):
        return [], _("Whisper only to members of this campaign.")
    return unique, None


async def _speaking_as(
    session: AsyncSession, viewer: Viewer, campaign_id: int, character_id: int
) -> Character | None:
    """The character ``viewer`` may speak as: one of their own; for the GMs, any of the
    campaign (an NSC)."""
    character = await session.get(Character, character_id)
    if character is None or character.campaign_id != campaign_id or character.archived_at:
        return None
    if viewer.is_gm or character.owner_id == viewer.user_id:
        return character
    return None


async def _inline_roll(
    session: AsyncSession, roller: Roller, user: User, campaign_id: int, command: Command
) -> dict[str, object]:
    """Roll through the dice log (its checks, its event); the chat keeps what it shows."""
    assert command.roll is not None
    expression, visibility = command.roll
    try:
        event = await rolls.roll(
            session, roller, user, campaign_id, expression, command.text, visibility
        )
    except ValidationFailed as exc:
        raise ValidationFailed({"text": next(iter(exc.fields.values()))}) from exc
    rolled = Roll.from_json(event.payload)
    return {
        "seq": event.seq,
        "expression": rolled.expression,
        "label": rolled.label,
        "total": rolled.total,
        "dice": rolled.dice,
        "signs": rolled.signs,
        "modifier": rolled.modifier,
    }


EDIT_MINUTES = int(EDIT_WINDOW.total_seconds() // 60)


async def _changeable(
    session: AsyncSession, user: User, campaign_id: int, message_id: int, *, deleting: bool
) -> ChatMessage:
    """A message the member may edit (their own, within the edit window) or delete (also
    any message, for the GMs)."""
    viewer = await authorize_viewer(session, campaign_id, user.id, user.username, Action.chat)
    message = await _message(session, viewer, campaign_id, message_id)
    if message.deleted_at is not None:
        raise Conflict(_("This message was deleted."))
    if deleting and allowed(viewer.role, Action.manage_talk):
        return message
    if message.author_id != user.id:
        raise Forbidden(_("You can only change your own messages."))
    if utcnow() - message.created_at > EDIT_WINDOW:
        raise Forbidden(
            _("Messages can be changed for %(minutes)d minutes only.", minutes=EDIT_MINUTES)
        )
    return message


async def _message(
    session: AsyncSession, viewer: Viewer, campaign_id: int, message_id: int
) -> ChatMessage:
    message = await session.scalar(
        select(ChatMessage).where(
            ChatMessage.id == message_id,
            ChatMessage.campaign_id == campaign_id,
            readable_by(viewer),
        )
    )
    if message is None:
        raise NotFound(_("Message not found."))
    return message


async def _recipient_ids(session: AsyncSession, message_id: int) -> list[int]:
    return sorted(
        (
            await session.scalars(
                select(ChatRecipient.user_id).where(ChatRecipient.message_id == message_id)
            )
        ).all()
    )


async def edit(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    message_id: int,
    text: str,
    version: int | None = None,
) -> ChatMessage:
    """Change one's own message's text (not a roll's) within the edit window."""
    message = await _changeable(session, user, campaign_id, message_id, deleting=False)
    if message.kind == "roll":
        raise ValidationFailed({"text": _("A roll cannot be edited.")})
    if version is not None and version != message.version:
        raise Conflict(_("The message changed meanwhile."))
    errors = _text_errors(text)
    if errors:
        raise ValidationFailed(errors)
    before, message.text, message.edited_at = message.text, text.strip(), utcnow()
    await _flush(session)
    readers = await _recipient_ids(session, message.id)
    await append_event(
        session,
        campaign_id,
        ChatMessageEdited(
            actor_name=user.username,
            message_id=message.id,
            text=message.text,
            before=before,
            to=readers,
        ),
        actor_id=message.author_id,
        audience=chosen(message.visibility, message.author_id, readers),
    )
    return message


async def deletable(
    session: AsyncSession, user: User, campaign_id: int, message_id: int
) -> ChatMessage:
    """The message ``user`` may delete now (checked as :func:`delete` checks it), for the
    confirmation that comes before."""
    return await _changeable(session, user, campaign_id, message_id, deleting=True)


async def delete(session: AsyncSession, user: User, campaign_id: int, message_id: int) -> None:
    """Withdraw a message: one's own within the edit window, or any as a GM. Its text stays
    in the log (``chat_message``); the chat shows that it was deleted."""
    message = await _changeable(session, user, campaign_id, message_id, deleting=True)
    message.deleted_at = utcnow()
    await _flush(session)
    readers = await _recipient_ids(session, message.id)
    author = message.author_id
    if message.visibility == "listed" and author is not None and author not in (user.id, *readers):
        # A GM deleted someone's whisper: its author still reads of the deletion.
        readers = sorted([*readers, author])
    await append_event(
        session,
        campaign_id,
        ChatMessageDeleted(actor_name=user.username, message_id=message.id, to=readers),
        actor_id=user.id,
        audience=chosen(message.visibility, message.author_id, readers),
    )


async def _flush(session: AsyncSession) -> None:
    try:
        await session.flush()
    except StaleDataError as exc:
        raise Conflict(_("The message changed meanwhile.")) from exc


def readable_by(viewer: Viewer) -> ColumnElement[bool]:
    """The messages ``viewer`` may read, in SQL: those whose ``chat_message`` event (at the
    message's ``seq``) reaches them — the event's audience decides, through its SQL twin
    (``app.events.audience``), not a rule of the chat's own."""
    if viewer.is_gm:
        return ChatMessage.id.is_not(None)
    return exists().where(
        CampaignEvent.campaign_id == ChatMessage.campaign_id,
        CampaignEvent.seq == ChatMessage.seq,
        visible_to(viewer),
    )


#: A chat page's statement for each reader (``None``: the GMs, who read every message) and
#: whether it pages back from a ``seq``; their visibility (:func:`readable_by`) is part of
#: it, so building it cost a page about as much CPU as sending it: built once per reader.
_PAGES: OrderedDict[tuple[int | None, bool], Select[ChatMessage]] = OrderedDict()
PAGES_KEPT = 1024


def _page_statement(viewer: Viewer, *, older: bool) -> Select[ChatMessage]:
    def build() -> Select[ChatMessage]:
        query = select(ChatMessage).where(
            ChatMessage.campaign_id == bindparam("campaign_id"), readable_by(viewer)
        )
        if older:
            query = query.where(ChatMessage.seq < bindparam("before"))
        return query.order_by(ChatMessage.seq.desc()).limit(bindparam("size"))

    return remembered(_PAGES, (sql_reader(viewer), older), build, PAGES_KEPT)


@dataclass(frozen=True, slots=True)
class Page:
    #: Oldest first (the order the chat shows them in).
    messages: list[ChatMessage]
    recipients: dict[int, list[int]]
    #: The ``before`` cursor of the next older page, if there is one.
    next_before: int | None


async def page(
    session: AsyncSession,
    viewer: Viewer,
    campaign_id: int,
    before: int | None = None,
    size: int = PAGE_SIZE,
) -> Page:
    """The newest ``size`` messages ``viewer`` may read older than ``before``."""
    query = _page_statement(viewer, older=before is not None)
    values = {"campaign_id": campaign_id, "before": before, "size": size + 1}
    rows = list((await session.scalars(query, values)).all())
    more = len(rows) > size
    rows = rows[:size]
    rows.reverse()
    return Page(rows, await whispered_to(session, rows), rows[0].seq if more else None)


async def messages_by_id(
    session: AsyncSession, viewer: Viewer, campaign_id: int, ids: Sequence[int]
) -> list[ChatMessage]:
    """The messages of ``ids`` that ``viewer`` may read (for a live push)."""
    return await all_rows(
        session,
        select(ChatMessage)
        .where(ChatMessage.campaign_id == campaign_id, ChatMessage.id.in_(ids), readable_by(viewer))
        .order_by(ChatMessage.seq),
    )


async def messages_of(
    session: AsyncSession, campaign_id: int, ids: Sequence[int]
) -> list[ChatMessage]:
    """The messages of ``ids``, for a live push of events a viewer received (whose audience
    already decided that they may read them), detached: shared by every viewer's push."""
    rows = await all_rows(
        session,
        select(ChatMessage)
        .where(ChatMessage.campaign_id == campaign_id, ChatMessage.id.in_(ids))
        .order_by(ChatMessage.seq),
    )
    for row in rows:
        session.expunge(row)
    return rows


async def recipients_of(session: AsyncSession, ids: Sequence[int]) -> dict[int, list[int]]:
    return await listed_users(session, ChatRecipient.message_id, ChatRecipient.user_id, ids)


async def whispered_to(
    session: AsyncSession, messages: Sequence[ChatMessage]
) -> dict[int, list[int]]:
    """The recipients of those of ``messages`` that are whispers (only a whisper has any):
    a chat without whispers reads none."""
    return await recipients_of(session, [m.id for m in messages if m.visibility == "listed"])


async def unread(session: AsyncSession, viewer: Viewer, campaign_id: int) -> int:
    """Messages by others that ``viewer`` may read and has not seen yet."""
    last = await session.scalar(
        select(ChatRead.last_seq).where(
            ChatRead.campaign_id == campaign_id, ChatRead.user_id == viewer.user_id
        )
    )
    count = await session.scalar(
        select(func.count())
        .select_from(ChatMessage)
        .where(
            ChatMessage.campaign_id == campaign_id,
            ChatMessage.seq > (last or 0),
            or_(ChatMessage.author_id.is_(None), ChatMessage.author_id != viewer.user_id),
            readable_by(viewer),
        )
    )
    return count or 0


async def newest_line(session: AsyncSession, campaign_id: int) -> int | None:
    """The ``seq`` of the campaign's newest chat line, if any."""
    return await session.scalar(
        select(func.max(ChatMessage.seq)).where(ChatMessage.campaign_id == campaign_id)
    )


async def mark_read(
    session: AsyncSession, viewer: Viewer, campaign_id: int, upto: int | None = None
) -> None:
    """Move the viewer's last-read mark forward to ``upto`` (default: the newest message).
    A private marker, not shared state: no event."""
    if upto is None:
        upto = await newest_line(session, campaign_id)
    if not upto:
        return
    postgres = session.get_bind().dialect.name == "postgresql"
    values = {"campaign_id": campaign_id, "user_id": viewer.user_id, "last_seq": upto}
    await session.execute(_MARK_READ_POSTGRES if postgres else _MARK_READ_SQLITE, values)


_READS = cast(Table, ChatRead.__table__)


def _mark_read(new: PgInsert | SqliteInsert) -> PgInsert | SqliteInsert:
    """``mark_read``'s one statement: the mark written, or moved forward, never back."""
    return new.on_conflict_do_update(
        index_elements=[_READS.c.campaign_id, _READS.c.user_id],
        set_={"last_seq": new.excluded.last_seq},
        where=_READS.c.last_seq < new.excluded.last_seq,
    )


_MARK_READ_POSTGRES = _mark_read(pg_insert(_READS))
_MARK_READ_SQLITE = _mark_read(sqlite_insert(_READS))


@dataclass(frozen=True, slots=True)
class Speaker:
    id: int
    name: str


#: The characters of a campaign one may speak as: every one (the GMs), a player's own.
_EVERY_SPEAKER = (
    select(Character.id, Character.name)
    .where(Character.campaign_id == bindparam("campaign_id"), Character.archived_at.is_(None))
    .order_by(Character.name)
)
_OWN_SPEAKERS = _EVERY_SPEAKER.where(Character.owner_id == bindparam("user_id"))


async def speakers(session: AsyncSession, viewer: Viewer, campaign_id: int) -> list[Speaker]:
    """The characters ``viewer`` may speak as (own ones; for the GMs every one)."""
    query = _EVERY_SPEAKER if viewer.is_gm else _OWN_SPEAKERS
    values = {"campaign_id": campaign_id, "user_id": viewer.user_id}
    return [Speaker(i, n) for i, n in await session.execute(query, values)]


def may_edit(message: ChatMessage, viewer: Viewer) -> bool:
    """Whether the chat offers ``viewer`` to edit ``message`` (the service decides)."""
    return (
        message.deleted_at is None
        and message.kind != "roll"
        and message.author_id == viewer.user_id
        and utcnow() - message.created_at <= EDIT_WINDOW
    )


def may_delete(message: ChatMessage, viewer: Viewer) -> bool:
    """Whether the chat offers ``viewer`` to delete ``message``."""
    if message.deleted_at is not None:
        return False
    if allowed(viewer.role, Action.manage_talk):
        return True
    return message.author_id == viewer.user_id and utcnow() - message.created_at <= EDIT_WINDOW
