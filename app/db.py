"""Database plumbing shared by every domain package: base model, engine, sessions."""

from __future__ import annotations

import json
import time
from collections.abc import Collection, Hashable, Iterator
from datetime import UTC, datetime
from typing import Any, TypeVar

import orjson
from sqlalchemy import DateTime, Dialect, ForeignKey, MetaData, event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, DisconnectionError, InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import DeclarativeBase, MappedColumn, ORMExecuteState, Session, mapped_column
from sqlalchemy.pool import ConnectionPoolEntry
from sqlalchemy.types import TypeDecorator

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC datetimes on every backend (SQLite drops tzinfo otherwise)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def owned_by(owner: str, **column: Any) -> MappedColumn[Any]:
    """A key to the row ``owner`` (``"table.id"``) this row belongs to: deleted with it."""
    return mapped_column(ForeignKey(owner, ondelete="CASCADE"), **column)


def refers_to(other: str, **column: Any) -> MappedColumn[Any]:
    """A key to a row this row only names: when that row is deleted, the key becomes NULL."""
    return mapped_column(ForeignKey(other, ondelete="SET NULL"), **column)


def utcnow() -> datetime:
    return datetime.now(UTC)


def _sqlite_on_connect(dbapi_connection: Any, _record: ConnectionPoolEntry) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    # WAL + NORMAL: a crash of the app never corrupts or loses committed data; only an OS
    # crash or power loss may lose the last transactions. The usual choice for WAL.
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


#: JSON columns through orjson. A combat step reads and writes a fight's whole state as JSON
#: a few times (the encounter row, its undo step, the sheets); the standard library's
#: encoder and decoder were a tenth of its CPU (issue 29).
_JSON_OPTIONS = orjson.OPT_NON_STR_KEYS


def json_bytes(value: Any) -> bytes:
    """``value`` as JSON text in UTF-8, as :func:`json.dumps` writes it (non-string keys
    become strings) save for non-ASCII letters, which stay letters: the same values. An
    integer past 64 bits, which orjson refuses, goes through :mod:`json`."""
    try:
        return orjson.dumps(value, option=_JSON_OPTIONS)
    except TypeError:
        return json.dumps(value).encode()


def json_text(value: Any) -> str:
    """:func:`json_bytes` as text (what SQLite stores)."""
    return json_bytes(value).decode()


