"""In-process render measurement: the campaign page with N log entries.

Builds the app with ``app.main.create_app(Settings(...))`` on a PostgreSQL database, drives it
through ``httpx.ASGITransport`` (no network, no uvicorn), times ``GET /campaigns/{id}``, and
counts SQL statements per render with a ``before_cursor_execute`` listener. The baseline is
rendering every template the page renders, its dice log's entries included, with the same
contexts from memory (no database). The page is timed as it is served (entries rendered
before are kept, ``app.rolls.live``) and with nothing kept (``cold``).

``server_*``: the same page and baseline again with every instrument taken off — the
page's ASGI app called directly (no test client, as ``bench.roll_request`` calls it; the
client's work is not the server's), no statement listener, no template spy on either
side. The other figures include the test client and the instruments, as they always did.

``python -m bench.render --db postgresql+asyncpg://postgres@127.0.0.1/bench_app``
prints one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import time
from collections import Counter
from typing import Any

import httpx
from sqlalchemy import event

import app.rolls.live as rolls_live
import app.talk.live as talk_live
from app.config import Settings
from app.main import create_app
from bench.roll_request import asgi_channel, get_scope
from bench.template_spy import Spying, TemplateSpy

PASSWORD = "bench-password-4711"
ENTRY_MARKER = re.compile(r'<li class="roll[" ][^>]*\bid="roll-\d+"')


async def measure(db: str, entries: int, renders: int, chat: int = 0) -> dict[str, Any]:
    settings = Settings(
        database_url=db,
        secret_key="x",
        argon2_time_cost=1,
        argon2_memory_kib=8192,
        write_rate_per_minute=10**6,
        write_burst=10**5,
    )
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
            name = f"render_{int(time.time() * 1000) % 10**9}"
            body = {"username": name, "password": PASSWORD}
            r = await c.post("/api/v1/auth/register", json=body)
            assert r.status_code == 201, r.text
            token = (await c.post("/api/v1/auth/login", json=body)).json()["token"]
            h = {"Authorization": f"Bearer {token}"}
            camp = (
                await c.post(
                    "/api/v1/campaigns", json={"name": "Render", "system": "hh"}, headers=h
                )
            ).json()
            cid = camp["id"]
            for i in range(entries):
                r = await c.post(
                    f"/api/v1/campaigns/{cid}/rolls",
                    json={"expression": "2d20+3", "label": f"Probe {i}", "visibility": "public"},
                    headers=h,
                )
                assert r.status_code == 201, r.text
            for i in range(chat):
                r = await c.post(
                    f"/api/v1/campaigns/{cid}/messages", json={"text": f"Zeile {i}"}, headers=h
                )
                assert r.status_code == 201, r.text
            for _ in range(5):  # warm caches (templates, statement cache, pool)
                assert (await c.get(f"/campaigns/{cid}", headers=h)).status_code == 200
            times: list[float] = []
            cpu: list[float] = []  # this process's CPU: steal time on a shared VM excluded
            counts: list[int] = []
            for _ in range(renders):
                statements.clear()
                spy.clear()
                t, t_cpu = time.perf_counter(), time.process_time()
                r = await c.get(f"/campaigns/{cid}", headers=h)
                times.append((time.perf_counter() - t) * 1000)
                cpu.append((time.process_time() - t_cpu) * 1000)
                assert r.status_code == 200, r.status_code
                counts.append(len(statements))
            size = len(r.content)
            # The dice log's entries as the page shows them (templates/rolls/_entry.html:
            # ``<li class="roll…" id="roll-{seq}" data-seq=…>``).
            shown = len(ENTRY_MARKER.findall(r.text))
            warm_statements = list(statements)
            # The page when nothing of it was rendered before: its dice log's entries and
            # chat lines are rendered once per process and form (``app.rolls.live``,
            # ``app.talk.live``), so above they were kept.
            cold_cpu: list[float] = []
            for _ in range(renders):
                rolls_live._RENDERED.clear()
                talk_live._RENDERED.clear()
                spy.clear()
                t_cpu = time.process_time()
                r = await c.get(f"/campaigns/{cid}", headers=h)
                cold_cpu.append((time.process_time() - t_cpu) * 1000)
                assert r.status_code == 200, r.status_code
            # The baseline: every template the last of those rendered (the page, its
            # regions' blocks, each entry and line), with the same contexts, from memory.
            mem: list[float] = []
            mem_cpu: list[float] = []
            for _ in range(renders):
                t, t_cpu = time.perf_counter(), time.process_time()
                spy.replay()
                mem.append((time.perf_counter() - t) * 1000)
                mem_cpu.append((time.process_time() - t_cpu) * 1000)
            sample = Counter(s.split("\n")[0][:110] for s in warm_statements)
        event.remove(engine.sync_engine, "before_cursor_execute", count)
        server = await bare_figures(application, f"/campaigns/{cid}", token, spy, renders)
    finally:
        await engine.dispose()
    return {
        "entries": entries,
        "chat_lines": chat,
        "renders": renders,
        "p50_ms": statistics.median(times),
        "cpu_p50_ms": statistics.median(cpu),
        "p95_ms": sorted(times)[int(0.95 * (len(times) - 1))],
        "template_from_memory_p50_ms": statistics.median(mem),
        "template_from_memory_cpu_p50_ms": statistics.median(mem_cpu),
        "cpu_ratio": statistics.median(cpu) / statistics.median(mem_cpu),
        "cold_cpu_p50_ms": statistics.median(cold_cpu),
        "cold_cpu_ratio": statistics.median(cold_cpu) / statistics.median(mem_cpu),
        "sql_per_render": sorted(set(counts)),
        "bytes": size,
        "roll_entries_marker_count": shown,
        "statements": [f"{n}× {s}" if n > 1 else s for s, n in sorted(sample.items())],
        **server,
    }


async def bare_figures(
    application: Any, path: str, token: str, spy: TemplateSpy, renders: int
) -> dict[str, float]:
    """The page as served, with nothing kept, and its templates from memory, each timed
    with no instrument installed (the spy's recorded renders are replayed bare)."""
    receive, send, statuses = asgi_channel(b"")
    scope = get_scope(path, token)

    async def page() -> None:
        await application(dict(scope, state={}), receive, send)

    async def cold() -> None:
        rolls_live._RENDERED.clear()
        talk_live._RENDERED.clear()
        await page()

    async def memory() -> None:
        spy.replay()

    for _ in range(5):
        await page()
    served: list[float] = []
    nothing_kept: list[float] = []
    bare: list[float] = []
    for _ in range(renders):  # interleaved: a slower moment of the machine hits all three
        for run, into in ((page, served), (cold, nothing_kept), (memory, bare)):
            t = time.process_time()
            await run()
            into.append((time.process_time() - t) * 1000)
    assert statuses == {200}, statuses
    server, nothing, template = (statistics.median(x) for x in (served, nothing_kept, bare))
    return {
        "server_cpu_p50_ms": server,
        "server_cold_cpu_p50_ms": nothing,
        "server_template_cpu_p50_ms": template,
        "server_cpu_ratio": server / template,
        "server_cold_cpu_ratio": nothing / template,
    }


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--db", required=True)
    p.add_argument("--entries", type=int, default=200)
    p.add_argument("--renders", type=int, default=100)
    p.add_argument(
        "--chat", type=int, default=0, help="chat lines posted before (the panel shows 20)"
    )
    a = p.parse_args()
    print(json.dumps(asyncio.run(measure(a.db, a.entries, a.renders, a.chat))))


if __name__ == "__main__":
    main()
