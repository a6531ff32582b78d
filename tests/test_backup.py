"""``tafelrunde backup`` / ``restore``: round trips that lose nothing, across both databases.

On the PostgreSQL run the data goes PostgreSQL → archive → SQLite → SQLite file →
PostgreSQL; on the SQLite run SQLite → file → SQLite → archive → SQLite. Every table's rows
are compared after each hop, and the restored database takes new writes.
"""

from __future__ import annotations

import asyncio
import io
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from fastapi import FastAPI
from PIL import Image
from sqlalchemy import func, select

import app.backup
from app.backup import BackupError, backup, restore, tables
from app.config import Environment, Settings
from app.db import create_engine
from app.main import create_app
from app.migrate import upgrade
from tests.api.helpers import Table, make_table
from tests.api.test_handout_images import png
from tests.conftest import CHEAP_ARGON2, PASSWORD, ROOT, ClientFactory, register

Rows = dict[str, list[dict[str, Any]]]


async def fill_every_table(app: FastAPI, make_client: ClientFactory) -> None:
    table = await make_table(make_client, app)
    cid = table.campaign_id
    base = f"/api/v1/campaigns/{cid}"
    wrong = {"username": "gm_user", "password": "not the password"}
    assert (await make_client().post("/api/v1/auth/login", json=wrong)).status_code == 401
    r = await table.player.post(f"{base}/characters", json={"name": "Alrik"})
    assert r.status_code == 201, r.text
    r = await table.player.post(f"{base}/characters/{r.json()['id']}/items", json={"name": "Seil"})
    assert r.status_code == 201, r.text
    r = await table.gm.post(f"{base}/bestiary/samples")
    assert r.status_code == 201, r.text
    entry = r.json()[0]["id"]
    r = await table.gm.post(f"{base}/encounters", json={"name": "Überfall"})
    assert r.status_code == 201, r.text
    encounter = f"{base}/encounters/{r.json()['id']}"
    r = await table.gm.post(f"{encounter}/participants", json={"entry_id": entry, "count": 2})
    assert r.status_code == 201, r.text
    # A running fight with one undo step (encounter_undo).
    r = await table.gm.post(f"{encounter}/actions/start", json={})
    assert r.status_code == 200, r.text
    figure = {"participant": r.json()["participants"][0]["pid"], "delta": -1, "reason": "Falle"}
    r = await table.gm.post(f"{encounter}/actions/adjust", json=figure)
    assert r.status_code == 200, r.text
    for client in (table.gm, table.player):
        r = await client.post(f"{base}/rolls", json={"expression": "2d6+1", "label": "Ärger"})
        assert r.status_code == 201, r.text
    await _fill_talk(table, base)
    await _fill_outside(table, base)
    await _fill_sessions(table, base)


async def _fill_outside(table: Table, base: str) -> None:
    """What reaches beyond the table: a personal API token, a webhook, and a copy of the
    campaign whose other members wait as imported parts."""
    r = await table.player.post("/api/v1/auth/tokens", json={"name": "Bot", "scope": "read"})
    assert r.status_code == 201, r.text
    hook = {"url": "https://example.org/hook", "events": ["rolls"]}
    r = await table.gm.post(f"{base}/webhooks", json=hook)
    assert r.status_code == 201, r.text
    document = (await table.gm.get(f"{base}/export")).json()
    r = await table.gm.post("/api/v1/campaigns/import", json=document)
    assert r.status_code == 201, r.text


async def _fill_sessions(table: Table, base: str) -> None:
    """A fair-play session (its rule, a client seed, chained events), left running."""
    rule = {"enabled": True, "overrides": "marked", "reveal_secret_rolls": True}
    assert (await table.gm.put(f"{base}/fairplay", json=rule)).status_code == 200
    r = await table.gm.post(f"{base}/sessions")
    assert r.status_code == 201, r.text
    r = await table.player.put(f"{base}/sessions/{r.json()['id']}/seed", json={"client_seed": "x"})
    assert r.status_code == 200, r.text
    r = await table.player.post(f"{base}/rolls", json={"expression": "1d6"})
    assert r.status_code == 201, r.text