def json_value(text: str | bytes | bytearray | memoryview) -> Any:
    """The value of JSON text; what orjson will not read (``NaN``, which an older SQLite row
    may hold) through :mod:`json`."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(bytes(text) if isinstance(text, memoryview) else text)


def create_engine(url: str) -> AsyncEngine:
    if url.startswith("sqlite"):
        engine = create_async_engine(
            url,
            connect_args={"timeout": 10},
            json_serializer=json_text,
            json_deserializer=json_value,
        )
        event.listen(engine.sync_engine, "connect", _sqlite_on_connect)
        _serialize_sqlite_writes(engine.sync_engine)
        return engine
    engine = create_async_engine(
        url,
        connect_args=_server_settings(url),
        pool_size=20,
        max_overflow=20,
        pool_recycle=1800,
        # asyncpg takes JSON parameters as text only; psycopg takes bytes (one copy less).
        json_serializer=json_text if url.startswith("postgresql+asyncpg:") else json_bytes,
        json_deserializer=json_value,
    )
    _ping_when_idle(engine.sync_engine)
    _refused_connection_is_operational(engine.sync_engine)
    return engine


#: Seconds PostgreSQL lets a connection of the app sit idle inside a transaction before it
#: ends it (``idle_in_transaction_session_timeout``): a transaction a bug leaves open would
#: otherwise hold its locks for good, and every migration and ``TRUNCATE`` waits behind it.
#: No request or stream of the app keeps a transaction idle for more than a moment.
#: (In ``app.limits`` with every other limit.)
IDLE_IN_TRANSACTION_SECONDS = 300


def _server_settings(url: str) -> dict[str, Any]:
    """What every PostgreSQL connection of the app sets on the server, in each driver's way:
    a transaction left idle is ended after :data:`IDLE_IN_TRANSACTION_SECONDS`."""
    idle_ms = str(IDLE_IN_TRANSACTION_SECONDS * 1000)
    if url.startswith("postgresql+asyncpg:"):
        return {"server_settings": {"idle_in_transaction_session_timeout": idle_ms}}
    return {"options": f"-c idle_in_transaction_session_timeout={idle_ms}"}


#: A pooled connection that lay unused this long is pinged before a request takes it.
PING_AFTER_IDLE_SECONDS = 1.0
_IDLE_SINCE = "tafelrunde.idle_since"


def _ping_when_idle(engine: Engine) -> None:
    """Test a pooled connection before use when it lay idle, not on every checkout.

    A connection idle for a while may have been closed by a database restart: the ping (one
    short round trip) finds that, and the pool connects afresh, so the request does not fail.
    A connection back in the pool a moment ago is not pinged (``pool_pre_ping`` would ping
    it too: a round trip on every request). A restart between two such uses fails that one
    request, which answers 503 (``app/web/errors.py``), and SQLAlchemy then replaces every
    connection of the pool older than the failure.
    """

    @event.listens_for(engine, "checkin")
    def _idle_from_now(_dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
        record.info[_IDLE_SINCE] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _ping_if_idle(dbapi_connection: Any, record: ConnectionPoolEntry, _proxy: Any) -> None:
        since = record.info.pop(_IDLE_SINCE, None)
        if since is None or time.monotonic() - since < PING_AFTER_IDLE_SECONDS:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as exc:  # any failure of the ping: connect afresh
            raise DisconnectionError("pooled connection failed its ping") from exc


def _refused_connection_is_operational(engine: Engine) -> None:
    """A server that refuses the connection (down, restarting) is the driver's
    ``OperationalError``, which SQLAlchemy hands on as its own: a 503 like every database
    that is away. psycopg raises it so; asyncpg lets the socket's ``OSError`` through, which
    SQLAlchemy does not wrap (a 500 and a broken connection to the browser before)."""

    @event.listens_for(engine, "do_connect")
    def _connect(dialect: Dialect, _rec: Any, cargs: Any, cparams: Any) -> Any:
        dbapi = dialect.loaded_dbapi
        try:
            return dbapi.connect(*cargs, **cparams)
        except OSError as exc:
            raise dbapi.OperationalError(f"cannot connect: {exc}") from exc


#: Execution option of the engine behind :func:`create_read_sessionmaker` on SQLite: its
#: transactions begin DEFERRED, not IMMEDIATE.
_READ_ONLY = "tafelrunde_read_only"


def _serialize_sqlite_writes(engine: Engine) -> None:
    """Begin SQLite transactions IMMEDIATE so concurrent writers queue instead of failing.

    pysqlite's deferred BEGIN lets two transactions read, then fail to upgrade their locks
    ("database is locked"). Taking the write lock at BEGIN makes them wait in turn. A
    session that only reads (:func:`create_read_sessionmaker`) begins DEFERRED: in WAL mode
    it takes no lock that a writer or another reader waits for.
    """

    @event.listens_for(engine, "connect")
    def _no_implicit_begin(dbapi_connection: Any, _record: ConnectionPoolEntry) -> None:
        dbapi_connection.isolation_level = None

    @event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        read_only = conn.get_execution_options().get(_READ_ONLY, False)
        conn.exec_driver_sql("BEGIN DEFERRED" if read_only else "BEGIN IMMEDIATE")


#: SQLSTATE classes of a database that is away or cannot take the write: connection (08),
#: insufficient resources (53: disk full, out of memory, too many connections), operator
#: intervention (57: shut down, starting up) and system errors (58). psycopg raises them as
#: ``OperationalError``; asyncpg's reach SQLAlchemy as its generic ``Error``.
_AWAY = ("08", "53", "57", "58")


def is_database_unavailable(exc: BaseException) -> bool:
    """The database cannot be reached or cannot take the write (down, restarting, full)."""
    if isinstance(exc, OperationalError | InterfaceError):
        return True
    if not isinstance(exc, DBAPIError):
        return False
    sqlstate = getattr(exc.orig, "sqlstate", None)
    return exc.connection_invalidated or (isinstance(sqlstate, str) and sqlstate[:2] in _AWAY)


def is_storage_full(exc: BaseException) -> bool:
    return "database or disk is full" in str(exc) or "No space left on device" in str(exc)


_T = TypeVar("_T")
#: Values bound to one ``IN (…)`` at most: well below SQLite's oldest limit of 999 variables.
IN_CHUNK = 500


def in_chunks(values: Collection[_T], size: int = IN_CHUNK) -> Iterator[list[_T]]:
    """``values`` in lists of at most ``size``, for one ``IN (…)`` each: a statement per 500."""
    items = list(values)
    for start in range(0, len(items), size):
        yield items[start : start + size]


def create_sessionmaker(
    engine: AsyncEngine, info: dict[str, Any] | None = None
) -> async_sessionmaker[AsyncSession]:
    """``info``: what every session's ``info`` starts with (the app's settings for the layers
    below it, such as ``app.events.service.NOTIFY_OFF_KEY``)."""
    return async_sessionmaker(engine, expire_on_commit=False, info=info)


def create_read_sessionmaker(
    engine: AsyncEngine, info: dict[str, Any] | None = None
) -> async_sessionmaker[AsyncSession]:
    """Sessions that only read: what a live stream and a request of a safe method (GET,
    HEAD) read with.

    On SQLite they begin DEFERRED and refuse to write. A push that held the write lock while
    it waited for a load another push shares (``app.web.regions.shared_load``), whose
    session waited for that very lock, stalled both for the whole busy timeout, and every
    request's write behind them. On PostgreSQL they are the app's usual sessions: nothing
    there locks a reader.
    """
    if engine.dialect.name != "sqlite":
        return create_sessionmaker(engine, info)
    reading = engine.execution_options(**{_READ_ONLY: True})
    event.listen(reading.sync_engine, "before_cursor_execute", _refuse_writes)
    return create_sessionmaker(reading, info)


class ReadOnlySessionWrites(RuntimeError):
    """A session of :func:`create_read_sessionmaker` was asked to write: a bug."""


_READS = ("SELECT", "WITH", "BEGIN", "PRAGMA")


def _refuse_writes(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
    if not statement.lstrip()[:6].upper().startswith(_READS):
        raise ReadOnlySessionWrites(f"a session that only reads was asked: {statement[:80]}")


#: Key of the read memo in ``Session.info``.
_MEMO = "tafelrunde.read_memo"


def read_memo(session: AsyncSession) -> dict[Hashable, Any]:
    """Reads kept for the rest of ``session``'s transaction while nothing is written: a page
    whose panels show the same rows (the campaign page's member list: members panel, chat,
    handouts) reads them once. Any flush, any non-SELECT statement, commit and rollback drop
    the memo, so a use case never sees a read from before its own write (nor from before a
    change still pending in the session, which the read would have flushed)."""
    sync = session.sync_session
    if sync.new or sync.dirty or sync.deleted:
        _drop_memo(sync)
    memo: dict[Hashable, Any] = sync.info.setdefault(_MEMO, {})
    return memo


def _drop_memo(session: Session, *_args: Any) -> None:
    session.info.pop(_MEMO, None)


#: Execution option of a write to rows no read of the memo comes from (the idempotency keys,
#: claimed by a form's request before its use case reads what the sign-in read already): it
#: keeps the memo.
KEEPS_READS = "tafelrunde.keeps_reads"


def _drop_memo_on_write(state: ORMExecuteState) -> None:
    if not state.is_select and not state.execution_options.get(KEEPS_READS, False):
        _drop_memo(state.session)


for _name in ("after_flush", "after_commit", "after_rollback", "after_soft_rollback"):
    event.listen(Session, _name, _drop_memo)
event.listen(Session, "do_orm_execute", _drop_memo_on_write)
