"""A transaction the app leaves open on PostgreSQL is ended by the database.

A push once left a session reading in a task of its own after its stream had closed: the
session took a connection it never gave back, in a transaction, and every ``TRUNCATE`` and
migration waited for it for good (``tests/stream/test_shared_load.py``). Every connection
of the app now tells PostgreSQL to end a transaction left idle
(``app.db.IDLE_IN_TRANSACTION_SECONDS``), so such a bug costs its locks a while, not forever.
"""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from app import db
from app.campaigns.models import Campaign

#: How long the test waits for PostgreSQL to end the idle transaction (it is told 1 s).
PATIENCE = 20.0


async def test_a_transaction_left_idle_loses_its_locks(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("SQLite: no server to end a transaction; it ends with its process")
    monkeypatch.setattr(db, "IDLE_IN_TRANSACTION_SECONDS", 1)
    engine = db.create_engine(database_url)
    try:
        left_open = db.create_sessionmaker(engine)()
        await left_open.execute(select(Campaign.id).limit(1))  # holds a lock on campaign
        await asyncio.wait_for(_lock_campaign(engine), PATIENCE)
        with pytest.raises(DBAPIError):
            await left_open.execute(select(Campaign.id).limit(1))
        await left_open.close()
    finally:
        await engine.dispose()


async def _lock_campaign(engine: AsyncEngine) -> None:
    """Takes the lock a ``TRUNCATE`` takes, once nothing holds one on the table any more."""
    while True:
        try:
            async with engine.begin() as conn:
                await conn.execute(text("LOCK TABLE campaign IN ACCESS EXCLUSIVE MODE NOWAIT"))
            return
        except DBAPIError:
            await asyncio.sleep(0.2)
