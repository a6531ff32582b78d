"""The sheet page's live region, rendered for one viewer when its character changes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.accounts.models import User
from app.campaigns.models import Campaign, Membership
from app.campaigns.permissions import can_see_character
from app.characters.history import entries as history_entries
from app.characters.models import Character, Item
from app.core.viewer import Viewer
from app.events.service import VisibleEvent
from app.events.stream import Outgoing, Render
from app.web.templating import render


def sheet_renderer(character_id: int, context: Any, tab: str = "") -> Render:
    """A render function for :func:`app.events.routes.event_stream`: on any event about
    ``character_id`` the viewer may see, push the re-rendered ``sheet`` block.

    ``context`` builds the template context from (viewer, campaign, character, items).
    """

    async def render_sheet(
        sessions: async_sessionmaker[AsyncSession], viewer: Viewer, events: Sequence[VisibleEvent]
    ) -> list[Outgoing]:
        relevant = [
            e
            for e in events
            if e.type.startswith("character")
            and e.event.payload.get("character_id") == character_id
            and not (tab and e.event.payload.get("origin_tab") == tab)
        ]
        if not relevant:
            return []
        last = events[-1].seq
        async with sessions() as session:
            character = await session.get(Character, character_id)
            if character is None or not can_see_character(
                viewer, hidden_from_players=character.hidden_from_players
            ):
                return [Outgoing(last, "gone", "")]
            campaign = await session.get(Campaign, character.campaign_id)
            items = list(
                (
                    await session.scalars(
                        select(Item).where(Item.character_id == character_id).order_by(Item.id)
                    )
                ).all()
            )
        ctx = context(viewer, campaign, character, items)
        ctx["live_notice"] = any(e.event.actor_id != viewer.user_id for e in relevant)
        html = render("characters/sheet.html", "sheet", **ctx)
        return [Outgoing(last, "sheet", html)]

    return render_sheet


def history_renderer(character_id: int, system: str, campaign_id: int) -> Render:
    """A render function for the history page: each batch of new events about
    ``character_id`` the viewer may see becomes a ``history`` push of entries, newest first."""

    async def render_history(
        sessions: async_sessionmaker[AsyncSession], viewer: Viewer, events: Sequence[VisibleEvent]
    ) -> list[Outgoing]:
        relevant = [
            e
            for e in events
            if e.type.startswith("character")
            and e.event.payload.get("character_id") == character_id
        ]
        if not relevant:
            return []
        async with sessions() as session:
            rows = (
                await session.execute(
                    select(User.id, User.username)
                    .join(Membership, Membership.user_id == User.id)
                    .where(Membership.campaign_id == campaign_id)
                )
            ).all()
        owners = {uid: name for uid, name in rows}
        entries = history_entries(system, list(reversed(relevant)), owners)
        html = render("characters/history.html", "history_entries", entries=entries)
        return [Outgoing(events[-1].seq, "history", html)]

    return render_history
