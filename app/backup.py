"""``tafelrunde backup FILE`` and ``tafelrunde restore FILE``: a consistent copy of everything.

Two formats, both restorable on either database:

- ``sqlite``: SQLite's online backup API, page by page, while the service keeps running. The
  copy is a database file as of one moment. Only from SQLite.
- ``jsonl``: a portable archive. A header line (format, schema revision, tables), then one
  line per row, ``{"t": table, "r": {column: value}}``, tables in dependency order. On
  PostgreSQL it is read in one REPEATABLE READ, READ ONLY transaction (one snapshot, no lock
  that stops writers); on SQLite from an online-backup copy.

A restore migrates the target to the newest schema, refuses a backup of another schema
revision and a target that holds data (unless ``replace``), inserts every row in one
transaction and moves PostgreSQL's id sequences past the restored ids.
"""

from __future__ import annotations

import asyncio
import base64
import json
import sqlite3
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, Any, TypedDict

from sqlalchemy import DateTime, LargeBinary, Table, delete, func, insert, select, text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from app.db import create_engine
from app.migrate import upgrade
from app.models import Base

FORMAT = "tafelrunde-backup"
FORMAT_VERSION = 1
SQLITE_MAGIC = b"SQLite format 3\x00"
BATCH = 500


class Header(TypedDict):
    """The first line of a ``jsonl`` backup."""

    format: str
    version: int
    #: The schema revision (Alembic heads, comma-joined).
    revision: str
    #: Every table, parents before children.
    tables: list[str]


class RowLine(TypedDict):
    """Every further line of a ``jsonl`` backup: a table's name, one row's columns (values
    as :func:`_encode_value` writes them)."""

    t: str
    r: dict[str, object]


class BackupError(Exception):
    """A backup or restore that cannot be done; the message says why."""


@dataclass
class Summary:
    revision: str
    rows: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.rows.values())


def tables() -> list[Table]:
    """Every table of the schema, parents before children."""
    return list(Base.metadata.sorted_tables)


def sqlite_path(url: str) -> Path:
    if not url.startswith("sqlite"):
        raise BackupError("the sqlite format needs a SQLite database")
    return Path(url.partition(":///")[2])


def _is_datetime(table: Table, column: str) -> bool:
    return isinstance(table.c[column].type, DateTime) or isinstance(
        getattr(table.c[column].type, "impl", None), DateTime
    )


def _is_binary(table: Table, column: str) -> bool:
    return isinstance(table.c[column].type, LargeBinary)


