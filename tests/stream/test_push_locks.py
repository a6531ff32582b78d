"""Live pushes only read, and on SQLite they lock nothing that the table waits for.

Every SQLite transaction used to begin IMMEDIATE, with the write lock. A push holding it
while it waited for a load that another viewer's push shares (``shared_load``), whose
session waited for that very lock, stalled both for the whole busy timeout (10 s) and then
ended both streams with «database is locked»; every request's write waited behind them. On
PostgreSQL the same tests show that nothing there waits either.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest
from fastapi import FastAPI
from sqlalchemy import func, select, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.viewer import Viewer
from app.db import ReadOnlySessionWrites
from app.events.models import CampaignEvent
from app.events.service import VisibleEvent, last_seqs, project
from app.events.stream import Outgoing, follow
from app.web.context import AppContext
from app.web.regions import Batch, Page, Region, shared_by, shared_load
from app.web.streams import recheck_for
from tests.api.helpers import make_table
from tests.api.regions import events_after
from tests.api.test_live_regions import viewers
from tests.conftest import ClientFactory

#: Long enough for a write stalled behind a lock to show, short of the busy timeout.
STALLED = 5.0


async def _events(session: AsyncSession, campaign_id: int) -> int:
    found = await session.scalar(
        select(func.count())
        .select_from(CampaignEvent)
        .where(CampaignEvent.campaign_id == campaign_id)
    )
    return int(found or 0)


async def test_a_push_that_is_rendering_holds_up_no_write(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """A push reads, then renders for a while (a board for many viewers); meanwhile the GM's
    chat line is written and answered at once, and reaches the stream next."""
    ctx: AppContext = app.state.ctx
    t = await make_table(make_client, app)
    cid, player = t.campaign_id, viewers(t)["player"]
    async with ctx.read_sessions() as session:
        after = (await last_seqs(session, [cid]))[cid]
    reading, rendered = asyncio.Event(), asyncio.Event()
    seen: list[int] = []

    async def render(
        sessions: async_sessionmaker[AsyncSession], _viewer: Viewer, events: Sequence[VisibleEvent]
    ) -> list[Outgoing]:
        async with sessions() as session:
            await _events(session, cid)
            reading.set()
            await rendered.wait()
            await _events(session, cid)
        seen.extend(e.seq for e in events)
        return [Outgoing(e.seq, e.type, "") for e in events]

    recheck = recheck_for(ctx.members.current_viewer, cid, None)
    got: asyncio.Queue[Outgoing] = asyncio.Queue()

    async def run() -> None:
        async for item in follow(ctx, cid, player, after, render, recheck):
            got.put_nowait(item)

    stream = asyncio.create_task(run())
    try:
        first = await t.gm.post(f"/api/v1/campaigns/{cid}/messages", json={"text": "Eins"})
        await asyncio.wait_for(reading.wait(), STALLED)
        second = await asyncio.wait_for(
            t.gm.post(f"/api/v1/campaigns/{cid}/messages", json={"text": "Zwei"}), STALLED
        )
        assert (first.status_code, second.status_code) == (201, 201), second.text
        rendered.set()
        seqs = [(await asyncio.wait_for(got.get(), STALLED)).seq for _ in range(2)]
        assert seqs == [first.json()["seq"], second.json()["seq"]] == seen
    finally:
        stream.cancel()
        await asyncio.gather(stream, return_exceptions=True)


async def test_pushes_sharing_a_load_wait_for_no_lock_of_each_other(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """The GM's push has begun reading when it waits for the load the player's push started;
    that load reads in the player's session. Both pushes come through, with one read."""
    ctx: AppContext = app.state.ctx
    t = await make_table(make_client, app)
    cid, people = t.campaign_id, viewers(t)
    gm_reads, loads = asyncio.Event(), []

    async def load(
        session: AsyncSession, viewer: Viewer, key: int, _parts: frozenset[str]
    ) -> dict[str, object]:
        if viewer.is_gm:
            await _events(session, key)
            gm_reads.set()

        async def shared() -> int:
            await gm_reads.wait()
            loads.append(viewer.username)
            return await _events(session, key)

        return {"count": await shared_load(("test_push_locks", key), shared)}

    async def push(batch: Batch[int]) -> list[Outgoing]:
        return [Outgoing(batch.last_seq, "count", str(batch.context["count"]))]

    region: Region[int] = Region(
        "count", lambda _key, _event: True, push, parts=frozenset({"count"})
    )
    page: Page[int] = Page("test_push_locks", load, regions=(region,), audience=shared_by())
    before = (await events_after(app, cid, 0))[-1].seq
    r = await t.gm.post(f"/api/v1/campaigns/{cid}/messages", json={"text": "Los"})
    assert r.status_code == 201, r.text
    events = await events_after(app, cid, before)
    render = page.stream(cid)
    player_push = asyncio.ensure_future(
        render(ctx.read_sessions, people["player"], project(events, people["player"]))
    )
    await asyncio.sleep(0)  # the player's push starts the shared load first
    gm_push = render(ctx.read_sessions, people["gm"], project(events, people["gm"]))
    out = await asyncio.wait_for(asyncio.gather(player_push, gm_push), STALLED)
    count = len(await events_after(app, cid, 0))
    assert [[m.data for m in o] for o in out] == [[str(count)], [str(count)]]
    assert loads == ["player_user"]


async def test_a_push_that_writes_is_refused_on_sqlite(app: FastAPI) -> None:
    """The stream's sessions refuse a write on SQLite, where they take no write lock: a
    push that wrote would otherwise fail only now and then, on a busy table."""
    ctx: AppContext = app.state.ctx
    if ctx.engine.dialect.name != "sqlite":
        pytest.skip("PostgreSQL: the stream's sessions are the app's own")
    async with ctx.read_sessions() as session:
        assert await _events(session, 0) == 0
        with pytest.raises(ReadOnlySessionWrites):
            await session.execute(text("DELETE FROM campaign_events"))
