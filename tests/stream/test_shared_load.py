"""A push whose stream ends while it reads what other pushes share gives back its connection.

The load a push shares with the other viewers of a step (``shared_load``) reads with that
push's session. It used to run in a task of its own, which went on after the push ended (the
browser tab went away) and its session was closed: the session then took a connection it
never gave back, in an open transaction. On PostgreSQL every ``TRUNCATE`` and migration then
waited for that connection for good (CI hung on it after a burst of feeds that closed).
"""

from __future__ import annotations

import asyncio

from fastapi import FastAPI
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.viewer import Viewer
from app.events.models import CampaignEvent
from app.events.service import project
from app.events.stream import Outgoing
from app.web.context import AppContext
from app.web.regions import Batch, Page, Region, shared_load
from tests.api.helpers import make_table
from tests.api.regions import events_after
from tests.api.test_live_regions import viewers
from tests.conftest import ClientFactory

#: Long enough for a push stalled on a lost load to show.
STALLED = 5.0


async def _count(session: AsyncSession, campaign_id: int) -> int:
    query = select(func.count()).where(CampaignEvent.campaign_id == campaign_id)
    return int(await session.scalar(query) or 0)


async def test_a_push_that_ends_while_its_shared_load_reads_leaves_no_connection_behind(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """The player's push starts the load the GM's push then waits for; the player's stream
    ends meanwhile. The GM's push reads for itself and comes through; afterwards no
    connection is out of the pool."""
    ctx: AppContext = app.state.ctx
    t = await make_table(make_client, app)
    cid, people = t.campaign_id, viewers(t)
    started, go = asyncio.Event(), asyncio.Event()
    loads: list[str] = []

    async def load(
        session: AsyncSession, viewer: Viewer, key: int, _parts: frozenset[str]
    ) -> dict[str, object]:
        async def shared() -> int:
            loads.append(viewer.username)
            started.set()
            await go.wait()
            return await _count(session, key)

        return {"count": await shared_load(("test_shared_load", key), shared)}

    async def push(batch: Batch[int]) -> list[Outgoing]:
        return [Outgoing(batch.last_seq, "count", str(batch.context["count"]))]

    region: Region[int] = Region(
        "count", lambda _key, _event: True, push, parts=frozenset({"count"})
    )
    # No audience: each push renders in its own stream's task, as the campaign page's do.
    render = Page("test_shared_load", load, regions=(region,)).stream(cid)
    r = await t.gm.post(f"/api/v1/campaigns/{cid}/messages", json={"text": "Los"})
    assert r.status_code == 201, r.text
    events = await events_after(app, cid, 0)
    player, gm = people["player"], people["gm"]
    player_push = asyncio.ensure_future(render(ctx.read_sessions, player, project(events, player)))
    await asyncio.wait_for(started.wait(), STALLED)
    gm_push = asyncio.ensure_future(render(ctx.read_sessions, gm, project(events, gm)))
    await asyncio.sleep(0.05)  # the GM's push waits for the player's load
    player_push.cancel()
    (ended,) = await asyncio.gather(player_push, return_exceptions=True)
    go.set()
    out = await asyncio.wait_for(gm_push, STALLED)

    assert isinstance(ended, asyncio.CancelledError)
    assert [m.data for m in out] == [str(len(events))]
    assert ctx.engine.pool.checkedout() == 0  # type: ignore[attr-defined]
    assert loads == ["player_user", "gm_user"]
