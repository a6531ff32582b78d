"""The combat action pipeline: an H&H fight of 20 participants watched live by 8 and by 40
viewers, from the GM's request to every viewer's update.

    .venv/bin/python -m bench.combat_live --pg postgresql://postgres@127.0.0.1

Starts ``tafelrunde serve`` (one process) on a fresh database ``bench_perf_combat``, builds a
fight of 4 player characters and 16 goblins, and opens the combat page's live stream for the
GM, the 4 players and observers (8 viewers: 3 observers; 40 viewers: 35). Then the GM runs
the fight step by step (one at a time, each after every viewer got the last): the figure on
turn attacks a random other figure, the attack's pending defence is answered with none, the
target is healed (so nobody drops out) and the turn passes on. Figures per viewer count:

- latency of each step from the request to each viewer's message (p50 / p99 of all
  deliveries) and to the *last* viewer's message (p50 / p99 of steps);
- server CPU per step (``/proc/<pid>/stat`` of the server during the steps);
- the ratio 40 viewers / 8 viewers, the baseline of this benchmark (same run, same fight).

``--app-root DIR`` runs the server from another checkout (e.g. ``git archive`` of an older
commit), to measure a change before and after on the same machine in one sitting. Prints
one JSON object (the last line of output); ``--smoke`` makes it tiny; ``--map`` puts the
fight on a linked scene, so that every viewer's combat page shows its board too;
``--elsewhere N`` gives the first N viewers (the GM, the players, then observers) a second
page each: the scene page of another shown scene with a few tokens (the GM preparing the
next scene, a player looking at the world map), whose streams the fight's steps wake and
which should cost them (almost) nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.loadgen import NO_TIMEOUT, cpu_seconds, pct  # noqa: E402
from bench.run import Server, drop_db, free_port, quiesce, raise_nofile, recreate_db  # noqa: E402

PASSWORD = "bench-password-4711"
#: An H&H player character (the test suite's Alrik).
HERO = {"lp": 20, "rs": 1, "initiative": 10, "angriff": 12, "verteidigung": 11,
        "unbeugsamkeit": 10, "willenskraft": 9, "schaden_w": 10, "schaden_bonus": 1, "gp": 2,
        "glueck": 8}  # fmt: skip
DB = "bench_perf_combat"


@dataclass
class Watcher:
    """One viewer's live stream: when each ``combat`` message arrived."""

    token: str
    arrived: dict[int, float] = field(default_factory=dict)
    error: str | None = None
    connected: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass
class Fight:
    base: str
    cid: int
    eid: int
    gm: str
    players: list[str]
    observers: list[str]
    #: A second, unlinked scene (``--elsewhere``), else ``None``.
    other_scene: int | None = None

    @property
    def api(self) -> str:
        return f"{self.base}/api/v1/campaigns/{self.cid}/encounters/{self.eid}"


async def _account(http: aiohttp.ClientSession, base: str, name: str) -> str:
    body = {"username": name, "password": PASSWORD}
    async with http.post(f"{base}/api/v1/auth/register", json=body) as r:
        assert r.status == 201, await r.text()
    async with http.post(f"{base}/api/v1/auth/login", json=body) as r:
        return str((await r.json())["token"])


