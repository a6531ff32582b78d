"""Who is looking at a campaign, and as what: the one notion every domain package shares.

Lives below the domain packages so that accounts, events, campaigns and the rest can speak of
a viewer without importing each other (the campaigns package decides *what* a role may do).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Role(StrEnum):
    gm = "gm"
    co_gm = "co_gm"
    player = "player"
    observer = "observer"

    @property
    def is_gm(self) -> bool:
        return self in (Role.gm, Role.co_gm)


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who is looking at a campaign, and as what."""

    user_id: int
    username: str
    role: Role

    @property
    def is_gm(self) -> bool:
        return self.role.is_gm
