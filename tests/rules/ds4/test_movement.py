"""Laufen, Rennen and Sturmangriff reach."""

from __future__ import annotations

from app.rules.ds4 import Reach, Terrain, can_sturmangriff, reach


def test_reach_open_ground() -> None:
    assert reach(4.5) == Reach(laufen=4.5, rennen=9.0, sturmangriff=9.0)


def test_reach_with_obstacles() -> None:
    assert reach(6, Terrain.HALVED) == Reach(3.0, 6.0, 6.0)
    assert reach(6, Terrain.QUARTERED) == Reach(1.5, 3.0, 3.0)


def test_negative_laufen_counts_as_zero() -> None:
    assert reach(-0.5) == Reach(0.0, 0.0, 0.0)


def test_sturmangriff() -> None:
    assert can_sturmangriff(9.0, 4.5)
    assert can_sturmangriff(3.0, 4.5)
    assert not can_sturmangriff(9.5, 4.5)
    assert not can_sturmangriff(5.0, 4.5, straight_and_clear=False)
    assert not can_sturmangriff(5.0, 4.5, terrain=Terrain.HALVED)
    assert not can_sturmangriff(-1.0, 4.5)
