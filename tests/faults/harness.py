"""What the fault tests are made of: a PostgreSQL cluster of their own, app processes they
can kill, a stream follower that resumes like a browser, and a load of rolls whose every
answer is kept. Everything listens on 127.0.0.1 only.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psycopg

from tests.conftest import CHEAP_ARGON2, ROOT
from tests.stream.sse import CLIENT_LIMITS, account, messages, unique

PG_LIB = Path("/usr/lib/postgresql")
CLUSTER_PREFIX = "tafelrunde_faults_"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def why_no_cluster() -> str | None:
    """Why this machine cannot run a throwaway PostgreSQL cluster, or None if it can."""
    if not os.environ.get("TAFELRUNDE_TEST_DATABASE_URL", "").startswith("postgresql"):
        return "fault tests on PostgreSQL run with TAFELRUNDE_TEST_DATABASE_URL=postgresql..."
    if shutil.which("pg_createcluster") is None or not PG_LIB.is_dir():
        return "pg_createcluster is missing (Debian's postgresql-common)"
    if os.geteuid() != 0:
        return "pg_createcluster needs root"
    return None


def _run(*command: str) -> None:
    subprocess.run(command, check=True, capture_output=True, text=True, timeout=120)


class PgCluster:
    """A cluster made for the fault tests (``pg_createcluster``), never the shared one."""

    def __init__(self) -> None:
        self.version = max((p.name for p in PG_LIB.iterdir()), key=int)
        self.name = f"{CLUSTER_PREFIX}{os.getpid()}"
        self.port = free_port()

    @staticmethod
    def drop_leftovers() -> None:
        """Clusters of earlier runs that died before dropping theirs."""
        listing = subprocess.run(["pg_lsclusters", "-h"], capture_output=True, text=True)
        for line in listing.stdout.splitlines():
            version, name, *_ = line.split()
            pid = name.removeprefix(CLUSTER_PREFIX)
            if name.startswith(CLUSTER_PREFIX) and pid.isdigit() and not _alive(int(pid)):
                subprocess.run(["pg_dropcluster", version, name, "--stop"], capture_output=True)

    def create(self) -> None:
        _run(
            "pg_createcluster",
            self.version,
            self.name,
            "--port",
            str(self.port),
            "--start-conf",
            "manual",
            "--",
            "--auth-host=trust",
            "--auth-local=trust",
        )
        conf = Path("/etc/postgresql") / self.version / self.name / "conf.d" / "faults.conf"
        conf.write_text("listen_addresses = '127.0.0.1'\nfsync = off\nmax_connections = 200\n")
        self.start()

    def start(self) -> None:
        _run("pg_ctlcluster", self.version, self.name, "start")

    def ensure_running(self) -> None:
        """Start it if a failed test left it stopped (starting a running cluster fails)."""
        subprocess.run(
            ["pg_ctlcluster", self.version, self.name, "start"], capture_output=True, timeout=120
        )

    def stop(self, mode: str = "fast") -> None:
        _run("pg_ctlcluster", self.version, self.name, "stop", "-m", mode)

    def drop(self) -> None:
        subprocess.run(
            ["pg_dropcluster", self.version, self.name, "--stop"], capture_output=True, timeout=120
        )

    @property
    def conninfo(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}"

    def new_database(self) -> str:
        name = unique("f")
        with psycopg.connect(f"{self.conninfo}/postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/{name}"

    def execute(self, url: str, sql: str) -> list[tuple[object, ...]]:
        with psycopg.connect("postgresql://" + url.partition("://")[2], autocommit=True) as conn:
            cursor = conn.execute(sql)
            return cursor.fetchall() if cursor.description else []


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class AppProcess:
    """``uvicorn app.main:app`` on a database, as a separate process the test may kill.

    ``env``: more settings; ``host`` and ``prefix`` (``ip netns exec <name>``): where it runs.
    """

    def __init__(
        self,
        database_url: str,
        data_dir: Path,
        poll_seconds: float = 5,
        send_timeout: float = 30,
        env: dict[str, str] | None = None,
        host: str = "127.0.0.1",
        prefix: tuple[str, ...] = (),
    ) -> None:
        self.port = free_port()
        self.url = f"http://{host}:{self.port}"
        self.log = data_dir / f"app-{self.port}.log"
        settings = {
            **os.environ,
            **CHEAP_ARGON2,
            "TAFELRUNDE_DATABASE_URL": database_url,
            "TAFELRUNDE_DATA_DIR": str(data_dir),
            "TAFELRUNDE_SECRET_KEY": "test-secret",
            "TAFELRUNDE_ENVIRONMENT": "test",
            "TAFELRUNDE_STREAM_POLL_SECONDS": str(poll_seconds),
            "TAFELRUNDE_STREAM_SEND_TIMEOUT_SECONDS": str(send_timeout),
            # The load is one user posting as fast as the server answers: no write rate limit.
            "TAFELRUNDE_WRITE_RATE_PER_MINUTE": "1000000",
            "TAFELRUNDE_WRITE_BURST": "1000000",
            **(env or {}),
        }
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                [
                    *prefix,
                    sys.executable,
                    "-m",
                    "uvicorn",
                    "app.main:app",
                    "--host",
                    host,
                    "--port",
                    str(self.port),
                    "--timeout-graceful-shutdown",
                    "2",
                    "--log-level",
                    "warning",
                ],
                cwd=ROOT,
                env=settings,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/login", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"app did not start: {self.log.read_text()}")

    def kill(self) -> None:
        """``kill -9``: no shutdown, no goodbye to the database or the clients."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()


