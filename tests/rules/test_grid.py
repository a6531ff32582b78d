"""The battle map's geometry: wall edges, path cost, diagonals, line of sight, cover cells."""

from __future__ import annotations

import pytest

from app.rules import grid as g


def test_segments_become_unit_edges_and_back() -> None:
    edges = g.segment_edges((2, 0, 2, 3), 5, 5)
    assert edges == [("v", 2, 0), ("v", 2, 1), ("v", 2, 2)]
    assert g.edges_to_segments([*edges, ("h", 0, 1), ("h", 1, 1)]) == [(0, 1, 2, 1), (2, 0, 2, 3)]
    for bad in ((0, 0, 6, 0), (0, 0, 1, 1), (1, 1, 1, 1), (-1, 0, -1, 2)):
        with pytest.raises(g.GridError):
            g.segment_edges(bad, 5, 5)


def test_walls_block_steps_and_corners() -> None:
    grid = g.Grid(4, 4, frozenset({("v", 1, 0)}))
    assert not g.step_open(grid, (0, 0), (1, 0))
    assert g.step_open(grid, (0, 1), (1, 1))
    # No squeezing past the wall's end diagonally.
    assert not g.step_open(grid, (0, 1), (1, 0))
    assert not g.step_open(grid, (0, 0), (0, -1))  # outside


def test_path_cost_difficult_terrain_and_diagonal_rules() -> None:
    grid = g.Grid(6, 6, difficult=frozenset({(1, 0)}))
    assert g.path_cost(grid, [(0, 0), (1, 0), (2, 0)], "one") == g.PathCost(3, None)
    diag = [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert g.path_cost(grid, diag, "one").cost == 3
    assert g.path_cost(grid, diag, "alternate").cost == 4  # 1 + 2 + 1
    assert g.path_cost(grid, [(0, 0), (2, 0)], "one").blocked_at == 1
    assert g.distance((0, 0), (4, 2), "one") == 4
    assert g.distance((0, 0), (4, 2), "alternate") == 5


def test_shortest_path_goes_around_walls() -> None:
    walls: frozenset[g.Edge] = frozenset(("v", 2, y) for y in range(3))
    grid = g.Grid(4, 4, walls)
    path = g.shortest_path(grid, (0, 0), (3, 0), "one")
    assert path is not None and path[0] == (0, 0) and path[-1] == (3, 0)
    assert g.path_cost(grid, path, "one").cost == 7  # down, round the end, up
    closed = g.Grid(4, 4, frozenset(("v", 2, y) for y in range(4)))
    assert g.shortest_path(closed, (0, 0), (3, 0), "one") is None


def test_line_of_sight_and_the_cells_between() -> None:
    wall = g.Grid(5, 5, frozenset({("v", 2, 2)}))
    assert not g.line_of_sight(wall, (0, 2), (4, 2))
    assert g.line_of_sight(wall, (0, 0), (4, 0))
    assert g.line_of_sight(wall, (1, 1), (1, 1))
    # Exactly through a corner where only one side is walled: the line passes.
    corner = g.Grid(5, 5, frozenset({("v", 1, 0)}))
    assert g.line_of_sight(corner, (0, 0), (2, 2))
    both = g.Grid(5, 5, frozenset({("v", 1, 0), ("h", 0, 1)}))
    assert not g.line_of_sight(both, (0, 0), (2, 2))
    assert g.cells_on_line((0, 0), (4, 0)) == [(1, 0), (2, 0), (3, 0)]
    assert (2, 2) in g.cells_on_line((0, 0), (4, 4))
    assert g.visible_cells(wall, [(0, 2)]) >= {(1, 2), (0, 0)}
    assert (4, 2) not in g.visible_cells(wall, [(0, 2)])


def test_sight_in_integers_agrees_with_the_exact_walk() -> None:
    """The integer walk of ``sight_blocked`` gives what ``segment_blocked`` gives on the
    centres, on random walls (corners, ends of walls, lines through lattice points)."""
    import random
    from fractions import Fraction

    rnd = random.Random(15)
    half = Fraction(1, 2)
    for _round in range(30):
        edges = {(rnd.choice("vh"), rnd.randrange(0, 9), rnd.randrange(0, 9)) for _ in range(25)}
        grid = g.Grid(8, 8, frozenset(edges))  # type: ignore[arg-type]
        for _pair in range(60):
            a = (rnd.randrange(8), rnd.randrange(8))
            b = (rnd.randrange(8), rnd.randrange(8))
            exact = a != b and g.segment_blocked(
                grid, (a[0] + half, a[1] + half), (b[0] + half, b[1] + half)
            )
            assert g.sight_blocked(grid, a, b) == exact, (edges, a, b)


def test_a_push_stops_at_walls_tokens_and_the_edge_and_slides_past() -> None:
    grid = g.Grid(6, 3, frozenset({("v", 4, 1)}))
    assert g.push_end(grid, (1, 1), 1, (1, 0), 2, frozenset()) == (3, 1)
    assert g.push_end(grid, (2, 1), 1, (1, 0), 2, frozenset()) == (3, 1)  # the wall at x = 4
    assert g.push_end(grid, (1, 0), 1, (1, 0), 2, frozenset({(2, 0)})) == (1, 0)  # a token
    assert g.push_end(grid, (4, 0), 1, (1, 0), 3, frozenset()) == (5, 0)  # the edge
    # Fehltritt: past the defender on (2, 0), not onto it.
    assert g.push_end(grid, (1, 0), 1, (1, 0), 2, frozenset(), frozenset({(2, 0)})) == (3, 0)
    assert g.push_end(grid, (1, 0), 1, (1, 0), 1, frozenset(), frozenset({(2, 0)})) == (1, 0)
    # A diagonal push past a wall's corner stops (no squeezing).
    assert g.push_end(grid, (3, 0), 1, (1, 1), 2, frozenset()) == (3, 0)
