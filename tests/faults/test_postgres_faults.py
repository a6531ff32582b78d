"""Faults on PostgreSQL, each against real app processes on a cluster of the tests' own.

The invariants, checked in every test: every write answered 2xx is in the log; a stream
that resumes with ``Last-Event-ID`` gets every event exactly once, in order; no 5xx while
the database is up (503 only while it is away); the service recovers by itself.
"""

from __future__ import annotations

import asyncio
import socket
import struct
import time
from pathlib import Path

import httpx

from tests.faults.harness import (
    AppProcess,
    Follower,
    Load,
    PgCluster,
    assert_answered_writes_are_logged,
    assert_stream_complete,
    log_of,
    make_table,
    on,
    wait_for,
)


def token_of(client: httpx.AsyncClient) -> str:
    return client.headers["Authorization"].removeprefix("Bearer ")


async def test_database_restart_under_load(
    cluster: PgCluster, fault_db: str, app_dir: Path
) -> None:
    app = AppProcess(fault_db, app_dir)
    table = await make_table(app.url)
    follower = Follower(app.url, table.gm, table.events)
    follower.start()
    load = Load([table.gm, table.player], table.rolls)
    load.start()
    try:
        await asyncio.sleep(1.5)
        down_at = time.monotonic()
        await asyncio.to_thread(cluster.stop, "fast")
        api = await table.gm.get(f"/api/v1/campaigns/{table.campaign_id}")
        page = await table.gm.get("/campaigns", headers={"Accept-Language": "de"})
        await asyncio.sleep(1)
        await asyncio.to_thread(cluster.start)
        up_at = time.monotonic()
        await asyncio.sleep(3)
    finally:
        answers = await load.stop()
    assert api.status_code == 503 and api.headers["retry-after"] == "5", api.text
    assert "nicht erreichbar" in api.json()["detail"]
    assert page.status_code == 503 and page.headers["retry-after"] == "5"
    assert "Vorübergehend nicht verfügbar" in page.text and "<html" in page.text

    assert {a.status for a in answers} <= {201, 503}, {a.status for a in answers}
    while_up = [a for a in answers if a.at < down_at or a.at > up_at + 1]
    assert {a.status for a in while_up} == {201}, "only 2xx while the database is up"
    assert any(a.status == 201 and a.at > up_at + 1 for a in answers), "recovered by itself"
    assert all(a.retry_after == "5" for a in answers if a.status == 503)

    log = log_of(cluster, fault_db, table.campaign_id)
    assert_answered_writes_are_logged(answers, log)
    await follower.reaches(max(log), timeout=20)
    await follower.stop()
    assert_stream_complete(follower, log)
    await table.aclose()
    app.stop()


async def test_kill_9_of_one_of_two_app_processes_while_rolls_are_posted(
    cluster: PgCluster, fault_db: str, app_dir: Path
) -> None:
    first, second = AppProcess(fault_db, app_dir), AppProcess(fault_db, app_dir)
    table = await make_table(second.url)
    gm_on_first = on(table.gm, first.url)
    on_second = Follower(second.url, table.player, table.events)
    on_first = Follower(first.url, table.gm, table.events)  # moves to the new process
    for follower in (on_second, on_first):
        follower.start()
    to_first, to_second = Load([gm_on_first], table.rolls), Load([table.player], table.rolls)
    to_first.start()
    to_second.start()
    replacement: AppProcess | None = None
    try:
        await asyncio.sleep(2)
        first.kill()
        await asyncio.sleep(1)
        # Started in a thread: the start waits for the new process (seconds on a loaded
        # machine), and a blocked event loop would time out the other process's answers.
        replacement = await asyncio.to_thread(AppProcess, fault_db, app_dir)
        on_first.base_urls.append(replacement.url)
        to_replacement = Load([on(table.gm, replacement.url)], table.rolls)
        to_replacement.start()
        await asyncio.sleep(2)
    finally:
        answers = [*await to_first.stop(), *await to_second.stop()]
    answers += await to_replacement.stop()

    assert {a.status for a in answers} <= {201, None}, "no 5xx: the database was up"
    failed = [a for a in to_second.answers if a.status != 201]
    assert not failed, f"the other process never failed: {failed}"
    assert to_first.count(None) >= 1, "the killed process stopped answering"
    assert to_replacement.count(201) >= 1

    log = log_of(cluster, fault_db, table.campaign_id)
    assert_answered_writes_are_logged(answers, log)
    for follower in (on_second, on_first):
        await follower.reaches(max(log), timeout=20)
        await follower.stop()
    # The player sees every event of this campaign too (no secret rolls here).
    assert_stream_complete(on_second, log)
    assert_stream_complete(on_first, log)
    assert on_first.connects >= 2, "the GM's stream resumed on the new process"
    for client in (gm_on_first,):
        await client.aclose()
    await table.aclose()
    second.stop()
    replacement.stop()


