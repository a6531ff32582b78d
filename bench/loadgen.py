"""The load generator: rolls posted at a fixed rate, SSE viewers timing each delivery.

Open loop: roll ``i`` is scheduled at ``t0 + i / rate`` and its latency is measured from that
scheduled instant (no coordinated omission: a slow server cannot slow the offered load).
Each viewer records the ``id:`` (= seq) of every ``event: roll`` it receives and when;
afterwards every delivery is matched to the POST that created that seq, per campaign.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import aiohttp

PASSWORD = "bench-password-4711"
ROLL_BODY = {"expression": "1d20+3", "label": "Angriff", "visibility": "public"}
NO_TIMEOUT = aiohttp.ClientTimeout(total=None, sock_read=None, sock_connect=30)


#: Campaigns per GM account before the load generator signs up the next GM (the app
#: allows ``app.limits.CAMPAIGNS_PER_GM``).
GM_CAMPAIGNS = 40


@dataclass
class Camp:
    id: int
    poster: dict[str, str]
    viewers: list[dict[str, str]]


class Target:
    """How to set up campaigns, post rolls and open streams on one server."""

    name = ""

    def __init__(self, base: str, pid: int) -> None:
        self.base = base
        self.pid = pid

    async def prepare(self, http: aiohttp.ClientSession, n_users: int) -> None:
        pass

    async def campaigns(
        self, http: aiohttp.ClientSession, n: int, viewers: int
    ) -> list[Camp]:  # pragma: no cover - abstract
        raise NotImplementedError

    def roll_url(self, cid: int) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def events_url(self, cid: int) -> str:  # pragma: no cover - abstract
        raise NotImplementedError


class ServiceTarget(Target):
    name = "service"

    def __init__(self, base: str, pid: int) -> None:
        super().__init__(base, pid)
        self.gm: dict[str, str] = {}
        self.users: list[dict[str, str]] = []
        self._n = 0

    async def _user(self, http: aiohttp.ClientSession, name: str) -> dict[str, str]:
        body = {"username": name, "password": PASSWORD}
        async with http.post(f"{self.base}/api/v1/auth/register", json=body) as r:
            if r.status not in (201, 409, 422):
                raise RuntimeError(f"register {name}: {r.status} {await r.text()}")
        async with http.post(f"{self.base}/api/v1/auth/login", json=body) as r:
            if r.status != 200:
                raise RuntimeError(f"login {name}: {r.status} {await r.text()}")
            token = (await r.json())["token"]
        return {"Authorization": f"Bearer {token}"}

    async def prepare(self, http: aiohttp.ClientSession, n_users: int) -> None:
        self.gm = await self._user(http, "bench_gm")
        sem = asyncio.Semaphore(4)

        async def one(i: int) -> dict[str, str]:
            async with sem:
                return await self._user(http, f"bench_v{i:03d}")

        self.users = list(await asyncio.gather(*(one(i) for i in range(n_users))))

    async def campaigns(self, http: aiohttp.ClientSession, n: int, viewers: int) -> list[Camp]:
        out = []
        for _ in range(n):
            self._n += 1
            if self._n % GM_CAMPAIGNS == 0:  # a GM may lead only so many (app.limits)
                self.gm = await self._user(http, f"bench_gm{self._n // GM_CAMPAIGNS}")
            body = {"name": f"Bench {self._n}", "system": "hh"}
            async with http.post(f"{self.base}/api/v1/campaigns", json=body, headers=self.gm) as r:
                if r.status != 201:
                    raise RuntimeError(f"create campaign: {r.status} {await r.text()}")
                created = await r.json()
            users = [self.users[i % len(self.users)] for i in range(viewers)]
            for u in dict.fromkeys(tuple(sorted(u.items())) for u in users):
                async with http.post(
                    f"{self.base}/api/v1/campaigns/join",
                    json={"invite_code": created["invite_code"]},
                    headers=dict(u),
                ) as r:
                    if r.status not in (200, 201):
                        raise RuntimeError(f"join: {r.status} {await r.text()}")
            out.append(Camp(created["id"], self.gm, users))
        return out

    def roll_url(self, cid: int) -> str:
        return f"{self.base}/api/v1/campaigns/{cid}/rolls"

    def events_url(self, cid: int) -> str:
        return f"{self.base}/api/v1/campaigns/{cid}/events?after=0"


class BaselineTarget(Target):
    name = "baseline"

    async def campaigns(self, http: aiohttp.ClientSession, n: int, viewers: int) -> list[Camp]:
        out = []
        for _ in range(n):
            async with http.post(f"{self.base}/campaigns") as r:
                cid = (await r.json())["id"]
            out.append(Camp(cid, {}, [{} for _ in range(viewers)]))
        return out

    def roll_url(self, cid: int) -> str:
        return f"{self.base}/campaigns/{cid}/rolls"

    def events_url(self, cid: int) -> str:
        return f"{self.base}/campaigns/{cid}/events"


@dataclass
class Viewer:
    camp: int
    status: int = 0
    connected: asyncio.Event = field(default_factory=asyncio.Event)
    rolls: list[tuple[int, float]] = field(default_factory=list)
    ids: list[int] = field(default_factory=list)
    error: str | None = None
    #: Test hook: drop the n-th roll received (proves the loss check works).
    drop_nth: int | None = None


async def watch(http: aiohttp.ClientSession, url: str, headers: dict[str, str], v: Viewer) -> None:
    try:
        async with http.get(url, headers=headers, timeout=NO_TIMEOUT) as resp:
            v.status = resp.status
            v.connected.set()
            if resp.status != 200:
                return
            ev_id: str | None = None
            ev_type = "message"
            async for raw in resp.content:
                line = raw.rstrip(b"\r\n")
                if not line:
                    if ev_id is not None:
                        seq = int(ev_id)
                        v.ids.append(seq)
                        if ev_type == "roll":
                            if v.drop_nth is not None and len(v.rolls) == v.drop_nth:
                                v.drop_nth = None
                            else:
                                v.rolls.append((seq, time.monotonic()))
                    ev_id, ev_type = None, "message"
                elif line.startswith(b"id:"):
                    ev_id = line[3:].strip().decode()
                elif line.startswith(b"event:"):
                    ev_type = line[6:].strip().decode()
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # recorded, reported as an error of the run
        v.error = repr(exc)
        v.connected.set()


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    k = min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))
    return s[k]


def analyze(
    viewers: list[Viewer],
    posts: dict[tuple[int, int], float],
    warm_until: float,
    post_errors: int,
) -> dict[str, Any]:
    """Latencies (ms) and lost / duplicated / unexpected deliveries of one run."""
    expected: dict[int, set[int]] = {}
    for cid, seq in posts:
        expected.setdefault(cid, set()).add(seq)
    lat: list[float] = []
    lost = dup = unexpected = disorder = 0
    for v in viewers:
        counts = Counter(seq for seq, _t in v.rolls)
        dup += sum(c - 1 for c in counts.values())
        want = expected.get(v.camp, set())
        lost += len(want - counts.keys())
        unexpected += len(counts.keys() - want)
        disorder += sum(1 for a, b in zip(v.ids, v.ids[1:], strict=False) if b <= a)
        for seq, t in v.rolls:
            sent = posts.get((v.camp, seq))
            if sent is not None and sent >= warm_until:
                lat.append((t - sent) * 1000)
    return {
        "viewers": len(viewers),
        "posted": len(posts),
        "post_errors": post_errors,
        "deliveries": sum(len(v.rolls) for v in viewers),
        "measured": len(lat),
        "lost": lost,
        "dup": dup,
        "unexpected": unexpected,
        "out_of_order": disorder,
        "stream_errors": sum(1 for v in viewers if v.error or v.status != 200),
        "p50": pct(lat, 50),
        "p95": pct(lat, 95),
        "p99": pct(lat, 99),
        "max": max(lat) if lat else float("nan"),
    }


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


async def open_viewers(
    http: aiohttp.ClientSession, target: Target, camps: list[Camp], batch: int = 100
) -> tuple[list[Viewer], list[asyncio.Task[None]]]:
    viewers: list[Viewer] = []
    tasks: list[asyncio.Task[None]] = []
    pending: list[Viewer] = []
    for camp in camps:
        for headers in camp.viewers:
            v = Viewer(camp.id)
            viewers.append(v)
            tasks.append(asyncio.create_task(watch(http, target.events_url(camp.id), headers, v)))
            pending.append(v)
            if len(pending) >= batch:
                await asyncio.wait_for(asyncio.gather(*(p.connected.wait() for p in pending)), 60)
                pending = []
    if pending:
        await asyncio.wait_for(asyncio.gather(*(p.connected.wait() for p in pending)), 60)
    return viewers, tasks


async def close_viewers(tasks: list[asyncio.Task[None]]) -> None:
    for t in tasks:
        t.cancel()
    for t in tasks:
        with contextlib.suppress(asyncio.CancelledError):
            await t


async def delivery(
    target: Target,
    n_camps: int,
    n_viewers: int,
    rate: float,
    duration: float,
    warmup: float = 1.0,
    drop_one: bool = False,
) -> dict[str, Any]:
    """Post ``rate`` rolls/s for ``duration`` s, round-robin over fresh campaigns."""
    conn = aiohttp.TCPConnector(limit=0)
    post_conn = aiohttp.TCPConnector(limit=128)
    async with (
        aiohttp.ClientSession(connector=conn, timeout=NO_TIMEOUT) as http,
        aiohttp.ClientSession(
            connector=post_conn, timeout=aiohttp.ClientTimeout(total=30)
        ) as poster,
    ):
        camps = await target.campaigns(poster, n_camps, n_viewers)
        viewers, tasks = await open_viewers(http, target, camps)
        if drop_one:
            viewers[0].drop_nth = 1
        await asyncio.sleep(1.0)  # let every stream finish its initial read
        posts: dict[tuple[int, int], float] = {}
        errors = 0
        n = max(1, round(rate * duration))

        async def post(camp: Camp, t_sched: float) -> None:
            nonlocal errors
            try:
                async with poster.post(
                    target.roll_url(camp.id), json=ROLL_BODY, headers=camp.poster
                ) as r:
                    if r.status == 201:
                        posts[(camp.id, (await r.json())["event_id"])] = t_sched
                    else:
                        errors += 1
            except Exception:
                errors += 1

        cpu0 = cpu_seconds(target.pid)
        t0 = time.monotonic() + 0.05
        inflight: list[asyncio.Task[None]] = []
        for i in range(n):
            t_sched = t0 + i / rate
            delay = t_sched - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            inflight.append(asyncio.create_task(post(camps[i % len(camps)], t_sched)))
        await asyncio.wait(inflight, timeout=60)
        # Drain: wait until every viewer has every roll of its campaign. A slow server is
        # not a lossy one: keep waiting while deliveries still arrive (at most 120 s),
        # give up after 10 s without progress.
        want: Counter[int] = Counter(cid for cid, _seq in posts)
        hard = time.monotonic() + 120
        stalled = time.monotonic() + 10
        seen = -1
        while time.monotonic() < min(hard, stalled):
            if all(len(v.rolls) >= want[v.camp] for v in viewers):
                break
            got = sum(len(v.rolls) for v in viewers)
            if got != seen:
                seen, stalled = got, time.monotonic() + 10
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)  # catch late duplicates
        cpu = cpu_seconds(target.pid) - cpu0
        await close_viewers(tasks)
    result = analyze(viewers, posts, t0 + warmup, errors)
    result.update(
        target=target.name,
        campaigns=n_camps,
        viewers_per_campaign=n_viewers,
        rate=rate,
        duration=duration,
        server_cpu_ms_per_roll=cpu * 1000 / max(1, len(posts)),
        load1=os.getloadavg()[0],
    )
    return result


async def idle_streams(target: Target, n_streams: int, settle: float = 3.0) -> dict[str, Any]:
    """Open ``n_streams`` idle streams on one campaign; RSS the server gained per stream.

    Then one roll proves every stream is live (all must receive it exactly once).
    """
    conn = aiohttp.TCPConnector(limit=0)
    async with (
        aiohttp.ClientSession(connector=conn, timeout=NO_TIMEOUT) as http,
        aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as poster,
    ):
        camps = await target.campaigns(poster, 1, n_streams)
        await asyncio.sleep(1.0)
        rss0 = rss_kib(target.pid)
        viewers, tasks = await open_viewers(http, target, camps, batch=200)
        await asyncio.sleep(settle)
        rss1 = rss_kib(target.pid)
        ok = sum(1 for v in viewers if v.status == 200 and v.error is None)
        camp = camps[0]
        t_sched = time.monotonic()
        posts: dict[tuple[int, int], float] = {}
        async with poster.post(target.roll_url(camp.id), json=ROLL_BODY, headers=camp.poster) as r:
            if r.status == 201:
                posts[(camp.id, (await r.json())["event_id"])] = t_sched
        hard, stalled, seen = time.monotonic() + 120, time.monotonic() + 10, -1
        while time.monotonic() < min(hard, stalled) and not all(v.rolls for v in viewers):
            got = sum(1 for v in viewers if v.rolls)
            if got != seen:
                seen, stalled = got, time.monotonic() + 10
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)
        await close_viewers(tasks)
    fan = analyze(viewers, posts, 0.0, 0 if posts else 1)
    return {
        "target": target.name,
        "streams": n_streams,
        "open_ok": ok,
        "rss_before_kib": rss0,
        "rss_after_kib": rss1,
        "kib_per_stream": (rss1 - rss0) / n_streams,
        "fanout": fan,
    }


async def _read_until(
    http: aiohttp.ClientSession, url: str, headers: dict[str, str], last: int, timeout: float
) -> list[tuple[int, str, str]]:
    """Read one stream until the event with id ``last`` arrived; (id, event, data) each."""
    got: list[tuple[int, str, str]] = []

    async def run() -> None:
        async with http.get(url, headers=headers, timeout=NO_TIMEOUT) as resp:
            assert resp.status == 200, resp.status
            ev: dict[str, str] = {}
            async for raw in resp.content:
                line = raw.decode().rstrip("\r\n")
                if not line:
                    if "id" in ev:
                        got.append((int(ev["id"]), ev.get("event", "message"), ev.get("data", "")))
                        if int(ev["id"]) >= last:
                            return
                    ev = {}
                elif ":" in line and not line.startswith(":"):
                    k, _, v = line.partition(":")
                    ev[k] = v.strip()

    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(run(), timeout)
    return got


async def resume_check(target: ServiceTarget) -> dict[str, Any]:
    """Replay and resume on the service: ``?after=``, ``Last-Event-ID``, secret-roll stubs.

    A player must get exactly the events after the resume point, in order, once each, and
    a GM-only roll only as a stub without its result.
    """
    import json

    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as http:
        camp = (await target.campaigns(http, 1, 1))[0]
        player = camp.viewers[0]
        seqs: list[int] = []
        for i in range(12):
            body = {**ROLL_BODY, "visibility": "gm" if i % 4 == 3 else "public"}
            async with http.post(target.roll_url(camp.id), json=body, headers=camp.poster) as r:
                assert r.status == 201, await r.text()
                seqs.append((await r.json())["event_id"])
        k, last = seqs[5], seqs[-1]
        url = f"{target.base}/api/v1/campaigns/{camp.id}/events"
        by_after = await _read_until(http, f"{url}?after={k}", player, last, 10)
        by_header = await _read_until(http, url, {**player, "Last-Event-ID": str(k)}, last, 10)
        full = await _read_until(http, f"{url}?after=0", player, last, 10)
    want = [s for s in seqs if s > k]
    rolls_after = [i for i, e, _d in by_after if e == "roll"]
    rolls_header = [i for i, e, _d in by_header if e == "roll"]
    stubs = [json.loads(d) for _i, e, d in full if e == "roll" and json.loads(d)["secret"]]
    leaks = [s for s in stubs if "total" in s or "dice" in s]
    ok = (
        rolls_after == want
        and rolls_header == want
        and all(i > k for i, _e, _d in by_after + by_header)
        and len(stubs) == 3
        and not leaks
        and [i for i, e, _d in full if e == "roll"] == seqs
    )
    return {
        "ok": ok,
        "want": want,
        "after": rolls_after,
        "header": rolls_header,
        "stubs": len(stubs),
        "leaks": len(leaks),
    }
