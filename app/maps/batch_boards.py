"""The boards of the batches the live streams read (``app.maps.present``).

A move reaches every stream of its campaign at once, and each stream projects the batch of
events it read against the scenes as they are (``app.events.audience``): the board is kept
with the batch's last event, so the streams that read the same batch (the campaign's
shared tail, the same event objects) share one board. The first stream to read a batch
loads it (:func:`app.maps.present.scenes_now`); a move hands over the board it wrote
instead (:func:`keep`), so the streams of the process that wrote it load none.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from app.events.models import CampaignEvent
from app.maps import sight

#: A board as the streams use it, with its tokens' spots (``Board.spots``, read once).
Kept = tuple[sight.Board, sight.Spots]

#: Boards by the batch they were loaded for (its last event) and scene id (``None``: no such
#: scene in the campaign).
_BOARDS: WeakKeyDictionary[CampaignEvent, dict[int, Kept | None]] = WeakKeyDictionary()


def of_batch(at: CampaignEvent) -> dict[int, Kept | None]:
    """The boards kept for the batch ending with the event ``at`` (filled by the reader)."""
    return _BOARDS.setdefault(at, {})


def keep(at: CampaignEvent, board: sight.Board) -> None:
    """A move's board, as the move left it, for the batch ending with the move's last event
    ``at``, the last its transaction writes: the scene as committed with ``at``, which is
    what a stream reading that batch would load. A transaction that rolls back never
    publishes ``at``, and the board goes with it."""
    of_batch(at)[board.scene.id] = (board, board.spots())
