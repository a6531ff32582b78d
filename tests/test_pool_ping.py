"""Pooled PostgreSQL connections: pinged before use only when they lay idle (app/db.py).

The ping replaced ``pool_pre_ping``, which cost a round trip on every request; these tests
show it still catches a connection the database closed, and that a connection back in the
pool a moment ago is taken without one.
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

import app.db


async def _backend_pid(engine: AsyncEngine) -> int:
    async with engine.connect() as conn:
        return int((await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one())


def _terminate(database_url: str, pid: int) -> None:
    """What a database restart does to a pooled connection: the server ends it."""
    with psycopg.connect("postgresql://" + database_url.partition("://")[2]) as conn:
        conn.execute("SELECT pg_terminate_backend(%s)", (pid,))


def _count_pings(engine: AsyncEngine, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    pings: list[int] = []
    real = engine.dialect.do_ping

    def counted(dbapi_connection: Any) -> bool:
        pings.append(1)
        return real(dbapi_connection)

    monkeypatch.setattr(engine.dialect, "do_ping", counted)
    return pings


async def test_a_connection_closed_while_idle_is_replaced_before_the_request_uses_it(
    postgres_engine: AsyncEngine, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pings = _count_pings(postgres_engine, monkeypatch)
    first = await _backend_pid(postgres_engine)
    _terminate(database_url, first)
    monkeypatch.setattr(app.db, "PING_AFTER_IDLE_SECONDS", 0.0)  # it has lain idle long enough

    second = await _backend_pid(
        postgres_engine
    )  # no error: the ping failed, the pool connected anew

    assert second != first
    assert pings == [1]


async def test_a_connection_back_in_the_pool_a_moment_ago_is_not_pinged(
    postgres_engine: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    pings = _count_pings(postgres_engine, monkeypatch)
    pids = {await _backend_pid(postgres_engine) for _ in range(20)}

    assert len(pids) == 1, "the same pooled connection every time"
    assert pings == []
