"""Three app hosts, each in a network namespace of its own (``ip netns``, a veth pair per
host, addresses 10.x.n.1 (this side) and 10.x.n.2 (the host) made for the test and removed
after it), on one PostgreSQL and one NATS JetStream of the test's own, 3 × 20 viewers on
them, under a steady roll load. One host is killed: its viewers reconnect to the others and
resume by ``Last-Event-ID``; then NATS restarts. Every viewer ends with every event of the
log exactly once, in order.

The hosts reach PostgreSQL and NATS (both on the loopback) through a TCP forwarder
(``tests/multiprocess/forward.py``) on this side's address of the first veth pair. Where
network namespaces cannot be made (not root, no ``ip``), the hosts are three processes on
127.0.0.2-4 instead; the test says so in its output.
"""

from __future__ import annotations

import asyncio
import os
import select
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from tests.conftest import ROOT
from tests.faults.harness import (
    Answer,
    AppProcess,
    Follower,
    Load,
    Table,
    free_port,
    make_table,
    on,
    wait_for,
)
from tests.multiprocess.nats_server import NatsServer
from tests.multiprocess.test_nats import log_seqs

HOSTS = 3
VIEWERS_PER_HOST = 20
#: Seconds between one client's rolls (one client per host).
ROLL_PAUSE = 0.15


@dataclass
class Network:
    """Where the hosts run: their addresses, the command prefix that puts a process into a
    host's namespace, and the address they reach this side on (``None``: the loopback)."""

    addresses: list[str]
    prefixes: list[tuple[str, ...]]
    gateway: str | None
    _links: list[str] = field(default_factory=list)
    _namespaces: list[str] = field(default_factory=list)

    def remove(self) -> None:
        for link in self._links:
            subprocess.run(["ip", "link", "del", link], capture_output=True, timeout=30)
        for ns in self._namespaces:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=30)


def _namespaces(count: int) -> Network:
    """``count`` namespaces with a veth pair each; raises ``OSError`` or
    ``CalledProcessError`` (after removing what was made) where that is not possible."""
    tag = f"tfr{os.getpid() % 100000}"
    net = f"10.{200 + os.getpid() % 50}"
    network = Network([], [], f"{net}.1.1")
    try:
        for n in range(1, count + 1):
            ns, outside, inside = f"{tag}h{n}", f"{tag}o{n}", f"{tag}i{n}"
            _ip("netns", "add", ns)
            network._namespaces.append(ns)
            _ip("link", "add", outside, "type", "veth", "peer", "name", inside, "netns", ns)
            network._links.append(outside)
            _ip("addr", "add", f"{net}.{n}.1/24", "dev", outside)
            _ip("link", "set", outside, "up")
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("-n", ns, "addr", "add", f"{net}.{n}.2/24", "dev", inside)
            _ip("-n", ns, "link", "set", inside, "up")
            _ip("-n", ns, "route", "add", "default", "via", f"{net}.{n}.1")
            network.addresses.append(f"{net}.{n}.2")
            network.prefixes.append(("ip", "netns", "exec", ns))
    except (OSError, subprocess.CalledProcessError):
        network.remove()
        raise
    return network


@pytest.fixture
def network() -> Iterator[Network]:
    try:
        made = _namespaces(HOSTS) if os.geteuid() == 0 else None
    except (OSError, subprocess.CalledProcessError):
        made = None
    if made is None:
        print("network namespaces unavailable: hosts on 127.0.0.2-4")
        made = Network([f"127.0.0.{n + 2}" for n in range(HOSTS)], [()] * HOSTS, None)
    try:
        yield made
    finally:
        made.remove()


@dataclass
class Backends:
    """The database URL and the NATS URL as the hosts reach them."""

    database_url: str
    nats_url: str
    forwarder: subprocess.Popen[str] | None = None

    def stop(self) -> None:
        if self.forwarder is not None:
            self.forwarder.terminate()
            self.forwarder.wait(10)


def _backends(database_url: str, nats: NatsServer, gateway: str | None) -> Backends:
    if gateway is None:
        return Backends(database_url, nats.url_for())
    url = make_url(database_url)
    pg_port, nats_port = free_port(), free_port()
    forwarder = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.multiprocess.forward",
            gateway,
            f"{pg_port}={url.port or 5432}",
            f"{nats_port}={nats.port}",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert forwarder.stdout is not None
    ready, _, _ = select.select([forwarder.stdout], [], [], 30)
    assert ready and forwarder.stdout.readline().strip() == "ready", "forwarder did not start"
    hosts_url = url.set(host=gateway, port=pg_port).render_as_string(hide_password=False)
    return Backends(hosts_url, f"nats://{gateway}:{nats_port}", forwarder)


