"""DS4 Stufen by Erfahrungspunkte (ds4.md §3)."""

from __future__ import annotations

from bisect import bisect_right

# EP needed for Stufe 1, 2, …, 20.
STUFE_EP: tuple[int, ...] = (
    0, 100, 300, 600, 1000, 1500, 2100, 2800, 3600, 4500,
    5500, 6600, 7800, 9100, 10500, 12000, 13700, 15600, 17700, 20000,
)  # fmt: skip

MAX_STUFE = len(STUFE_EP)


def stufe_for_ep(ep: int) -> int:
    """The Stufe reached with ``ep`` Erfahrungspunkte (1..20)."""
    if ep < 0:
        raise ValueError(f"EP cannot be negative, got {ep}")
    return bisect_right(STUFE_EP, ep)


def ep_for_stufe(stufe: int) -> int:
    """The EP needed to reach ``stufe``."""
    if not 1 <= stufe <= MAX_STUFE:
        raise ValueError(f"Stufe must be 1..{MAX_STUFE}, got {stufe}")
    return STUFE_EP[stufe - 1]


def ep_to_next_stufe(ep: int) -> int | None:
    """EP still missing for the next Stufe, or ``None`` at the highest Stufe."""
    stufe = stufe_for_ep(ep)
    if stufe == MAX_STUFE:
        return None
    return STUFE_EP[stufe] - ep