def _encode_value(value: object) -> object:
    """Datetimes as ISO text, bytes (stored answers) as base64 text; the rest as it is."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return value


def _encode(row: Mapping[str, object]) -> dict[str, object]:
    return {name: _encode_value(value) for name, value in row.items()}


def _decode_value(table: Table, name: str, value: Any) -> Any:
    if value is None:
        return None
    if _is_datetime(table, name):
        return datetime.fromisoformat(value)
    if _is_binary(table, name):
        return base64.b64decode(value)
    return value


def _decode(table: Table, row: dict[str, object]) -> dict[str, object]:
    return {name: _decode_value(table, name, value) for name, value in row.items()}


#: Seconds a copy waits for a source another connection keeps locked before it gives up.
BUSY_SECONDS = 30.0


def sqlite_online_backup(source: Path, target: Path) -> None:
    """Copy a live SQLite database with the backup API (writers may go on meanwhile).

    Blocking: run it in a thread. sqlite3 retries a locked source for ever; this gives up
    after :data:`BUSY_SECONDS` with a :class:`BackupError`."""
    deadline = time.monotonic() + BUSY_SECONDS

    def progress(status: int, remaining: int, total: int) -> None:
        if status in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) and time.monotonic() > deadline:
            raise BackupError(f"the database stayed locked for {BUSY_SECONDS:.0f} s: try again")

    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst, pages=1024, progress=progress)
    # The copy is a plain file: no -wal or -shm beside it.
    with sqlite3.connect(target) as dst:
        dst.execute("PRAGMA journal_mode=DELETE")


async def _revision(conn: AsyncConnection) -> str:
    revisions = (await conn.execute(text("SELECT version_num FROM alembic_version"))).scalars()
    found = sorted(revisions.all())
    if not found:
        raise BackupError("the database has no schema revision: not a Tafelrunde database")
    return ",".join(found)


async def _rows(conn: AsyncConnection) -> AsyncIterator[tuple[Table, dict[str, object]]]:
    for table in tables():
        order = list(table.primary_key.columns)
        result = await conn.stream(select(table).order_by(*order))
        async for row in result.mappings():
            yield table, dict(row)


def _write_jsonl_header(out: IO[str], revision: str) -> None:
    header: Header = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "revision": revision,
        "tables": [t.name for t in tables()],
    }
    out.write(json.dumps(header) + "\n")


async def _dump_jsonl(conn: AsyncConnection, out: IO[str]) -> Summary:
    summary = Summary(await _revision(conn))
    _write_jsonl_header(out, summary.revision)
    async for table, row in _rows(conn):
        line: RowLine = {"t": table.name, "r": _encode(row)}
        out.write(json.dumps(line) + "\n")
        summary.rows[table.name] = summary.rows.get(table.name, 0) + 1
    return summary


async def _dump_postgres_snapshot(url: str, out: IO[str]) -> Summary:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            conn = await conn.execution_options(isolation_level="REPEATABLE READ")
            async with conn.begin():
                await conn.execute(text("SET TRANSACTION READ ONLY"))
                return await _dump_jsonl(conn, out)
    finally:
        await engine.dispose()


async def _dump_sqlite_copy(copy: Path, out: IO[str]) -> Summary:
    engine = create_async_engine(f"sqlite+aiosqlite:///{copy}")
    try:
        async with engine.connect() as conn:
            return await _dump_jsonl(conn, out)
    finally:
        await engine.dispose()


async def backup(url: str, target: Path, fmt: str | None = None) -> Summary:
    """Write a consistent copy of the database at ``url`` to ``target``."""
    is_sqlite = url.startswith("sqlite")
    fmt = fmt or ("sqlite" if is_sqlite else "jsonl")
    if fmt not in ("sqlite", "jsonl"):
        raise BackupError(f"unknown format {fmt!r}: sqlite or jsonl")
    partial = target.with_name(target.name + ".partial")
    try:
        summary = await _write_copy(url, partial, fmt)
    except BaseException:
        partial.unlink(missing_ok=True)  # a failed backup leaves no half-written file
        raise
    partial.replace(target)
    return summary


async def _write_copy(url: str, partial: Path, fmt: str) -> Summary:
    if fmt == "sqlite":
        await asyncio.to_thread(sqlite_online_backup, sqlite_path(url), partial)
        return await _count_sqlite_file(partial)
    with tempfile.TemporaryDirectory() as tmp, partial.open("w", encoding="utf-8") as out:
        if not url.startswith("sqlite"):
            return await _dump_postgres_snapshot(url, out)
        copy = Path(tmp) / "copy.db"
        await asyncio.to_thread(sqlite_online_backup, sqlite_path(url), copy)
        return await _dump_sqlite_copy(copy, out)


async def _count_sqlite_file(path: Path) -> Summary:
    engine = create_async_engine(f"sqlite+aiosqlite:///{path}")
    try:
        async with engine.connect() as conn:
            summary = Summary(await _revision(conn))
            for table in tables():
                summary.rows[table.name] = int(
                    await conn.scalar(select(func.count()).select_from(table)) or 0
                )
            return summary
    finally:
        await engine.dispose()


# --- restore -------------------------------------------------------------------------------


@dataclass
class Source:
    """A backup file, read as its revision and its rows."""

    revision: str
    rows: AsyncIterator[tuple[Table, dict[str, object]]]


def _jsonl_lines(path: Path) -> Iterator[str]:
    """The file's lines that are not blank, each one JSON object."""
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield line


