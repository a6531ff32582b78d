"""A player's rolls on SQLite while the GM reads: alone, beside the GM's risk simulation,
beside the GM loading the combat page over and over.

On SQLite one transaction at a time holds the write lock. A request that only reads (a page,
the risk simulation) used to take it at its first statement and keep it until it answered,
so the table's rolls waited behind a simulation of up to five seconds. The figure is each
phase's roll latency as a ratio to the rolls alone, measured in the same run.

``python -m bench.sqlite_locks [--rolls 60]`` prints one JSON object (a fresh SQLite file;
the app in this process over ``httpx.ASGITransport``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from app.migrate import upgrade
from bench.combat_step import _account
from bench.roll_request import app_for


async def _table(c: httpx.AsyncClient) -> tuple[str, str, dict[str, str], dict[str, str]]:
    """A campaign with a running fight of two goblin bands; its API root, the combat page,
    and the GM's and the player's credentials."""
    gm, player = await _account(c, "lockgm"), await _account(c, "lockplayer")
    made = (
        await c.post("/api/v1/campaigns", json={"name": "K", "system": "hh"}, headers=gm)
    ).json()
    code = {"invite_code": made["invite_code"]}
    assert (await c.post("/api/v1/campaigns/join", json=code, headers=player)).status_code == 200
    api = f"/api/v1/campaigns/{made['id']}"
    entries = (await c.post(f"{api}/bestiary/samples", headers=gm)).json()
    goblin = next(e for e in entries if e["name"] == "Goblin")
    eid = (await c.post(f"{api}/encounters", json={"name": "E"}, headers=gm)).json()["id"]
    for side in ("abenteurer", "gegner"):
        band = {"entry_id": goblin["id"], "count": 4, "side": side}
        r = await c.post(f"{api}/encounters/{eid}/participants", json=band, headers=gm)
        assert r.status_code == 201, r.text
    assert (await c.post(f"{api}/encounters/{eid}/actions/start", json={}, headers=gm)).is_success
    return api, f"/campaigns/{made['id']}/encounters/{eid}", gm, player


#: Answers to the rolls other than 201 (before: 503 «database unreachable» after the busy
#: timeout), by phase.
REFUSED: dict[str, int] = {}


async def _rolls(
    c: httpx.AsyncClient, api: str, player: dict[str, str], n: int, phase: str
) -> list[float]:
    times = []
    for i in range(n):
        t = time.perf_counter()
        body = {"expression": "1d20", "label": f"Wurf {i}"}
        r = await c.post(f"{api}/rolls", json=body, headers=player)
        times.append((time.perf_counter() - t) * 1000)
        if r.status_code != 201:
            REFUSED[phase] = REFUSED.get(phase, 0) + 1
    return times


async def _beside(
    rolls: Callable[[], Awaitable[list[float]]], busy: Callable[[], Awaitable[object]]
) -> tuple[list[float], int]:
    """The rolls while ``busy`` runs over and over; and how often it ran."""
    done, runs = asyncio.Event(), 0

    async def keep_busy() -> None:
        nonlocal runs
        while not done.is_set():
            await busy()
            runs += 1

    loop = asyncio.create_task(keep_busy())
    try:
        return await rolls(), runs
    finally:
        done.set()
        await loop


def _figures(times: list[float], alone: list[float], phase: str) -> dict[str, float]:
    p99 = sorted(times)[int(0.99 * (len(times) - 1))]
    return {
        "p50_ms": round(statistics.median(times), 1),
        "p99_ms": round(p99, 1),
        "max_ms": round(max(times), 1),
        "p50_over_alone": round(statistics.median(times) / statistics.median(alone), 2),
        "refused": REFUSED.get(phase, 0),
    }


async def measure(db: str, rolls: int) -> dict[str, Any]:
    application = app_for(db)
    transport = httpx.ASGITransport(app=application)
    async with (
        application.router.lifespan_context(application),
        httpx.AsyncClient(transport=transport, base_url="http://bench", timeout=60) as c,
    ):
        api, page, gm, player = await _table(c)
        encounter = f"{api}/encounters/{page.rsplit('/', 1)[-1]}"

        async def simulate() -> None:
            r = await c.post(f"{encounter}/risk", json={"trials": 20_000}, headers=gm)
            assert r.status_code == 200, r.text

        async def load_page() -> None:
            assert (await c.get(page, headers=gm)).status_code == 200

        alone = await _rolls(c, api, player, rolls, "alone")
        risk, simulations = await _beside(lambda: _rolls(c, api, player, rolls, "risk"), simulate)
        pages, loads = await _beside(lambda: _rolls(c, api, player, rolls, "pages"), load_page)
    return {
        "rolls_per_phase": rolls,
        "alone": _figures(alone, alone, "alone"),
        "beside_risk_simulation": {**_figures(risk, alone, "risk"), "simulations": simulations},
        "beside_combat_page_loads": {**_figures(pages, alone, "pages"), "page_loads": loads},
    }


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rolls", type=int, default=60)
    a = p.parse_args()
    path = tempfile.mkstemp(suffix=".db")[1]
    db = f"sqlite+aiosqlite:///{path}"
    upgrade(db)
    print(json.dumps(asyncio.run(measure(db, a.rolls)), indent=1))


if __name__ == "__main__":
    main()
