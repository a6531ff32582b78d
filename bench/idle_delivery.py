"""One roll at a time on an otherwise idle server: where a roll's latency goes besides CPU.

    .venv/bin/python -m bench.idle_delivery --pg postgresql://postgres@127.0.0.1

One group of ``bench.game_night`` (a GM and four players, each following the campaign page
as a browser tab does: ``--screens tab``) on a served process; the players post ``--rolls``
rolls one after another, ``--gap`` seconds apart, as an API client (JSON, the answer names
the ``seq``) and then as the roll dialog (``--posts form``: its mark read from the log
afterwards), twice each, alternating. Per round: the answer's p50 (post → answer) and the
last of the five screens' p50 and p90 (post → the roll on every screen). Then the bare
baseline (``bench/baseline_asyncpg.py``) posts as many rolls at the same pace to one
campaign with five viewers (``loadgen.delivery``). Nothing else runs: on a VM whose cores
sleep between requests, each hop between processes (client, server, PostgreSQL) waits for
a core to wake, and these figures show that cost, which the loaded evening hides.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from typing import Any

import aiohttp

from bench import combat_live, game_night, loadgen
from bench.run import quiesce, raise_nofile, start_servers

PEOPLE = game_night.PEOPLE


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))], 2)


async def _round(
    http: aiohttp.ClientSession, pg: str, group: game_night.Group, posts: str, rolls: int,
    gap: float,
) -> dict[str, Any]:  # fmt: skip
    """``rolls`` rolls one at a time: the answers' and the last screens' figures (ms)."""
    group.sent.clear()
    group.kinds.clear()
    answers = []
    for i in range(rolls):
        sent = time.monotonic()
        if posts == "form":
            await game_night._post_form(http, group, "roll", 1 + i % (PEOPLE - 1), sent)
        else:
            await game_night._post_api(http, group, "roll", 1 + i % (PEOPLE - 1), sent)
        answers.append((time.monotonic() - sent) * 1000)
        await asyncio.sleep(gap)
    await game_night._resolve_marks(pg, [group])
    await asyncio.sleep(0.5)
    last = [
        (max(s.arrived[seq] for s in group.streams) - when) * 1000
        for seq, when in group.sent.items()
        if all(seq in s.arrived for s in group.streams)
    ]
    return {
        "posts": posts,
        "answer_p50_ms": _pct(answers, 0.5),
        "last_screen_p50_ms": _pct(last, 0.5),
        "last_screen_p90_ms": _pct(last, 0.9),
        "delivered": len(last),
        "errors": group.errors,
    }


async def measure(pg: str, rolls: int, gap: float) -> dict[str, Any]:
    raise_nofile()
    service, baseline = start_servers(pg, "_idle")
    combat_live.DB = "bench_perf_app_idle"  # where ``build`` reads the observers' code
    rounds = []
    try:
        await quiesce(service, baseline, limit=20)
        base = f"http://127.0.0.1:{service.port}"
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector, timeout=loadgen.NO_TIMEOUT) as http:
            (group,) = await game_night._groups(http, [base], pg, 1)
            tasks = [
                asyncio.create_task(game_night._follow_tab(http, base, group.fight.cid, s))
                for s in group.streams
            ]
            await asyncio.gather(*(s.connected.wait() for s in group.streams))
            await asyncio.sleep(1.0)
            for posts in ("api", "form", "api", "form"):
                rounds.append(await _round(http, pg, group, posts, rolls, gap))
            await loadgen.close_viewers(tasks)
        await quiesce(service, baseline, limit=20)
        target = loadgen.BaselineTarget(f"http://127.0.0.1:{baseline.port}", baseline.pid)
        bare = await loadgen.delivery(target, 1, PEOPLE, 1 / gap, rolls * gap)
    finally:
        service.stop()
        baseline.stop()
    return {
        "rolls": rolls,
        "gap_s": gap,
        "rounds": rounds,
        "service_last_screen_p50_ms": statistics.median(r["last_screen_p50_ms"] for r in rounds),
        "baseline": {"p50_ms": bare["p50"], "p99_ms": bare["p99"]},
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--pg", default="postgresql://postgres@127.0.0.1")
    p.add_argument("--rolls", type=int, default=60)
    p.add_argument("--gap", type=float, default=0.15, help="seconds between two rolls")
    a = p.parse_args()
    print(json.dumps(asyncio.run(measure(a.pg, a.rolls, a.gap)), indent=1))


if __name__ == "__main__":
    main()
