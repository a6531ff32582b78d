"""App processes that carry live events through NATS JetStream (``TAFELRUNDE_NATS_URL``)
instead of PostgreSQL's ``NOTIFY``, against a ``nats-server -js`` of the tests' own (a free
port, its own store directory): never the machine's shared one. Needs PostgreSQL (several
processes on one database); without ``nats-server`` the tests are skipped, except in CI.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import psycopg

from app.events.broker import libpq_conninfo
from app.events.service import NOTIFY_CHANNEL
from tests.faults.harness import AppProcess, Follower, Load, make_table, on
from tests.multiprocess.nats_server import NatsServer
from tests.stream.sse import messages, take

#: The sweep's backstop interval of the app processes: longer than any wait of these tests,
#: so an event that arrives in time came through NATS (or a reconnect's re-read), not the sweep.
SLOW_SWEEP = 60.0


def _apps(database_url: str, data: Path, nats: NatsServer, count: int) -> list[AppProcess]:
    env = {"TAFELRUNDE_NATS_URL": nats.url_for()}
    data.mkdir(exist_ok=True)
    return [AppProcess(database_url, data, poll_seconds=SLOW_SWEEP, env=env) for _ in range(count)]


def log_seqs(database_url: str, campaign_id: int) -> list[int]:
    with psycopg.connect(libpq_conninfo(database_url)) as conn:
        rows = conn.execute(
            "SELECT seq FROM campaign_event WHERE campaign_id = %s ORDER BY seq", (campaign_id,)
        ).fetchall()
    return [int(seq) for (seq,) in rows]


async def _notifications(conn: psycopg.AsyncConnection[object], seconds: float) -> list[str]:
    return [n.payload async for n in conn.notifies(timeout=seconds)]


async def test_roll_reaches_another_process_through_jetstream_not_notify(
    database_url: str, nats_server: NatsServer, tmp_path: Path
) -> None:
    writer, reader = _apps(database_url, tmp_path / "data", nats_server, 2)
    listen = await psycopg.AsyncConnection.connect(libpq_conninfo(database_url), autocommit=True)
    try:
        await listen.execute(f"LISTEN {NOTIFY_CHANNEL}")
        table = await make_table(writer.url)
        async with (
            on(table.player, reader.url) as player,
            player.stream("GET", f"{table.events}?after=2") as response,
        ):
            assert response.status_code == 200
            stream = messages(response)
            r = await table.gm.post(table.rolls, json={"expression": "2W10", "label": "Fern"})
            assert r.status_code == 201, r.text
            seq = int(r.json()["event_id"])
            got = await take(stream, seq - 2, timeout=10)
        assert [m.id for m in got] == list(range(3, seq + 1))
        assert got[-1].event == "roll" and got[-1].json()["label"] == "Fern"
        # With NATS configured the appends send no NOTIFY: the roll came through JetStream.
        assert await _notifications(listen, 1.0) == []
        await table.aclose()
    finally:
        await listen.close()
        writer.stop()
        reader.stop()


async def test_nats_restart_mid_stream_loses_and_repeats_nothing(
    database_url: str, nats_server: NatsServer, tmp_path: Path
) -> None:
    writer, reader = _apps(database_url, tmp_path / "data", nats_server, 2)
    try:
        table = await make_table(writer.url)
        follower = Follower(reader.url, table.gm, table.events)
        follower.start()
        load = Load([table.gm], table.rolls)
        load.start()
        await asyncio.sleep(1.5)
        await asyncio.to_thread(nats_server.stop)
        await asyncio.sleep(2)
        await asyncio.to_thread(nats_server.start)
        await asyncio.sleep(3)
        answers = await load.stop()
        committed = log_seqs(database_url, table.campaign_id)
        await follower.reaches(committed[-1], timeout=15)
        # After the restart a roll reaches the other process through NATS again.
        r = await table.gm.post(table.rolls, json={"expression": "1W6", "label": "danach"})
        sent = time.monotonic()
        await follower.reaches(int(r.json()["event_id"]), timeout=10)
        latency = time.monotonic() - sent
        await follower.stop()
        await table.aclose()
    finally:
        writer.stop()
        reader.stop()
    committed = log_seqs(database_url, table.campaign_id)
    assert all(a.status == 201 for a in answers), [a for a in answers if a.status != 201][:3]
    assert len(answers) > 20, "the load hardly ran"
    assert follower.seqs == committed, (
        f"duplicates {len(follower.seqs) - len(set(follower.seqs))}, "
        f"missing {sorted(set(committed) - set(follower.seqs))[:10]}"
    )
    assert follower.connects == 1, "the stream itself never dropped"
    assert latency < SLOW_SWEEP / 6, latency
