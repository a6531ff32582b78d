"""Where a figure can move (issue 28, the reach shown when a figure is chosen): for random
boards, ``grid.reachable`` gives exactly the cells whose cheapest way (``shortest_path``
and ``path_cost``, tested on their own in ``test_grid.py``) costs at most the budget, at
that cost."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules import grid as g
from tests.rules.test_areas import CELLS, COLS, ROWS, _walls

DIFFICULT = st.frozensets(CELLS, max_size=12)
RULES: st.SearchStrategy[g.Diagonal] = st.sampled_from(["one", "alternate"])


@settings(max_examples=60, deadline=None)
@given(_walls(), DIFFICULT, CELLS, st.integers(0, 7), RULES)
def test_the_reach_is_every_cell_the_cheapest_way_reaches_within_the_budget(
    walls: frozenset[g.Edge],
    difficult: frozenset[g.Cell],
    start: g.Cell,
    budget: int,
    rule: g.Diagonal,
) -> None:
    board = g.Grid(COLS, ROWS, walls, difficult)
    found = g.reachable(board, start, budget, rule)
    for x in range(COLS):
        for y in range(ROWS):
            path = g.shortest_path(board, start, (x, y), rule)
            cost = None if path is None else g.path_cost(board, path, rule).cost
            if cost is not None and cost <= budget:
                assert found.get((x, y)) == cost, ((x, y), cost, found.get((x, y)))
            else:
                assert (x, y) not in found, ((x, y), cost)


def test_a_wall_and_difficult_terrain_shorten_the_reach() -> None:
    board = g.Grid(5, 1, frozenset(g.segment_edges((3, 0, 3, 1), 5, 1)), frozenset({(1, 0)}))
    assert g.reachable(board, (0, 0), 3, "one") == {(0, 0): 0, (1, 0): 2, (2, 0): 3}
    assert g.reachable(board, (0, 0), -1, "one") == {}
