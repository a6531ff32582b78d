"""Columns many tables share, as mixins: a campaign's own row, a version-guarded row, the
moments it was made and last edited.

The ``sort_order`` keeps each table's columns where they always stood (the key and the
campaign first, the moments and the version last), so a mixin changes no table.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Integer
from sqlalchemy.orm import Mapped, declared_attr, mapped_column

from app.db import UTCDateTime, utcnow


class CampaignOwned:
    """A row of one campaign, deleted with it and looked up by it (an index)."""

    id: Mapped[int] = mapped_column(primary_key=True, sort_order=-1)
    campaign_id: Mapped[int] = mapped_column(
        ForeignKey("campaign.id", ondelete="CASCADE"), index=True, sort_order=-1
    )


class Versioned:
    """A row every write of which checks and bumps ``version`` (a stale write: 409)."""

    version: Mapped[int] = mapped_column(Integer, default=1, sort_order=3)

    @declared_attr.directive
    def __mapper_args__(cls) -> dict[str, Any]:
        return {"version_id_col": cls.__table__.c.version}  # type: ignore[attr-defined]


class Stamped(Versioned):
    """A version-guarded row that keeps when it was made."""

    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, sort_order=1)


class Edited(Stamped):
    """A version-guarded row that keeps when it was made and when it was last edited."""

    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, sort_order=2)
