"""The scenes as they are now, for the projection of map events (``app.events.audience``).

A map event's audience says who it reached when it happened; whether a player gets it when
it is read depends on the scene as it is then: shown to the players, and its token in their
sight (a token placed before the fog came on is not replayed to them).

A move reaches every stream of its campaign at once; streams that read the same batch (the
campaign's shared tail, so the same event objects) share one board of each scene
(:mod:`app.maps.batch_boards`), and each viewer's view is computed from it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.campaigns.models import Campaign
from app.core.viewer import Viewer
from app.events.models import CampaignEvent
from app.maps import batch_boards, service, sight
from app.maps.models import Scene


@dataclass(frozen=True, slots=True)
class ScenesNow:
    """Per scene the viewer may see now, the tokens they see on it."""

    tokens: Mapping[int, frozenset[int]]

    def sees(self, scene_id: int, token_id: int | None) -> bool:
        seen = self.tokens.get(scene_id)
        return seen is not None and (token_id is None or token_id in seen)


async def _board(
    session: AsyncSession, campaign_id: int, scene_id: int, viewer: Viewer
) -> sight.Board | None:
    scene = await session.get(Scene, scene_id)
    campaign = await session.get(Campaign, campaign_id)
    if scene is None or campaign is None or scene.campaign_id != campaign_id:
        return None
    return await service.board(session, service.Opened(campaign, viewer, scene))


async def scenes_now(
    sessions: async_sessionmaker[AsyncSession],
    campaign_id: int,
    viewer: Viewer,
    scene_ids: Collection[int],
    at: CampaignEvent,
) -> ScenesNow:
    """The scenes ``scene_ids`` of the campaign as ``viewer`` sees them now (read once per
    batch ending with the event ``at``, whoever reads it: only the first opens a session,
    none when the move that wrote ``at`` kept its board)."""
    boards = batch_boards.kept(at)
    missing = sorted(set(scene_ids) - boards.keys())
    if missing:
        async with sessions() as session:
            for scene_id in missing:
                board = await _board(session, campaign_id, scene_id, viewer)
                boards[scene_id] = batch_boards.hold(
                    at, scene_id, None if board is None else (board, board.spots())
                )
    out: dict[int, frozenset[int]] = {}
    for scene_id in sorted(scene_ids):
        loaded = boards[scene_id]
        if loaded is None or not (loaded[0].scene.shown or viewer.is_gm):
            continue
        board, spots = loaded
        cells = None if viewer.is_gm else board.cells_for(viewer.user_id)
        out[scene_id] = board.views_of({None: cells}, spots)[None].tokens
    return ScenesNow(out)
