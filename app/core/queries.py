"""Reading rows: what many services ask of a query in the same words."""

from __future__ import annotations

from typing import TypeVar

from sqlalchemy import Select
from sqlalchemy.ext.asyncio import AsyncSession

T = TypeVar("T")


async def all_rows(session: AsyncSession, query: Select[T]) -> list[T]:
    """Every row (or value) ``query`` selects, in its order."""
    return list((await session.scalars(query)).all())
