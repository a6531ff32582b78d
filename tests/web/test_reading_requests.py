"""A request of a safe method (GET, HEAD) only reads: on SQLite its transaction takes no
write lock, so a page, an export or a print being made holds up no one's roll; the sign-in's
upkeep of the login session (touch it now and then, end it once idle) is done after the
answer, in a transaction of its own."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

from fastapi import APIRouter, FastAPI, Response
from sqlalchemy import select, update

from app.accounts.models import UserSession
from app.accounts.service import TOUCH_INTERVAL
from app.campaigns.models import Campaign
from app.db import utcnow
from app.web.deps import CurrentUser, Session, TransactionalRoute
from tests.api.helpers import make_table
from tests.conftest import ClientFactory

#: Long enough for a write stalled behind a lock to show, short of SQLite's busy timeout.
STALLED = 3.0


def _slow_page(reading: asyncio.Event, made: asyncio.Event) -> APIRouter:
    """A page that reads its campaign, then takes its time to be made (a long print)."""
    router = APIRouter(route_class=TransactionalRoute)

    @router.get("/slow-page/{campaign_id}")
    async def slow_page(campaign_id: int, session: Session, _user: CurrentUser) -> Response:
        campaign = await session.get(Campaign, campaign_id)
        assert campaign is not None
        reading.set()
        await made.wait()
        return Response(campaign.name)

    return router


async def test_a_page_being_made_holds_up_no_roll(make_client: ClientFactory, app: FastAPI) -> None:
    reading, made = asyncio.Event(), asyncio.Event()
    app.include_router(_slow_page(reading, made))
    t = await make_table(make_client, app)
    page = asyncio.create_task(t.gm.get(f"/slow-page/{t.campaign_id}"))
    await asyncio.wait_for(reading.wait(), STALLED)
    r = await asyncio.wait_for(
        t.player.post(
            f"/api/v1/campaigns/{t.campaign_id}/rolls",
            json={"expression": "1d20", "label": "Während der Druck läuft"},
        ),
        STALLED,
    )
    assert r.status_code == 201, r.text
    assert not page.done()
    made.set()
    answer = await page
    assert (answer.status_code, answer.text) == (200, "Die Nordmark")


async def _last_seen(app: FastAPI, user_id: int) -> list[datetime]:
    async with app.state.ctx.sessionmaker() as session:
        query = select(UserSession.last_seen_at).where(UserSession.user_id == user_id)
        return list(await session.scalars(query))


async def _seen_ago(app: FastAPI, user_id: int, ago: timedelta) -> None:
    async with app.state.ctx.sessionmaker() as session:
        await session.execute(
            update(UserSession)
            .where(UserSession.user_id == user_id)
            .values(last_seen_at=utcnow() - ago)
        )
        await session.commit()


async def test_a_page_load_touches_its_login_session_and_ends_an_idle_one(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    uid, client = t.ids["player"], t.player
    await _seen_ago(app, uid, TOUCH_INTERVAL + timedelta(minutes=1))
    (before,) = await _last_seen(app, uid)
    assert (await client.get("/api/v1/campaigns")).status_code == 200
    (after,) = await _last_seen(app, uid)
    assert after > before
    idle = timedelta(days=app.state.ctx.settings.session_idle_days, minutes=1)
    await _seen_ago(app, uid, idle)
    assert (await client.get("/api/v1/campaigns")).status_code == 401
    assert await _last_seen(app, uid) == []  # ended, not touched
    assert (await client.get("/api/v1/campaigns")).status_code == 401


async def test_a_stale_login_session_is_touched_on_a_write_too(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    uid = t.ids["player"]
    await _seen_ago(app, uid, TOUCH_INTERVAL + timedelta(minutes=1))
    (before,) = await _last_seen(app, uid)
    r = await t.player.post(
        f"/api/v1/campaigns/{t.campaign_id}/rolls", json={"expression": "1d6", "label": "x"}
    )
    assert r.status_code == 201, r.text
    (after,) = await _last_seen(app, uid)
    assert after > before
