"""CPU per roll of the service against a Node + socket.io stand-in of Foundry VTT's roll
path and against the bare baseline, at the same load in the same run (issue 29: «≤ 2× a
Node + socket.io stand-in», «≤ 1.5× the bare baseline»).

    .venv/bin/python -m bench.node_standin --pg postgresql://postgres@127.0.0.1

Set-up (its own): ``npm ci`` in ``bench/node_standin`` (socket.io, socket.io-client and
node-postgres from the npm registry, versions locked in its ``package-lock.json``), then
three servers on fresh databases — the service (``tafelrunde serve``), the bare baseline
(``bench/baseline_asyncpg.py``: Starlette on raw asyncpg, INSERT + NOTIFY, SSE;
``BENCH_BASELINE=sqlalchemy`` for ``bench/baseline_app.py``) and the stand-in
(``bench/node_standin/server.js``: sign-in per connection, membership check per roll,
server dice, one INSERT with the campaign's gap-free seq, a room broadcast). Each round
puts ``--campaigns`` × ``--viewers`` watchers on each server and ``--rate`` rolls/s for
``--duration`` s, the servers in turn (the order rotating per round); the service's and the
baseline's load is ``bench/loadgen.py`` (POST + SSE), the stand-in's
``bench/node_standin/loadgen.js`` (socket.io). Server CPU from ``/proc`` over the load
phase, per roll; prints one JSON object with each round and the medians' ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
from pathlib import Path
from typing import Any

import psycopg

from bench import loadgen
from bench.loadgen import BaselineTarget, ServiceTarget
from bench.run import Server, free_port, quiesce, recreate_db, start_servers

DIR = Path(__file__).resolve().parent / "node_standin"
SCHEMA = """
CREATE TABLE node_user (id integer PRIMARY KEY, token text NOT NULL UNIQUE);
CREATE TABLE node_campaign (id integer PRIMARY KEY, last_seq integer NOT NULL DEFAULT 0);
CREATE TABLE node_member (
    user_id integer REFERENCES node_user, campaign_id integer REFERENCES node_campaign,
    role text NOT NULL, PRIMARY KEY (user_id, campaign_id));
CREATE TABLE node_event (
    id bigserial PRIMARY KEY, campaign_id integer NOT NULL REFERENCES node_campaign,
    seq integer NOT NULL, actor_id integer NOT NULL, payload jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(), UNIQUE (campaign_id, seq));
"""


def install_node_packages() -> None:
    """The stand-in's own set-up: its locked packages from the npm registry."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise SystemExit("bench.node_standin needs node and npm")
    if not (DIR / "node_modules" / "socket.io").is_dir():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=DIR, check=True)


def seed(dsn: str, camps: int, viewers: int) -> None:
    """Users ``tok<id>`` (``loadgen.js`` numbers them the same way), campaigns, members."""
    per = viewers + 1
    with psycopg.connect(dsn, autocommit=True) as db:
        db.execute(SCHEMA)
        with db.cursor() as cur:
            cur.executemany(
                "INSERT INTO node_user VALUES (%s, %s)",
                [(i, f"tok{i}") for i in range(1, camps * per + 1)],
            )
            cur.executemany(
                "INSERT INTO node_campaign (id) VALUES (%s)", [(c,) for c in range(1, camps + 1)]
            )
            cur.executemany(
                "INSERT INTO node_member VALUES (%s, %s, 'player')",
                [((c - 1) * per + v + 1, c) for c in range(1, camps + 1) for v in range(per)],
            )


def start_standin(pg: str, camps: int, viewers: int) -> Server:
    recreate_db(pg, "bench_node_standin")
    seed(f"{pg}/bench_node_standin", camps, viewers)
    port = free_port()
    env = dict(os.environ, BENCH_DATABASE_URL=f"{pg}/bench_node_standin", PORT=str(port))
    server = Server("node-standin", ["node", "server.js"], env, port, cwd=DIR)
    server.start()
    return server


