"""Disk full on SQLite: ``PRAGMA max_page_count`` makes SQLite answer SQLITE_FULL, exactly
what a full disk gives, without mount rights. Runs on every suite (its own SQLite file).

The app is served by a real uvicorn in this process, so the test can cap the pages of every
connection the app takes from its pool, and lift the cap again ("space freed").
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from sqlalchemy import event

from app.config import Environment, Settings
from app.main import create_app
from app.migrate import upgrade
from tests.faults.harness import (
    Follower,
    Load,
    assert_answered_writes_are_logged,
    assert_stream_complete,
    free_port,
    make_table,
    wait_for,
)

UNLIMITED = 1_073_741_823


def log_of(path: Path, campaign_id: int) -> dict[int, str | None]:
    with sqlite3.connect(path) as db:
        rows = db.execute(
            "SELECT seq, type, json_extract(payload, '$.label') FROM campaign_event "
            "WHERE campaign_id = ? ORDER BY seq",
            (campaign_id,),
        ).fetchall()
    return {seq: label if type_ == "roll" else None for seq, type_, label in rows}


def _checkpoint_and_count_pages(path: Path) -> int:
    """Move the WAL into the database file, then the file's size in pages: the cap that
    leaves no room for one more write."""
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return int(db.execute("PRAGMA page_count").fetchone()[0])


async def test_disk_full_on_sqlite_answers_503_keeps_reads_and_recovers(tmp_path: Path) -> None:
    path = tmp_path / "full.db"
    url = f"sqlite+aiosqlite:///{path}"
    await asyncio.to_thread(upgrade, url)
    settings = Settings(
        environment=Environment.test,
        database_url=url,
        data_dir=tmp_path,
        secret_key="test-secret",
        argon2_time_cost=1,
        argon2_memory_kib=8192,
        stream_poll_seconds=2,
        write_rate_per_minute=1_000_000,
        write_burst=1_000_000,
    )
    app = create_app(settings)
    cap = {"pages": UNLIMITED}

    @event.listens_for(app.state.ctx.engine.sync_engine, "checkout")
    def _cap_pages(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA max_page_count = {cap['pages']}")
        cursor.close()

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    serving = asyncio.create_task(server.serve())
    await wait_for(lambda: server.started, 20, "the server")
    base = f"http://127.0.0.1:{port}"
    try:
        table = await make_table(base)
        for client in (table.gm, table.player):
            # Writes queue on SQLite; on a loaded machine one may wait longer than 10 s.
            client.timeout = httpx.Timeout(30)
        follower = Follower(base, table.gm, table.events)
        follower.start()
        load = Load([table.gm, table.player], table.rolls)
        load.start()
        await asyncio.sleep(0.5)
        # In a thread: the checkpoint waits for the app's writers (up to sqlite3's 5 s), and on
        # this event loop, which serves the app, the wait stalled the server until uvicorn's
        # keep-alive timer closed a connection with a request in it (an unanswered write).
        cap["pages"] = await asyncio.to_thread(_checkpoint_and_count_pages, path)
        await wait_for(lambda: load.count(503) >= 3, 20, "the disk to fill")
        read = await table.player.get(table.rolls)
        page = await table.gm.post(
            f"/campaigns/{table.campaign_id}/rolls",
            data={"expression": "1d6"},
            headers={"Accept-Language": "de"},
        )
        cap["pages"] = UNLIMITED  # space freed
        freed = len(load.answers)
        await wait_for(
            lambda: any(a.status == 201 for a in load.answers[freed + 2 :]), 20, "recovery"
        )
        answers = await load.stop()
        log = log_of(path, table.campaign_id)
        await follower.reaches(max(log), timeout=20)
        await follower.stop()
        await table.aclose()
    finally:
        server.should_exit = True
        await serving

    assert read.status_code == 200, "reads go on while the disk is full"
    assert page.status_code == 503 and "Speicher des Servers ist voll" in page.text
    full = [a for a in answers if a.status == 503]
    assert all(a.retry_after for a in full)
    assert {a.status for a in answers} <= {201, 503}, [a for a in answers if a.status is None]
    assert all(a.status == 201 for a in answers[freed + 2 :][-3:]), "recovered by itself"
    assert_answered_writes_are_logged(answers, log)
    assert_stream_complete(follower, log)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        last_seq = db.execute(
            "SELECT last_seq FROM campaign WHERE id = ?", (table.campaign_id,)
        ).fetchone()[0]
    assert last_seq == max(log), "no refused write left a number behind"
