"""Several app processes behind Debian's nginx (``scripts/nginx_front.py``): the live flows
work through the proxy with the stream on one process and the write on another.

Three app processes: two servers (``tafelrunde serve --workers 2`` and ``--workers 2``, four
processes in all) behind one nginx that sends each request to the next server in turn. The
``X-Upstream`` header (the script's ``--show-upstream``) names the server that answered, so
a test can post until a write lands on a server other than the stream's. Needs PostgreSQL;
without nginx the tests are skipped, except in CI (``CI`` set), where they fail.
"""

from __future__ import annotations

import asyncio
import os
import select
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from tests.conftest import CHEAP_ARGON2, ROOT
from tests.encounters.test_stream import last_seq, live_fight
from tests.encounters.test_stream import messages as combat_messages
from tests.stream.sse import gm_and_player, messages, take, unique

#: Failed logins from one address before its next attempt waits (lowered for the test).
ADDRESS_FREE = 3


@dataclass(frozen=True)
class Front:
    url: str
    upstreams: list[int]
    pid: int


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (Linux ``/proc``)."""
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            out += [int(child), *_descendants(int(child))]
    return out


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except FileNotFoundError:
        return ""


def _why_not(database_url: str) -> str | None:
    if not database_url.startswith("postgresql"):
        return "several app processes share a database only on PostgreSQL"
    if shutil.which("nginx") is None and not os.path.exists("/usr/sbin/nginx"):
        if os.environ.get("CI"):
            pytest.fail("nginx is missing in CI (.ci/run installs it)")
        return "nginx is not installed (apt-get install nginx)"
    return None


@pytest.fixture(scope="module")
def front(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Front]:
    reason = _why_not(database_url)
    if reason:
        pytest.skip(reason)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TAFELRUNDE_")}
    env |= {
        **CHEAP_ARGON2,
        "TAFELRUNDE_DATABASE_URL": database_url,
        "TAFELRUNDE_DATA_DIR": str(tmp_path_factory.mktemp("nginx-data")),
        "TAFELRUNDE_SECRET_KEY": "test-secret",
        "TAFELRUNDE_ENVIRONMENT": "test",
        "TAFELRUNDE_STREAM_POLL_SECONDS": "5",
        "TAFELRUNDE_WRITE_RATE_PER_MINUTE": "1000000",
        "TAFELRUNDE_WRITE_BURST": "1000000",
        "TAFELRUNDE_LOGIN_ADDRESS_FREE_FAILURES": str(ADDRESS_FREE),
    }
    command = [sys.executable, "scripts/nginx_front.py", "--processes", "2", "--workers", "2"]
    process = subprocess.Popen(
        [*command, "--show-upstream"], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    try:
        ready, _, _ = select.select([process.stdout], [], [], 120)
        line = process.stdout.readline() if ready else ""
        assert line.startswith("ready "), f"nginx_front did not start: {line!r}"
        _, url, ports = line.split()
        yield Front(url, [int(p) for p in ports.split(",")], process.pid)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(60)


def _upstream(response: httpx.Response) -> str:
    upstream = str(response.headers.get("x-upstream", ""))
    assert upstream.startswith("127.0.0.1:"), response.headers
    return upstream


async def _roll_elsewhere(gm: httpx.AsyncClient, cid: int, label: str, not_on: str) -> int:
    """Roll until the roll is served by another process than ``not_on``; its ``seq``."""
    for attempt in range(10):
        r = await gm.post(
            f"/api/v1/campaigns/{cid}/rolls",
            json={"expression": "2W10", "label": f"{label}{attempt}"},
        )
        assert r.status_code == 201, r.text
        if _upstream(r) != not_on:
            return int(r.json()["event_id"])
    raise AssertionError(f"every roll went to {not_on}: nginx does not balance")


async def test_two_servers_behind_nginx_each_answer(app: FastAPI, front: Front) -> None:
    async with httpx.AsyncClient(base_url=front.url) as client:
        seen = {_upstream(await client.get("/login")) for _ in range(4)}
    assert seen == {f"127.0.0.1:{p}" for p in front.upstreams}
    # `tafelrunde serve --workers 2` runs two worker processes per server: four in all.
    workers = [p for p in _descendants(front.pid) if "spawn_main" in _cmdline(p)]
    assert len(workers) == 4, [_cmdline(p) for p in _descendants(front.pid)]


async def test_roll_on_one_process_reaches_streams_on_another(app: FastAPI, front: Front) -> None:
    gm, player, cid = await gm_and_player(front.url, "Hinter nginx")
    async with (
        player.stream("GET", f"/api/v1/campaigns/{cid}/events?after=2") as json_stream,
        player.stream("GET", f"/campaigns/{cid}/live?after=2") as html_stream,
    ):
        assert json_stream.status_code == 200 and html_stream.status_code == 200
        assert html_stream.headers["content-type"].startswith("text/event-stream")
        # Both streams on one process (if nginx put them on two, either will do).
        on = _upstream(json_stream)
        seq = await _roll_elsewhere(gm, cid, "Durch nginx ", on)
        for stream in (messages(json_stream), messages(html_stream)):
            got = await take(stream, seq - 2, timeout=10)
            assert [m.id for m in got] == list(range(3, seq + 1))
            assert got[-1].event == "roll"
        assert f'id="roll-{seq}"' in got[-1].data
    await gm.aclose()
    await player.aclose()


async def test_combat_action_on_one_process_reaches_a_viewer_on_another(
    app: FastAPI, front: Front
) -> None:
    fight, pids = await live_fight(app, front.url, unique("ng"))
    player = fight.players[0]
    url = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}/live"
    async with player.stream("GET", url) as response:
        assert response.status_code == 200
        on = _upstream(response)
        stream = combat_messages(response)
        for attempt in range(10):
            r = await fight.gm.post(
                f"{fight.base}/actions/adjust",
                json={"participant": pids["Goblin 1"], "delta": -1, "reason": f"N{attempt}"},
            )
            assert r.status_code == 200, r.text
            if _upstream(r) != on:
                break
        else:
            raise AssertionError("every action went to the stream's process")
        seq = await last_seq(app, fight)
        async with asyncio.timeout(10):
            async for message in stream:
                assert message[1] == "combat"
                if message[0] >= seq:
                    break
        assert message[0] == seq and "Goblin 1" in message[2]
    await fight.gm.aclose()
    await player.aclose()


async def test_client_cannot_pick_its_address_through_the_proxy(app: FastAPI, front: Front) -> None:
    """nginx sets ``X-Forwarded-For`` from the connection: a made-up address per guess still
    counts for the real one (127.0.0.1), whichever process answers."""
    async with httpx.AsyncClient(base_url=front.url) as client:
        for n in range(ADDRESS_FREE + 1):
            r = await client.post(
                "/api/v1/auth/login",
                json={"username": f"nobody{n}", "password": "falsch-falsch"},
                headers={"X-Forwarded-For": f"10.0.0.{n + 1}"},
            )
            expected = 401 if n < ADDRESS_FREE else 429
            assert r.status_code == expected, (n, r.status_code, r.text)
