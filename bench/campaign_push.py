"""In-process: a roll and a chat line with the campaign page's live push to 8 viewers.

    PYTHONPATH=$PWD .venv/bin/python -m bench.campaign_push --db postgresql+asyncpg://postgres@127.0.0.1/bench_push

What a browser on the campaign page costs the server per action: the request, then the
page's live push (``CAMPAIGN_PAGE.stream``) rendered for each of 8 viewers (the GM and seven
players) from the events as the writing process's streams read them (the campaign's tail,
the same event objects for every stream). Rounds alternate a roll and a chat line, both by
the GM, public. ``bench.game_night`` follows the JSON event stream instead, which renders
no HTML; this is the HTML side. Prints one JSON object: CPU per action (this process) and
the statements per action, request and pushes together. The database is created afresh.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from sqlalchemy import event

import app.talk.service as talk
from app.campaigns.live import CAMPAIGN_PAGE
from app.campaigns.views import CampaignPage
from app.config import Settings
from app.events.stream import projected
from app.main import create_app
from app.maps.present import scenes_now
from bench.map import VIEWERS, _newest, _since, _timed, gm_and_players
from bench.roll_request import ROOT, recreate


async def measure(db: str, rounds: int) -> dict[str, Any]:
    settings = Settings(
        database_url=db, secret_key="x", argon2_time_cost=1, argon2_memory_kib=8192,
        write_rate_per_minute=10**6, write_burst=10**5,
    )  # fmt: skip
    application = create_app(settings)
    talk.RATE_LIMIT = 10**9  # chat lines per minute: the bench posts far more
    ctx = application.state.ctx
    statements = [0]

    def count(*_args: Any) -> None:
        statements[0] += 1

    event.listen(ctx.engine.sync_engine, "before_cursor_execute", count)
    transport = httpx.ASGITransport(app=application)
    async with httpx.AsyncClient(transport=transport, base_url="http://bench") as c:
        gm, cid, viewers = await gm_and_players(c, "push")
        stream = CAMPAIGN_PAGE.stream(CampaignPage(cid))
        seq = [(await _newest(application, cid))[0].seq]
        await _since(application, cid, seq[0])  # a stream follows the campaign: its tail

        def acting(path: str, body: dict[str, object]) -> Callable[[], Awaitable[None]]:
            async def act() -> None:
                r = await c.post(f"/api/v1/campaigns/{cid}/{path}", json=body, headers=gm)
                assert r.status_code == 201, r.text
                events = await _since(application, cid, seq[0])
                seq[0] = events[-1].seq
                for v in viewers:
                    shown = await projected(ctx, cid, v, events, scenes_now)
                    assert await stream(ctx.sessionmaker, v, shown)

            return act

        actions = {
            "roll": acting("rolls", {"expression": "2d20+3"}),
            "chat": acting("messages", {"text": "Wer hält Wache?"}),
        }
        result: dict[str, Any] = {"viewers": VIEWERS}
        for name, act in actions.items():
            await act()
            statements[0] = 0
            await act()
            result[f"{name}_statements"] = statements[0]
        for name, act in [*actions.items(), *reversed(actions.items())]:
            timed = await _timed(act, rounds)
            result.setdefault(f"{name}_to_{VIEWERS}_cpu_p50_ms", []).append(timed["cpu_p50_ms"])
    await ctx.engine.dispose()
    return result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--db", required=True, help="postgresql+asyncpg://… of a scratch database")
    p.add_argument("--rounds", type=int, default=200, help="actions per kind and round")
    a = p.parse_args()
    recreate(a.db, ROOT)
    print(json.dumps(asyncio.run(measure(a.db, a.rounds))))


if __name__ == "__main__":
    main()
