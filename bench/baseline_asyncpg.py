"""The bare baseline on raw asyncpg: issue 29's "bare Starlette + asyncpg" roll pipeline.

The same work as ``bench/baseline_app.py`` (which runs it through SQLAlchemy Core on
psycopg), with nothing between Starlette and the driver: per ``POST`` one ``INSERT`` (the
gap-free ``seq`` taken in the same statement) and one ``pg_notify`` in a transaction on a
pooled asyncpg connection (statements prepared once per connection); a ``LISTEN`` connection
fans each notification out to the campaign's SSE streams. Same tables, payload, frames and
answers. No auth, rules, templates, visibility filtering or resume.

Run: ``BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1/bench_base \\
      uvicorn bench.baseline_asyncpg:app --port 8102``
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from bench.baseline_app import (
    CHANNEL,
    DDL,
    Hub,
    baseline_app,
    database_url,
    listening,
    roll_answer,
    roll_payload,
    sse_frame,
)

INSERT = (
    "WITH s AS (UPDATE bench_campaign SET last_seq = last_seq + 1 WHERE id = $1"
    " RETURNING last_seq)"
    " INSERT INTO bench_event (campaign_id, seq, payload) SELECT $1, last_seq, $2 FROM s"
    " RETURNING seq"
)
NOTIFY = "SELECT pg_notify($1, $2)"

hub = Hub()
_pool: list[asyncpg.Pool] = []


async def pool() -> asyncpg.Pool:
    """The connection pool, made on first use (in the lifespan, or by a harness that calls
    the app without running its lifespan)."""
    if not _pool:
        _pool.append(await asyncpg.create_pool(database_url(), min_size=1, max_size=30))
    return _pool[0]


async def close() -> None:
    if _pool:
        await _pool.pop().close()


def _fan_out(_conn: Any, _pid: int, _channel: str, message: str) -> None:
    cid, _, frame = message.partition(":")
    hub.publish(int(cid), frame)


async def _listen_once() -> None:
    """Fan notifications out until the LISTEN connection is lost."""
    conn = await asyncpg.connect(database_url())
    lost = asyncio.Event()
    conn.add_termination_listener(lambda _conn: lost.set())
    try:
        await conn.add_listener(CHANNEL, _fan_out)
        await lost.wait()
    finally:
        await conn.close()


async def _listen() -> None:
    while True:
        try:
            await _listen_once()
        except asyncio.CancelledError:
            raise
        except Exception:  # reconnect, like the service
            pass
        await asyncio.sleep(0.5)


@asynccontextmanager
async def lifespan(_app: Starlette) -> AsyncIterator[None]:
    async with (await pool()).acquire() as conn:
        for stmt in DDL:
            await conn.execute(stmt)
    async with listening(_listen):
        yield
    await close()


async def create_campaign(_request: Request) -> Response:
    async with (await pool()).acquire() as conn:
        cid = await conn.fetchval("INSERT INTO bench_campaign DEFAULT VALUES RETURNING id")
    return JSONResponse({"id": cid}, status_code=201)


async def roll(request: Request) -> Response:
    cid = int(request.path_params["cid"])
    body = await request.json()
    payload = roll_payload(body)
    visibility = body.get("visibility", "public")
    async with (await pool()).acquire() as conn, conn.transaction():
        seq = await conn.fetchval(INSERT, cid, json.dumps(payload))
        frame = sse_frame(seq, payload, visibility)
        await conn.execute(NOTIFY, CHANNEL, f"{cid}:{frame}")
    return roll_answer(seq, payload, visibility)


app = baseline_app(create_campaign, roll, hub, lifespan)
