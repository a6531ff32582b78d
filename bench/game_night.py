"""The game-night benchmark (issue 29): N groups of five play a scripted evening at fixed rates.

    .venv/bin/python -m bench.game_night --pg postgresql://postgres@127.0.0.1 --groups 10

Each group is a campaign with a GM and four players in a running H&H fight (four heroes, four
goblins), and every one of the five follows the campaign's live stream (the JSON event
stream, ``/api/v1/campaigns/{id}/events``: every event as that person may see it; with
``--screens page`` the campaign page's HTML stream held open; with ``--screens tab`` as a
browser tab on that page really does it: the campaign's feed held, carrying the page's stream
and its notices; with ``--screens catchup`` as a tab did before 2026-12-07: the feed held, and
on every ``seq`` it reports the page's stream and its notices caught up with
``?after=…&once=1`` requests). For
``--minutes`` the load generator plays, open loop (each action at its scheduled instant, a
slow server cannot slow the offered load), with a random phase per person:

- per player a roll every 10 s;
- per group a combat step every 4 s — the four players' «a move or combat step every 20 s»
  and the GM running the monsters (one request each: attack, answer, heal, next turn, as
  ``bench/combat_live.py`` plays them, in order, one group's steps one after another);
- per person a chat line every 30 s;
- per person a page load every 60 s (the combat view, ``GET …/encounters/{id}``).

``--posts form`` sends the rolls, chat lines and page loads as a browser on the campaign
page does, instead of as an API client: the roll dialog's and the chat form's HTMX posts
(form-encoded, each with an ``idempotency_key`` of its own, answered with the form rendered
again) and the combat page itself (``GET /campaigns/{cid}/encounters/{eid}``, the whole HTML
page). Their answers name no ``seq``: each roll's label and chat line's text carries a mark
of its own, and after the evening the bench reads the ``seq`` of each mark from the log
(one statement per group, not on the server's clock). The combat steps stay the API's (the
GM's four requests per step, as ``bench/combat_live.py`` plays them). Sign-in is the bearer
token in both modes (a browser's session cookie costs the server the same one statement).

Figures (the last line of output is one JSON object):

- **groups per core** = 1 ÷ (server CPU seconds per group-second), the load generator's CPU
  excluded (``/proc/<pid>/stat`` of the server process only);
- **action → every screen**: for each roll and chat line, from its scheduled instant to the
  arrival at each of the group's five streams (p50 / p99 of deliveries) and to the *last* of
  the five (p99 of actions); lost or duplicated deliveries are counted;
- the **baseline** at the same load, in the same run: the bare Starlette app on raw asyncpg
  (``bench/baseline_asyncpg.py``: INSERT + NOTIFY + SSE fan-out; ``BENCH_BASELINE=sqlalchemy``
  for the first one, ``bench/baseline_app.py``, as in figures before 2026-12-06) posting
  the same rolls per second to as many campaigns with five viewers each; the ratio p99
  (service) ÷ p99 (baseline) is the issue's «p99 within 2× the baseline's».

``--hosts N`` (N > 1) plays a second evening, on N app processes that carry the live events
between them over NATS JetStream (``TAFELRUNDE_NATS_URL``; a ``nats-server -js`` of the
bench's own on a free port, never the machine's), on the same database: each person of a
group uses (requests and stream) another host than the one before, so every group's
events cross hosts. It reports the same figures, with the CPU of all N processes summed,
and the **CPU per action** of both evenings (rolls, chat lines, combat steps, page loads).
On one machine the N hosts share its cores: the figure is correctness and the cost of the
crossing, not capacity.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import combat_live, loadgen  # noqa: E402
from bench.combat_live import Fight, Runner, _h, _view, build  # noqa: E402
from bench.run import (  # noqa: E402
    Server,
    free_port,
    quiesce,
    raise_nofile,
    service_env,
    service_server,
    start_servers,
)

ROLL_EVERY = 10.0  # s, per player
STEP_EVERY = 4.0  # s, per group (4 players every 20 s, plus the GM's monsters)
CHAT_EVERY = 30.0  # s, per person
PAGE_EVERY = 60.0  # s, per person
PEOPLE = 5


@dataclass
class Stream:
    """One person's live stream: when each ``seq`` arrived."""

    token: str
    arrived: dict[int, float] = field(default_factory=dict)
    duplicates: int = 0
    connected: asyncio.Event = field(default_factory=asyncio.Event)
    error: str | None = None


