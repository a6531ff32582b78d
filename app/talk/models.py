"""Chat messages, who receives a whisper, each member's last-read mark, handouts.

The rows hold the current state (a message's text after its last edit); the history is the
campaign log (``chat_message``, ``chat_message_edited``, ``chat_message_deleted``,
``handout_*`` events). Readers are rows of their own so that "what may this member see" is
one SQL condition, on every backend.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Boolean, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.campaigns.columns import CampaignOwned, Edited, GivenTo, Stamped, StoredImage, Versioned
from app.db import Base, UTCDateTime, owned_by, refers_to, utcnow


class ChatMessage(Versioned, Base):
    __tablename__ = "chat_message"
    __table_args__ = (Index("ix_chat_message_campaign_id_seq", "campaign_id", "seq"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = owned_by("campaign.id")
    #: The ``seq`` of its ``chat_message`` event: the chat's order, paging and unread mark.
    seq: Mapped[int] = mapped_column(Integer, default=0)
    author_id: Mapped[int | None] = refers_to("user_account.id")
    author_name: Mapped[str] = mapped_column(String(32))
    #: ``ooc``, ``ic``, ``emote`` or ``roll``.
    kind: Mapped[str] = mapped_column(String(8))
    text: Mapped[str] = mapped_column(Text)
    speaker: Mapped[str | None] = mapped_column(String(100))
    character_id: Mapped[int | None] = refers_to("character.id")
    #: ``public``, ``self`` (the GMs and the author: a ``/gr`` roll) or ``listed`` (a whisper).
    visibility: Mapped[str] = mapped_column(String(8), default="public")
    to_gm: Mapped[bool] = mapped_column(Boolean, default=False)
    #: The inline roll as the chat shows it (see ``ChatMessagePosted.roll``).
    roll: Mapped[dict[str, object] | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    edited_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class ChatRecipient(GivenTo, Base):
    """One recipient of a whisper (the author and the GMs read it without a row)."""

    __tablename__ = "chat_recipient"

    message_id: Mapped[int] = owned_by("chat_message.id", primary_key=True)


class ChatRead(Base):
    """How far a member has read the chat: the last ``seq`` they saw (private, no event)."""

    __tablename__ = "chat_read"

    campaign_id: Mapped[int] = owned_by("campaign.id", primary_key=True)
    user_id: Mapped[int] = owned_by("user_account.id", primary_key=True)
    last_seq: Mapped[int] = mapped_column(Integer, default=0)


class Handout(CampaignOwned, Stamped, Base):
    """A text the GMs prepare and show to everyone or to chosen players when they choose."""

    __tablename__ = "handout"

    title: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)
    #: Shown to every member (then no reader rows are needed).
    shown_to_all: Mapped[bool] = mapped_column(Boolean, default=False)
    #: The ``seq`` of the latest ``handout_shown`` event, 0 while nobody has seen it.
    shown_seq: Mapped[int] = mapped_column(Integer, default=0)


class HandoutImage(StoredImage, Base):
    """A handout's image, re-encoded on upload (``app.media.images``): served only to the
    handout's readers, with its ``etag`` for long caching."""

    __tablename__ = "handout_image"

    handout_id: Mapped[int] = owned_by("handout.id", primary_key=True)
    MIME_LENGTH = 20
    ETAG_LENGTH = 80


class HandoutReader(GivenTo, Base):
    """A player a handout was shown to."""

    __tablename__ = "handout_reader"

    handout_id: Mapped[int] = owned_by("handout.id", primary_key=True)


class JournalNote(CampaignOwned, Edited, Base):
    """A campaign note: private to its author, shared with the group, or (GMs) with chosen
    members (``journal_reader``)."""

    __tablename__ = "journal_note"

    author_id: Mapped[int | None] = refers_to("user_account.id")
    author_name: Mapped[str] = mapped_column(String(32))
    title: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)
    #: ``private``, ``group`` or ``listed``.
    sharing: Mapped[str] = mapped_column(String(8), default="private")
    #: A quest or thread: ``open``, ``done`` or ``failed``; empty for a plain note.
    quest: Mapped[str | None] = mapped_column(String(8))


class JournalReader(GivenTo, Base):
    """A member a ``listed`` journal note is shared with."""

    __tablename__ = "journal_reader"

    note_id: Mapped[int] = owned_by("journal_note.id", primary_key=True)
