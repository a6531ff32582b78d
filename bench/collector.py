"""The garbage collector's passes on a move with line of sight to 8 viewers (``bench.map``),
with CPython's thresholds against the served app's (``app.main._fewer_collections``).

Each side runs in a process of its own on a fresh database: the app is built, what its
start left is collected and frozen (as the served app's lifespan does), the served side
then takes the served app's thresholds; then ``bench.map``'s moves and rolls run with a
``gc.callbacks`` hook timing every pass. Prints one JSON object: per round and side, the
passes per generation, their time in all, the longest one (the event loop stands still
meanwhile), the move's CPU (p50 and mean) and the process's CPU for the measurement.

    python -m bench.collector [--pg postgresql+asyncpg://postgres@127.0.0.1] [--moves 300]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from app.config import Settings
from bench import map as map_bench
from bench.roll_request import ROOT, recreate


class Passes:
    """Every pass of the collector while installed: count, time in all, longest, per
    generation."""

    def __init__(self) -> None:
        self.by_generation = {g: {"passes": 0, "ms": 0.0, "longest_ms": 0.0} for g in range(3)}
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        took = (time.perf_counter() - self._started) * 1000
        one = self.by_generation[info["generation"]]
        one["passes"] += 1
        one["ms"] += took
        one["longest_ms"] = max(one["longest_ms"], took)


def _settled(served: bool, passes: Passes) -> Any:
    """``create_app`` as the served app's start leaves it (``app.main``'s lifespan), the
    passes counted from then on."""
    from app import main

    def build(settings: Settings) -> Any:
        app = main.create_app(settings)
        gc.collect()
        gc.freeze()
        if served:
            main._fewer_collections()
        gc.callbacks.append(passes)
        return app

    return build


def side(db: str, moves: int, served: bool) -> dict[str, Any]:
    passes = Passes()
    map_bench.create_app = _settled(served, passes)  # type: ignore[attr-defined]
    cpu = time.process_time()
    result = asyncio.run(map_bench.measure(db, moves, with_sight=True))
    cpu = time.process_time() - cpu
    gc.callbacks.remove(passes)
    move = result["move_to_8"]
    generations = passes.by_generation
    return {
        "thresholds": gc.get_threshold(),
        "passes": {str(g): {k: round(v, 1) for k, v in p.items()} for g, p in generations.items()},
        "collector_ms": round(sum(one["ms"] for one in generations.values()), 1),
        "longest_pass_ms": round(max(one["longest_ms"] for one in generations.values()), 1),
        "move_cpu_p50_ms": move["cpu_p50_ms"],
        "move_cpu_mean_ms": move["cpu_mean_ms"],
        "move_p99_ms": move["p99_ms"],
        "process_cpu_s": round(cpu, 2),
    }  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--pg", default="postgresql+asyncpg://postgres@127.0.0.1")
    p.add_argument("--moves", type=int, default=300)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--side", choices=("default", "served"), help=argparse.SUPPRESS)
    p.add_argument("--db", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.side:
        print(json.dumps(side(a.db, a.moves, a.side == "served")))
        return
    rounds = []
    for i in range(a.rounds):
        order = ("default", "served") if i % 2 == 0 else ("served", "default")
        one: dict[str, Any] = {}
        for name in order:
            db = f"{a.pg}/bench_collector_{name}"
            recreate(db, Path(ROOT))
            out = subprocess.run(
                [sys.executable, "-m", "bench.collector", "--side", name, "--db", db,
                 "--moves", str(a.moves)],
                check=True, capture_output=True, text=True,
            )  # fmt: skip
            one[name] = json.loads(out.stdout.strip().splitlines()[-1])
        rounds.append(one)
    print(json.dumps({"moves": a.moves, "rounds": rounds}, indent=1))


if __name__ == "__main__":
    main()