async def _jsonl_rows(lines: Iterator[str]) -> AsyncIterator[tuple[Table, dict[str, object]]]:
    by_name = {t.name: t for t in tables()}
    for text_line in lines:
        line: RowLine = json.loads(text_line)
        table = by_name.get(line["t"])
        if table is None:
            raise BackupError(f"the backup has a table this version does not know: {line['t']}")
        yield table, _decode(table, line["r"])


def _open_jsonl(path: Path) -> Source:
    lines = _jsonl_lines(path)
    first = next(lines, None)
    header: Header | None = None if first is None else json.loads(first)
    if not header or header.get("format") != FORMAT:
        raise BackupError(f"{path} is not a Tafelrunde backup")
    if header.get("version") != FORMAT_VERSION:
        raise BackupError(f"backup format version {header.get('version')} is not supported")
    return Source(str(header["revision"]), _jsonl_rows(lines))


async def _sqlite_rows(path: Path) -> AsyncIterator[tuple[Table, dict[str, object]]]:
    engine = create_async_engine(f"sqlite+aiosqlite:///{path}")
    try:
        async with engine.connect() as conn:
            async for item in _rows(conn):
                yield item
    finally:
        await engine.dispose()


async def _open_source(path: Path) -> Source:
    with path.open("rb") as fh:
        magic = fh.read(len(SQLITE_MAGIC))
    if magic == SQLITE_MAGIC:
        revision = (await _count_sqlite_file(path)).revision
        return Source(revision, _sqlite_rows(path))
    return _open_jsonl(path)


async def _ensure_empty(conn: AsyncConnection, replace: bool) -> None:
    for table in reversed(tables()):
        if replace:
            await conn.execute(delete(table))
        elif await conn.scalar(select(func.count()).select_from(table)):
            raise BackupError(
                f"the target database holds data (table {table.name}); "
                "restore into an empty database, or pass --replace to overwrite it"
            )


async def _insert_all(conn: AsyncConnection, source: Source, summary: Summary) -> None:
    batch: list[dict[str, object]] = []
    current: Table | None = None
    async for table, row in source.rows:
        if table is not current and batch:
            assert current is not None
            await conn.execute(insert(current), batch)
            batch = []
        current = table
        batch.append(row)
        summary.rows[table.name] = summary.rows.get(table.name, 0) + 1
        if len(batch) >= BATCH:
            await conn.execute(insert(table), batch)
            batch = []
    if batch and current is not None:
        await conn.execute(insert(current), batch)


async def _fix_postgres_sequences(conn: AsyncConnection) -> None:
    """Move each id sequence past the largest restored id, so new rows get fresh ids."""
    for table in tables():
        for column in table.primary_key.columns:
            if column.autoincrement is not True and not (
                column.autoincrement == "auto" and len(table.primary_key.columns) == 1
            ):
                continue
            sequence = await conn.scalar(
                text("SELECT pg_get_serial_sequence(:table, :column)"),
                {"table": table.name, "column": column.name},
            )
            if sequence is None:
                continue
            quote = conn.dialect.identifier_preparer.quote
            largest = f"SELECT MAX({quote(column.name)}) FROM {quote(table.name)}"
            await conn.execute(
                text(f"SELECT setval(:sequence, COALESCE(({largest}), 0) + 1, false)"),
                {"sequence": sequence},
            )


async def restore(url: str, path: Path, *, replace: bool = False) -> Summary:
    """Load a backup into the database at ``url`` (migrated first), in one transaction."""
    # Alembic runs its own event loop (asyncio.run): in a thread, not inside this one.
    await asyncio.to_thread(upgrade, url)
    source = await _open_source(path)
    engine: AsyncEngine = create_engine(url)
    try:
        async with engine.begin() as conn:
            revision = await _revision(conn)
            if revision != source.revision:
                raise BackupError(
                    f"the backup is of schema revision {source.revision}, this database is at "
                    f"{revision}: restore with the Tafelrunde version that made the backup, "
                    "then upgrade"
                )
            await _ensure_empty(conn, replace)
            summary = Summary(revision)
            await _insert_all(conn, source, summary)
            if conn.dialect.name == "postgresql":
                await _fix_postgres_sequences(conn)
        return summary
    finally:
        await engine.dispose()
