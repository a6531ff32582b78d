"""When is the database away (503 with ``Retry-After``) and when is an error ours (500)?

``app.db.is_database_unavailable`` decides it for the answers, the streams and the warden.
psycopg raises a database that is away as ``OperationalError``; asyncpg's errors reach
SQLAlchemy as one generic ``Error`` that carries their SQLSTATE, so the decision reads that.
"""

from __future__ import annotations

import socket

import asyncpg
import pytest
from sqlalchemy import text
from sqlalchemy.dialects.postgresql.asyncpg import AsyncAdapt_asyncpg_dbapi
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from app.db import create_engine, is_database_unavailable

_DBAPI = AsyncAdapt_asyncpg_dbapi(asyncpg)  # type: ignore[no-untyped-call]


def _as_sqlalchemy_raises(error: asyncpg.PostgresError) -> DBAPIError:
    """``error`` as a statement on asyncpg hands it to the app."""
    translate = _DBAPI._asyncpg_error_translate
    adapted = next(translate[c] for c in type(error).__mro__ if c in translate)
    raised = DBAPIError.instance("SELECT 1", {}, adapted(error.args[0], error), _DBAPI.Error)
    assert isinstance(raised, DBAPIError)
    return raised


@pytest.mark.parametrize(
    "error",
    [
        asyncpg.exceptions.CannotConnectNowError("the database system is starting up"),
        asyncpg.exceptions.AdminShutdownError("terminating connection due to administrator"),
        asyncpg.exceptions.DiskFullError("could not extend file: No space left on device"),
        asyncpg.exceptions.TooManyConnectionsError("sorry, too many clients already"),
    ],
)
def test_a_database_starting_stopping_or_full_is_away(error: asyncpg.PostgresError) -> None:
    assert is_database_unavailable(_as_sqlalchemy_raises(error))


@pytest.mark.parametrize(
    "error",
    [
        asyncpg.exceptions.UniqueViolationError("duplicate key value"),
        asyncpg.exceptions.UndefinedColumnError("column does not exist"),
        asyncpg.exceptions.DataError("invalid input for query argument"),
    ],
)
def test_a_mistake_of_ours_is_not_the_database_being_away(error: asyncpg.PostgresError) -> None:
    assert not is_database_unavailable(_as_sqlalchemy_raises(error))


async def test_a_connection_the_server_ends_mid_statement_is_away(
    postgres_engine: AsyncEngine,
) -> None:
    async with postgres_engine.connect() as conn:
        with pytest.raises(DBAPIError) as raised:
            await conn.execute(text("SELECT pg_terminate_backend(pg_backend_pid())"))
    assert is_database_unavailable(raised.value)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("driver", ["asyncpg", "psycopg"])
async def test_a_server_that_refuses_the_connection_is_away(driver: str) -> None:
    engine = create_engine(f"postgresql+{driver}://postgres@127.0.0.1:{_closed_port()}/x")
    try:
        with pytest.raises(DBAPIError) as raised:
            async with engine.connect():
                pass
    finally:
        await engine.dispose()
    assert is_database_unavailable(raised.value)
