"""The process's one sweep over its live streams (``app.events.warden.StreamWarden``).

Every poll interval it checks all open streams at once: a viewer who left the campaign or
whose login session is gone (deleted by another process whose notification was lost) has
their stream ended, a changed role takes effect, and a stream behind its campaign's log
(a lost notification) is woken to read it. It costs the same few statements for 5 streams
as for 50.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI
from sqlalchemy import delete, update

from app.accounts.models import UserSession
from app.accounts.service import token_hash
from app.campaigns import events as campaign_events
from app.campaigns.models import Membership
from app.core.viewer import Role, Viewer
from app.events.broker import Broker, Subscription
from app.events.encoding import render_json
from app.events.service import append_event, last_seqs
from app.events.stream import Outgoing, follow
from app.web.context import AppContext
from app.web.deps import COOKIE_NAME
from app.web.streams import recheck_for
from tests.api.helpers import Table, make_table
from tests.api.test_shared_render import statements
from tests.conftest import ClientFactory


@dataclass
class Stream:
    task: asyncio.Task[None]
    sub: Subscription
    got: asyncio.Queue[Outgoing] = field(default_factory=asyncio.Queue)


async def _until(check: Any, timeout: float = 5.0) -> None:
    async def poll() -> None:
        while not check():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), timeout)


@asynccontextmanager
async def _stream(app: FastAPI, t: Table, who: str = "player") -> AsyncIterator[Stream]:
    """The player's live stream (as ``follow`` runs it for the HTTP route), from now on."""
    ctx: AppContext = app.state.ctx
    client = getattr(t, who)
    hashed = token_hash(client.cookies.get(COOKIE_NAME))
    viewer = Viewer(t.ids[who], f"{who}_user", Role(who))
    async with ctx.sessionmaker() as session:
        after = (await last_seqs(session, [t.campaign_id]))[t.campaign_id]
    before = set(ctx.broker.subscriptions())
    got: asyncio.Queue[Outgoing] = asyncio.Queue()
    recheck = recheck_for(ctx.members.current_viewer, t.campaign_id, hashed)

    async def run() -> None:
        async for item in follow(ctx, t.campaign_id, viewer, after, render_json, recheck, hashed):
            got.put_nowait(item)

    task = asyncio.create_task(run())
    await _until(lambda: any(s.viewer for s in set(ctx.broker.subscriptions()) - before))
    (sub,) = set(ctx.broker.subscriptions()) - before
    try:
        yield Stream(task, sub, got)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def test_a_session_deleted_elsewhere_ends_the_stream_at_the_next_sweep(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Another process's logout whose notification never arrived: only the database knows."""
    ctx: AppContext = app.state.ctx
    t = await make_table(make_client, app)
    async with _stream(app, t) as player, _stream(app, t, "observer") as observer:
        await ctx.warden.sweep()
        assert not player.task.done() and not observer.task.done()
        async with ctx.sessionmaker() as session:
            await session.execute(delete(UserSession).where(UserSession.user_id == t.ids["player"]))
            await session.commit()
        await ctx.warden.sweep()
        await asyncio.wait_for(player.task, 5)  # ended, without an error
        assert not observer.task.done() and not observer.sub.ended


async def test_a_membership_changed_without_a_log_entry_takes_effect_at_the_next_sweep(
    make_client: ClientFactory, app: FastAPI
) -> None:
    ctx: AppContext = app.state.ctx
    t = await make_table(make_client, app)
    async with _stream(app, t) as player, _stream(app, t, "observer") as observer:
        async with ctx.sessionmaker() as session:
            await session.execute(
                update(Membership)
                .where(Membership.user_id == t.ids["player"])
                .values(role=Role.co_gm.value)
            )
            await session.execute(delete(Membership).where(Membership.user_id == t.ids["observer"]))
            await session.commit()
        await ctx.warden.sweep()
        await asyncio.wait_for(observer.task, 5)  # no longer a member: ended
        assert player.sub.viewer == Viewer(t.ids["player"], "player_user", Role.co_gm)
        assert not player.task.done()


async def test_an_event_whose_notification_was_lost_arrives_with_the_sweep(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Committed without waking anyone (as a lost NOTIFY): the sweep that runs by itself
    every poll interval finds the stream behind the log and wakes it."""
    ctx: AppContext = app.state.ctx
    t = await make_table(make_client, app)
    async with _stream(app, t) as player:
        async with ctx.sessionmaker() as session:
            added = await append_event(
                session,
                t.campaign_id,
                campaign_events.SettingsChanged(actor_name="gm", before={}, after={}),
                actor_id=None,
            )
            seq = added.seq
            await session.commit()  # not ctx.commit: nobody is told
        item = await asyncio.wait_for(player.got.get(), 3 * ctx.warden.interval)
        assert (item.seq, item.event) == (seq, campaign_events.SettingsChanged.TYPE)
        assert player.sub.after == seq


async def _sweep_statements(app: FastAPI, t: Table, streams: int) -> int:
    """SELECT statements of one sweep over ``streams`` subscriptions, each its own campaign and
    session (all but the first unknown to the database: the sweep ends those)."""
    ctx: AppContext = app.state.ctx
    viewer = Viewer(t.ids["player"], "player_user", Role.player)
    subs = [ctx.broker.subscribe(t.campaign_id, "h0", viewer)]
    subs += [ctx.broker.subscribe(10_000 + i, f"h{i}", viewer) for i in range(1, streams)]
    try:
        with statements(app) as seen:
            await ctx.warden.sweep()
        assert [s.ended for s in subs] == [True] * streams  # no such session "h0" either
        return sum(1 for sql in seen if sql.startswith("SELECT"))
    finally:
        for sub in subs:
            sub.close()


async def test_one_sweep_costs_as_many_statements_for_50_streams_as_for_5(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    few, many = await _sweep_statements(app, t, 5), await _sweep_statements(app, t, 50)
    assert few == many == 3  # memberships, sessions, the campaigns' last seq


def test_a_stream_of_a_session_that_just_ended_subscribes_ended() -> None:
    """The request was let in, then the logout committed before the stream subscribed: no
    statement per opening stream looks again, the broker remembers ended sessions."""
    broker = Broker()
    broker.end_sessions(["a"])
    late, other = broker.subscribe(1, "a"), broker.subscribe(1, "b")
    assert late.ended and not other.ended
    broker.ENDED_KEEP = 2
    broker.end_sessions(["c", "d"])  # only the newest are kept: "a" is forgotten
    assert not broker.subscribe(1, "a").ended and broker.subscribe(1, "d").ended
