"""The request's transaction follows its answer: a response with status >= 400 saves nothing."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import httpx
import pytest
from fastapi import APIRouter, FastAPI, Response
from fastapi.routing import APIRoute
from sqlalchemy import func, select
from starlette.routing import BaseRoute

from app.campaigns.events import CampaignCreated
from app.campaigns.models import Campaign
from app.events.models import CampaignEvent
from app.events.service import append_event
from app.web.deps import CurrentUser, Session, TransactionalRoute
from tests.conftest import ClientFactory, register


def _probe_router() -> APIRouter:
    """A route that writes a row and an event, then answers with the status it is asked for
    (as a route does that catches a service error and re-renders the form)."""
    router = APIRouter(route_class=TransactionalRoute)

    @router.post("/probe/{campaign_id}")
    async def probe(campaign_id: int, status: int, session: Session, user: CurrentUser) -> Response:
        campaign = await session.get(Campaign, campaign_id)
        assert campaign is not None
        campaign.name = "changed"
        await session.flush()
        event = CampaignCreated(actor_name=user.username, name="probe", system="hh")
        await append_event(session, campaign_id, event, actor_id=user.id)
        return Response("answered", status_code=status)

    return router


async def _state(app: FastAPI, campaign_id: int) -> tuple[str, int]:
    async with app.state.ctx.sessionmaker() as session:
        name = await session.scalar(select(Campaign.name).where(Campaign.id == campaign_id))
        events = await session.scalar(
            select(func.count()).where(CampaignEvent.campaign_id == campaign_id)
        )
        return str(name), int(events or 0)


async def _campaign(client: httpx.AsyncClient) -> int:
    await register(client, "probegm")
    r = await client.post("/api/v1/campaigns", json={"name": "Probe", "system": "hh"})
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


async def test_an_error_answer_after_a_write_leaves_nothing(
    make_client: ClientFactory, app: FastAPI
) -> None:
    app.include_router(_probe_router())
    client = make_client()
    campaign_id = await _campaign(client)
    _name_before, events = await _state(app, campaign_id)
    for status in (409, 422, 500):
        r = await client.post(f"/probe/{campaign_id}", params={"status": status})
        assert r.status_code == status and r.text == "answered"
        assert await _state(app, campaign_id) == ("Probe", events)
    r = await client.post(f"/probe/{campaign_id}", params={"status": 200})
    assert r.status_code == 200
    assert await _state(app, campaign_id) == ("changed", events + 1)


def _api_routes(routes: Sequence[BaseRoute]) -> Iterator[APIRoute]:
    """The app's routes, also those of included routers (kept whole by FastAPI)."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        inner = getattr(route, "original_router", None)
        if isinstance(inner, APIRouter):
            yield from _api_routes(inner.routes)


async def test_every_route_of_the_app_follows_its_answer(app: FastAPI) -> None:
    routes = list(_api_routes(app.routes))
    assert len(routes) > 50
    plain = [r.path for r in routes if not isinstance(r, TransactionalRoute)]
    assert plain == []


async def test_a_session_is_made_only_where_its_route_will_finish_it(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """A route of another class asking for the request's session fails loudly instead of
    writing into a session nobody commits; a transactional route that asks for none makes
    none (the route finishes only a session made)."""
    router = APIRouter()  # not a TransactionalRoute

    @router.get("/probe-plain")
    async def plain(session: Session) -> Response:
        return Response("never")

    app.include_router(router)
    with pytest.raises(RuntimeError, match="never be saved"):
        await make_client().get("/probe-plain")

    made: list[object] = []
    sessions = app.state.ctx.read_sessions  # a GET's: it only reads

    def counted() -> object:
        made.append(1)
        return sessions()

    app.state.ctx.read_sessions = counted
    try:
        assert (await make_client().get("/favicon.ico")).status_code == 301
        assert made == []
        r = await make_client().get("/api/v1/campaigns")
        assert r.status_code == 401 and made == [1]
    finally:
        app.state.ctx.read_sessions = sessions
