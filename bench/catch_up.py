"""What a browser tab costs the server per live event: its catch-up requests, in process.

    .venv/bin/python -m bench.catch_up --db postgresql+asyncpg://postgres@127.0.0.1/bench_catch_up

A browser does not hold its page's streams (docs/ui.md, «One live connection per
campaign»): one tab per campaign holds the campaign's feed, and on every ``seq`` it hears
each tab asks each stream of its page ``<stream>?after=<seq>&once=1``. This bench measures
that per event, beside the roll that caused it, in this process (the app called as an ASGI
app, no HTTP client, the server's CPU): the database created afresh and migrated, one player
with a campaign, the campaign's feed held open (so the campaign's recent events are kept in
memory, as on a served process), then ``--rolls`` times: a roll request, a pause for its
notification, and the catch-ups a campaign page makes after it — its page stream
(``/campaigns/{id}/live``) and its notices (``/campaigns/{id}/notices/live``) — and, for
comparison, the same roll pushed to that viewer by a held stream of the campaign page (the
render function the page's stream runs, as ``bench.map`` measures pushes), and what the tab
costs since the feed carries its streams (2026-12-07): the feed's render of the batch for
that tab's two streams (``app.web.feed.carrying``: both streams' renders and the batch
message). Prints one JSON object: medians of CPU ms, and the ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.roll_request import app_for, asgi_channel, get_scope, post_scope, recreate, sign_up  # noqa: E402

Receive = Callable[[], Awaitable[dict[str, Any]]]


def held_receive() -> Receive:
    """The request, then a client that stays connected (a stream ends on its own)."""
    asked = [False]

    async def receive() -> dict[str, Any]:
        if not asked[0]:
            asked[0] = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    return receive


def stream_scope(path: str, token: str, query: str = "") -> dict[str, Any]:
    scope = get_scope(path, token)
    scope["query_string"] = query.encode()
    scope["headers"] = [*scope["headers"], (b"accept", b"text/event-stream")]
    return scope


async def measure(db: str, rolls: int) -> dict[str, Any]:
    from app.campaigns.live import CAMPAIGN_PAGE
    from app.campaigns.views import CampaignPage
    from app.core.viewer import Role, Viewer
    from app.encounters.live import NOTICES, NoticePage
    from app.events.stream import projected, read_after
    from app.maps.present import scenes_now
    from app.web.feed import carrying

    recreate(db, ROOT)
    app = app_for(db)
    async with app.router.lifespan_context(app):
        token, cid = await sign_up(app, "catchup")
        body = json.dumps({"expression": "2d20+3", "label": "Probe"}).encode()
        receive, send, statuses = asgi_channel(body)
        roll_scope = post_scope(f"/api/v1/campaigns/{cid}/rolls", token, body)
        bodies: list[bytes] = []

        async def keep(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.body":
                bodies.append(message.get("body", b""))
            await send(message)

        async def discard(message: MutableMapping[str, Any]) -> None:
            return None

        feed = asyncio.create_task(
            app(dict(stream_scope(f"/campaigns/{cid}/feed", token), state={}), held_receive(),
                discard)
        )  # fmt: skip
        ctx = app.state.ctx
        last = [0]

        async def roll() -> None:
            await app(dict(roll_scope, state={}), receive, send)

        async def settle() -> None:
            """The roll's notification heard (the feed's tab hears the seq only then)."""
            await asyncio.sleep(0.02)
            events, _more = await read_after(ctx, cid, last[0])
            last[0] = events[-1].seq

        def catch_up(path: str) -> Callable[[], Awaitable[None]]:
            async def run() -> None:
                bodies.clear()
                scope = stream_scope(path, token, f"after={last[0] - 1}&once=1")
                await asyncio.wait_for(app(dict(scope, state={}), held_receive(), keep), 5)

            return run

        page = catch_up(f"/campaigns/{cid}/live")
        notices = catch_up(f"/campaigns/{cid}/notices/live")
        render = CAMPAIGN_PAGE.stream(CampaignPage(cid))
        me = Viewer(await _gm_of(app, cid), "catchup", Role.gm)

        async def push() -> None:
            events, _more = await read_after(ctx, cid, last[0] - 1)
            await render(ctx.read_sessions, me, await projected(ctx, cid, me, events, scenes_now))

        tab_streams = [(0, render), (1, NOTICES.stream(NoticePage(cid)))]

        async def carried() -> None:
            events, _more = await read_after(ctx, cid, last[0] - 1)
            shown = await projected(ctx, cid, me, events, scenes_now)
            (batch,) = await carrying(tab_streams, last[0] - 1, me)(ctx.read_sessions, me, shown)
            assert batch.encoded

        timed: dict[str, list[float]] = {
            n: [] for n in ("roll", "page", "notices", "push", "carried")
        }
        runs = (
            ("roll", roll),
            ("page", page),
            ("notices", notices),
            ("push", push),
            ("carried", carried),
        )
        for i in range(rolls + 20):  # the first 20 warm up
            for name, run in runs:
                if name == "page":
                    await settle()
                # None reuses another's render of the batch (viewers of one audience share
                # it, a stream's push and a tab's catch-up alike): each pays its own.
                CAMPAIGN_PAGE._shared.clear()
                NOTICES._shared.clear()
                t = time.process_time()
                await run()
                if i >= 20:
                    timed[name].append((time.process_time() - t) * 1000)
            assert b"caught-up" in b"".join(bodies), bodies
        feed.cancel()
        assert statuses <= {200, 201}, statuses
    await app.state.ctx.engine.dispose()
    med = {name: round(statistics.median(values), 3) for name, values in timed.items()}
    tab = med["page"] + med["notices"]
    return {
        "rolls": rolls,
        "cpu_ms_p50": med,
        "one_tab_catch_up_ms": round(tab, 3),
        "one_tab_catch_up_over_roll": round(tab / med["roll"], 2),
        "page_catch_up_over_held_push": round(med["page"] / med["push"], 2),
        "one_tab_carried_ms": med["carried"],
        "one_tab_carried_over_roll": round(med["carried"] / med["roll"], 3),
        "one_tab_catch_up_over_carried": round(tab / med["carried"], 1),
    }


async def _gm_of(app: Any, campaign_id: int) -> int:
    """The campaign's GM (the player who made it)."""
    from sqlalchemy import select

    from app.campaigns.models import Membership

    async with app.state.ctx.sessionmaker() as session:
        query = select(Membership.user_id).where(Membership.campaign_id == campaign_id)
        return int((await session.execute(query)).scalar_one())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--db", required=True)
    p.add_argument("--rolls", type=int, default=300)
    a = p.parse_args()
    print(json.dumps(asyncio.run(measure(a.db, a.rolls)), indent=1))


if __name__ == "__main__":
    main()