def _cpu_seconds(hosts: list[AppProcess]) -> float:
    """User and system CPU of the live hosts' processes so far (Linux ``/proc``)."""
    ticks = 0
    for host in hosts:
        if host.process.poll() is None:
            fields = Path(f"/proc/{host.process.pid}/stat").read_text().rpartition(")")[2].split()
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


async def _cpu_per_roll(hosts: list[AppProcess], load: Load, seconds: float) -> float:
    """CPU milliseconds of all hosts per roll over ``seconds`` of the running load."""
    cpu, rolls = _cpu_seconds(hosts), len(load.answers)
    await asyncio.sleep(seconds)
    return 1000 * (_cpu_seconds(hosts) - cpu) / max(1, len(load.answers) - rolls)


async def test_three_hosts_one_dies_then_nats_restarts(
    database_url: str, nats_server: NatsServer, network: Network, tmp_path: Path
) -> None:
    backends = _backends(database_url, nats_server, network.gateway)
    # 20 viewers of one user on each host: the per-user stream cap is raised out of reach.
    env = {
        "TAFELRUNDE_NATS_URL": backends.nats_url,
        "TAFELRUNDE_STREAMS_PER_USER": "1000",
        "TAFELRUNDE_STREAMS_PER_CREDENTIAL": "1000",
    }
    places = list(zip(network.addresses, network.prefixes, strict=True))
    hosts: list[AppProcess] = []

    def start_host() -> None:
        address, prefix = places[len(hosts)]
        hosts.append(
            AppProcess(backends.database_url, tmp_path, env=env, host=address, prefix=prefix)
        )

    try:
        for _ in range(HOSTS):
            start_host()
        table = await make_table(hosts[0].url)
        viewers = [
            Follower(hosts[0].url, table.gm, table.events) for _ in range(HOSTS * VIEWERS_PER_HOST)
        ]
        for viewer in viewers:
            viewer.start()
        await wait_for(lambda: all(len(v.seqs) >= 2 for v in viewers), 30, "every viewer")
        # All viewers and rolls on one host first: its CPU per roll is the yardstick.
        one = Load([on(table.gm, hosts[0].url) for _ in range(HOSTS)], table.rolls, ROLL_PAUSE)
        one.start()
        cpu_one = await _cpu_per_roll(hosts[:1], one, 4)
        await one.stop()
        for n, viewer in enumerate(viewers):
            if n % HOSTS:  # the balancer spreads them: 20 per host
                await viewer.stop()
                viewer.base_urls.append(hosts[n % HOSTS].url)
                viewer.start()
        answers = one.answers + await _fail_over(database_url, nats_server, hosts, table, viewers)
        print(f"CPU per roll, 60 viewers: one host {cpu_one:.1f} ms")
    finally:
        for host in hosts:
            host.stop()
        backends.stop()
    committed = log_seqs(database_url, table.campaign_id)
    logged = set(committed)
    assert all(a.seq in logged for a in answers if a.status == 201)
    assert all(a.status in (201, None) for a in answers), [a.status for a in answers]
    assert sum(a.status == 201 for a in answers) > 50, "the load hardly ran"
    for n, viewer in enumerate(viewers):
        assert viewer.seqs == committed, (
            f"viewer {n}: duplicates {len(viewer.seqs) - len(set(viewer.seqs))}, "
            f"missing {sorted(logged - set(viewer.seqs))[:10]}"
        )
    # The dead host's viewers reconnected elsewhere (and resumed by Last-Event-ID).
    assert all(v.connects >= 2 for v in viewers[::HOSTS]), [v.connects for v in viewers]


async def _fail_over(
    database_url: str,
    nats: NatsServer,
    hosts: list[AppProcess],
    table: Table,
    viewers: list[Follower],
) -> list[Answer]:
    """Rolls on every host; the first host killed, then NATS restarted; every viewer caught
    up. The rolls' answers."""
    rollers = [on(table.gm, host.url) for host in hosts]
    load = Load(rollers, table.rolls, pause=ROLL_PAUSE)
    load.start()
    cpu_three = await _cpu_per_roll(hosts, load, 4)
    hosts[0].kill()
    for n, viewer in enumerate(viewers[::HOSTS]):
        viewer.base_urls.append(hosts[1 + n % 2].url)  # the balancer sends it elsewhere
    await asyncio.sleep(3)
    await asyncio.to_thread(nats.stop)
    await asyncio.sleep(2)
    await asyncio.to_thread(nats.start)
    await asyncio.sleep(4)
    answers = await load.stop()
    last = log_seqs(database_url, table.campaign_id)[-1]
    await wait_for(lambda: all(v.seqs[-1] == last for v in viewers), 30, "catch-up")
    for viewer in viewers:
        await viewer.stop()
    for client in rollers:
        await client.aclose()
    await table.aclose()
    print(f"CPU per roll, 60 viewers: {len(hosts)} hosts {cpu_three:.1f} ms (all hosts)")
    return answers
