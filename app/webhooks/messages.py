"""What a webhook posts: the campaign's events as an observer sees them, as text and as
Discord's or our own JSON.

Every event goes through the log's projection for an observer (a member with no part in
the game): a secret roll, a hidden figure, a whisper or a GM-only step never reaches a
webhook, whatever the channel behind it shows to whom.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from babel.dates import format_timedelta
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.viewer import Role, Viewer
from app.encounters import service as encounters
from app.encounters import views as encounter_views
from app.events.models import CampaignEvent
from app.events.service import VisibleEvent, project
from app.i18n import N_, _, get_locale, ngettext
from app.sessions import record
from app.sessions.models import GameSession
from app.sessions.service import session_events

#: What a GM can choose to post, with its label (a msgid).
CATEGORIES: dict[str, str] = {
    "rolls": N_("Public rolls"),
    "turns": N_("Whose turn it is"),
    "combat": N_("Start and end of a fight"),
    "session": N_("Summary of a game session"),
}
#: Who a webhook speaks for: no member's own forms, no GM's view.
OBSERVER = Viewer(user_id=0, username="", role=Role.observer)
#: Discord cuts a message's ``content`` at this length.
DISCORD_MAX = 2000
FIGHT_OVER = "The fight is over."
#: The kinds of session record lines a session's summary counts.
COUNTED = ("roll", "combat", "chat")


@dataclass(frozen=True, slots=True)
class Message:
    """One post: the event it comes from, its category and its text."""

    seq: int
    category: str
    text: str
    created_at: str
    #: The event as an observer gets it from the API (``GET …/events``).
    event: dict[str, Any]


async def messages(
    session: AsyncSession, campaign_id: int, wanted: Sequence[str], events: Sequence[CampaignEvent]
) -> list[Message]:
    """The posts for ``events`` (in the log's order) of the chosen categories, in the
    current locale. A turn is posted once per fight and batch: its latest state."""
    shown = [v for v in project(events, OBSERVER) if not v.redacted]
    last_turn = {_encounter_id(v): v.seq for v in shown if _is_turn(v)}
    out: list[Message] = []
    for visible in shown:
        category, text = await _describe(session, campaign_id, visible, last_turn)
        if category in wanted and text:
            data = visible.data()
            out.append(Message(visible.seq, category, text, data["created_at"], data))
    return out


def _encounter_id(visible: VisibleEvent) -> int:
    return int(visible.payload.get("encounter_id") or 0)


def _is_turn(visible: VisibleEvent) -> bool:
    return visible.type == "combat" and bool(visible.payload.get("turn_changed"))


async def _describe(
    session: AsyncSession, campaign_id: int, visible: VisibleEvent, last_turn: dict[int, int]
) -> tuple[str, str]:
    """The category and text of one event; an empty text for an event not posted."""
    if visible.type == "roll":
        return "rolls", _roll_text(visible)
    if visible.type == "session_ended":
        return "session", await _session_text(session, visible)
    if visible.type != "combat":
        return "", ""
    payload = visible.payload
    if payload.get("status_changed"):
        return "combat", await _fight_text(session, campaign_id, visible)
    if _is_turn(visible) and last_turn.get(_encounter_id(visible)) == visible.seq:
        return "turns", await _turn_text(session, campaign_id, _encounter_id(visible))
    return "", ""


def _roll_text(visible: VisibleEvent) -> str:
    lines = record.lines([visible.event], OBSERVER)
    return f"🎲 {lines[0].who}: {lines[0].text}" if lines else ""


async def _turn_text(session: AsyncSession, campaign_id: int, encounter_id: int) -> str:
    loaded = await encounters.load_as(session, OBSERVER, campaign_id, encounter_id)
    if loaded is None or loaded.encounter.status != "running":
        return ""
    turn = encounter_views.turn(loaded)
    if not turn["name"]:
        return ""
    return _("%(name)s's turn (round %(round)d)", name=turn["name"], round=turn["round"])


async def _fight_text(session: AsyncSession, campaign_id: int, visible: VisibleEvent) -> str:
    loaded = await encounters.load_as(session, OBSERVER, campaign_id, _encounter_id(visible))
    name = loaded.encounter.name if loaded is not None else ""
    over = any(e.get("msg") == FIGHT_OVER for e in visible.payload.get("entries", []))
    if over:
        return _("⚔️ The fight “%(name)s” is over.", name=name)
    return _("⚔️ The fight “%(name)s” begins.", name=name)


async def _session_text(session: AsyncSession, visible: VisibleEvent) -> str:
    game = await session.get(GameSession, visible.payload.get("session_id"))
    if game is None or game.ended_at is None:
        return ""
    lines = record.lines(await session_events(session, game), OBSERVER)
    counts = {kind: sum(1 for line in lines if line.kind == kind) for kind in COUNTED}
    took = format_timedelta(
        timedelta(seconds=(game.ended_at - game.started_at).total_seconds()),
        threshold=2,
        locale=get_locale(),
    )
    parts = [
        ngettext("%(num)d roll", "%(num)d rolls", counts["roll"]),
        ngettext("%(num)d combat step", "%(num)d combat steps", counts["combat"]),
        ngettext("%(num)d chat message", "%(num)d chat messages", counts["chat"]),
    ]
    return _(
        "📜 The game session ended after %(took)s: %(parts)s.", took=took, parts=", ".join(parts)
    )


def discord_body(message: Message) -> bytes:
    """Discord's webhook message: plain content, cut to its limit, mentioning nobody (a
    name or a roll label with ``@everyone`` must not ping the channel)."""
    text = message.text if len(message.text) <= DISCORD_MAX else message.text[: DISCORD_MAX - 1]
    body = {"content": text, "username": "Tafelrunde", "allowed_mentions": {"parse": []}}
    return json.dumps(body, ensure_ascii=False).encode()


def json_body(campaign_id: int, message: Message) -> bytes:
    """Our own format (``docs/webhooks.md``)."""
    body = {
        "campaign_id": campaign_id,
        "seq": message.seq,
        "category": message.category,
        "text": message.text,
        "created_at": message.created_at,
        "event": message.event,
    }
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


def signature(secret: str, timestamp: int, body: bytes) -> str:
    """``X-Tafelrunde-Signature``: HMAC-SHA256 over ``<timestamp>.<body>`` with the hook's
    secret, as ``sha256=<hex>``; the timestamp travels in ``X-Tafelrunde-Timestamp``."""
    mac = hmac.new(bytes.fromhex(secret), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"sha256={mac.hexdigest()}"