def _h(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def _post(http: aiohttp.ClientSession, url: str, token: str, **body: Any) -> Any:
    async with http.post(url, json=body, headers=_h(token)) as r:
        assert r.status in (200, 201), (url, r.status, await r.text())
        return await r.json()


async def _observer_code(pg: str, cid: int, http: aiohttp.ClientSession, base: str, gm: str) -> str:
    import psycopg

    form = aiohttp.FormData({"role": "observer", "expires_days": ""})
    async with http.post(f"{base}/campaigns/{cid}/invites", data=form, headers=_h(gm)) as r:
        assert r.status in (200, 303), (r.status, await r.text())
    with psycopg.connect(f"{pg}/{DB}") as conn:
        row = conn.execute(
            "SELECT code FROM invite WHERE campaign_id = %s AND role = 'observer'", (cid,)
        ).fetchone()
    assert row is not None
    return str(row[0])


async def build(
    http: aiohttp.ClientSession,
    base: str,
    pg: str,
    players: int,
    goblins: int,
    observers: int,
    tag: str = "",
    board: bool = False,
) -> Fight:
    """A campaign with its fight started; ``tag`` makes the accounts' names unique (default:
    the time, enough for one fight per second); ``board``: on a linked 20 × 12 scene, every
    figure placed (the combat page then shows the board beside the fight)."""
    tag = tag or f"{int(time.time()) % 10**6}"
    gm = await _account(http, base, f"gm{tag}")
    made = await _post(http, f"{base}/api/v1/campaigns", gm, name="Bench", system="hh")
    cid, code = made["id"], made["invite_code"]
    camp = f"{base}/api/v1/campaigns/{cid}"
    entries = await _post(http, f"{camp}/bestiary/samples", gm)
    goblin = next(e for e in entries if e["name"] == "Goblin")
    eid = (await _post(http, f"{camp}/encounters", gm, name="Bench"))["id"]
    fight = Fight(base, cid, eid, gm, [], [])
    for i in range(players):
        token = await _account(http, base, f"pl{i}x{tag}")
        await _post(http, f"{base}/api/v1/campaigns/join", token, invite_code=code)
        hero = await _post(
            http, f"{camp}/characters", token, name=f"Held {i}", data={"statblock": HERO}
        )
        await _post(http, f"{fight.api}/participants", gm, character_id=hero["id"])
        fight.players.append(token)
    await _post(http, f"{fight.api}/participants", gm, entry_id=goblin["id"], count=goblins)
    obs = await _observer_code(pg, cid, http, base, gm)
    for i in range(observers):
        token = await _account(http, base, f"ob{i}x{tag}")
        await _post(http, f"{base}/api/v1/campaigns/join", token, invite_code=obs)
        fight.observers.append(token)
    await _post(http, f"{fight.api}/actions/start", gm)
    if board:
        scene = {"name": "Furt", "cols": 20, "rows": 12, "encounter_id": eid, "shown": True}
        await _post(http, f"{camp}/scenes", gm, **scene, place=True)
    return fight


async def add_other_scene(http: aiohttp.ClientSession, fight: Fight) -> None:
    """A shown 20 × 12 scene not linked to the fight, with six tokens (``--elsewhere``)."""
    camp = f"{fight.base}/api/v1/campaigns/{fight.cid}"
    made = await _post(http, f"{camp}/scenes", fight.gm, name="Lager", cols=20, rows=12, shown=True)
    for i in range(6):
        token = {"x": 2 * i, "y": i, "label": f"Zelt {i}"}
        await _post(http, f"{camp}/scenes/{made['id']}/tokens", fight.gm, **token)
    fight.other_scene = int(made["id"])


async def watch(http: aiohttp.ClientSession, url: str, w: Watcher) -> None:
    try:
        async with http.get(url, headers=_h(w.token), timeout=NO_TIMEOUT) as resp:
            w.connected.set()
            assert resp.status == 200, resp.status
            ev_id: str | None = None
            async for raw in resp.content:
                line = raw.rstrip(b"\r\n")
                if not line:
                    if ev_id is not None:
                        w.arrived.setdefault(int(ev_id), time.monotonic())
                    ev_id = None
                elif line.startswith(b"id:"):
                    ev_id = line[3:].strip().decode()
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # reported as an error of the run
        w.error = repr(exc)
        w.connected.set()


class GmSteps:
    """The GM running the fight one step (one request, one event) at a time: the figure on
    turn attacks a random other figure, a pending defence is answered with none (and a hit's
    Glück prompt by taking the hit), the target is healed, the turn passes on. ``_act``
    posts one action and keeps its answer as ``view`` (over aiohttp: :class:`Runner`)."""

    rng: random.Random
    view: dict[str, Any]
    state: str = "attack"
    target: str | None = None

    async def step(self) -> str:
        if self.state in ("attack", "next") and self.view.get("pending"):
            # A prompt the last step left open (a turn's start, a heal can raise one): no
            # attack nor turn can pass before it is answered.
            self.state = "respond"
        done = self.state
        if self.state == "attack":
            turn = str((self.view.get("turn") or {}).get("pid"))
            others = [str(p["pid"]) for p in self.view["participants"] if str(p["pid"]) != turn]
            self.target = self.rng.choice(others)
            if await self._act("attack", target=self.target):
                self.state = "respond" if self.view.get("pending") else "heal"
            else:  # this figure cannot attack now: pass the turn on instead
                await self._act("next")
                done = "next"
        elif self.state == "respond":
            # "No defence"; a hit then may offer Glück against the damage: take the hit.
            kind = (self.view.get("pending") or {}).get("kind")
            await self._act("respond", choice="accept" if kind == "hit" else "none")
            self.state = "respond" if self.view.get("pending") else "heal"
        elif self.state == "heal":
            await self._act("adjust", participant=self.target, delta=30, reason="Heilung")
            self.state = "next"
        else:
            await self._act("next")
            self.state = "attack"
        return done

    async def _act(self, action: str, **body: Any) -> bool:
        raise NotImplementedError


@dataclass
class Runner(GmSteps):
    """:class:`GmSteps` over aiohttp, against a server."""

    http: aiohttp.ClientSession
    fight: Fight
    rng: random.Random
    view: dict[str, Any]
    state: str = "attack"
    target: str | None = None

    async def _act(self, action: str, **body: Any) -> bool:
        url = f"{self.fight.api}/actions/{action}"
        async with self.http.post(url, json=body, headers=_h(self.fight.gm)) as r:
            if r.status != 200:
                assert action == "attack" and r.status == 422, (action, r.status, await r.text())
                return False
            self.view = await r.json()
            return True


async def _last_seq(pg: str, cid: int) -> int:
    import psycopg

    async with await psycopg.AsyncConnection.connect(f"{pg}/{DB}") as conn:
        cur = await conn.execute("SELECT last_seq FROM campaign WHERE id = %s", (cid,))
        row = await cur.fetchone()
    assert row is not None
    return int(row[0])


async def _last_step(pg: str, cid: int) -> int:
    """The seq of the campaign's newest combat step: the event each viewer's page waits for
    (a step's sheet write-backs, ``character_fought``, come after it and with it)."""
    import psycopg

    async with await psycopg.AsyncConnection.connect(f"{pg}/{DB}") as conn:
        cur = await conn.execute(
            "SELECT max(seq) FROM campaign_event WHERE campaign_id = %s AND type = 'combat'",
            (cid,),
        )
        row = await cur.fetchone()
    assert row is not None and row[0] is not None
    return int(row[0])


async def run_viewers(
    http: aiohttp.ClientSession,
    fight: Fight,
    server: Server,
    pg: str,
    n: int,
    steps: int,
    elsewhere: int = 0,
) -> dict[str, Any]:
    tokens = [fight.gm, *fight.players, *fight.observers][:n]
    watchers = [Watcher(t) for t in tokens]
    url = f"{fight.base}/campaigns/{fight.cid}/encounters/{fight.eid}/live"
    start = await _last_seq(pg, fight.cid)
    tasks = [asyncio.create_task(watch(http, f"{url}?after={start}", w)) for w in watchers]
    # The second pages (``--elsewhere``): watched, never waited for.
    others = [Watcher(t) for t in tokens[:elsewhere]]
    scene = f"{fight.base}/campaigns/{fight.cid}/scenes/{fight.other_scene}/live?after={start}"
    tasks += [asyncio.create_task(watch(http, scene, w)) for w in others]
    await asyncio.gather(*(w.connected.wait() for w in [*watchers, *others]))
    await asyncio.sleep(1.0)
    await quiesce(server, limit=10)
    runner = Runner(http, fight, random.Random(4711), await _view(http, fight))
    per_delivery: list[float] = []
    per_step: list[float] = []
    kinds: dict[str, int] = {}
    missing = 0
    cpu0 = cpu_seconds(server.pid)
    wall0 = time.monotonic()
    for _ in range(steps):
        sent = time.monotonic()
        kind = await runner.step()
        kinds[kind] = kinds.get(kind, 0) + 1
        seq = await _last_step(pg, fight.cid)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not all(seq in w.arrived for w in watchers):
            await asyncio.sleep(0.002)
        got = [w.arrived[seq] - sent for w in watchers if seq in w.arrived]
        missing += len(watchers) - len(got)
        per_delivery += [g * 1000 for g in got]
        if got:
            per_step.append(max(got) * 1000)
    cpu = cpu_seconds(server.pid) - cpu0
    wall = time.monotonic() - wall0
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    errors = [w.error for w in [*watchers, *others] if w.error]
    return {
        "viewers": n,
        "scene_pages_elsewhere": len(others),
        "observers": max(0, n - 1 - len(fight.players)),
        "steps": steps,
        "step_kinds": kinds,
        "delivery_p50": pct(per_delivery, 50),
        "delivery_p99": pct(per_delivery, 99),
        "all_viewers_p50": pct(per_step, 50),
        "all_viewers_p99": pct(per_step, 99),
        "cpu_ms_per_step": cpu * 1000 / steps,
        "wall_s": wall,
        "missing": missing,
        "errors": errors,
    }


async def _view(http: aiohttp.ClientSession, fight: Fight) -> dict[str, Any]:
    async with http.get(fight.api, headers=_h(fight.gm)) as r:
        return dict(await r.json())


async def measure(
    pg: str,
    app_root: Path,
    counts: list[int],
    steps: int,
    profile: Path | None = None,
    board: bool = False,
    elsewhere: int = 0,
) -> dict[str, Any]:
    recreate_db(pg, DB)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TAFELRUNDE_")}
    env.update(
        TAFELRUNDE_DATABASE_URL=f"{pg.replace('postgresql://', 'postgresql+asyncpg://')}/{DB}",
        TAFELRUNDE_SECRET_KEY="bench-secret",
        TAFELRUNDE_ARGON2_TIME_COST="1",
        TAFELRUNDE_ARGON2_MEMORY_KIB="8192",
        TAFELRUNDE_WRITE_RATE_PER_MINUTE="1000000",
        TAFELRUNDE_WRITE_BURST="1000000",
        PYTHONPATH=str(app_root),
    )
    cmd = [sys.executable, "-m", "app.cli", "serve", "--port", str(port)]
    server = Server("combat", cmd, env, port, cwd=app_root)
    server.start()
    try:
        base = f"http://127.0.0.1:{port}"
        async with aiohttp.ClientSession() as http:
            fight = await build(http, base, pg, 4, 16, max(counts) - 5, board=board)
            if elsewhere:
                await add_other_scene(http, fight)
            spy = _profile(server.pid, profile)
            out = [await run_viewers(http, fight, server, pg, n, steps, elsewhere) for n in counts]
            if spy is not None:
                spy.send_signal(signal.SIGINT)
                spy.wait(30)
    finally:
        server.stop()
        drop_db(pg, DB)
    return {"app_root": str(app_root), "map": board, "elsewhere": elsewhere, "runs": out}


def _profile(pid: int, out: Path | None) -> subprocess.Popen[bytes] | None:
    """py-spy sampling the server while the steps run (``--profile``): a flame graph."""
    if out is None:
        return None
    spy = Path(sys.executable).parent / "py-spy"
    return subprocess.Popen([str(spy), "record", "-p", str(pid), "-o", str(out), "-f", "raw"])


def _use_db(name: str) -> None:
    """Run on database ``name`` (two benchmarks at once on one server need two)."""
    global DB
    DB = name


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--pg", default=os.environ.get("BENCH_PG", "postgresql://postgres@127.0.0.1"))
    p.add_argument("--app-root", type=Path, default=ROOT, help="checkout the server runs from")
    p.add_argument("--steps", type=int, default=120, help="fight steps per viewer count")
    p.add_argument("--viewers", default="8,40", help="viewer counts, comma-separated")
    p.add_argument("--smoke", action="store_true", help="8 and 10 viewers, 8 steps")
    p.add_argument("--profile", type=Path, default=None, help="py-spy raw profile to this file")
    p.add_argument("--db", default=DB, help="the database to create (one per parallel run)")
    p.add_argument("--map", action="store_true", help="the fight on a linked scene (a board)")
    p.add_argument(
        "--elsewhere", type=int, default=0, help="viewers with another scene's page open too"
    )
    a = p.parse_args()
    _use_db(a.db)
    raise_nofile()
    counts = [8, 10] if a.smoke else [int(n) for n in a.viewers.split(",")]
    steps = 8 if a.smoke else a.steps
    res = asyncio.run(
        measure(a.pg, a.app_root.resolve(), counts, steps, a.profile, a.map, a.elsewhere)
    )
    for r in res["runs"]:
        print(
            f"[combat {r['viewers']} viewers] delivery p50 {r['delivery_p50']:.1f} "
            f"p99 {r['delivery_p99']:.1f} ms, all viewers p50 {r['all_viewers_p50']:.1f} "
            f"p99 {r['all_viewers_p99']:.1f} ms, CPU {r['cpu_ms_per_step']:.1f} ms/step, "
            f"missing {r['missing']}, errors {len(r['errors'])}",
            file=sys.stderr,
        )
    print(json.dumps(res))


if __name__ == "__main__":
    main()
