"""The bare baseline: the least an app can do for the roll pipeline on PostgreSQL.

One ``INSERT`` (with the per-campaign gap-free ``seq`` taken in the same statement) plus one
``NOTIFY`` per ``POST``, committed; a single ``LISTEN`` connection fans each notification out
to the campaign's SSE streams. No auth, rules, templates, visibility filtering or resume.
The payload has the same shape and size as the service's ``roll`` event.

Run: ``BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1/bench_base \\
      uvicorn bench.baseline_app:app --port 8101``
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import psycopg
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

CHANNEL = "bench_events"
DDL = (
    "CREATE TABLE IF NOT EXISTS bench_campaign ("
    " id serial PRIMARY KEY, last_seq integer NOT NULL DEFAULT 0)",
    "CREATE TABLE IF NOT EXISTS bench_event ("
    " id bigserial PRIMARY KEY,"
    " campaign_id integer NOT NULL REFERENCES bench_campaign(id) ON DELETE CASCADE,"
    " seq integer NOT NULL, payload json NOT NULL,"
    " created_at timestamptz NOT NULL DEFAULT now(), UNIQUE (campaign_id, seq))",
)
INSERT = text(
    "WITH s AS (UPDATE bench_campaign SET last_seq = last_seq + 1 WHERE id = :c"
    " RETURNING last_seq)"
    " INSERT INTO bench_event (campaign_id, seq, payload) SELECT :c, last_seq, :p FROM s"
    " RETURNING seq"
)
NOTIFY = text("SELECT pg_notify(:ch, :msg)")


def database_url() -> str:
    url = os.environ.get("BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1/bench_base")
    return "postgresql://" + url.partition("://")[2]  # whichever driver the URL names


class Hub:
    """Campaign id → the queues of its open streams."""

    def __init__(self) -> None:
        self.subs: dict[int, set[asyncio.Queue[str]]] = defaultdict(set)

    def publish(self, campaign_id: int, frame: str) -> None:
        for q in self.subs.get(campaign_id, ()):
            q.put_nowait(frame)


hub = Hub()
engine: AsyncEngine = create_async_engine(
    database_url().replace("postgresql://", "postgresql+psycopg://"), pool_size=10, max_overflow=20
)


async def _listen() -> None:
    while True:
        try:
            conninfo = database_url()
            async with await psycopg.AsyncConnection.connect(conninfo, autocommit=True) as conn:
                await conn.execute(f"LISTEN {CHANNEL}")
                async for note in conn.notifies():
                    cid, _, frame = note.payload.partition(":")
                    hub.publish(int(cid), frame)
        except asyncio.CancelledError:
            raise
        except Exception:  # reconnect, like the service
            await asyncio.sleep(0.5)


@asynccontextmanager
async def listening(listen: Callable[[], Coroutine[Any, Any, None]]) -> AsyncIterator[None]:
    """``listen`` running in a task of its own until the block ends."""
    task = asyncio.create_task(listen())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@asynccontextmanager
async def lifespan(_app: Starlette) -> AsyncIterator[None]:
    async with engine.begin() as conn:
        for stmt in DDL:
            await conn.execute(text(stmt))
    async with listening(_listen):
        yield
    await engine.dispose()


async def create_campaign(_request: Request) -> Response:
    async with engine.begin() as conn:
        cid = (
            await conn.execute(text("INSERT INTO bench_campaign DEFAULT VALUES RETURNING id"))
        ).scalar_one()
    return JSONResponse({"id": cid}, status_code=201)


def roll_payload(body: dict[str, Any]) -> dict[str, Any]:
    """A roll of 1d20+3 with the service's ``roll`` event's fields, dice from the server."""
    faces = [secrets.randbelow(20) + 1]
    return {
        "actor_name": "bench-gm",
        "expression": body.get("expression", "1d20+3"),
        "label": body.get("label") or "",
        "dice": [{"sides": 20, "faces": faces, "kept": [True]}],
        "signs": [1],
        "modifier": 3,
        "total": faces[0] + 3,
    }


def sse_frame(seq: int, payload: dict[str, Any], visibility: str) -> str:
    """The SSE frame every viewer of the campaign gets for the roll ``seq``."""
    data = {
        **payload,
        "seq": seq,
        "type": "roll",
        "created_at": datetime.now(UTC).isoformat(),
        "actor": {"id": 1, "username": "bench-gm"},
        "visibility": visibility,
        "secret": False,
    }
    return f"id: {seq}\r\nevent: roll\r\ndata: {json.dumps(data, separators=(',', ':'))}\r\n\r\n"


def roll_answer(seq: int, payload: dict[str, Any], visibility: str) -> JSONResponse:
    return JSONResponse(
        {
            "event_id": seq,
            "expression": payload["expression"],
            "label": payload["label"] or None,
            "visibility": visibility,
            "dice": payload["dice"],
            "modifier": 3,
            "total": payload["total"],
        },
        status_code=201,
    )


async def roll(request: Request) -> Response:
    cid = int(request.path_params["cid"])
    body = await request.json()
    payload = roll_payload(body)
    visibility = body.get("visibility", "public")
    async with engine.begin() as conn:
        seq = (await conn.execute(INSERT, {"c": cid, "p": json.dumps(payload)})).scalar_one()
        frame = sse_frame(seq, payload, visibility)
        await conn.execute(NOTIFY, {"ch": CHANNEL, "msg": f"{cid}:{frame}"})
    return roll_answer(seq, payload, visibility)


def stream_of(hub: Hub, cid: int) -> StreamingResponse:
    """The SSE stream of campaign ``cid``: every frame published to it from now on."""
    queue: asyncio.Queue[str] = asyncio.Queue()
    hub.subs[cid].add(queue)

    async def stream() -> AsyncIterator[str]:
        try:
            while True:
                yield await queue.get()
        finally:
            subs = hub.subs.get(cid)
            if subs is not None:
                subs.discard(queue)
                if not subs:
                    del hub.subs[cid]

    return StreamingResponse(
        stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store"}
    )


Endpoint = Callable[[Request], Awaitable[Response]]


def baseline_app(
    create: Endpoint, post_roll: Endpoint, fan_out: Hub, life: Callable[[Starlette], Any]
) -> Starlette:
    """A baseline's routes: a new campaign, a roll, a campaign's stream from ``fan_out``."""

    async def events(request: Request) -> Response:
        return stream_of(fan_out, int(request.path_params["cid"]))

    return Starlette(
        routes=[
            Route("/campaigns", create, methods=["POST"]),
            Route("/campaigns/{cid:int}/rolls", post_roll, methods=["POST"]),
            Route("/campaigns/{cid:int}/events", events, methods=["GET"]),
        ],
        lifespan=life,
    )


app = baseline_app(create_campaign, roll, hub, lifespan)