@dataclass
class Group:
    fight: Fight
    runner: Runner
    streams: list[Stream]
    #: The host each person (GM first) sends to and streams from.
    bases: list[str]
    #: ``seq`` of each roll or chat line → its scheduled instant.
    sent: dict[int, float] = field(default_factory=dict)
    #: ``seq`` of each roll or chat line → its kind («roll», «chat»).
    kinds: dict[int, str] = field(default_factory=dict)
    #: ``--posts form``: the mark of each roll or chat line → its scheduled instant and kind,
    #: until its ``seq`` is read from the log (:func:`_resolve_marks`).
    marked: dict[str, tuple[float, str]] = field(default_factory=dict)
    errors: int = 0
    steps: int = 0
    pages: int = 0
    step_lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def people(self) -> list[str]:
        return [self.fight.gm, *self.fight.players]


@dataclass(frozen=True)
class Night:
    """What is played: ``groups`` for ``minutes``; what each screen follows (``--screens``)
    and how the actions are sent (``--posts``)."""

    groups: int
    minutes: float
    screens: str = "json"
    posts: str = "api"


async def _follow(http: aiohttp.ClientSession, url: str, s: Stream) -> None:
    try:
        async with http.get(url, headers=_h(s.token), timeout=loadgen.NO_TIMEOUT) as resp:
            s.connected.set()
            assert resp.status == 200, resp.status
            ev_id: str | None = None
            async for raw in resp.content:
                line = raw.rstrip(b"\r\n")
                if not line:
                    if ev_id is not None:
                        seq = int(ev_id)
                        if seq in s.arrived:
                            s.duplicates += 1
                        s.arrived.setdefault(seq, time.monotonic())
                    ev_id = None
                elif line.startswith(b"id:"):
                    ev_id = line[3:].strip().decode()
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # reported as an error of the run
        s.error = repr(exc)
        s.connected.set()


def _messages(text: str) -> list[tuple[int, str]]:
    """The ``(id, event)`` of each message of an event-stream body (pings skipped)."""
    out = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.split("\n") if ": " in line)
        if "id" in fields and "data" in fields:
            out.append((int(fields["id"]), fields.get("event", "message")))
    return out


@dataclass
class CatchingUp:
    """One stream of a browser tab's page, caught up as ``static/js/live.js`` does: one
    ``?after=…&once=1`` request at a time, each from where the last one ended, until it has
    read as far as the feed said; ``screen``: the stream whose messages are the screen's."""

    url: str
    s: Stream
    screen: bool
    after: int = 0
    wanted: int = 0
    running: bool = False

    def want(self, http: aiohttp.ClientSession, seq: int) -> None:
        self.wanted = max(self.wanted, seq)
        if not self.running and self.wanted > self.after:
            self.running = True
            asyncio.get_running_loop().create_task(self._run(http))

    async def _run(self, http: aiohttp.ClientSession) -> None:
        try:
            while self.wanted > self.after:
                url = f"{self.url}?after={self.after}&once=1"
                async with http.get(url, headers=_h(self.s.token)) as resp:
                    assert resp.status == 200, resp.status
                    text = await resp.text()
                for seq, event in _messages(text):
                    if self.screen and event != "caught-up":
                        if seq in self.s.arrived:
                            self.s.duplicates += 1
                        self.s.arrived.setdefault(seq, time.monotonic())
                    self.after = max(self.after, seq)
        except Exception as exc:  # reported as an error of the run
            self.s.error = repr(exc)
        finally:
            self.running = False


