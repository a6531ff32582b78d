"""A request of a safe method (GET, HEAD) or a lookup (a POST marked ``LOOKUP``: the odds,
the forecast, the GM's risk simulation) only reads: on SQLite its transaction takes no write
lock, so a page, a print or a simulation of up to five seconds holds up no one's roll; the
sign-in's upkeep of the login session (touch it now and then, end it once idle) is done
after the answer, in a transaction of its own."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

import pytest
from fastapi import APIRouter, FastAPI, Response
from sqlalchemy import select, update

from app.accounts.models import UserSession
from app.accounts.service import TOUCH_INTERVAL
from app.campaigns.models import Campaign
from app.db import utcnow
from app.web.deps import LOOKUP, CurrentUser, Session, TransactionalRoute
from tests.api.helpers import api_routes, make_table
from tests.conftest import ClientFactory

#: Long enough for a write stalled behind a lock to show, short of SQLite's busy timeout.
STALLED = 3.0


def _slow_page(reading: asyncio.Event, made: asyncio.Event) -> APIRouter:
    """A page and a lookup that read their campaign, then take their time to be made (a
    long print, a risk simulation)."""
    router = APIRouter(route_class=TransactionalRoute)

    async def slow(campaign_id: int, session: Session) -> Response:
        campaign = await session.get(Campaign, campaign_id)
        assert campaign is not None
        reading.set()
        await made.wait()
        return Response(campaign.name)

    @router.get("/slow-page/{campaign_id}")
    async def slow_page(campaign_id: int, session: Session, _user: CurrentUser) -> Response:
        return await slow(campaign_id, session)

    @router.post("/slow-lookup/{campaign_id}", dependencies=[LOOKUP])
    async def slow_lookup(campaign_id: int, session: Session, _user: CurrentUser) -> Response:
        return await slow(campaign_id, session)

    return router


@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_a_page_or_lookup_being_made_holds_up_no_roll(
    make_client: ClientFactory, app: FastAPI, method: str
) -> None:
    reading, made = asyncio.Event(), asyncio.Event()
    app.include_router(_slow_page(reading, made))
    t = await make_table(make_client, app)
    url = f"/slow-{'page' if method == 'GET' else 'lookup'}/{t.campaign_id}"
    page = asyncio.create_task(t.gm.request(method, url))
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


async def test_the_odds_the_forecast_and_the_risk_simulation_are_lookups(app: FastAPI) -> None:
    """Their routes (HTML and API) are marked ``LOOKUP``: they read in a session that only
    reads, so on SQLite a write in them would fail loudly in every test that calls them."""
    lookups = {
        route.path
        for route in api_routes(app)
        if any(d.dependency is LOOKUP.dependency for d in route.dependencies)
    }
    assert {p.rsplit("/", 1)[-1] for p in lookups} == {"odds", "forecast", "risk"}
    assert len(lookups) == 5