async def test_listen_connection_cut_is_reconnected_without_waiting_for_the_poll(
    cluster: PgCluster, fault_db: str, app_dir: Path
) -> None:
    # A 60 s poll: whatever arrives within seconds came through LISTEN/NOTIFY.
    reader, writer = (AppProcess(fault_db, app_dir, poll_seconds=60) for _ in range(2))
    table = await make_table(writer.url)
    follower = Follower(reader.url, table.gm, table.events)
    follower.start()
    listening = (
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
        "AND query LIKE 'LISTEN%'"
    )
    await wait_for(lambda: len(cluster.execute(fault_db, listening)) == 2, 10, "two listeners")
    await follower.reaches(2, timeout=10)
    for cut in range(2):
        cluster.execute(fault_db, f"SELECT pg_terminate_backend(pid) FROM ({listening}) AS l")
        started = time.monotonic()
        for i in range(3):
            r = await table.player.post(table.rolls, json={"expression": "1d6", "label": f"{i}"})
            assert r.status_code == 201, r.text
        last = r.json()["event_id"]
        await follower.reaches(last, timeout=8)
        assert time.monotonic() - started < 8, f"cut {cut}: delivered after the reconnect"
        await wait_for(lambda: len(cluster.execute(fault_db, listening)) == 2, 10, "relisten")
    await follower.stop()
    assert_stream_complete(follower, log_of(cluster, fault_db, table.campaign_id))
    await table.aclose()
    reader.stop()
    writer.stop()


async def read_ids_then_reset(
    port: int, path: str, token: str, last_id: int, count: int
) -> list[int]:
    """Take ``count`` whole messages of a stream, then drop the connection with a RST."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"
        f"Last-Event-ID: {last_id}\r\nAccept: text/event-stream\r\n\r\n".encode()
    )
    ids: list[int] = []
    pending: int | None = None
    while len(ids) < count:
        line = (await asyncio.wait_for(reader.readline(), 10)).strip()
        if line.startswith(b"id: "):
            pending = int(line[4:])
        elif line == b"" and pending is not None:
            ids.append(pending)  # the blank line ends the message: now it counts
            pending = None
    sock: socket.socket = writer.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()
    return ids


async def test_clients_that_drop_mid_stream_resume_exactly_and_leave_nothing_behind(
    cluster: PgCluster, fault_db: str, app_dir: Path
) -> None:
    app = AppProcess(fault_db, app_dir)
    table = await make_table(app.url)
    load = Load([table.player], table.rolls)
    load.start()
    seen: list[int] = []
    try:
        for _ in range(12):
            seen += await read_ids_then_reset(
                app.port, table.events, token_of(table.gm), seen[-1] if seen else 0, 3
            )
    finally:
        answers = await load.stop()
    assert {a.status for a in answers} == {201}
    log = log_of(cluster, fault_db, table.campaign_id)
    assert_answered_writes_are_logged(answers, log)
    assert seen == sorted(log)[: len(seen)], "each resume continued exactly after the last id"
    # The dropped streams released their database connections: none is left in a transaction.
    busy = cluster.execute(
        fault_db,
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        "AND state LIKE 'idle in transaction%'",
    )
    assert busy == [(0,)]
    r = await table.gm.get(f"/api/v1/campaigns/{table.campaign_id}", timeout=2)
    assert r.status_code == 200
    await table.aclose()
    app.stop()


PADDING, PADDED = 16_000, 500


async def test_a_client_that_never_reads_is_dropped_and_slows_nobody(
    cluster: PgCluster, fault_db: str, app_dir: Path
) -> None:
    app = AppProcess(fault_db, app_dir, send_timeout=3)
    table = await make_table(app.url)
    # A log of 8 MB to replay: more than every buffer between the server and a stalled reader
    # (the kernel's send buffer alone grows to 4 MB).
    cluster.execute(
        fault_db,
        "INSERT INTO campaign_event (campaign_id, seq, type, audience, payload, created_at) "
        f"SELECT {table.campaign_id}, c.last_seq + g, 'note', '{{\"v\": \"public\"}}', "
        f"json_build_object('text', repeat('x', {PADDING})), now() "
        f"FROM campaign c, generate_series(1, {PADDED}) AS g WHERE c.id = {table.campaign_id}; "
        f"UPDATE campaign SET last_seq = last_seq + {PADDED} WHERE id = {table.campaign_id}",
    )
    stalled = socket.socket()
    stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stalled.connect(("127.0.0.1", app.port))
    stalled.sendall(
        f"GET {table.events} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {token_of(table.gm)}\r\n\r\n".encode()
    )
    follower = Follower(app.url, table.player, table.events)
    follower.start()
    slowest = 0.0
    for i in range(10):
        started = time.monotonic()
        r = await table.player.post(table.rolls, json={"expression": "1d6", "label": f"{i}"})
        slowest = max(slowest, time.monotonic() - started)
        assert r.status_code == 201, r.text
    assert slowest < 2.5, f"a write took {slowest:.2f} s next to the stalled reader"
    log = log_of(cluster, fault_db, table.campaign_id)
    await follower.reaches(max(log), timeout=10)
    await follower.stop()
    assert_stream_complete(follower, log)

    await asyncio.sleep(5)  # past the send timeout
    stalled.settimeout(5)
    received, closed = 0, False
    try:
        while chunk := stalled.recv(65536):
            received += len(chunk)
    except TimeoutError:
        pass
    except ConnectionResetError:
        closed = True
    else:
        closed = True
    stalled.close()
    assert closed, f"the server closed the stalled stream (read {received} bytes before the end)"
    assert received < PADDING * PADDED * 0.9, "it stopped sending, did not buffer the whole log"
    await table.aclose()
    app.stop()