async def _follow_catching_up(http: aiohttp.ClientSession, base: str, cid: int, s: Stream) -> None:
    """As a browser tab alone on the campaign page did before the feed carried its streams:
    the campaign's feed held, and on each ``seq`` it reports, the page's two streams (its own
    and the notices') caught up."""
    streams = [CatchingUp(f"{base}/campaigns/{cid}/live", s, True),
               CatchingUp(f"{base}/campaigns/{cid}/notices/live", s, False)]  # fmt: skip
    try:
        url = f"{base}/campaigns/{cid}/feed?after=0"
        async with http.get(url, headers=_h(s.token), timeout=loadgen.NO_TIMEOUT) as resp:
            s.connected.set()
            assert resp.status == 200, resp.status
            async for raw in resp.content:
                line = raw.rstrip(b"\r\n")
                if line.startswith(b"id:"):
                    for stream in streams:
                        stream.want(http, int(line[3:].strip()))
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # reported as an error of the run
        s.error = repr(exc)
        s.connected.set()


async def _follow_tab(http: aiohttp.ClientSession, base: str, cid: int, s: Stream) -> None:
    """As a browser tab alone on the campaign page (``static/js/live.js``): the campaign's
    feed held, carrying the page's two streams (its own and the notices'); the parts of the
    page's own stream are the screen's."""
    page, notices = f"/campaigns/{cid}/live", f"/campaigns/{cid}/notices/live"
    try:
        url = f"{base}/campaigns/{cid}/feed"
        query = [("after", "0"), ("s", page), ("s", notices)]
        async with http.get(
            url, params=query, headers=_h(s.token), timeout=loadgen.NO_TIMEOUT
        ) as resp:
            s.connected.set()
            assert resp.status == 200, resp.status
            async for raw in resp.content:
                if not raw.startswith(b'data: {"seq"'):
                    continue
                for index, seq, _event, _data in json.loads(raw[6:])["parts"]:
                    if index == 0:
                        if seq in s.arrived:
                            s.duplicates += 1
                        s.arrived.setdefault(seq, time.monotonic())
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # reported as an error of the run
        s.error = repr(exc)
        s.connected.set()


#: How a browser tab follows its page (``--screens tab`` and ``catchup``).
TAB_FOLLOWERS = {"tab": _follow_tab, "catchup": _follow_catching_up}


async def _groups(http: aiohttp.ClientSession, bases: list[str], pg: str, n: int) -> list[Group]:
    """``n`` fights; group ``i`` is set up on host ``i``, and its person ``k`` uses host
    ``i + k`` (modulo the hosts)."""
    out = []
    for i in range(n):
        base = bases[i % len(bases)]
        fight = await build(http, base, pg, 4, 4, 0, tag=f"{int(time.time()) % 10**6}g{i}")
        view = await _view(http, fight)
        runner = Runner(http, fight, random.Random(i), view)
        streams = [Stream(t) for t in (fight.gm, *fight.players)]
        hosts = [bases[(i + k) % len(bases)] for k in range(PEOPLE)]
        out.append(Group(fight, runner, streams, hosts))
    return out


def _schedule(
    groups: list[Group], minutes: float, rng: random.Random
) -> list[tuple[float, str, int, int]]:
    """Every action of the evening: (offset s, kind, group, person), sorted by offset."""
    end = minutes * 60
    plan: list[tuple[float, str, int, int]] = []

    def every(period: float, kind: str, g: int, person: int) -> None:
        t = rng.uniform(0, period)
        while t < end:
            plan.append((t, kind, g, person))
            t += period

    for g in range(len(groups)):
        every(STEP_EVERY, "step", g, 0)
        for person in range(PEOPLE):
            every(CHAT_EVERY, "chat", g, person)
            every(PAGE_EVERY, "page", g, person)
            if person:
                every(ROLL_EVERY, "roll", g, person)
    return sorted(plan)


async def _act(
    http: aiohttp.ClientSession,
    group: Group,
    kind: str,
    person: int,
    when: float,
    posts: str = "api",
) -> None:
    try:
        if kind == "step":
            async with group.step_lock:  # a fight is played one step after another
                await group.runner.step()
            group.steps += 1
            return
        if kind == "page":
            await _load_page(http, group, person, posts)
            return
        if posts == "form":
            await _post_form(http, group, kind, person, when)
            return
        await _post_api(http, group, kind, person, when)
    except Exception:
        group.errors += 1


