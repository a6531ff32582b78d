"""``append_events``: several events in one go, the same log rows as that many single appends."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.events.audience import Audience, gm_only, in_scene, listed, sight
from app.events.broker import libpq_conninfo
from app.events.models import CampaignEvent
from app.events.payload import EventPayload
from app.events.service import (
    NOTIFY_CHANNEL,
    PENDING_KEY,
    FairPlayOpened,
    append_event,
    append_events,
    event_from_note,
)
from app.maps.events import TokenSighted
from app.talk.events import ChatMessagePosted
from app.web.context import AppContext
from tests.api.helpers import Table, make_table
from tests.conftest import ClientFactory
from tests.sessions.helpers import export, fair_session, verified


def _events(t: Table) -> list[tuple[EventPayload, Audience | None]]:
    """A mix of audiences: public, listed (the actor is added), per-player forms, GMs only."""
    player = t.ids["player"]

    def sighted(token: int) -> TokenSighted:
        return TokenSighted(actor_name="gm", scene_id=7, token_id=token)

    return [
        (sighted(1), sight(7, 1, None, {player: {"type": "token_added", "token": {"id": 1}}})),
        (sighted(2), sight(7, 2, None, {player: None}, seen=False)),
        (
            ChatMessagePosted(
                actor_name="gm",
                message_id=3,
                kind="ooc",
                text="psst",
                speaker=None,
                character_id=None,
                to=[player],
                to_gm=False,
            ),
            listed([player]),
        ),
        (sighted(4), in_scene(7)),
        (sighted(5), gm_only()),
        (sighted(6), None),
    ]


async def _log(ctx: AppContext, campaign_id: int, after: int = 0) -> list[CampaignEvent]:
    async with ctx.sessionmaker() as session:
        rows = await session.scalars(
            select(CampaignEvent)
            .where(CampaignEvent.campaign_id == campaign_id, CampaignEvent.seq > after)
            .order_by(CampaignEvent.seq)
        )
        return list(rows.all())


def _stored(e: CampaignEvent) -> dict[str, Any]:
    return {
        "type": e.type,
        "subject": e.subject,
        "actor_id": e.actor_id,
        "audience": e.audience,
        "payload": e.payload,
        "fairplay": e.fairplay,
    }


async def test_the_batch_writes_what_single_appends_write(
    make_client: ClientFactory, app: FastAPI
) -> None:
    ctx: AppContext = app.state.ctx
    t = await make_table(make_client, app)
    start = (await _log(ctx, t.campaign_id))[-1].seq
    gm = t.ids["gm"]
    async with ctx.sessionmaker() as session:
        for event, audience in _events(t):
            await append_event(session, t.campaign_id, event, actor_id=gm, audience=audience)
        await session.commit()
    async with ctx.sessionmaker() as session:
        batch = await append_events(session, t.campaign_id, _events(t), actor_id=gm)
        pending = list(session.info[PENDING_KEY])
        await session.commit()
    log = await _log(ctx, t.campaign_id, start)
    n = len(_events(t))
    assert [e.seq for e in log] == list(range(start + 1, start + 1 + 2 * n))
    singles, batched = log[:n], log[n:]
    assert [_stored(e) for e in batched] == [_stored(e) for e in singles]
    # What the caller and the live push get is what the log holds, in seq order.
    assert pending == batch
    assert [(e.id, e.seq) for e in batch] == [(e.id, e.seq) for e in batched]
    assert [_stored(e) for e in batch] == [_stored(e) for e in batched]
    # The next append goes on from there.
    async with ctx.sessionmaker() as session:
        after = await append_event(session, t.campaign_id, _events(t)[0][0], actor_id=gm)
        assert await append_events(session, t.campaign_id, [], actor_id=gm) == []
        await session.commit()
    assert after.seq == start + 2 * n + 1


async def test_in_a_fair_play_session_each_event_gets_its_link(
    make_client: ClientFactory, app: FastAPI
) -> None:
    ctx: AppContext = app.state.ctx
    t = await make_table(make_client, app)
    started = await fair_session(t)
    start = (await _log(ctx, t.campaign_id))[-1].seq
    async with ctx.sessionmaker() as session:
        with pytest.raises(FairPlayOpened):
            await append_events(
                session, t.campaign_id, _events(t), actor_id=t.ids["gm"], outside_fairplay=True
            )
        await session.rollback()
    assert await _log(ctx, t.campaign_id, start) == []
    async with ctx.sessionmaker() as session:
        await append_events(session, t.campaign_id, _events(t), actor_id=t.ids["gm"])
        await session.commit()
    log = await _log(ctx, t.campaign_id, start)
    assert [e.seq for e in log] == list(range(start + 1, start + 1 + len(_events(t))))
    assert all(e.fairplay is not None for e in log)
    r = await t.gm.post(f"/api/v1/campaigns/{t.campaign_id}/sessions/{started['id']}/end")
    assert r.status_code == 200, r.text
    report = verified(await export(t.gm, t.campaign_id, started["id"]))
    assert report.ok, [(e.seq, e.problems) for e in report.events]


async def test_on_postgresql_each_event_rings_as_a_single_append_does(
    make_client: ClientFactory, app: FastAPI, database_url: str
) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("NOTIFY is PostgreSQL's")
    ctx: AppContext = app.state.ctx
    t = await make_table(make_client, app)
    listen = await psycopg.AsyncConnection.connect(libpq_conninfo(database_url), autocommit=True)
    try:
        await listen.execute(f"LISTEN {NOTIFY_CHANNEL}")
        async with ctx.sessionmaker() as session:
            batch = await append_events(session, t.campaign_id, _events(t), actor_id=t.ids["gm"])
            await session.commit()
        notes = [n.payload async for n in listen.notifies(timeout=1.0)]
    finally:
        await listen.close()
    got = [event_from_note(note) for note in notes]
    assert [(c, seq) for c, seq, _ in got] == [(t.campaign_id, e.seq) for e in batch]
    assert [_stored(e) for _, _, e in got if e is not None] == [_stored(e) for e in batch]


async def test_on_postgresql_a_long_batch_rings_in_seq_order(
    make_client: ClientFactory, app: FastAPI, database_url: str
) -> None:
    """A fog revealed on a big map sights hundreds of tokens at once: one statement writes
    them all, and their NOTIFYs arrive in ``seq`` order (a stream skips a ``seq`` it has
    passed)."""
    if not database_url.startswith("postgresql"):
        pytest.skip("NOTIFY is PostgreSQL's")
    ctx: AppContext = app.state.ctx
    t = await make_table(make_client, app)
    start = (await _log(ctx, t.campaign_id))[-1].seq
    many = [
        (TokenSighted(actor_name="gm", scene_id=7, token_id=i), in_scene(7)) for i in range(250)
    ]
    listen = await psycopg.AsyncConnection.connect(libpq_conninfo(database_url), autocommit=True)
    try:
        await listen.execute(f"LISTEN {NOTIFY_CHANNEL}")
        async with ctx.sessionmaker() as session:
            batch = await append_events(session, t.campaign_id, many, actor_id=t.ids["gm"])
            await session.commit()
        notes = [n.payload async for n in listen.notifies(timeout=1.0)]
    finally:
        await listen.close()
    seqs = list(range(start + 1, start + 251))
    assert [e.seq for e in batch] == seqs
    assert [seq for _, seq, _ in map(event_from_note, notes)] == seqs
    log = await _log(ctx, t.campaign_id, start)
    assert [(e.seq, e.payload["token_id"]) for e in log] == list(zip(seqs, range(250), strict=True))
