"""The process's sweep of expired idempotency keys (started with the app, stopped with it).

A request with a key does not purge its user's expired keys (one statement less on every
form's request); instead each process removes all expired keys every ``SWEEP_EVERY``. Several
processes sweeping the same rows is harmless: a key is removed once, the others find none.
"""

from __future__ import annotations

import logging

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.background import Ticker
from app.db import utcnow
from app.idempotency import service

log = logging.getLogger(__name__)


class KeySweeper(Ticker):
    """Every ``SWEEP_EVERY``: the expired keys of all users removed, in a transaction of its own."""

    task_name = "idempotency-sweep"
    failure = "sweeping expired idempotency keys failed"

    def __init__(self, sessionmaker: async_sessionmaker[AsyncSession]) -> None:
        super().__init__(service.SWEEP_EVERY.total_seconds())
        self._sessionmaker = sessionmaker

    async def tick(self) -> int:
        async with self._sessionmaker() as session:
            removed = await service.sweep(session, utcnow())
            await session.commit()
        if removed:
            log.info("removed %d expired idempotency keys", removed)
        return removed
