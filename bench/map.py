"""In-process battle map measurements (issue 15), next to a roll in the same run.

1. **A token move to 8 viewers**: the move request, then the live push the scene page's
   stream renders for each of 8 viewers (the GM and seven players: what the stream does per
   subscriber), timed and in this process's CPU; beside it a roll and the campaign page's
   push of it to the same 8 viewers. Goal: a move ≤ 1.5 × a roll.
2. **Render of a 40 × 40 scene with 100 tokens and 200 walls**: ``GET`` of the scene page
   against the same template rendered from memory with the same context (goal ≤ 2 ×), and
   the page's bytes; ``page_over_memory`` through the test client (its wall time, as
   before), ``server_cpu_ratio`` the page as served — the app called as an ASGI app, the
   server's CPU alone, interleaved with the template — as ``bench.render`` measures the
   campaign page (the figure the goal is read from since 2026-12-06).

The app runs in this process (``httpx.ASGITransport``, no network, no uvicorn) under its
lifespan, as it is served (until 2026-12-05 without it: the collector ran at CPython's
defaults, and a move's mean CPU came out 15–30 % higher), so the numbers are server work
only. ``python -m bench.map [--db URL] [--moves 100] [--sight]``
prints one JSON object; without ``--db`` it uses a fresh SQLite file. ``--sight`` turns the
scene's per-player line of sight on and gives each of the seven players a token of their
own character (the moving token is one of them: its move changes what its player sees;
with ``--gm-token`` a GM's token moves instead, which changes nobody's sight).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import httpx
from sqlalchemy import select

import app.web.templating as templating
from app.campaigns.live import CAMPAIGN_PAGE
from app.campaigns.views import CampaignPage
from app.characters.models import Character
from app.config import Settings
from app.core.viewer import Role, Viewer
from app.events.models import CampaignEvent
from app.events.stream import projected, read_after
from app.main import create_app
from app.maps.live import SCENE_PAGE, ScenePage
from app.maps.present import scenes_now
from bench.roll_request import asgi_channel, get_scope

PASSWORD = "bench-password-4711"
VIEWERS = 8


async def _account(c: httpx.AsyncClient, name: str) -> tuple[dict[str, str], int]:
    body = {"username": name, "password": PASSWORD}
    r = await c.post("/api/v1/auth/register", json=body)
    assert r.status_code == 201, r.text
    token = (await c.post("/api/v1/auth/login", json=body)).json()["token"]
    me = r.json()
    return {"Authorization": f"Bearer {token}"}, int(me.get("user", me)["id"])


async def gm_and_players(
    c: httpx.AsyncClient, prefix: str
) -> tuple[dict[str, str], int, list[Viewer]]:
    """A new H&H campaign of a new GM with ``VIEWERS - 1`` new players: the GM's headers,
    the campaign's id and its viewers, the GM first."""
    stamp = int(time.time() * 1000) % 10**9
    gm, gm_id = await _account(c, f"{prefix}gm{stamp}")
    r = await c.post("/api/v1/campaigns", json={"name": "Runde", "system": "hh"}, headers=gm)
    cid, code = r.json()["id"], r.json()["invite_code"]
    viewers = [Viewer(gm_id, "gm", Role.gm)]
    for i in range(VIEWERS - 1):
        h, uid = await _account(c, f"{prefix}p{i}{stamp}")
        await c.post("/api/v1/campaigns/join", json={"invite_code": code}, headers=h)
        viewers.append(Viewer(uid, f"p{i}", Role.player))
    return gm, cid, viewers


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))], 2)


async def _timed(
    op: Callable[[], Awaitable[None]], rounds: int
) -> dict[str, float]:  # fmt: skip
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(rounds):
        t, t_cpu = time.perf_counter(), time.process_time()
        await op()
        wall.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - t_cpu) * 1000)
    return {
        "p50_ms": _pct(wall, 0.5),
        "p99_ms": _pct(wall, 0.99),
        "cpu_p50_ms": _pct(cpu, 0.5),
        "cpu_mean_ms": round(statistics.fmean(cpu), 2),
    }