async def _load_page(http: aiohttp.ClientSession, group: Group, person: int, posts: str) -> None:
    """The combat view: as an API client reads it, or the combat page a browser loads."""
    fight, token, base = group.fight, group.people[person], group.bases[person]
    url = (
        f"{base}/campaigns/{fight.cid}/encounters/{fight.eid}"
        if posts == "form"
        else fight.api.replace(fight.base, base, 1)
    )
    async with http.get(url, headers=_h(token)) as r:
        await r.read()
        group.pages += r.status == 200
        group.errors += r.status != 200


async def _post_api(
    http: aiohttp.ClientSession, group: Group, kind: str, person: int, when: float
) -> None:
    """A roll or chat line as an API client posts it; its answer names its ``seq``."""
    token, base = group.people[person], group.bases[person]
    camp = f"{base}/api/v1/campaigns/{group.fight.cid}"
    url, body = (
        (f"{camp}/rolls", {"expression": "1d20+3", "label": "Probe", "visibility": "public"})
        if kind == "roll"
        else (f"{camp}/messages", {"text": f"Weiter so! {person}"})
    )
    async with http.post(url, json=body, headers=_h(token)) as r:
        if r.status != 201:
            group.errors += 1
            return
        seq = int((await r.json())["event_id"])
        group.sent[seq], group.kinds[seq] = when, kind


_MARKS = itertools.count()


async def _post_form(
    http: aiohttp.ClientSession, group: Group, kind: str, person: int, when: float
) -> None:
    """A roll or chat line as the campaign page's roll dialog or chat form posts it
    (HTMX, a key of its own, answered with the form); its mark stands for its ``seq``."""
    token, base, cid = group.people[person], group.bases[person], group.fight.cid
    mark = f"m{next(_MARKS)}"
    form: dict[str, str] = {"idempotency_key": str(uuid.uuid4())}
    if kind == "roll":
        url = f"{base}/campaigns/{cid}/rolls"
        form.update(expression="1d20+3", label=f"Probe {mark}", visibility="public")
    else:
        url = f"{base}/campaigns/{cid}/chat"
        form.update(text=f"Weiter so! {mark}", kind="ooc", back=f"/campaigns/{cid}")
    headers = {**_h(token), "HX-Request": "true"}
    async with http.post(url, data=form, headers=headers) as r:
        await r.read()
        if r.status != 200:
            group.errors += 1
            return
    group.marked[mark] = (when, kind)


_MARKED = """
    SELECT seq, coalesce(payload->>'label', payload->>'text') FROM campaign_event
    WHERE campaign_id = %s AND type IN ('roll', 'chat_message')
"""


async def _resolve_marks(pg: str, groups: list[Group]) -> None:
    """``--posts form``: each marked roll's and chat line's ``seq``, read from the log."""
    import psycopg

    async with await psycopg.AsyncConnection.connect(f"{pg}/{combat_live.DB}") as conn:
        for g in groups:
            if not g.marked:
                continue
            cur = await conn.execute(_MARKED, (g.fight.cid,))
            for seq, words in await cur.fetchall():
                mark = str(words or "").rsplit(" ", 1)[-1]
                if mark in g.marked:
                    g.sent[int(seq)], g.kinds[int(seq)] = g.marked.pop(mark)
            g.errors += len(g.marked)  # answered 200, but not in the log


async def _play(
    http: aiohttp.ClientSession, groups: list[Group], minutes: float, posts: str = "api"
) -> float:
    """Plays the evening; answers the wall time from the first action to the last answer."""
    plan = _schedule(groups, minutes, random.Random(4711))
    t0 = time.monotonic() + 0.1
    tasks: list[asyncio.Task[None]] = []
    for offset, kind, g, person in plan:
        delay = t0 + offset - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        action = _act(http, groups[g], kind, person, t0 + offset, posts)
        tasks.append(asyncio.create_task(action))
    await asyncio.wait(tasks, timeout=120)
    return time.monotonic() - t0


