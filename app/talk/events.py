"""Table talk's event types: chat, handouts and the shared journal (``app.talk``)."""

from __future__ import annotations

from typing import ClassVar

from app.events.payload import EventPayload, event_type

# --- table talk (chat and handouts) ----------------------------------------------------------

#: A chat message: to every member, to the GMs and its sender (a ``/gr`` roll), or to listed
#: members (a whisper: its sender, the users in ``to`` and the GMs).
TALK_VISIBILITIES: frozenset[str] = frozenset({"public", "self", "listed"})


@event_type("chat_message")
class ChatMessagePosted(EventPayload):
    """A message in the campaign's chat (``app/talk/service.py``)."""

    VISIBILITIES: ClassVar[frozenset[str]] = TALK_VISIBILITIES

    message_id: int
    #: ``ooc``, ``ic``, ``emote`` or ``roll``.
    kind: str
    text: str
    #: The name spoken as (``ic``/``emote`` as a character), else ``None``.
    speaker: str | None
    character_id: int | None
    #: The whisper's recipients (user ids); empty for a message to everyone or the GMs.
    to: list[int]
    #: A whisper to the GMs only.
    to_gm: bool
    #: An inline roll: ``{"seq", "expression", "label", "total", "dice", "signs", "modifier"}``.
    roll: dict[str, object] | None = None


@event_type("chat_message_edited")
class ChatMessageEdited(EventPayload):
    """The sender changed a message's text within the edit window."""

    VISIBILITIES: ClassVar[frozenset[str]] = TALK_VISIBILITIES

    message_id: int
    text: str
    before: str
    to: list[int]


@event_type("chat_message_deleted")
class ChatMessageDeleted(EventPayload):
    """The sender (within the edit window) or a GM withdrew a message."""

    VISIBILITIES: ClassVar[frozenset[str]] = TALK_VISIBILITIES

    message_id: int
    to: list[int]


@event_type("handout_created")
class HandoutCreated(EventPayload):
    """The GMs prepared a handout; nobody else knows of it until it is shown."""

    VISIBILITIES: ClassVar[frozenset[str]] = frozenset({"gm"})

    handout_id: int
    title: str


@event_type("handout_shown")
class HandoutShown(EventPayload):
    """A GM showed a handout: to everyone (``to`` empty, ``public``) or to listed players."""

    VISIBILITIES: ClassVar[frozenset[str]] = frozenset({"public", "listed"})

    handout_id: int
    title: str
    to: list[int]


@event_type("handout_image_set")
class HandoutImageSet(EventPayload):
    """A GM gave a handout its picture (re-encoded; ``etag`` names the stored bytes)."""

    VISIBILITIES: ClassVar[frozenset[str]] = frozenset({"gm"})

    handout_id: int
    width: int
    height: int
    etag: str


@event_type("journal_note_shared")
class JournalNoteShared(EventPayload):
    """A journal note as its readers now see it: written or changed while shared with the
    group (``public``) or with chosen members (``listed``). Private notes write no event."""

    VISIBILITIES: ClassVar[frozenset[str]] = frozenset({"public", "listed"})

    note_id: int
    title: str
    body: str
    #: ``group`` or ``listed``.
    sharing: str
    to: list[int]
    #: A quest's status (``open``, ``done``, ``failed``); ``None`` for a plain note.
    quest: str | None = None


@event_type("journal_note_deleted")
class JournalNoteDeleted(EventPayload):
    """A shared journal note deleted (by its author or a GM), for those who read it."""

    VISIBILITIES: ClassVar[frozenset[str]] = frozenset({"public", "listed"})

    note_id: int
    title: str
    #: The members it was shared with (``listed``); empty for a group note.
    to: list[int]


#: The payload classes of this package; ``app.wiring`` registers them.
EVENTS: tuple[type[EventPayload], ...] = (
    ChatMessagePosted,
    ChatMessageEdited,
    ChatMessageDeleted,
    HandoutCreated,
    HandoutShown,
    HandoutImageSet,
    JournalNoteShared,
    JournalNoteDeleted,
)