async def _fill_talk(table: Table, base: str) -> None:
    """Table talk's tables (a whisper, a read marker, a handout with its image, a shared
    quest, a known fact) and a stored idempotent answer."""
    player = table.ids["player"]
    whisper = {"text": "Psst", "to": [player]}
    r = await table.gm.post(f"{base}/messages", json=whisper, headers={"Idempotency-Key": "k-1"})
    assert r.status_code == 201, r.text
    r = await table.player.post(f"{base}/messages/read", json={})
    assert r.status_code == 200, r.text
    handout = {"title": "Karte", "body": "Der Pass", "shown_to": [player]}
    r = await table.gm.post(f"{base}/handouts", json=handout)
    assert r.status_code == 201, r.text
    image = {"image": ("karte.png", png(), "image/png")}
    r = await table.gm.post(f"{base}/handouts/{r.json()['id']}/image", files=image)
    assert r.status_code == 200, r.text
    note = {"title": "Spuren", "sharing": "listed", "to": [player], "quest": "open"}
    r = await table.gm.post(f"{base}/journal", json=note)
    assert r.status_code == 201, r.text
    r = await table.gm.post(
        f"{base}/scenes", json={"name": "Karte", "cols": 4, "rows": 3, "shown": True}
    )
    assert r.status_code == 201, r.text
    scene = f"{base}/scenes/{r.json()['id']}"
    r = await table.gm.post(f"{scene}/tokens", json={"x": 1, "y": 1, "label": "Kiste"})
    assert r.status_code == 201, r.text
    face = {"file": ("kiste.png", _png(), "image/png")}
    r = await table.gm.put(f"{scene}/tokens/{r.json()['id']}/portrait", files=face)
    assert r.status_code == 200, r.text
    r = await table.gm.put(f"{scene}/background", files={"file": ("k.png", _png(), "image/png")})
    assert r.status_code == 200, r.text

    r = await table.gm.post(f"{base}/bestiary", json={"name": "Troll", "data": {}})
    assert r.status_code == 201, r.text
    r = await table.gm.post(f"{base}/bestiary/{r.json()['id']}/reveal", json={"facts": ["lp"]})
    assert r.status_code == 200, r.text


def _png() -> bytes:
    """A small PNG: the map background is bytes in the database, and must round-trip."""
    out = io.BytesIO()
    Image.new("RGB", (8, 6), (1, 2, 3)).save(out, format="PNG")
    return out.getvalue()


async def read_all(url: str) -> Rows:
    engine = create_engine(url)
    try:
        async with engine.connect() as conn:
            rows: Rows = {}
            for table in tables():
                result = await conn.execute(select(table).order_by(*table.primary_key.columns))
                rows[table.name] = [dict(row) for row in result.mappings()]
            return rows
    finally:
        await engine.dispose()


def sqlite_url(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path}"


@pytest.fixture
async def postgres_target(database_url: str) -> AsyncIterator[str | None]:
    """A second, empty PostgreSQL database on the test server (None on the SQLite run)."""
    if not database_url.startswith("postgresql"):
        yield None
        return
    server, _, name = ("postgresql://" + database_url.partition("://")[2]).rpartition("/")
    target = f"{name}_restore"
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{target}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{target}"')
    yield f"postgresql+asyncpg://{server.partition('://')[2]}/{target}"
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{target}" WITH (FORCE)')


