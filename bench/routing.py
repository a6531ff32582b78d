"""What finding a request's route costs, with the routers' quick check and without.

FastAPI asks the app's included routers in turn whether a path is theirs. With
``app.web.routers.Router`` a router that has no route for the path says so in one regular
expression; without it (the baseline, measured in the same run on the same app) it tries
each of its routes. For the paths of a game night and of a browser at the table, this
prints CPU µs per resolution both ways and their ratio, as one JSON object:

    PYTHONPATH=. .venv/bin/python -m bench.routing [--rounds 5 --repeat 2000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from typing import Any

from fastapi.routing import _IncludedRouter
from starlette.routing import Match

from app.config import Settings
from app.main import create_app

PATHS = (
    ("POST", "/api/v1/campaigns/1/rolls"),
    ("POST", "/api/v1/campaigns/1/messages"),
    ("POST", "/api/v1/campaigns/1/encounters/2/actions/attack"),
    ("POST", "/api/v1/campaigns/1/scenes/2/tokens/3/move"),
    ("GET", "/api/v1/campaigns/1/events"),
    ("GET", "/campaigns/1"),
    ("GET", "/campaigns/1/scenes/2"),
    ("GET", "/campaigns/1/encounters/2"),
    ("GET", "/static/app.css"),
)


def _scope(method: str, path: str) -> dict[str, Any]:
    return {"type": "http", "path": path, "method": method, "root_path": "",
            "headers": [], "query_string": b""}  # fmt: skip


def _resolve(routes: list[Any], scope: dict[str, Any], quick: bool) -> None:
    """The app router's first pass: the first route or router that matches fully."""
    for route in routes:
        if isinstance(route, _IncludedRouter) and not quick:
            match = route._match(dict(scope))[0]  # every route of the router, one by one
        else:
            match = route.matches(dict(scope))[0]
        if match == Match.FULL:
            return


def _cpu_us(routes: list[Any], scope: dict[str, Any], quick: bool, repeat: int) -> float:
    start = time.process_time()
    for _ in range(repeat):
        _resolve(routes, scope, quick)
    return (time.process_time() - start) * 1e6 / repeat


def measure(rounds: int, repeat: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(Settings(database_url=f"sqlite+aiosqlite:///{tmp}/r.db", secret_key="x"))
        routes = list(app.router.routes)
        out: dict[str, Any] = {}
        for method, path in PATHS:
            scope = _scope(method, path)
            runs: dict[bool, list[float]] = {True: [], False: []}
            for rnd in range(rounds):
                for quick in (True, False) if rnd % 2 == 0 else (False, True):
                    runs[quick].append(_cpu_us(routes, scope, quick, repeat))
            quick_us, full_us = statistics.median(runs[True]), statistics.median(runs[False])
            out[f"{method} {path}"] = {
                "quick_us": round(quick_us, 1),
                "one_by_one_us": round(full_us, 1),
                "quick_over_one_by_one": round(quick_us / full_us, 2),
            }
    return {"rounds": rounds, "repeat": repeat, "cpu_per_resolution": out}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--repeat", type=int, default=2000)
    a = p.parse_args()
    print(json.dumps(measure(a.rounds, a.repeat), indent=1))


if __name__ == "__main__":
    main()
