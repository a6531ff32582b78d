"""Live streams at scale alone: ``bench/run.py``'s "cost as work grows" (§7) and idle-stream
(§3) scenarios against one ``tafelrunde serve`` on PostgreSQL, without the baseline.

    PYTHONPATH=$PWD .venv/bin/python -m bench.streams --campaigns 1,1000 --idle 10000

Prints one JSON object: per campaign count the CPU per roll (``/proc``, as ``bench/run.py``),
and for the idle streams the RSS per stream and the fan-out of one roll to all of them.
``--app-root DIR`` serves another checkout (e.g. ``git archive`` of the commit before) with
this harness, for before/after figures from the same load generator.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import loadgen  # noqa: E402
from bench.loadgen import ServiceTarget  # noqa: E402
from bench.run import VENV_BIN, Server, drop_db, free_port, quiesce, raise_nofile, recreate_db  # noqa: E402  # noqa: E402


def start_service(pg: str, db: str, app_root: Path) -> Server:
    recreate_db(pg, db)
    env = dict(os.environ)
    env.update(
        PYTHONPATH=str(app_root),
        TAFELRUNDE_DATABASE_URL=f"{pg.replace('postgresql://', 'postgresql+asyncpg://')}/{db}",
        TAFELRUNDE_SECRET_KEY="bench-secret",
        TAFELRUNDE_ARGON2_TIME_COST="1",
        TAFELRUNDE_ARGON2_MEMORY_KIB="8192",
        TAFELRUNDE_WRITE_RATE_PER_MINUTE="1000000",
        TAFELRUNDE_WRITE_BURST="1000000",
        # The idle streams all stay open: the caps (20 per user / login) would evict them.
        TAFELRUNDE_STREAMS_PER_USER="1000000",
        TAFELRUNDE_STREAMS_PER_CREDENTIAL="1000000",
    )
    port = free_port()
    cmd = [str(VENV_BIN / "python"), "-m", "app.cli", "serve", "--port", str(port)]
    server = Server("streams", cmd, env, port, cwd=app_root)
    server.start()
    return server


async def scenarios(server: Server, campaigns: list[int], idle: int, rate: float) -> dict[str, Any]:
    import aiohttp

    svc = ServiceTarget(f"http://127.0.0.1:{server.port}", server.pid)
    async with aiohttp.ClientSession() as http:
        await svc.prepare(http, 50)
    out: dict[str, Any] = {"pid": server.pid, "scale": [], "idle": None}
    for n in campaigns:
        r = await loadgen.delivery(svc, n, 2, rate, 8.0)
        r["rss_kib"] = loadgen.rss_kib(svc.pid)
        out["scale"].append(r)
        print(f"[scale {n}] cpu/roll {r['server_cpu_ms_per_roll']:.2f} ms", file=sys.stderr)
        await quiesce(server)
    if idle:
        out["idle"] = await loadgen.idle_streams(svc, idle)
        fan = out["idle"]["fanout"]
        print(
            f"[idle {idle}] {out['idle']['kib_per_stream']:.1f} KiB/stream, "
            f"fan-out p50/p99 {fan['p50']:.0f}/{fan['p99']:.0f} ms lost {fan['lost']}",
            file=sys.stderr,
        )
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--pg", default=os.environ.get("BENCH_PG", "postgresql://postgres@127.0.0.1"))
    p.add_argument("--db", default="bench_streams")
    p.add_argument("--campaigns", default="1,1000", help="comma-separated campaign counts")
    p.add_argument("--idle", type=int, default=10000, help="idle streams (0: none)")
    p.add_argument("--rate", type=float, default=20.0, help="rolls per second")
    p.add_argument("--app-root", type=Path, default=ROOT, help="checkout to serve")
    a = p.parse_args()
    raise_nofile()
    camps = [int(c) for c in a.campaigns.split(",") if c]
    server = start_service(a.pg, a.db, a.app_root.resolve())
    try:
        res = asyncio.run(scenarios(server, camps, a.idle, a.rate))
    finally:
        server.stop()
        drop_db(a.pg, a.db)
    res["load1"] = os.getloadavg()[0]
    print(json.dumps(res, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
