"""In-process render measurement: the combat view of a running H&H fight.

Builds the app on a PostgreSQL database, prepares an encounter with N goblins from the
starter bestiary, starts it, then times ``GET /campaigns/{id}/encounters/{eid}`` as the GM
and counts SQL statements per render (``before_cursor_execute``). Run with 2 and 20
participants to see whether the statement count stays constant; ``--map`` links a scene to
the fight with every figure placed on it (the view then shows its board beside the fight).
The ``server_*`` figures are ``bench.render``'s: the page and its templates with no
instrument.

``python -m bench.combat_render --db postgresql+asyncpg://postgres@127.0.0.1/bench_app``
prints one JSON object per participant count.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections import Counter
from typing import Any

import httpx
from sqlalchemy import event

from app.config import Settings
from app.main import create_app
from bench.render import bare_figures
from bench.template_spy import Spying

PASSWORD = "bench-password-4711"


async def measure(db: str, goblins: int, renders: int, on_map: bool = False) -> dict[str, Any]:
    settings = Settings(
        database_url=db, secret_key="x", argon2_time_cost=1, argon2_memory_kib=8192,
        write_rate_per_minute=10**6, write_burst=10**5,
    )  # fmt: skip
    application = create_app(settings)
    engine = application.state.ctx.engine
    statements: list[str] = []

    def count(_conn: Any, _cursor: Any, stmt: str, *_args: Any) -> None:
        statements.append(stmt)

    event.listen(engine.sync_engine, "before_cursor_execute", count)
    transport = httpx.ASGITransport(app=application)
    try:
        async with (
            httpx.AsyncClient(transport=transport, base_url="http://bench") as c,
            Spying() as spy,
        ):
            name = f"combat_{int(time.time() * 1000) % 10**9}"
            body = {"username": name, "password": PASSWORD}
            assert (await c.post("/api/v1/auth/register", json=body)).status_code == 201
            token = (await c.post("/api/v1/auth/login", json=body)).json()["token"]
            h = {"Authorization": f"Bearer {token}"}
            cid = (
                await c.post("/api/v1/campaigns", json={"name": "K", "system": "hh"}, headers=h)
            ).json()["id"]
            api = f"/api/v1/campaigns/{cid}"
            entries = (await c.post(f"{api}/bestiary/samples", headers=h)).json()
            goblin = next(e for e in entries if e["name"] == "Goblin")
            eid = (await c.post(f"{api}/encounters", json={"name": "E"}, headers=h)).json()["id"]
            r = await c.post(
                f"{api}/encounters/{eid}/participants",
                json={"entry_id": goblin["id"], "count": goblins},
                headers=h,
            )
            assert r.status_code == 201, r.text
            r = await c.post(f"{api}/encounters/{eid}/actions/start", json={}, headers=h)
            assert r.status_code == 200, r.text
            if on_map:
                await _linked_map(c, api, eid, goblins, h)
            url = f"/campaigns/{cid}/encounters/{eid}"
            for _ in range(5):
                assert (await c.get(url, headers=h)).status_code == 200
            times: list[float] = []
            cpu: list[float] = []  # this process's CPU: steal time on a shared VM excluded
            counts: list[int] = []
            for _ in range(renders):
                statements.clear()
                spy.clear()
                t, t_cpu = time.perf_counter(), time.process_time()
                r = await c.get(url, headers=h)
                times.append((time.perf_counter() - t) * 1000)
                cpu.append((time.process_time() - t_cpu) * 1000)
                assert r.status_code == 200
                counts.append(len(statements))
            # The baseline: every template the last request rendered (the page and its
            # regions' blocks), with the same contexts, from memory.
            mem: list[float] = []
            mem_cpu: list[float] = []
            for _ in range(renders):
                t, t_cpu = time.perf_counter(), time.process_time()
                spy.replay()
                mem.append((time.perf_counter() - t) * 1000)
                mem_cpu.append((time.process_time() - t_cpu) * 1000)
            sample = Counter(s.split("\n")[0][:110] for s in statements)
        event.remove(engine.sync_engine, "before_cursor_execute", count)
        server = await bare_figures(application, url, token, spy, renders)
    finally:
        await engine.dispose()
    return {
        "participants": goblins,
        "map": on_map,
        "renders": renders,
        "p50_ms": round(statistics.median(times), 1),
        "cpu_p50_ms": round(statistics.median(cpu), 1),
        "p95_ms": round(sorted(times)[int(0.95 * (len(times) - 1))], 1),
        "template_from_memory_p50_ms": round(statistics.median(mem), 2),
        "template_from_memory_cpu_p50_ms": round(statistics.median(mem_cpu), 2),
        "cpu_ratio": round(statistics.median(cpu) / statistics.median(mem_cpu), 2),
        "sql_per_render": sorted(set(counts)),
        "bytes": len(r.content),
        "statements": [f"{n}× {s}" if n > 1 else s for s, n in sorted(sample.items())],
        **{k: round(v, 2) for k, v in server.items() if "cold" not in k},
    }


async def _linked_map(
    c: httpx.AsyncClient, api: str, eid: int, figures: int, h: dict[str, str]
) -> None:
    """A 20 × 20 scene with a few walls, linked to the fight, every figure placed on it."""
    body = {"name": "Gewölbe", "cols": 20, "rows": 20, "shown": True}
    sid = (await c.post(f"{api}/scenes", json=body, headers=h)).json()["id"]
    walls = {"segments": [[x, 0, x, 12] for x in range(4, 20, 5)]}
    assert (await c.put(f"{api}/scenes/{sid}/walls", json=walls, headers=h)).status_code == 200
    r = await c.patch(f"{api}/scenes/{sid}", json={"encounter_id": eid, "place": True}, headers=h)
    assert r.status_code == 200, r.text
    placed = (await c.get(f"{api}/scenes/{sid}", headers=h)).json()["tokens"]
    assert len(placed) == figures, placed


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--db", required=True)
    p.add_argument("--renders", type=int, default=100)
    p.add_argument("--participants", default="2,20", help="comma-separated counts")
    p.add_argument("--map", action="store_true", help="a scene linked, every figure on it")
    a = p.parse_args()
    for goblins in (int(n) for n in a.participants.split(",")):
        print(json.dumps(asyncio.run(measure(a.db, goblins, a.renders, a.map))))


if __name__ == "__main__":
    main()