async def takes_new_writes(url: str, data_dir: Path) -> None:
    """Ids and event numbers go on after the restored ones (sequences were moved)."""
    settings = Settings(
        environment=Environment.test,
        database_url=url,
        data_dir=data_dir,
        secret_key="test-secret",
        argon2_time_cost=1,
        argon2_memory_kib=8192,
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t")
        async with client:
            await register(client, "nach_der_sicherung")
            r = await client.post("/api/v1/campaigns", json={"name": "Neu", "system": "ds4"})
            assert r.status_code == 201, r.text
            gm = {"username": "gm_user", "password": PASSWORD}
            assert (await client.post("/api/v1/auth/login", json=gm)).status_code == 200
            cid = (await client.get("/api/v1/campaigns")).json()[0]["id"]
            r = await client.post(f"/api/v1/campaigns/{cid}/rolls", json={"expression": "1d6"})
            assert r.status_code == 201, r.text


async def test_backup_restore_round_trips_lose_nothing_on_either_database(
    app: FastAPI,
    make_client: ClientFactory,
    database_url: str,
    postgres_target: str | None,
    tmp_path: Path,
) -> None:
    await fill_every_table(app, make_client)
    original = await read_all(database_url)
    assert all(original.values()), [name for name, rows in original.items() if not rows]

    first = tmp_path / "first.backup"
    summary = await backup(database_url, first)
    assert summary.total == sum(len(rows) for rows in original.values())

    on_sqlite = sqlite_url(tmp_path / "restored.db")
    await restore(on_sqlite, first)
    assert await read_all(on_sqlite) == original

    archive, copy = tmp_path / "second.jsonl", tmp_path / "third.db"
    await backup(on_sqlite, archive, "jsonl")
    await backup(on_sqlite, copy, "sqlite")
    last = postgres_target or sqlite_url(tmp_path / "again.db")
    await restore(last, archive)
    assert await read_all(last) == original
    await restore(last, copy, replace=True)
    assert await read_all(last) == original

    await takes_new_writes(last, tmp_path / "data")
    after = await read_all(last)
    assert len(after["campaign"]) == len(original["campaign"]) + 1
    assert (
        after["campaign_event"][: len(original["campaign_event"])] == (original["campaign_event"])
    )


async def test_restore_refuses_a_database_with_data_and_foreign_files(
    app: FastAPI, make_client: ClientFactory, database_url: str, tmp_path: Path
) -> None:
    await fill_every_table(app, make_client)
    archive = tmp_path / "b.jsonl"
    await backup(database_url, archive, "jsonl")
    target = sqlite_url(tmp_path / "t.db")
    await restore(target, archive)
    with pytest.raises(BackupError, match="holds data"):
        await restore(target, archive)
    stranger = tmp_path / "x.jsonl"
    stranger.write_text('{"format": "something else"}\n')
    with pytest.raises(BackupError, match="not a Tafelrunde backup"):
        await restore(sqlite_url(tmp_path / "u.db"), stranger)
    lines = archive.read_text().splitlines()
    old = tmp_path / "old.jsonl"
    old.write_text("\n".join([lines[0].replace('"revision": "', '"revision": "0000,'), *lines]))
    with pytest.raises(BackupError, match="schema revision"):
        await restore(sqlite_url(tmp_path / "v.db"), old)
    engine = create_engine(target)
    async with engine.connect() as conn:
        kept = await conn.scalar(select(func.count()).select_from(tables()[0]))
    await engine.dispose()
    assert kept, "the refused restore left the earlier one alone"


def test_backup_and_restore_commands(tmp_path: Path) -> None:
    source, target = tmp_path / "source", tmp_path / "target"
    url = sqlite_url(source / "tafelrunde.db")
    source.mkdir()
    upgrade(url)

    def run(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
        env = {**CHEAP_ARGON2, "TAFELRUNDE_DATA_DIR": str(data_dir), "PATH": "/usr/bin:/bin"}
        return subprocess.run(
            [sys.executable, "-m", "app.cli", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )

    assert run(source, "create-user", "sicherer", "--password", PASSWORD).returncode == 0
    made = run(source, "backup", str(tmp_path / "b.db"))
    assert made.returncode == 0, made.stderr
    assert "Backed up 1 rows" in made.stdout
    loaded = run(target, "restore", str(tmp_path / "b.db"))
    assert loaded.returncode == 0, loaded.stderr
    again = run(target, "restore", str(tmp_path / "b.db"))
    assert again.returncode == 1
    assert "--replace" in again.stderr


async def test_a_copy_of_a_database_kept_locked_gives_up_while_the_server_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another connection holds the database locked: the copy waits in a thread (the event
    loop serves on meanwhile), gives up after its limit with a message, and leaves no file."""
    db = tmp_path / "locked.db"
    await asyncio.to_thread(upgrade, sqlite_url(db))
    holder = sqlite3.connect(db)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    monkeypatch.setattr(app.backup, "BUSY_SECONDS", 0.5)
    ticks = 0

    async def serve() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.02)
            ticks += 1

    server = asyncio.create_task(serve())
    try:
        for fmt in ("sqlite", "jsonl"):
            before = ticks
            with pytest.raises(BackupError, match="locked for 0 s"):
                await backup(sqlite_url(db), tmp_path / f"b.{fmt}", fmt)
            assert ticks - before >= 10, "the event loop stood still while the copy waited"
            assert not list(tmp_path.glob("b.*")), "a failed copy left a file"
    finally:
        server.cancel()
        holder.rollback()
        holder.close()
