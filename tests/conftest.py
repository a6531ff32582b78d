"""Test fixtures: a real database built by the migrations, the app, clients, a live server.

SQLite by default; PostgreSQL when ``TAFELRUNDE_TEST_DATABASE_URL`` is set, e.g.
``postgresql+asyncpg://postgres@127.0.0.1/test``. Every test starts from empty tables.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import hypothesis
import psycopg
import pytest
from fastapi import FastAPI
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.config import ASYNCPG, Environment, Settings
from app.db import create_engine
from app.main import create_app
from app.migrate import upgrade
from app.models import Base
from app.wiring import wire

ROOT = Path(__file__).resolve().parents[1]
# Property tests check results, not speed: no per-example deadline (a loaded CI machine
# would otherwise fail them at random).
hypothesis.settings.register_profile("tafelrunde", deadline=None)
hypothesis.settings.load_profile("tafelrunde")
# What create_app wires, for the tests that use the registries without an app.
wire()
PASSWORD = "correct horse battery staple"
CHEAP_ARGON2 = {"TAFELRUNDE_ARGON2_TIME_COST": "1", "TAFELRUNDE_ARGON2_MEMORY_KIB": "8192"}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--browser-tests",
        action="store_true",
        default=False,
        help="run the Playwright browser tests (they need /usr/bin/chromium)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--browser-tests"):
        return
    skip = pytest.mark.skip(reason="browser tests run with --browser-tests")
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(skip)


def _reset_postgres(url: str) -> None:
    conninfo = "postgresql://" + url.partition("://")[2]
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute("DROP SCHEMA public CASCADE")
        conn.execute("CREATE SCHEMA public")


@pytest.fixture(scope="session")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = os.environ.get("TAFELRUNDE_TEST_DATABASE_URL", "")
    if url:
        if url.startswith("postgresql://"):
            url = ASYNCPG + url.removeprefix("postgresql://")
        _reset_postgres(url)
    else:
        url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('db') / 'test.db'}"
    upgrade(url)
    return url


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("data")


@pytest.fixture
def settings(database_url: str, data_dir: Path) -> Settings:
    return Settings(
        environment=Environment.test,
        database_url=database_url,
        data_dir=data_dir,
        secret_key="test-secret",
        argon2_time_cost=1,
        argon2_memory_kib=8192,
        stream_poll_seconds=5,
        # Tests write fast; tests/api/test_limits.py sets a low limit where it is the subject.
        write_rate_per_minute=1_000_000,
        write_burst=1_000_000,
        # No test's hook is posted to by the delivery loop on its own: a test that makes a
        # hook to a public address (tests/test_backup.py) must not reach the internet, and
        # tests/api/test_webhooks.py delivers when it says.
        webhooks_poll_seconds=3600,
    )


async def _truncate(app_settings: Settings) -> None:
    from app.db import create_engine

    engine = create_engine(app_settings.resolved_database_url)
    tables = [t.name for t in reversed(Base.metadata.sorted_tables)]
    async with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            await _truncate_postgres(conn, tables, app_settings.resolved_database_url)
        else:
            for table in tables:
                await conn.execute(text(f"DELETE FROM {table}"))
    await engine.dispose()


#: How long the next test's TRUNCATE waits for a lock another connection holds: a connection
#: the app left in a transaction fails that test with the culprit named, not the whole run
#: with a hang (CI's own limit is 90 minutes).
TRUNCATE_LOCK_WAIT = "60s"


async def _truncate_postgres(conn: AsyncConnection, tables: list[str], url: str) -> None:
    await conn.execute(text(f"SET LOCAL lock_timeout = '{TRUNCATE_LOCK_WAIT}'"))
    try:
        await conn.execute(text(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY CASCADE"))
    except DBAPIError as exc:
        raise RuntimeError(f"TRUNCATE waited in vain; holding: {await _holders(url)}") from exc


async def _holders(url: str) -> list[tuple[Any, ...]]:
    """The other connections to the test database that are in a transaction, with their
    last statement."""
    engine = create_engine(url)
    query = text(
        "SELECT pid, state, xact_start, left(query, 200) FROM pg_stat_activity"
        " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        " AND xact_start IS NOT NULL"
    )
    async with engine.connect() as conn:
        rows = [tuple(row) for row in await conn.execute(query)]
    await engine.dispose()
    return rows


@pytest.fixture
async def app(settings: Settings) -> AsyncIterator[FastAPI]:
    await _truncate(settings)
    application = create_app(settings)
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture
async def postgres_engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    """The app's engine on the test database, for tests of what only a server does (drop a
    connection, end one); skipped on SQLite."""
    if not database_url.startswith("postgresql"):
        pytest.skip("a database server's doing (SQLite has no server)")
    engine = create_engine(database_url)
    yield engine
    await engine.dispose()


ClientFactory = Callable[[], httpx.AsyncClient]


@pytest.fixture
async def make_client(app: FastAPI) -> AsyncIterator[ClientFactory]:
    """Factory of independent clients (own cookie jar each), closed after the test."""
    clients: list[httpx.AsyncClient] = []

    def factory() -> httpx.AsyncClient:
        client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url="http://testserver",
            follow_redirects=False,
        )
        clients.append(client)
        return client

    yield factory
    for client in clients:
        await client.aclose()


@pytest.fixture
def client(make_client: ClientFactory) -> httpx.AsyncClient:
    return make_client()


async def register(client: httpx.AsyncClient, username: str) -> dict[str, object]:
    """Register and log in ``username`` on ``client`` (cookie kept); returns the login body."""
    r = await client.post(
        "/api/v1/auth/register", json={"username": username, "password": PASSWORD}
    )
    assert r.status_code == 201, r.text
    r = await client.post("/api/v1/auth/login", json={"username": username, "password": PASSWORD})
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    """A real uvicorn process serving the app on the test database."""

    def __init__(
        self, database_url: str, data_dir: Path, extra_env: dict[str, str] | None = None
    ) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {
            **os.environ,
            **CHEAP_ARGON2,
            "TAFELRUNDE_DATABASE_URL": database_url,
            "TAFELRUNDE_DATA_DIR": str(data_dir),
            "TAFELRUNDE_SECRET_KEY": "test-secret",
            "TAFELRUNDE_ENVIRONMENT": "test",
            "TAFELRUNDE_STREAM_POLL_SECONDS": "5",
            "TAFELRUNDE_WRITE_RATE_PER_MINUTE": "1000000",
            "TAFELRUNDE_WRITE_BURST": "1000000",
            # Like the in-process apps (see ``settings``): the server lives for the whole
            # session on the test database, and its own delivery loop must not claim a hook
            # that tests/api/test_webhooks.py delivers when it says.
            "TAFELRUNDE_WEBHOOKS_POLL_SECONDS": "3600",
            **(extra_env or {}),
        }
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "app.main:app",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--timeout-graceful-shutdown",
                "2",
                "--log-level",
                "warning",
            ],
            cwd=ROOT,
            env=env,
        )
        deadline = time.monotonic() + 90  # a busy CI machine (imports, migrations) is slow
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/login", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("live server did not start")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


@pytest.fixture(scope="session")
def live_server(database_url: str, data_dir: Path) -> Iterator[LiveServer]:
    server = LiveServer(database_url, data_dir)
    yield server
    server.stop()
