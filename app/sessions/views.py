"""What one member sees of the game sessions: the campaign page's panel, the sessions page
and the verification page (one context builder each, shared by page, HTMX and push)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.campaigns.models import HIT_POINTS, Campaign, RuleSystem
from app.campaigns.permissions import Action, allowed
from app.core.viewer import Viewer
from app.sessions import service
from app.sessions.models import ClientSeed, GameSession

#: Sessions the campaign page's panel lists (the sessions page lists every one).
PANEL_SIZE = 5


def session_view(game: GameSession) -> dict[str, Any]:
    return {
        "id": game.id,
        "started_at": game.started_at,
        "ended_at": game.ended_at,
        "fairplay": game.commitment is not None,
        "commitment": game.commitment,
        "overrides": game.overrides,
        "reveal_secret_rolls": game.reveal_secret_rolls,
    }


async def sessions_context(
    session: AsyncSession, viewer: Viewer, campaign: Campaign, *, limit: int | None = None
) -> dict[str, Any]:
    """The sessions of the campaign (newest first), the open one, the member's client seed
    in it, and the fair-play rule; ``limit`` for the panel."""
    query = (
        select(GameSession)
        .where(GameSession.campaign_id == campaign.id)
        .order_by(GameSession.start_seq.desc())
    )
    games = list((await session.scalars(query.limit(limit) if limit else query)).all())
    # A session starts only when none is open, at the log's next seq: an open one is the
    # newest, so the list shows it (no second read).
    running = games[0] if games and games[0].ended_at is None else None
    seed = None
    if running is not None and running.commitment is not None:
        seed = await session.scalar(
            select(ClientSeed.client_seed).where(
                ClientSeed.session_id == running.id, ClientSeed.user_id == viewer.user_id
            )
        )
    return {
        "campaign": campaign,
        "campaign_id": campaign.id,
        "viewer": viewer,
        "sessions": [session_view(g) for g in games],
        "running": session_view(running) if running else None,
        "client_seed": seed,
        "rule": await service.rule(session, campaign.id),
        "hit_points": HIT_POINTS[RuleSystem(campaign.system)],
        "can_run": allowed(viewer.role, Action.run_sessions),
        "can_configure": allowed(viewer.role, Action.configure_fairplay),
        "errors": {},
    }