async def _newest(application: Any, cid: int) -> list[CampaignEvent]:
    async with application.state.ctx.sessionmaker() as session:
        row = await session.scalar(
            select(CampaignEvent)
            .where(CampaignEvent.campaign_id == cid)
            .order_by(CampaignEvent.seq.desc())
            .limit(1)
        )
    assert row is not None
    return [row]


async def _player_tokens(
    c: httpx.AsyncClient, application: Any, api: str, gm: dict[str, str], cid: int,
    players: list[Viewer],
) -> int:  # fmt: skip
    """A character token per player on the west edge, line of sight on; the last one's id."""
    async with application.state.ctx.sessionmaker() as session:
        chars = [
            Character(campaign_id=cid, owner_id=v.user_id, system="hh", name=v.username,
                      kind="pc", hidden_from_players=False, data={"statblock": {}})
            for v in players
        ]  # fmt: skip
        session.add_all(chars)
        await session.commit()
        ids = [ch.id for ch in chars]
    token = 0
    for i, char in enumerate(ids):
        body = {"x": 0, "y": 3 + i * 5, "character_id": char}
        r = await c.post(f"{api}/tokens", json=body, headers=gm)
        assert r.status_code == 201, r.text
        token = int(r.json()["id"])
    r = await c.patch(api, json={"line_of_sight": True}, headers=gm)
    assert r.status_code == 200, r.text
    return token


async def _since(application: Any, cid: int, after: int) -> Sequence[CampaignEvent]:
    """The events after ``after`` (a move's: the move and, with line of sight, its
    ``token_sighted``), read as the streams of the process that wrote them read them: the
    campaign's shared tail, which the writing request's commit extended in memory."""
    events, _more = await read_after(application.state.ctx, cid, after)
    return events


async def _served(
    application: Any, path: str, gm: dict[str, str], memory: Callable[[], Awaitable[None]],
    renders: int,
) -> dict[str, float]:  # fmt: skip
    """The page as served — the app called as an ASGI app, no test client, the server's CPU
    alone — interleaved with its template from memory, as ``bench.render`` measures the
    campaign page (since 2026-12-05): the medians and their ratio."""
    receive, send, statuses = asgi_channel(b"")
    scope = get_scope(path, gm["Authorization"].removeprefix("Bearer "))
    served: list[float] = []
    bare: list[float] = []
    for _ in range(renders):
        for run, into in ((lambda: application(dict(scope, state={}), receive, send), served),
                          (memory, bare)):  # fmt: skip
            t = time.process_time()
            await run()
            into.append((time.process_time() - t) * 1000)
    assert statuses == {200}, statuses
    server, template = statistics.median(served), statistics.median(bare)
    return {
        "server_cpu_p50_ms": round(server, 2),
        "server_template_cpu_p50_ms": round(template, 2),
        "server_cpu_ratio": round(server / template, 2),
    }


