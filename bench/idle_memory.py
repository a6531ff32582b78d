"""In-process memory per idle SSE stream: the service's JSON event stream and the baseline's.

Opens N idle streams on one campaign by calling each app's ASGI callable directly (no
sockets, no uvicorn: what is measured is what the app itself keeps per stream), waits until
every stream has sent its response headers and gone quiet, and reports the Python heap it
gained per stream (``tracemalloc``), plus the allocation sites that hold the most. The
baseline is ``bench/baseline_app.py`` (a bare Starlette ``StreamingResponse`` over a queue)
driven the same way, in the same process, one after the other.

``python -m bench.idle_memory --db postgresql+asyncpg://postgres@127.0.0.1/bench_x --streams 500``
prints one JSON object. RSS (``bench/run.py``'s figure) also holds what the server's
sockets and uvicorn's protocol objects cost; this figure is the app's part of it.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib
import json
import os
import time
import tracemalloc
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import httpx

from app.config import Settings
from app.main import create_app

PASSWORD = "bench-password-4711"
Message = MutableMapping[str, Any]
ASGIApp = Callable[[Message, Callable[[], Awaitable[Message]], Callable[[Message], Any]], Any]


class Idle:
    """One idle client: never sends a disconnect until told to, records what it got."""

    def __init__(self) -> None:
        self.status = 0
        self.started = asyncio.Event()
        self.gone = asyncio.Event()

    async def receive(self) -> Message:
        await self.gone.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.started.set()


def _scope(path: str, query: str, headers: dict[str, str]) -> Message:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "client": ("127.0.0.1", 40000),
        "server": ("bench", 80),
        "state": {},
    }


async def _open(
    app: ASGIApp, scope: Message, n: int, settle: float
) -> tuple[list[Idle], list[asyncio.Task[Any]], float, list[tracemalloc.StatisticDiff]]:
    """Open ``n`` streams; the heap they added (bytes) and where most of it was allocated."""
    gc.collect()
    before = tracemalloc.take_snapshot()
    used0 = tracemalloc.get_traced_memory()[0]
    clients = [Idle() for _ in range(n)]
    tasks = []
    for i, c in enumerate(clients):
        s = dict(scope, client=("127.0.0.1", 40000 + i), state={})
        tasks.append(asyncio.create_task(app(s, c.receive, c.send)))
        if i % 100 == 99:
            await asyncio.sleep(0)
    await asyncio.wait_for(asyncio.gather(*(c.started.wait() for c in clients)), 120)
    await asyncio.sleep(settle)
    gc.collect()
    used1 = tracemalloc.get_traced_memory()[0]
    after = tracemalloc.take_snapshot()
    return clients, tasks, (used1 - used0), after.compare_to(before, "lineno")[:12]


async def _close(clients: list[Idle], tasks: list[asyncio.Task[Any]]) -> None:
    for c in clients:
        c.gone.set()
    _done, pending = await asyncio.wait(tasks, timeout=30)
    for t in pending:
        t.cancel()


def _report(name: str, n: int, clients: list[Idle], used: float, top: Any) -> dict[str, Any]:
    return {
        "target": name,
        "streams": n,
        "status_200": sum(1 for c in clients if c.status == 200),
        "kib_per_stream": round(used / n / 1024, 2),
        "top": [
            f"{s.size_diff / n:.0f} B/stream {s.count_diff / n:.1f} blocks "
            f"{s.traceback[0].filename.rsplit('site-packages/', 1)[-1]}:{s.traceback[0].lineno}"
            for s in top
        ],
    }


async def service(db: str, n: int, settle: float) -> dict[str, Any]:
    settings = Settings(
        database_url=db, secret_key="x", argon2_time_cost=1, argon2_memory_kib=8192,
        write_rate_per_minute=10**6, write_burst=10**5,
        # Every stream stays open: the caps (20 per user / login) would evict all but 20.
        streams_per_user=10**6, streams_per_credential=10**6,
    )  # fmt: skip
    application = create_app(settings)
    async with application.router.lifespan_context(application):
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as c:
            name = f"idle_{int(time.time() * 1000) % 10**9}"
            body = {"username": name, "password": PASSWORD}
            assert (await c.post("/api/v1/auth/register", json=body)).status_code == 201
            token = (await c.post("/api/v1/auth/login", json=body)).json()["token"]
            h = {"Authorization": f"Bearer {token}"}
            r = await c.post("/api/v1/campaigns", json={"name": "I", "system": "hh"}, headers=h)
            cid = r.json()["id"]
        scope = _scope(f"/api/v1/campaigns/{cid}/events", "after=0", h)
        # One stream first: the first request's one-time costs (caches, pool) are not a stream's.
        warm, warm_tasks, _used, _sites = await _open(application, scope, 1, 0.5)
        clients, tasks, used, top = await _open(application, scope, n, settle)
        await _close(clients + warm, tasks + warm_tasks)
    return _report("service", n, clients, used, top)


async def baseline(db: str, n: int, settle: float) -> dict[str, Any]:
    os.environ["BENCH_DATABASE_URL"] = db
    module = importlib.import_module("bench.baseline_app")
    application = module.app
    async with application.router.lifespan_context(application):
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as c:
            cid = (await c.post("/campaigns")).json()["id"]
        scope = _scope(f"/campaigns/{cid}/events", "", {})
        warm, warm_tasks, _used, _sites = await _open(application, scope, 1, 0.5)
        clients, tasks, used, top = await _open(application, scope, n, settle)
        await _close(clients + warm, tasks + warm_tasks)
    return _report("baseline", n, clients, used, top)


async def measure(db: str, n: int, settle: float) -> dict[str, Any]:
    tracemalloc.start(1)
    try:
        s = await service(db, n, settle)
        b = await baseline(db, n, settle)
    finally:
        tracemalloc.stop()
    return {
        "service": s,
        "baseline": b,
        "ratio": round(s["kib_per_stream"] / b["kib_per_stream"], 2),
    }


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--db", required=True)
    p.add_argument("--streams", type=int, default=500)
    p.add_argument("--settle", type=float, default=2.0)
    a = p.parse_args()
    print(json.dumps(asyncio.run(measure(a.db, a.streams, a.settle)), indent=1))


if __name__ == "__main__":
    main()
