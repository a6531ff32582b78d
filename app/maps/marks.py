"""What tells the tokens apart for one viewer (issue 28), laid over the board they share.

The board (``sight.Board.view``) gives each token's ``side`` and duplicate ``number``, the
same for everyone who sees it. This overlay adds, per viewer, whether it is the figure whose
turn it is (``active``, for everyone) and its ``health`` as this viewer may know it — the
roster's rule (``app.encounters.views.health_of``): the GMs everything, players the exact
points of the group's characters, of a monster only its status word and conditions. A token
the viewer may not see is not in the board, so it gets nothing here either.
"""

from __future__ import annotations

from app.core.viewer import Viewer
from app.encounters.combat import current_pid
from app.encounters.systems.protocol import CombatCore, FigureView
from app.encounters.views import Health, health_of
from app.maps.sight import Board, BoardView, TokenJSON


def _health(board: Board, rules: CombatCore, viewer: Viewer, token: TokenJSON) -> Health | None:
    """The token's health for ``viewer`` (``None``: it is no figure of the fight)."""
    participant = board.participants.get(token["participant_id"] or 0)
    view = _figure_view(board, rules, str(token["participant_id"]))
    if participant is None or view is None:
        return None
    return health_of(view, participant, viewer.is_gm)


def _figure_view(board: Board, rules: CombatCore, pid: str) -> FigureView | None:
    """The system's view of figure ``pid``, worked out once per board and fight state for
    all the board's viewers (the same for each; :func:`health_of` cuts it per viewer)."""
    state = board.state
    known: tuple[object, dict[str, FigureView]] | None = board.memo.get("figure views")
    if known is None or known[0] is not state:
        known = (state, {})
        board.memo["figure views"] = known
    views = known[1]
    if pid not in views:
        figure = state.get("figures", {}).get(pid)
        if figure is None:
            return None
        views[pid] = rules.view(figure)
    return views[pid]


def overlay(view: BoardView, board: Board, viewer: Viewer, rules: CombatCore) -> None:
    """Add ``active`` and ``health`` to each token of ``view`` (the viewer's board)."""
    acting = current_pid(board.state) if board.running else None
    for token in view["tokens"]:
        pid = token["participant_id"]
        token["active"] = pid is not None and str(pid) == str(acting)
        token["health"] = _health(board, rules, viewer, token)
