"""A PostgreSQL cluster of the fault tests' own, made once per session and dropped after.

Never the shared cluster on 5432: the tests stop and start this one. Skipped when the suite
does not run on PostgreSQL or the machine has no ``pg_createcluster`` (``.ci/run`` has both
and insists that these tests ran).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.migrate import upgrade
from tests.faults.harness import PgCluster, why_no_cluster


@pytest.fixture(scope="session")
def cluster() -> Iterator[PgCluster]:
    reason = why_no_cluster()
    if reason:
        pytest.skip(reason)
    PgCluster.drop_leftovers()
    made = PgCluster()
    try:
        made.create()
        yield made
    finally:
        made.drop()


@pytest.fixture
async def fault_db(cluster: PgCluster) -> str:
    """A fresh, migrated database on the fault cluster."""
    cluster.ensure_running()
    url = cluster.new_database()
    await asyncio.to_thread(upgrade, url)
    return url


@pytest.fixture
def app_dir(tmp_path: Path) -> Path:
    (tmp_path / "data").mkdir()
    return tmp_path / "data"