async def standin_round(
    server: Server, camps: int, viewers: int, rate: float, duration: float
) -> dict[str, Any]:
    proc = await asyncio.create_subprocess_exec(
        "node", "loadgen.js", f"http://127.0.0.1:{server.port}", str(camps), str(viewers),
        str(rate), str(duration), "1", cwd=DIR, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    if await proc.stdout.readline() != b"ready\n":
        raise RuntimeError("the stand-in's load generator did not get ready")
    cpu0 = loadgen.cpu_seconds(server.pid)
    proc.stdin.write(b"go\n")
    await proc.stdin.drain()
    result: dict[str, Any] = json.loads(await proc.stdout.readline())
    cpu = loadgen.cpu_seconds(server.pid) - cpu0
    await proc.wait()
    result.update(
        target="node-standin", server_cpu_ms_per_roll=cpu * 1000 / max(1, result["posted"])
    )
    return result


def _median(rounds: list[dict[str, Any]], target: str, key: str) -> float:
    return statistics.median(float(r[key]) for r in rounds if r["target"] == target)


async def measure(
    pg: str, rounds: int, camps: int, viewers: int, rate: float, duration: float
) -> dict[str, Any]:
    install_node_packages()
    service, baseline = start_servers(pg, "_node")
    standin = start_standin(pg, camps, viewers)
    svc = ServiceTarget(f"http://127.0.0.1:{service.port}", service.pid)
    base = BaselineTarget(f"http://127.0.0.1:{baseline.port}", baseline.pid)
    out: list[dict[str, Any]] = []
    try:
        import aiohttp

        async with aiohttp.ClientSession() as http:
            await svc.prepare(http, 8)
        order: list[Any] = [svc, base, standin]
        for rnd in range(rounds):
            for t in order[rnd % 3 :] + order[: rnd % 3]:
                if t is standin:
                    r = await standin_round(standin, camps, viewers, rate, duration)
                else:
                    r = await loadgen.delivery(t, camps, viewers, rate, duration)
                r["round"] = rnd + 1
                out.append(r)
                print(
                    json.dumps(
                        {
                            k: r.get(k)
                            for k in (
                                "round",
                                "target",
                                "posted",
                                "lost",
                                "dup",
                                "p50",
                                "p99",
                                "server_cpu_ms_per_roll",
                            )
                        }
                    ),
                    flush=True,
                )
                await quiesce(service, baseline)
    finally:
        for s in (service, baseline, standin):
            s.stop()
    cpu = {
        t: _median(out, t, "server_cpu_ms_per_roll")
        for t in ("service", "baseline", "node-standin")
    }
    p50 = {t: _median(out, t, "p50") for t in ("service", "baseline", "node-standin")}
    return {
        "load": f"{camps} campaigns x {viewers} viewers, {rate:g} rolls/s for {duration:g} s",
        "rounds": out,
        "median_cpu_ms_per_roll": cpu,
        "median_p50_ms": p50,
        "cpu_service_over_baseline": round(cpu["service"] / cpu["baseline"], 2),
        "cpu_service_over_node": round(cpu["service"] / cpu["node-standin"], 2),
        "p50_service_over_baseline": round(p50["service"] / p50["baseline"], 2),
        "p50_service_over_node": round(p50["service"] / p50["node-standin"], 2),
        "lost": sum(int(r["lost"]) for r in out),
        "duplicated": sum(int(r["dup"]) for r in out),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument(
        "--pg", default="postgresql://postgres@127.0.0.1", help="server URL, no database"
    )
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--campaigns", type=int, default=20)
    p.add_argument("--viewers", type=int, default=8)
    p.add_argument("--rate", type=float, default=100.0)
    p.add_argument("--duration", type=float, default=10.0)
    a = p.parse_args()
    result = asyncio.run(measure(a.pg, a.rounds, a.campaigns, a.viewers, a.rate, a.duration))
    print(json.dumps(result))
    errors = sum(int(r["post_errors"]) for r in result["rounds"])
    if result["lost"] or result["duplicated"] or errors:
        raise SystemExit(
            f"lost {result['lost']}, duplicated {result['duplicated']}, errors {errors}"
        )


if __name__ == "__main__":
    main()
