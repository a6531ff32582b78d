"""Kompetenzgrad and Kompetenzbonus: Ungeübt 0, otherwise level + 2/4/6/8."""

from __future__ import annotations

from enum import StrEnum

from app.rules.pf2e.modifiers import PROFICIENCY, Modifier

MIN_LEVEL = -1


class Rank(StrEnum):
    """Kompetenzgrad. The value is the English key the API uses."""

    UNTRAINED = "untrained"
    TRAINED = "trained"
    EXPERT = "expert"
    MASTER = "master"
    LEGENDARY = "legendary"

    @property
    def label(self) -> str:
        """German label, e.g. ``Experte``."""
        return _LABELS[self]

    @property
    def offset(self) -> int | None:
        """What the rank adds to the level; ``None`` for Ungeübt (no level either)."""
        return _OFFSETS[self]


_LABELS = {
    Rank.UNTRAINED: "Ungeübt",
    Rank.TRAINED: "Geübt",
    Rank.EXPERT: "Experte",
    Rank.MASTER: "Meister",
    Rank.LEGENDARY: "Legende",
}

_OFFSETS: dict[Rank, int | None] = {
    Rank.UNTRAINED: None,
    Rank.TRAINED: 2,
    Rank.EXPERT: 4,
    Rank.MASTER: 6,
    Rank.LEGENDARY: 8,
}


def parse_rank(rank: str) -> Rank:
    """The :class:`Rank` for ``"trained"`` etc.; refuses anything else."""
    try:
        return Rank(rank)
    except ValueError:
        keys = ", ".join(r.value for r in Rank)
        raise ValueError(f"unknown proficiency rank {rank!r}; use one of {keys}") from None


def check_level(level: int) -> None:
    """Levels are integers from -1 up (creatures start at level -1)."""
    if isinstance(level, bool) or not isinstance(level, int) or level < MIN_LEVEL:
        raise ValueError(f"a level is an integer of at least {MIN_LEVEL}, not {level!r}")


def proficiency_bonus(rank: str, level: int) -> int:
    """Kompetenzbonus: 0 when untrained, otherwise level + 2 / 4 / 6 / 8."""
    check_level(level)
    offset = parse_rank(rank).offset
    return 0 if offset is None else level + offset


def proficiency_modifier(rank: str, level: int) -> Modifier:
    """The proficiency bonus as a modifier, source e.g. ``Kompetenzbonus (Geübt)``."""
    parsed = parse_rank(rank)
    return Modifier(
        f"Kompetenzbonus ({parsed.label})", PROFICIENCY, proficiency_bonus(parsed, level)
    )
