"""The boards of the batches the live streams read (``app.maps.present``).

A move reaches every stream of its campaign at once, and each stream projects the batch of
events it read against the scenes as they are (``app.events.audience``): the board is kept
with the batch's last event, so the streams that read the same batch (the campaign's
shared tail, the same event objects) share one board. The first stream to read a batch
loads it (:func:`app.maps.present.scenes_now`); a move hands over the board it wrote
instead (:func:`keep`), so the streams of the process that wrote it load none.

Only the newest batch's board of a scene is kept: the campaign's tail holds its last 512
events, and a board per batch would keep hundreds of boards alive. A stream still behind
that batch loads the scene as it is now, which is what its projection asks for anyway.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary, ref

from app.events.models import CampaignEvent
from app.maps import sight

#: A board as the streams use it, with its tokens' spots (``Board.spots``, read once);
#: ``None``: no such scene in the campaign.
Kept = tuple[sight.Board, sight.Spots] | None

#: Boards by the batch they are kept for (its last event) and scene id.
_BOARDS: WeakKeyDictionary[CampaignEvent, dict[int, Kept]] = WeakKeyDictionary()
#: Per scene id, the batch whose board of it is kept.
_NEWEST: dict[int, ref[CampaignEvent]] = {}


def kept(at: CampaignEvent) -> dict[int, Kept]:
    """The boards kept for the batch ending with the event ``at``, by scene id (a copy)."""
    return dict(_BOARDS.get(at, {}))


def hold(at: CampaignEvent, scene_id: int, board: Kept) -> Kept:
    """Keep ``board`` for the batch ending with ``at`` instead of an older batch's board of
    that scene; a batch older than the kept one keeps none (a stream behind has its own)."""
    newest = _NEWEST.get(scene_id)
    held = None if newest is None else newest()
    if held is not None and held.seq > at.seq:
        return board
    if held is not None and held is not at:
        _BOARDS.get(held, {}).pop(scene_id, None)
    _NEWEST[scene_id] = ref(at, lambda gone: _forget(scene_id, gone))
    _BOARDS.setdefault(at, {})[scene_id] = board
    return board


def _forget(scene_id: int, gone: ref[CampaignEvent]) -> None:
    """The kept batch of a scene is gone (out of the campaign's tail): forget it, unless a
    newer one took its place."""
    if _NEWEST.get(scene_id) is gone:
        del _NEWEST[scene_id]


def keep(at: CampaignEvent, board: sight.Board) -> None:
    """A move's board, as the move left it, for the batch ending with the move's last event
    ``at``, the last its transaction writes: the scene as committed with ``at``, which is
    what a stream reading that batch would load. A transaction that rolls back never
    publishes ``at``, and the board goes with it."""
    hold(at, board.scene.id, (board, board.spots()))
