"""Alembic environment: async engines, batch mode on SQLite, the app's metadata."""

from __future__ import annotations

import asyncio
from typing import Any

from alembic import context
from sqlalchemy import event, text
from sqlalchemy.engine import Connection

from app.config import Settings
from app.db import create_engine
from app.models import Base

config = context.config
target_metadata = Base.metadata


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def _foreign_keys_off(dbapi_connection: Any, _record: object) -> None:
    """SQLite, while migrating: batch mode rebuilds a table by copying it and dropping the
    old one, and with foreign keys on that DROP deletes every row pointing at it (ON DELETE
    CASCADE: a campaign's members, log and characters). Checked once at the end instead."""
    dbapi_connection.cursor().execute("PRAGMA foreign_keys=OFF")


async def _run_async(url: str) -> None:
    engine = create_engine(url)
    sqlite = engine.dialect.name == "sqlite"
    if sqlite:
        event.listen(engine.sync_engine, "connect", _foreign_keys_off)
    async with engine.connect() as connection:
        await connection.run_sync(_configure)
        await connection.commit()
        if sqlite:
            broken = (await connection.execute(text("PRAGMA foreign_key_check"))).all()
            if broken:
                raise RuntimeError(f"the migration left broken foreign keys: {broken[:5]}")
    await engine.dispose()


def run() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection)
        return
    url = config.get_main_option("sqlalchemy.url") or Settings().resolved_database_url
    asyncio.run(_run_async(url))


run()