async def _drain(groups: list[Group], limit: float = 30.0) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if all(seq in s.arrived for g in groups for seq in g.sent for s in g.streams):
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.3)  # late duplicates


def _figures(groups: list[Group]) -> dict[str, Any]:
    deliveries: list[float] = []
    every_screen: list[float] = []
    by_kind: dict[str, list[float]] = {"roll": [], "chat": []}
    lost = 0
    for g in groups:
        for seq, when in g.sent.items():
            got = [s.arrived[seq] - when for s in g.streams if seq in s.arrived]
            lost += len(g.streams) - len(got)
            deliveries += [x * 1000 for x in got]
            by_kind[g.kinds[seq]] += [x * 1000 for x in got]
            if len(got) == len(g.streams):
                every_screen.append(max(got) * 1000)
    return {
        "actions_timed": sum(len(g.sent) for g in groups),
        "combat_steps": sum(g.steps for g in groups),
        "page_loads": sum(g.pages for g in groups),
        "delivery_p50_ms": loadgen.pct(deliveries, 50),
        "delivery_p99_ms": loadgen.pct(deliveries, 99),
        "every_screen_p99_ms": loadgen.pct(every_screen, 99),
        # Which action makes the tail: the deliveries of each kind.
        "by_kind_p50_p99_ms": {
            kind: [loadgen.pct(xs, 50), loadgen.pct(xs, 99)] for kind, xs in by_kind.items() if xs
        },
        "lost": lost,
        "duplicated": sum(s.duplicates for g in groups for s in g.streams),
        "errors": sum(g.errors for g in groups),
        "stream_errors": [s.error for g in groups for s in g.streams if s.error],
    }


def _cpu(servers: list[Server]) -> float:
    return sum(loadgen.cpu_seconds(s.pid) for s in servers)


#: What each person's screen follows (``--screens``): the JSON event stream (an API client),
#: or the campaign page's HTML live stream, as a browser on that page holds it (its dice log
#: and chat: every roll and chat line the person may see, each under its ``seq``).
#: ``tab``: as a browser tab alone on the campaign page does (:func:`_follow_tab`); ``catchup``:
#: as it did before (:func:`_follow_catching_up`).
SCREENS = {
    "json": "/api/v1/campaigns/{cid}/events?after=0",
    "page": "/campaigns/{cid}/live?after=0",
    "tab": "/campaigns/{cid}/feed?after=0",
    "catchup": "/campaigns/{cid}/feed?after=0",
}


async def _evening(servers: list[Server], pg: str, night: Night) -> dict[str, Any]:
    n, minutes, screens = night.groups, night.minutes, night.screens
    bases = [f"http://127.0.0.1:{s.port}" for s in servers]
    conn = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=conn, timeout=loadgen.NO_TIMEOUT) as http:
        groups = await _groups(http, bases, pg, n)
        tasks = []
        for g in groups:  # from the start: the set-up's events come first, untimed
            for s, base in zip(g.streams, g.bases, strict=True):
                if screens in TAB_FOLLOWERS:
                    follower = TAB_FOLLOWERS[screens](http, base, g.fight.cid, s)
                    tasks.append(asyncio.create_task(follower))
                    continue
                url = base + SCREENS[screens].format(cid=g.fight.cid)
                tasks.append(asyncio.create_task(_follow(http, url, s)))
        await asyncio.gather(*(s.connected.wait() for g in groups for s in g.streams))
        await asyncio.sleep(1.0)
        cpu0 = _cpu(servers)
        wall = await _play(http, groups, minutes, night.posts)
        await _resolve_marks(pg, groups)
        await _drain(groups)
        cpu = _cpu(servers) - cpu0
        await loadgen.close_viewers(tasks)
    out = _figures(groups)
    group_seconds = n * minutes * 60
    actions = out["actions_timed"] + out["combat_steps"] + out["page_loads"]
    out.update(
        screens=screens,
        posts=night.posts,
        hosts=len(servers),
        groups=n,
        minutes=minutes,
        wall_s=wall,
        server_cpu_s=cpu,
        cpu_ms_per_group_second=cpu * 1000 / group_seconds,
        groups_per_core=group_seconds / cpu if cpu else float("nan"),
        cpu_ms_per_action=cpu * 1000 / max(1, actions),
    )
    return out


