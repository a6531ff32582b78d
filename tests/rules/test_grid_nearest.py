"""``grid.nearest`` (the screen-reader list's nearest tokens) agrees with ``grid.distance``,
the one rule for distance on open ground, for both diagonal rules."""

from __future__ import annotations

import random

import pytest

from app.rules import grid as g


def _by_distance(
    points: list[tuple[int, int, str]], rule: g.Diagonal, count: int
) -> list[list[tuple[int, str]]]:
    """Every other point measured with ``grid.distance`` and sorted: what ``nearest`` must give."""
    return [
        sorted(
            (g.distance((x, y), (ox, oy), rule), other)
            for j, (ox, oy, other) in enumerate(points)
            if j != i
        )[:count]
        for i, (x, y, _name) in enumerate(points)
    ]


@pytest.mark.parametrize("rule", ["one", "alternate"])
@pytest.mark.parametrize("seed", range(6))
def test_nearest_is_distance_for_every_point(rule: g.Diagonal, seed: int) -> None:
    rng = random.Random(seed)
    side = rng.choice([3, 8, 40])  # crowded boards share cells and names
    points = [
        (rng.randrange(side), rng.randrange(side), f"Goblin {rng.randrange(4)}")
        for _ in range(rng.randrange(0, 60))
    ]
    assert g.nearest(points, rule, 5) == _by_distance(points, rule, 5)


def test_nearest_keeps_a_twin_on_the_same_cell() -> None:
    """Two tokens of one name on one cell: each is the other's nearest, at 0 cells."""
    points = [(2, 2, "Ork"), (2, 2, "Ork"), (5, 2, "Elf")]
    assert g.nearest(points, "alternate", 5) == [
        [(0, "Ork"), (3, "Elf")],
        [(0, "Ork"), (3, "Elf")],
        [(3, "Ork"), (3, "Ork")],
    ]


def test_alternating_diagonals_count_every_second_step_twice() -> None:
    """Three diagonal steps are 4 cells, as far as 4 straight ones: the names decide."""
    points = [(0, 0, "A"), (3, 3, "C"), (4, 0, "B")]
    assert g.nearest(points, "alternate", 2)[0] == [(4, "B"), (4, "C")]
    assert g.nearest(points, "one", 2)[0] == [(3, "C"), (4, "B")]
