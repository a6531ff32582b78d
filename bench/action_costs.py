"""Server CPU per request of each kind the game night sends, as an API client and as a browser.

    .venv/bin/python -m bench.action_costs --pg postgresql://postgres@127.0.0.1 [--requests 60]

Starts one ``tafelrunde serve`` process on a fresh database (``bench.run``), builds one
group's H&H fight (``bench.combat_live.build``: a GM, four players, four goblins) and sends,
one request at a time, each kind of ``bench/game_night.py``'s actions in both of its forms
(``--posts api`` and ``--posts form``):

- ``roll api`` / ``roll form``: a player's roll as an API client posts it, and as the
  campaign page's roll dialog does (HTMX, a key of its own, the dialog in the answer);
- ``chat api`` / ``chat form``: a chat line likewise (the chat form; the five people take
  turns, within the chat's rate limit);
- ``view api`` / ``page player`` / ``page gm``: the fight as the API's JSON, and the combat
  page a browser loads (a player's, the GM's);
- ``step``: one of the GM's combat steps (``GmSteps``: attack, answer, heal, next turn).

With ``--tabs`` the five people each hold a browser tab's feed on the campaign page while
it runs (``bench.game_night``'s ``--screens tab``: the feed carrying the page's stream and
its notices), so each figure includes what the action's events cost on five screens; the
difference to a run without is that fan-out.

The server's CPU per request is read from ``/proc/<pid>/task/*/schedstat`` (nanoseconds,
every thread: a page's render runs in a worker thread) around ``--requests`` requests of a
kind (the chat lines: ``CHATS`` each), after two untimed; the rounds alternate the order.
The figures are the medians of the rounds, in ms, printed as one JSON object. Nothing here
has a goal of its own: it says which of a browser's actions costs what.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp

from bench import combat_live, loadgen
from bench.combat_live import Fight, Runner, _h, _view, build
from bench.game_night import Stream, _follow_tab
from bench.run import quiesce, start_servers

PG = "postgresql://postgres@127.0.0.1"
#: Chat lines per kind and round: all rounds together keep each of the five people within
#: the chat's 20 lines per 30 s.
CHATS = 8
HTMX = {"HX-Request": "true"}


def cpu_ns(pid: int) -> int:
    """The process's CPU time so far, every thread's, in nanoseconds."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (FileNotFoundError, ProcessLookupError):  # a thread that just ended
            continue
    return total


Action = Callable[[], Awaitable[None]]


def actions(http: aiohttp.ClientSession, fight: Fight, runner: Runner) -> dict[str, Action]:
    base, cid, player = fight.base, fight.cid, fight.players[0]
    people = [fight.gm, *fight.players]
    turn = [0]

    async def expect(r: aiohttp.ClientResponse, status: int) -> None:
        await r.read()
        assert r.status == status, (r.url, r.status, await r.text())

    def speaker() -> dict[str, str]:
        turn[0] += 1
        return _h(people[turn[0] % len(people)])

    async def roll_api() -> None:
        body = {"expression": "1d20+3", "label": "Probe", "visibility": "public"}
        async with http.post(
            f"{base}/api/v1/campaigns/{cid}/rolls", json=body, headers=_h(player)
        ) as r:
            await expect(r, 201)

    async def roll_form() -> None:
        form = {"idempotency_key": str(uuid.uuid4()), "expression": "1d20+3", "label": "Probe"}
        async with http.post(
            f"{base}/campaigns/{cid}/rolls", data=form, headers={**_h(player), **HTMX}
        ) as r:
            await expect(r, 200)

    async def chat_api() -> None:
        body = {"text": "Weiter so!"}
        async with http.post(
            f"{base}/api/v1/campaigns/{cid}/messages", json=body, headers=speaker()
        ) as r:
            await expect(r, 201)

    async def chat_form() -> None:
        form = {"idempotency_key": str(uuid.uuid4()), "text": "Weiter so!", "kind": "ooc",
                "back": f"/campaigns/{cid}"}  # fmt: skip
        async with http.post(
            f"{base}/campaigns/{cid}/chat", data=form, headers={**speaker(), **HTMX}
        ) as r:
            await expect(r, 200)

    def get(url: str, token: str) -> Action:
        async def load() -> None:
            async with http.get(url, headers=_h(token)) as r:
                await expect(r, 200)

        return load

    async def step() -> None:
        await runner.step()

    page = f"{base}/campaigns/{cid}/encounters/{fight.eid}"
    return {
        "roll api": roll_api,
        "roll form": roll_form,
        "chat api": chat_api,
        "chat form": chat_form,
        "view api": get(fight.api, player),
        "page player": get(page, player),
        "page gm": get(page, fight.gm),
        "step": step,
    }


async def _cpu_ms_per_request(pid: int, act: Action, n: int) -> float:
    for _ in range(2):
        await act()
    await asyncio.sleep(0.3)  # the last request's pushes and after-work done
    before = cpu_ns(pid)
    for _ in range(n):
        await act()
    await asyncio.sleep(0.3)
    return (cpu_ns(pid) - before) / 1e6 / n


async def _hold_tabs(http: aiohttp.ClientSession, fight: Fight) -> list[asyncio.Task[None]]:
    """The five people's browser tabs on the campaign page, connected."""
    streams = [Stream(token) for token in (fight.gm, *fight.players)]
    tasks = [asyncio.create_task(_follow_tab(http, fight.base, fight.cid, s)) for s in streams]
    await asyncio.gather(*(s.connected.wait() for s in streams))
    await asyncio.sleep(1.0)
    assert not [s.error for s in streams if s.error]
    return tasks


async def measure(pg: str, requests: int, rounds: int, tabs: bool = False) -> dict[str, Any]:
    service, baseline = start_servers(pg, "_costs")
    combat_live.DB = "bench_perf_app_costs"
    try:
        await quiesce(service, baseline, limit=20)
        base = f"http://127.0.0.1:{service.port}"
        async with aiohttp.ClientSession() as http:
            fight = await build(http, base, pg, 4, 4, 0, tag=f"{int(time.time()) % 10**6}c")
            runner = Runner(http, fight, random.Random(1), await _view(http, fight))
            kinds = actions(http, fight, runner)
            held = await _hold_tabs(http, fight) if tabs else []
            runs: dict[str, list[float]] = {name: [] for name in kinds}
            for rnd in range(rounds):
                order = list(kinds) if rnd % 2 == 0 else list(kinds)[::-1]
                for name in order:
                    n = CHATS if name.startswith("chat") else requests
                    runs[name].append(await _cpu_ms_per_request(service.pid, kinds[name], n))
            await loadgen.close_viewers(held)
    finally:
        service.stop()
        baseline.stop()
    return {
        "requests": requests,
        "rounds": rounds,
        "tabs": 5 if tabs else 0,
        "cpu_ms_per_request": {k: round(statistics.median(v), 2) for k, v in runs.items()},
        "runs": {k: [round(x, 2) for x in v] for k, v in runs.items()},
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--pg", default=PG)
    p.add_argument("--requests", type=int, default=60, help="requests per kind and round")
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--tabs", action="store_true", help="five browser tabs follow meanwhile")
    a = p.parse_args()
    print(json.dumps(asyncio.run(measure(a.pg, a.requests, a.rounds, a.tabs))))


if __name__ == "__main__":
    main()
