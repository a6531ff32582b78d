"""A ``nats-server -js`` per test that wants one (its own port and store, stopped after)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.multiprocess.nats_server import NatsServer


@pytest.fixture
def nats_server(database_url: str, tmp_path: Path) -> Iterator[NatsServer]:
    if not database_url.startswith("postgresql"):
        pytest.skip("several app processes share a database only on PostgreSQL")
    (tmp_path / "nats").mkdir()
    server = NatsServer(tmp_path / "nats")
    server.start()
    try:
        yield server
    finally:
        server.stop()
