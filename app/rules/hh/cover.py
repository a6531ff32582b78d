"""Deckung (hh.md §6.6): cover categories, living cover, throwing oneself down, Zielen."""

from __future__ import annotations

from typing import Literal

from app.rules.hh.state import size_rank

CoverKind = Literal["none", "half", "three_quarter", "full"]
COVER_ORDER: tuple[CoverKind, ...] = ("none", "half", "three_quarter", "full")
COVER_MODIFIER: dict[str, int] = {"none": 0, "half": -2, "three_quarter": -4}
AIM_BONUS = 2


class FullCover(ValueError):
    """The target is fully covered: no direct attack is possible."""


def cover_modifier(cover: str, *, prone: bool = False) -> int:
    """Attack modifier for the target's cover; full cover raises :class:`FullCover`.

    ``prone``: the target threw itself down as a reaction — with half cover it counts as
    three-quarter cover; without cover attacks get −2.
    """
    if cover not in COVER_ORDER:
        raise ValueError(f"unknown cover {cover!r}")
    if prone and cover == "half":
        cover = "three_quarter"
    elif prone and cover == "none":
        return -2
    if cover == "full":
        raise FullCover("volle Deckung: kein direkter Angriff möglich")
    return COVER_MODIFIER[cover]


#: How much of the target a cover hides, as the breakdown shows it ("Wand, ¾").
COVER_SHARE: dict[str, str] = {"half": "½", "three_quarter": "¾", "full": "voll"}


def cover_note(source: str, cover: str) -> str:
    """The note after a cover's value: its source and share ("Wand, ¾"); ``""`` without
    cover or source."""
    if not source or cover not in COVER_SHARE:
        return ""
    return f"{source}, {COVER_SHARE[cover]}"


def stronger(cover: CoverKind) -> CoverKind:
    return COVER_ORDER[min(len(COVER_ORDER) - 1, COVER_ORDER.index(cover) + 1)]


def living_cover(ally_of_attacker: bool, cover_size: str, target_size: str) -> CoverKind:
    """Cover a figure between attacker and target gives: the attacker's allies half, enemies
    three-quarter; smaller than the target none; larger one category stronger."""
    diff = size_rank(cover_size) - size_rank(target_size)
    if diff < 0:
        return "none"
    base: CoverKind = "half" if ally_of_attacker else "three_quarter"
    return stronger(base) if diff > 0 else base


def aim_bonus(aim_actions: int) -> int:
    """Zielen: +2 on the attack per aim action."""
    return AIM_BONUS * max(0, aim_actions)


def aim_qs(aim_actions: int) -> int:
    """Zielen: +1 QS on a hit per aim action."""
    return max(0, aim_actions)


def wall_cover(blocked: int, lines: int) -> CoverKind:
    """Cover a wall gives (project decision, docs/rules/hh.md): of the ``lines`` from the
    attacker to the corners of the target's square, ``blocked`` are stopped by a wall — none
    stopped no cover, up to half of them half, more three-quarter, all of them full."""
    if lines <= 0 or blocked <= 0:
        return "none"
    if blocked >= lines:
        return "full"
    return "half" if 2 * blocked <= lines else "three_quarter"


def suggest_cover(
    wall: CoverKind, between: list[tuple[str, bool, str]], target_size: str
) -> tuple[CoverKind, str]:
    """The cover to suggest for an attack and the figure giving it (``""``: none or a wall).

    ``between``: the figures on the line (id, ally of the attacker, size), nearest to the
    attacker first. The strongest living cover counts (the first of equals); a wall that
    covers more wins, else the figure does — so a miss may hit it (the stray hit).
    """
    best: CoverKind = "none"
    covering = ""
    for fid, ally, size in between:
        kind = living_cover(ally, size, target_size)
        if COVER_ORDER.index(kind) > COVER_ORDER.index(best):
            best, covering = kind, fid
    if COVER_ORDER.index(wall) > COVER_ORDER.index(best):
        return wall, ""
    return best, covering
