"""Light on the grid (issue 27, docs/map.md «Light») against its documented rule, computed
here another way: a cell is lit when its centre lies less than ``radius + 1/2`` cells from
the source's centre (measured in floating point) and the exact line between the centres
(``grid.segment_blocked`` on fractions, not the integer walk the code uses) crosses no wall
or closed door. Several lights light the union of what each lights."""

from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules import grid as g
from tests.rules.test_areas import CELLS, COLS, ROWS, _walls

HALF = Fraction(1, 2)


def _centre(cell: g.Cell) -> tuple[Fraction, Fraction]:
    return (cell[0] + HALF, cell[1] + HALF)


def _lit_by_the_rule(grid: g.Grid, source: g.Cell, radius: int) -> set[g.Cell]:
    out = set()
    for x in range(COLS):
        for y in range(ROWS):
            near = math.hypot(x - source[0], y - source[1]) < radius + 0.5
            if near and (
                (x, y) == source or not g.segment_blocked(grid, _centre(source), _centre((x, y)))
            ):
                out.add((x, y))
    return out


@settings(max_examples=300)
@given(walls=_walls(), source=CELLS, radius=st.integers(0, 10))
def test_lit_cells_are_those_within_the_radius_with_a_line_from_the_source(
    walls: frozenset[g.Edge], source: g.Cell, radius: int
) -> None:
    grid = g.Grid(COLS, ROWS, walls)
    assert g.lit_by(grid, source, radius) == _lit_by_the_rule(grid, source, radius)


@settings(max_examples=100)
@given(walls=_walls(), lights=st.lists(st.tuples(CELLS, st.integers(1, 6)), max_size=4))
def test_several_lights_light_the_union(
    walls: frozenset[g.Edge], lights: list[tuple[g.Cell, int]]
) -> None:
    grid = g.Grid(COLS, ROWS, walls)
    expected: set[g.Cell] = set()
    for source, radius in lights:
        expected |= _lit_by_the_rule(grid, source, radius)
    assert g.lit_cells(grid, lights) == expected


def test_a_closed_room_keeps_its_light() -> None:
    """A torch in a 3 × 3 room with a closed door lights the room and nothing outside."""
    room = [
        *g.segment_edges((2, 2, 5, 2), COLS, ROWS),
        *g.segment_edges((2, 5, 5, 5), COLS, ROWS),
        *g.segment_edges((2, 2, 2, 5), COLS, ROWS),
        *g.segment_edges((5, 2, 5, 5), COLS, ROWS),
    ]
    grid = g.Grid(COLS, ROWS, frozenset(room))
    inside = {(x, y) for x in range(2, 5) for y in range(2, 5)}
    assert g.lit_by(grid, (3, 3), 6) == inside
    assert g.lit_by(grid, (3, 3), 0) == {(3, 3)}
    assert g.lit_by(g.Grid(COLS, ROWS), (0, 0), 1) == {(0, 0), (1, 0), (0, 1), (1, 1)}
