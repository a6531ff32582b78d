"""Reading rows: what many services ask of a query in the same words."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from sqlalchemy import Select
from sqlalchemy.ext.asyncio import AsyncSession

T = TypeVar("T")


async def all_rows(
    session: AsyncSession, query: Select[T], params: Mapping[str, object] | None = None
) -> list[T]:
    """Every row (or value) ``query`` selects, in its order (``params``: its bound
    parameters, for a statement built once)."""
    return list((await session.scalars(query, params)).all())
