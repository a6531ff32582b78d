"""RSS per idle SSE stream over real uvicorn servers: ``bench/run.py``'s idle part (§3) alone,
service and baseline side by side.

    PYTHONPATH=$PWD .venv/bin/python -m bench.idle_rss --streams 2000 --rounds 2

Starts one ``tafelrunde serve`` (from ``--app-root``, e.g. ``git archive`` of the commit
before, so before and after run under the same harness) and ``bench/baseline_app.py``, each
on its own fresh database (``--db`` with ``_svc`` / ``_base``), then opens ``--streams`` idle
streams on one campaign against each in turn (``bench.loadgen.idle_streams``), ``--rounds``
times on fresh servers, alternating who goes first. Prints one JSON object: KiB of RSS per
stream for each and the ratio service / baseline per round.
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
from bench.loadgen import BaselineTarget, ServiceTarget, Target  # noqa: E402
from bench.run import VENV_BIN, Server, drop_db, free_port, quiesce, raise_nofile, recreate_db  # noqa: E402


def _env(pg: str, db: str, app_root: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        PYTHONPATH=str(app_root),
        TAFELRUNDE_DATABASE_URL=f"{pg.replace('postgresql://', 'postgresql+asyncpg://')}/{db}_svc",
        TAFELRUNDE_SECRET_KEY="bench-secret",
        TAFELRUNDE_ARGON2_TIME_COST="1",
        TAFELRUNDE_ARGON2_MEMORY_KIB="8192",
        TAFELRUNDE_WRITE_RATE_PER_MINUTE="1000000",
        TAFELRUNDE_WRITE_BURST="1000000",
        # Every stream stays open: the caps (20 per user / login) would evict all but 1,000.
        TAFELRUNDE_STREAMS_PER_USER="1000000",
        TAFELRUNDE_STREAMS_PER_CREDENTIAL="1000000",
        BENCH_DATABASE_URL=f"{pg}/{db}_base",
    )
    return env


def start(pg: str, db: str, app_root: Path) -> tuple[Server, Server]:
    recreate_db(pg, f"{db}_svc")
    recreate_db(pg, f"{db}_base")
    sp, bp = free_port(), free_port()
    cmd = [str(VENV_BIN / "python"), "-m", "app.cli", "serve", "--port", str(sp)]
    service = Server("idle-service", cmd, _env(pg, db, app_root), sp, cwd=app_root)
    baseline = Server(
        "idle-baseline",
        [str(VENV_BIN / "python"), "-m", "uvicorn", "bench.baseline_app:app", "--port", str(bp)],
        _env(pg, db, ROOT),
        bp,
    )
    service.start()
    baseline.start()
    return service, baseline


async def one_round(service: Server, baseline: Server, n: int, i: int) -> dict[str, Any]:
    """Both servers fresh: ``n`` idle streams on each, in turn (who goes first alternates)."""
    import aiohttp

    svc = ServiceTarget(f"http://127.0.0.1:{service.port}", service.pid)
    base = BaselineTarget(f"http://127.0.0.1:{baseline.port}", baseline.pid)
    async with aiohttp.ClientSession() as http:
        await svc.prepare(http, 50)
    row: dict[str, Any] = {}
    targets: list[Target] = [svc, base] if i % 2 == 0 else [base, svc]
    for t in targets:
        r = await loadgen.idle_streams(t, n)
        fan = r["fanout"]
        row[t.name] = {
            "kib_per_stream": round(r["kib_per_stream"], 1),
            "open_ok": r["open_ok"],
            "lost": fan["lost"],
            "fanout_p50_ms": round(fan["p50"], 1),
        }
        print(f"[round {i + 1}] {t.name}: {row[t.name]}", file=sys.stderr, flush=True)
        await quiesce(service, baseline)
    row["ratio"] = round(row["service"]["kib_per_stream"] / row["baseline"]["kib_per_stream"], 2)
    return row


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--pg", default=os.environ.get("BENCH_PG", "postgresql://postgres@127.0.0.1"))
    p.add_argument("--db", default="idle_db", help="database name prefix (_svc, _base)")
    p.add_argument("--streams", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--app-root", type=Path, default=ROOT, help="checkout the service runs from")
    a = p.parse_args()
    raise_nofile()
    res = []
    for i in range(a.rounds):  # fresh servers each round: RSS freed by a round is not reused
        service, baseline = start(a.pg, a.db, a.app_root.resolve())
        try:
            res.append(asyncio.run(one_round(service, baseline, a.streams, i)))
        finally:
            service.stop()
            baseline.stop()
            drop_db(a.pg, f"{a.db}_svc")
            drop_db(a.pg, f"{a.db}_base")
    print(
        json.dumps(
            {"app_root": str(a.app_root), "rounds": res, "load1": os.getloadavg()[0]}, indent=1
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