@contextlib.contextmanager
def _nats_server() -> Iterator[str]:
    """A ``nats-server -js`` of the bench's own (free port, own store), its URL."""
    binary = shutil.which("nats-server") or "/usr/sbin/nats-server"
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="bench-nats-") as store:
        command = [binary, "-js", "-a", "127.0.0.1", "-p", str(port), "-sd", store]
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 20
            while True:
                with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                    break
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("nats-server did not start")
                time.sleep(0.05)
            yield f"nats://127.0.0.1:{port}"
        finally:
            proc.terminate()
            proc.wait(10)


async def _on_hosts(pg: str, suffix: str, hosts: int, night: Night) -> dict[str, Any]:
    """The evening on ``hosts`` app processes over a NATS of the bench's own."""
    with _nats_server() as nats_url:
        env = service_env(pg, f"bench_perf_app{suffix}", f"bench_perf_base{suffix}")
        env["TAFELRUNDE_NATS_URL"] = nats_url
        servers = [service_server(f"host{i}", env) for i in range(hosts)]
        try:
            for s in servers:
                s.start()
            await quiesce(*servers, limit=20)
            return await _evening(servers, pg, night)
        finally:
            for s in servers:
                s.stop()


async def main_async(pg: str, night: Night, suffix: str, hosts: int = 1) -> dict[str, Any]:
    raise_nofile()
    service, baseline = start_servers(pg, suffix)
    combat_live.DB = f"bench_perf_app{suffix}"  # where ``build`` reads the observers' code
    try:
        await quiesce(service, baseline, limit=20)
        evening = await _evening([service], pg, night)
        await quiesce(service, baseline, limit=20)
        rolls_per_s = night.groups * (PEOPLE - 1) / ROLL_EVERY
        target = loadgen.BaselineTarget(f"http://127.0.0.1:{baseline.port}", baseline.pid)
        seconds = night.minutes * 60
        base = await loadgen.delivery(target, night.groups, PEOPLE, rolls_per_s, seconds)
    finally:
        service.stop()
        baseline.stop()
    base_p99 = float(base["p99"])
    out: dict[str, Any] = {
        "service": evening,
        "baseline": {k: base[k] for k in ("p50", "p99", "lost", "dup", "server_cpu_ms_per_roll")},
        "p99_ratio_to_baseline": evening["delivery_p99_ms"] / base_p99 if base_p99 else None,
    }
    if hosts > 1:
        spread = await _on_hosts(pg, suffix, hosts, night)
        out[f"{hosts}_hosts_nats"] = spread
        out["cpu_per_action_hosts_over_one"] = (
            spread["cpu_ms_per_action"] / evening["cpu_ms_per_action"]
        )
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pg", default="postgresql://postgres@127.0.0.1")
    parser.add_argument("--groups", type=int, default=10)
    parser.add_argument("--minutes", type=float, default=2.0)
    parser.add_argument("--smoke", action="store_true", help="two groups for 20 s")
    parser.add_argument("--hosts", type=int, default=1, help="N > 1: again on N hosts on NATS")
    parser.add_argument(
        "--screens", choices=sorted(SCREENS), default="json", help="what each screen follows"
    )
    parser.add_argument(
        "--posts",
        choices=("api", "form"),
        default="api",
        help="how rolls, chat lines and page loads are sent: as an API client or a browser",
    )
    args = parser.parse_args(argv)
    groups, minutes = (2, 1 / 3) if args.smoke else (args.groups, args.minutes)
    night = Night(groups, minutes, args.screens, args.posts)
    result = asyncio.run(main_async(args.pg, night, "_night", args.hosts))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
