"""Every request loads its scene anew; the grids built from equal scenes are one object, so
the sight caches find a view by identity instead of comparing every wall
(``app.maps.sight.grid_of``) — and a scene whose walls changed gets a grid of its own, and
its own sight."""

from __future__ import annotations

from app.maps.models import Scene
from app.maps.sight import grid_of, sight_from


def _scene(walls: list[list[object]]) -> Scene:
    return Scene(
        cols=6, rows=4, walls=walls, doors=[["v", 3, 1, False]], difficult=[[0, 0]],
    )  # fmt: skip


def test_equal_scenes_share_one_grid_and_a_changed_one_does_not() -> None:
    walls: list[list[object]] = [["v", 2, y] for y in range(4)]
    first, again = grid_of(_scene(walls)), grid_of(_scene([list(w) for w in walls]))
    assert first is again
    opened = grid_of(_scene(walls[:2]))
    assert opened is not first and opened != first
    # Behind the wall at x = 2 from (0, 2): nothing east of it; with the gap, (4, 3) is seen.
    assert (4, 3) not in sight_from(first, (0, 2), None)
    assert (4, 3) in sight_from(opened, (0, 2), None)
