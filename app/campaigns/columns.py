"""Columns many tables share, as mixins: a campaign's own row, a version-guarded row, the
moments it was made and last edited, a member a row is given to, a stored image.

The ``sort_order`` keeps each table's columns where they always stood (the key and the
campaign first, the moments and the version last), so a mixin changes no table.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from sqlalchemy import Integer, LargeBinary, String
from sqlalchemy.orm import Mapped, declared_attr, mapped_column

from app.db import UTCDateTime, owned_by, utcnow


class CampaignOwned:
    """A row of one campaign, deleted with it and looked up by it (an index)."""

    id: Mapped[int] = mapped_column(primary_key=True, sort_order=-1)
    campaign_id: Mapped[int] = owned_by("campaign.id", index=True, sort_order=-1)


class Versioned:
    """A row every write of which checks and bumps ``version`` (a stale write: 409)."""

    version: Mapped[int] = mapped_column(Integer, default=1, sort_order=3)

    @declared_attr.directive
    def __mapper_args__(cls) -> dict[str, Any]:
        return {"version_id_col": cls.version}


class Stamped(Versioned):
    """A version-guarded row that keeps when it was made."""

    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, sort_order=1)


class Edited(Stamped):
    """A version-guarded row that keeps when it was made and when it was last edited."""

    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, sort_order=2)


class GivenTo:
    """A row naming one member something is given to (part of the key; their rows are found
    by an index)."""

    user_id: Mapped[int] = owned_by("user_account.id", primary_key=True, index=True)


class StoredImage:
    """An image re-encoded on upload (``app.media.images``), kept in the database so every
    process serves it, with its size and its content tag; the lengths are the table's (the
    ``sort_order`` keeps the columns in the order the table has them)."""

    MIME_LENGTH: ClassVar[int] = 32
    ETAG_LENGTH: ClassVar[int] = 64

    data: Mapped[bytes] = mapped_column(LargeBinary, sort_order=1)

    @declared_attr
    def mime(cls) -> Mapped[str]:
        return mapped_column(String(cls.MIME_LENGTH), sort_order=2)

    width: Mapped[int] = mapped_column(Integer, sort_order=3)
    height: Mapped[int] = mapped_column(Integer, sort_order=4)

    @declared_attr
    def etag(cls) -> Mapped[str]:
        return mapped_column(String(cls.ETAG_LENGTH), sort_order=5)