async def measure(
    db: str, moves: int, with_sight: bool = False, gm_token: bool = False
) -> dict[str, Any]:
    settings = Settings(
        database_url=db, secret_key="x", argon2_time_cost=1, argon2_memory_kib=8192,
        write_rate_per_minute=10**6, write_burst=10**5,
    )  # fmt: skip
    application = create_app(settings)
    ctx = application.state.ctx
    sessions = ctx.sessionmaker
    transport = httpx.ASGITransport(app=application)
    # Under the app's lifespan, as it is served: the collector's passes spaced out and what
    # the start loaded frozen (app.main), the live transport listening.
    async with (
        application.router.lifespan_context(application),
        httpx.AsyncClient(transport=transport, base_url="http://bench") as c,
    ):
        gm, cid, viewers = await gm_and_players(c, "map")
        api = f"/api/v1/campaigns/{cid}/scenes"
        sid = (
            await c.post(api, json={"name": "S", "cols": 40, "rows": 40, "shown": True}, headers=gm)
        ).json()["id"]
        walls = [[x, y, x, y + 1] for x in range(2, 40, 4) for y in range(0, 40, 2)][:200]
        r = await c.put(f"{api}/{sid}/walls", json={"segments": walls}, headers=gm)
        assert r.status_code == 200, r.text
        for i in range(100 - (VIEWERS - 1 if with_sight else 0)):
            body = {"x": (i * 3) % 40, "y": (i * 7) % 40 if (i * 3) % 40 % 4 else 39 - i % 20,
                    "label": f"T{i}"}  # fmt: skip
            r = await c.post(f"{api}/{sid}/tokens", json=body, headers=gm)
            assert r.status_code == 201, r.text
        mover = r.json()["id"]
        if with_sight:
            eyes = await _player_tokens(c, application, f"{api}/{sid}", gm, cid, viewers[1:])
            mover = mover if gm_token else eyes
        scene_stream = SCENE_PAGE.stream(ScenePage(cid, sid))
        campaign_stream = CAMPAIGN_PAGE.stream(CampaignPage(cid))
        flip = [0]
        seq = [(await _newest(application, cid))[0].seq]
        await _since(application, cid, seq[0])  # a stream follows the campaign: its tail is read

        async def move() -> None:
            flip[0] ^= 1
            body = {"to": [1, 1 + flip[0]], "override": True}
            r = await c.post(f"{api}/{sid}/tokens/{mover}/move", json=body, headers=gm)
            assert r.status_code == 200, r.text
            events = await _since(application, cid, seq[0])
            seq[0] = events[-1].seq
            for v in viewers:
                # As the live stream does: map events against their scenes as they are.
                await scene_stream(sessions, v, await projected(ctx, cid, v, events, scenes_now))

        async def roll() -> None:
            r = await c.post(
                f"/api/v1/campaigns/{cid}/rolls", json={"expression": "2d20+3"}, headers=gm
            )
            assert r.status_code == 201, r.text
            events = await _since(application, cid, seq[0])
            seq[0] = events[-1].seq
            for v in viewers:
                await campaign_stream(sessions, v, await projected(ctx, cid, v, events, scenes_now))

        await move()
        await roll()
        moved = await _timed(move, moves)
        rolled = await _timed(roll, moves)
        page_url = f"/campaigns/{cid}/scenes/{sid}"

        async def page() -> None:
            assert (await c.get(page_url, headers=gm)).status_code == 200

        for _ in range(3):
            await page()
        rendered = await _timed(page, max(10, moves // 5))
        size = len((await c.get(page_url, headers=gm)).content)
        captured: list[tuple[str, str, str | None, dict[str, Any]]] = []
        real = templating._render_in

        def spy(locale: str, template: str, block: str | None, context: dict[str, Any]) -> str:
            captured.append((locale, template, block, context))
            return real(locale, template, block, context)

        templating._render_in = spy
        try:
            await page()
        finally:
            templating._render_in = real
        locale, template, block, context = captured[-1]

        async def memory() -> None:
            real(locale, template, block, dict(context))

        from_memory = await _timed(memory, max(10, moves // 5))
        served = await _served(application, page_url, gm, memory, max(10, moves // 5))
    await application.state.ctx.engine.dispose()
    return {
        "viewers": VIEWERS,
        "line_of_sight": with_sight,
        "moving": "a GM's token" if gm_token or not with_sight else "a player's token",
        "move_to_8": moved,
        "roll_to_8": rolled,
        "move_over_roll_cpu": round(moved["cpu_p50_ms"] / rolled["cpu_p50_ms"], 2),
        "scene_40x40_100_tokens_200_walls": {
            "page": rendered,
            "template_from_memory": from_memory,
            "page_over_memory": round(rendered["p50_ms"] / from_memory["p50_ms"], 2),
            **served,
            "bytes": size,
        },
    }


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--db", default="")
    p.add_argument("--moves", type=int, default=100)
    p.add_argument("--sight", action="store_true")
    p.add_argument("--gm-token", action="store_true", help="with --sight: move a GM's token")
    a = p.parse_args()
    db = a.db
    if not db:
        from app.migrate import upgrade

        path = tempfile.mkstemp(suffix=".db")[1]
        db = f"sqlite+aiosqlite:///{path}"
        upgrade(db)
    print(json.dumps(asyncio.run(measure(db, a.moves, a.sight, a.gm_token)), indent=1))


if __name__ == "__main__":
    main()