@dataclass
class Table:
    """A campaign on a live server: its GM and a player, each with a bearer token."""

    campaign_id: int
    gm: httpx.AsyncClient
    player: httpx.AsyncClient

    @property
    def rolls(self) -> str:
        return f"/api/v1/campaigns/{self.campaign_id}/rolls"

    @property
    def events(self) -> str:
        return f"/api/v1/campaigns/{self.campaign_id}/events"

    async def aclose(self) -> None:
        await self.gm.aclose()
        await self.player.aclose()


async def make_table(base_url: str) -> Table:
    gm = await account(base_url, unique("gm"))
    player = await account(base_url, unique("pl"))
    r = await gm.post("/api/v1/campaigns", json={"name": "Fehlerprobe", "system": "hh"})
    assert r.status_code == 201, r.text
    r2 = await player.post("/api/v1/campaigns/join", json={"invite_code": r.json()["invite_code"]})
    assert r2.status_code == 200, r2.text
    return Table(r.json()["id"], gm, player)


def on(client: httpx.AsyncClient, base_url: str) -> httpx.AsyncClient:
    """The same person (token) talking to another app process."""
    return httpx.AsyncClient(
        base_url=base_url, headers=client.headers, timeout=client.timeout, limits=CLIENT_LIMITS
    )


@dataclass
class Answer:
    at: float
    status: int | None  # None: no answer (connection refused or cut)
    seq: int | None
    label: str
    retry_after: str | None = None
    error: str = ""


@dataclass
class Load:
    """Rolls posted one after another by each of ``clients`` (``pause`` seconds apart);
    every answer is kept."""

    clients: list[httpx.AsyncClient]
    path: str
    pause: float = 0.0
    answers: list[Answer] = field(default_factory=list)
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)

    def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._post_rolls(client, n))
            for n, client in enumerate(self.clients)
        ]

    async def stop(self) -> list[Answer]:
        self._stop.set()
        await asyncio.gather(*self._tasks)
        return self.answers

    async def _post_rolls(self, client: httpx.AsyncClient, n: int) -> None:
        i = 0
        while not self._stop.is_set():
            i += 1
            label = f"c{n}-{i}"
            try:
                r = await client.post(self.path, json={"expression": "1d20", "label": label})
            except httpx.HTTPError as exc:
                self.answers.append(Answer(time.monotonic(), None, None, label, error=repr(exc)))
                await asyncio.sleep(0.1)
                continue
            seq = r.json()["event_id"] if r.status_code == 201 else None
            self.answers.append(
                Answer(time.monotonic(), r.status_code, seq, label, r.headers.get("retry-after"))
            )
            if r.status_code >= 500:
                await asyncio.sleep(0.1)
            await asyncio.sleep(self.pause)

    def count(self, status: int | None) -> int:
        return sum(1 for a in self.answers if a.status == status)


class Follower:
    """A live stream that resumes with ``Last-Event-ID`` whenever it drops, like a browser."""

    def __init__(self, base_url: str, client: httpx.AsyncClient, path: str) -> None:
        self.base_urls = [base_url]
        self.client = client
        self.path = path
        self.seqs: list[int] = []
        self.connects = 0
        self.refusals: list[int] = []
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._follow())

    async def stop(self) -> None:
        assert self._task is not None
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)

    async def _follow(self) -> None:
        while True:
            headers = dict(self.client.headers)
            if self.seqs:
                headers["Last-Event-ID"] = str(self.seqs[-1])
            try:
                async with (
                    httpx.AsyncClient(
                        base_url=self.base_urls[-1], timeout=httpx.Timeout(5, read=40)
                    ) as http,
                    http.stream("GET", self.path, headers=headers) as response,
                ):
                    self.connects += 1
                    if response.status_code != 200:
                        self.refusals.append(response.status_code)
                    else:
                        async for message in messages(response):
                            if message.id is not None:
                                self.seqs.append(message.id)
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.2)

    async def reaches(self, seq: int, timeout: float) -> None:
        await wait_for(lambda: bool(self.seqs) and self.seqs[-1] >= seq, timeout, f"seq {seq}")


async def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


def log_of(cluster: PgCluster, url: str, campaign_id: int) -> dict[int, str | None]:
    """seq → roll label (None for other events) of the campaign's log in the database."""
    rows = cluster.execute(
        url,
        "SELECT seq, type, payload->>'label' FROM campaign_event "
        f"WHERE campaign_id = {campaign_id} ORDER BY seq",
    )
    return {
        int(str(seq)): (str(label) if type_ == "roll" and label is not None else None)
        for seq, type_, label in rows
    }


def assert_answered_writes_are_logged(answers: list[Answer], log: dict[int, str | None]) -> None:
    for answer in answers:
        if answer.status == 201:
            assert answer.seq is not None and log.get(answer.seq) == answer.label, answer


def assert_stream_complete(follower: Follower, log: dict[int, str | None]) -> None:
    """Every event of the log, once, in order (the GM sees everything)."""
    assert follower.seqs == sorted(log), (
        f"stream {len(follower.seqs)} vs log {len(log)}; "
        f"duplicates {len(follower.seqs) - len(set(follower.seqs))}, "
        f"missing {sorted(set(log) - set(follower.seqs))[:10]}"
    )
