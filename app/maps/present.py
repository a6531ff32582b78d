"""The scenes as they are now, for the projection of map events (``app.events.audience``).

A map event's audience says who it reached when it happened; whether a player gets it when
it is read depends on the scene as it is then: shown to the players, and its token in their
sight (a token placed before the fog came on is not replayed to them).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.viewer import Viewer
from app.maps import service


@dataclass(frozen=True, slots=True)
class ScenesNow:
    """Per scene the viewer may see now, the tokens they see on it."""

    tokens: Mapping[int, frozenset[int]]

    def sees(self, scene_id: int, token_id: int | None) -> bool:
        seen = self.tokens.get(scene_id)
        return seen is not None and (token_id is None or token_id in seen)


async def scenes_now(
    session: AsyncSession, campaign_id: int, viewer: Viewer, scene_ids: Collection[int]
) -> ScenesNow:
    """The scenes ``scene_ids`` of the campaign as ``viewer`` sees them now."""
    out: dict[int, frozenset[int]] = {}
    for scene_id in sorted(scene_ids):
        opened = await service.open_as(session, viewer, campaign_id, scene_id)
        if opened is None:
            continue
        board = await service.board(session, opened)
        cells = None if viewer.is_gm else board.cells_for(viewer.user_id)
        out[scene_id] = frozenset(t.id for t in board.tokens if board.sees_in(t, cells))
    return ScenesNow(out)
