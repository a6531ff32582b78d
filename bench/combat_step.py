"""CPU of one combat step in process, beside a roll in the same run (issue 29: «a combat step
≤ 3× a roll»).

    .venv/bin/python -m bench.combat_step --db postgresql+asyncpg://postgres@127.0.0.1/bench_step

Creates the database afresh, builds the game night's fight (an H&H campaign, four player
characters and four goblins, started) through the JSON API, then the GM plays ``--steps``
steps as the game night does (attack, the defence answered with none, heal, next turn;
``bench.combat_live.Runner``'s order) and the player rolls as many dice, alternating in
rounds. The app runs in this process (``httpx.ASGITransport``): the figures are the
requests' own work, without streams — the part a change to the step's code moves. Prints
one JSON object: CPU per step and per roll (medians of the rounds), their ratio, and the
statements each kind of step sends.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from bench.combat_live import HERO, GmSteps
from bench.roll_request import ROOT, app_for, count_statements, recreate

PASSWORD = "bench-password-4711"


async def _account(c: httpx.AsyncClient, name: str) -> dict[str, str]:
    body = {"username": name, "password": PASSWORD}
    assert (await c.post("/api/v1/auth/register", json=body)).status_code == 201
    token = (await c.post("/api/v1/auth/login", json=body)).json()["token"]
    return {"Authorization": f"Bearer {token}"}


async def _post(c: httpx.AsyncClient, url: str, h: dict[str, str], **body: Any) -> Any:
    r = await c.post(url, json=body, headers=h)
    assert r.status_code in (200, 201), (url, r.status_code, r.text)
    return r.json()


async def _fight(c: httpx.AsyncClient) -> tuple[str, dict[str, str], dict[str, str], str]:
    """The fight's API path, the GM's and a player's headers, the campaign's API path."""
    tag = f"{time.time_ns() % 10**9}"
    gm = await _account(c, f"gm{tag}")
    made = await _post(c, "/api/v1/campaigns", gm, name="Step", system="hh")
    camp = f"/api/v1/campaigns/{made['id']}"
    goblin = next(
        e for e in await _post(c, f"{camp}/bestiary/samples", gm) if e["name"] == "Goblin"
    )
    fight = f"{camp}/encounters/{(await _post(c, f'{camp}/encounters', gm, name='E'))['id']}"
    player = gm
    for i in range(4):
        player = await _account(c, f"p{i}x{tag}")
        await _post(c, "/api/v1/campaigns/join", player, invite_code=made["invite_code"])
        hero = await _post(c, f"{camp}/characters", player, name=f"Held {i}",
                           data={"statblock": HERO})  # fmt: skip
        await _post(c, f"{fight}/participants", gm, character_id=hero["id"])
    await _post(c, f"{fight}/participants", gm, entry_id=goblin["id"], count=4)
    await _post(c, f"{fight}/actions/start", gm)
    return fight, gm, player, camp


class Steps(GmSteps):
    """:class:`bench.combat_live.GmSteps` over httpx, in process."""

    def __init__(self, c: httpx.AsyncClient, fight: str, gm: dict[str, str]) -> None:
        self.c, self.fight, self.gm = c, fight, gm
        self.rng = random.Random(7)
        self.view = {}

    async def _act(self, action: str, **body: Any) -> bool:
        r = await self.c.post(f"{self.fight}/actions/{action}", json=body, headers=self.gm)
        if r.status_code != 200:
            assert action == "attack" and r.status_code == 422, (action, r.status_code, r.text)
            return False
        self.view = r.json()
        return True


async def measure(db_url: str, steps: int, rounds: int) -> dict[str, Any]:
    app = app_for(db_url)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://bench") as c:
        fight, gm, player, camp = await _fight(c)
        play = Steps(c, fight, gm)
        play.view = (await c.get(fight, headers=gm)).json()
        sent = count_statements(app)
        per_kind: Counter[str] = Counter()
        kinds: Counter[str] = Counter()
        for _ in range(20):  # warm, and count each kind's statements
            before = sent[0]
            kind = await play.step()
            per_kind[kind] += sent[0] - before
            kinds[kind] += 1
        step_cpu: list[float] = []
        roll_cpu: list[float] = []
        for _ in range(rounds):
            t = time.process_time()
            for _ in range(steps):
                await play.step()
            step_cpu.append((time.process_time() - t) * 1000 / steps)
            t = time.process_time()
            for _ in range(steps):
                await _post(c, f"{camp}/rolls", player, expression="1d20+3", label="Probe")
            roll_cpu.append((time.process_time() - t) * 1000 / steps)
    await app.state.ctx.engine.dispose()
    step, roll = statistics.median(step_cpu), statistics.median(roll_cpu)
    return {
        "steps_per_round": steps,
        "rounds": rounds,
        "step_cpu_ms": round(step, 2),
        "roll_cpu_ms": round(roll, 2),
        "step_over_roll": round(step / roll, 2),
        "statements_per_step": {k: round(per_kind[k] / kinds[k], 1) for k in sorted(kinds)},
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--db", required=True, help="postgresql+asyncpg://… of a scratch database")
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--keep", action="store_true", help="reuse the database as it is")
    a = p.parse_args()
    if not a.keep:
        recreate(a.db, Path(ROOT))
    import uvloop

    print(json.dumps(uvloop.run(measure(a.db, a.steps, a.rounds))))


if __name__ == "__main__":
    main()
