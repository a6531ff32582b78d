"""Rows an imported campaign document adds, each under the ``ref`` the document gave it
(``app.core.transfer``): the parts that number their rows by a ref share this."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.transfer import IdMaps
from app.errors import ValidationFailed
from app.i18n import _


class Row(Protocol):
    id: int


async def add_under_refs(
    session: AsyncSession, rows: Sequence[Row], maps: IdMaps, kind: str, refs: list[int]
) -> None:
    """Add ``rows`` (refused at ``kind`` unless their ``refs`` are distinct) and map each
    ref to its row's new id, for the rows and parts read after them."""
    if len(set(refs)) != len(refs):
        raise ValidationFailed({kind: _("Every ref must be distinct.")})
    session.add_all(rows)
    await session.flush()
    maps.by_kind[kind] |= {ref: row.id for ref, row in zip(refs, rows, strict=True)}
