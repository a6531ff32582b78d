"""Where a roll request's CPU goes, layer by layer, against the baseline's roll in process.

    .venv/bin/python -m bench.request_floor --db postgresql+asyncpg://postgres@127.0.0.1/bench_floor

Creates the database afresh, migrates it, signs up one player with a campaign and calls, as
ASGI callables in this process (no uvicorn, no network, no streams), POSTs that each add one
layer of the real roll request to the one before:

- ``empty``: a route of the app that returns at once: the middleware, routing and FastAPI;
- ``session``: the request's database session (the ``Session`` dependency), never used;
- ``select 1``: the same session running one statement: pool, transaction, one round trip;
- ``sign-in``: the route of a campaign with the signed-in user (``CurrentUser``): the one
  statement of sign-in, role and campaign row, and the ORM objects it loads;
- ``roll``: the real ``POST /api/v1/campaigns/{id}/rolls``;
- ``core roll``: the raw baseline's roll (its body read, its payload, its INSERT and NOTIFY
  in one transaction, its answer) as a route of the app on the app's engine, through
  SQLAlchemy Core (no ORM session, no sign-in, no rules): the least this stack — FastAPI and
  SQLAlchemy on asyncpg — can do for a roll, a floor under any roll route of the app;
- ``baseline roll``: ``bench/baseline_app.py``'s roll (one INSERT, one NOTIFY, commit through
  SQLAlchemy Core on psycopg), called the same way;
- ``asyncpg baseline roll``: ``bench/baseline_asyncpg.py``'s: the same on raw asyncpg, the
  issue's bare baseline and the denominator of its CPU-per-roll target.

The probe routes are added to the app object here, never to the app's code. Rounds
alternate the layers, and the medians of the rounds are printed as JSON: milliseconds of
this process's CPU per request, and each as a ratio to either baseline's roll.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import uvloop
from fastapi import Request
from fastapi.responses import JSONResponse
from sqlalchemy import text

from app.web.deps import CurrentUser, Session, TransactionalRoute
from bench.roll_request import ROOT, app_for, asgi_channel, post_scope, recreate, sign_up

ASGI = Callable[[MutableMapping[str, Any], Any, Any], Awaitable[None]]
LAYERS = (
    "empty", "session", "select 1", "sign-in", "roll", "core roll", "baseline roll",
    "asyncpg baseline roll",
)  # fmt: skip


def _probes(app: Any, bare: Any) -> None:
    """The probe routes, first in the app's routing so nothing else matches them; of the
    class every route of the app has (it finishes the request's session). ``bare``: the
    module of the raw baseline (imported once the database's URL is set)."""
    # Its two statements in SQLAlchemy's parameter style, for ``core roll``.
    core_insert = text(bare.INSERT.replace("$1", ":cid").replace("$2", ":p"))
    core_notify = text(bare.NOTIFY.replace("$1", ":c").replace("$2", ":m"))

    async def empty() -> JSONResponse:
        return JSONResponse({"ok": True}, status_code=201)

    async def session_only(session: Session) -> JSONResponse:
        return JSONResponse({"ok": True}, status_code=201)

    async def select_one(session: Session) -> JSONResponse:
        await session.execute(text("SELECT 1"))
        return JSONResponse({"ok": True}, status_code=201)

    async def signed_in(user: CurrentUser) -> JSONResponse:
        return JSONResponse({"ok": user.id}, status_code=201)

    async def core_roll(request: Request, cid: int) -> JSONResponse:
        body = await request.json()
        payload = bare.roll_payload(body)
        visibility = body.get("visibility", "public")
        async with app.state.ctx.engine.begin() as conn:
            seq = (
                await conn.execute(core_insert, {"cid": cid, "p": json.dumps(payload)})
            ).scalar_one()
            frame = bare.sse_frame(seq, payload, visibility)
            await conn.execute(core_notify, {"c": bare.CHANNEL, "m": f"{cid}:{frame}"})
        answer: JSONResponse = bare.roll_answer(seq, payload, visibility)
        return answer

    routes: list[tuple[str, Callable[..., Awaitable[JSONResponse]]]] = [
        ("/api/v1/floor/empty", empty),
        ("/api/v1/floor/session", session_only),
        ("/api/v1/floor/select", select_one),
        ("/api/v1/campaigns/{campaign_id}/floor", signed_in),
        ("/api/v1/floor/core/{cid}", core_roll),
    ]
    for path, endpoint in reversed(routes):
        app.router.routes.insert(0, TransactionalRoute(path, endpoint, methods=["POST"]))


async def _baseline_campaign(baseline: Any) -> int:
    async with baseline.engine.begin() as conn:
        for stmt in baseline.DDL:
            await conn.execute(text(stmt))
        row = await conn.execute(text("INSERT INTO bench_campaign DEFAULT VALUES RETURNING id"))
        return int(row.scalar_one())


async def _cpu_per_request(app: ASGI, scope: dict[str, Any], body: bytes, n: int) -> float:
    receive, send, statuses = asgi_channel(body)
    for _ in range(n // 8):  # warm: statement caches, the pool
        await app(dict(scope, state={}), receive, send)
    cpu = time.process_time()
    for _ in range(n):
        await app(dict(scope, state={}), receive, send)
    cpu = time.process_time() - cpu
    assert statuses == {201}, (scope["path"], statuses)
    return cpu * 1000 / n


async def measure(db_url: str, requests: int, rounds: int) -> dict[str, Any]:
    os.environ["BENCH_DATABASE_URL"] = db_url
    import bench.baseline_app as baseline
    import bench.baseline_asyncpg as bare

    app = app_for(db_url)
    _probes(app, bare)
    token, cid = await sign_up(app, "floor")
    base_cid = await _baseline_campaign(baseline)
    body = json.dumps({"expression": "2d20+3", "label": "Probe"}).encode()
    targets: dict[str, tuple[ASGI, str]] = {
        "empty": (app, "/api/v1/floor/empty"),
        "session": (app, "/api/v1/floor/session"),
        "select 1": (app, "/api/v1/floor/select"),
        "sign-in": (app, f"/api/v1/campaigns/{cid}/floor"),
        "roll": (app, f"/api/v1/campaigns/{cid}/rolls"),
        "core roll": (app, f"/api/v1/floor/core/{base_cid}"),
        "baseline roll": (baseline.app, f"/campaigns/{base_cid}/rolls"),
        "asyncpg baseline roll": (bare.app, f"/campaigns/{base_cid}/rolls"),
    }
    gc.collect()
    gc.freeze()  # as the server's lifespan does
    runs: dict[str, list[float]] = {name: [] for name in LAYERS}
    for rnd in range(rounds):
        order = LAYERS if rnd % 2 == 0 else LAYERS[::-1]
        for name in order:
            target, path = targets[name]
            runs[name].append(
                await _cpu_per_request(target, post_scope(path, token, body), body, requests)
            )
    await app.state.ctx.engine.dispose()
    await baseline.engine.dispose()
    await bare.close()
    ms = {name: statistics.median(values) for name, values in runs.items()}
    base, bare_base = ms["baseline roll"], ms["asyncpg baseline roll"]
    return {
        "requests_per_round": requests,
        "rounds": rounds,
        "cpu_ms_per_request": {k: round(v, 3) for k, v in ms.items()},
        "ratio_to_baseline_roll": {k: round(v / base, 2) for k, v in ms.items()},
        "ratio_to_asyncpg_baseline_roll": {k: round(v / bare_base, 2) for k, v in ms.items()},
        "runs": {k: [round(v, 3) for v in values] for k, values in runs.items()},
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--db", required=True, help="postgresql+asyncpg://… of a scratch database")
    p.add_argument("--requests", type=int, default=800, help="requests per layer and round")
    p.add_argument("--rounds", type=int, default=4)
    a = p.parse_args()
    recreate(a.db, ROOT)
    print(json.dumps(uvloop.run(measure(a.db, a.requests, a.rounds))))


if __name__ == "__main__":
    main()
