"""Whom a chat message, handout or journal note is listed for: its rows of users."""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute


async def listed_users(
    session: AsyncSession,
    row_id: InstrumentedAttribute[int],
    user_id: InstrumentedAttribute[int],
    ids: Collection[int],
) -> dict[int, list[int]]:
    """The users listed for each of the rows ``ids`` in a table of (row, user) pairs,
    ``row_id`` and ``user_id`` its columns; in user id order, rows listing none left out."""
    out: dict[int, list[int]] = {}
    if not ids:
        return out
    for row, user in await session.execute(
        select(row_id, user_id).where(row_id.in_(ids)).order_by(user_id)
    ):
        out.setdefault(row, []).append(user)
    return out
