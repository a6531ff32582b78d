"""Idempotency keys: a repeated creating request answers like the first and creates nothing."""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta

from fastapi import FastAPI
from fastapi.params import Depends
from sqlalchemy import event, func, select, update

from app.campaigns.models import Campaign
from app.db import utcnow
from app.events.models import CampaignEvent
from app.idempotency.models import IdempotentRequest
from app.idempotency.sweeper import KeySweeper
from app.web.idempotency import IDEMPOTENT, IdempotentRoute
from tests.api.helpers import api_routes, make_table
from tests.conftest import ClientFactory, register


async def _count(app: FastAPI, model: type[Campaign] | type[CampaignEvent]) -> int:
    async with app.state.ctx.sessionmaker() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


async def test_a_repeated_api_create_replays_the_first_answer(
    make_client: ClientFactory, app: FastAPI
) -> None:
    gm = make_client()
    await register(gm, "gm_user")
    body = {"name": "Die Nordmark", "system": "hh"}
    headers = {"Idempotency-Key": "9b2c7e1a-create-campaign"}
    first = await gm.post("/api/v1/campaigns", json=body, headers=headers)
    second = await gm.post("/api/v1/campaigns", json=body, headers=headers)
    assert first.status_code == 201, first.text
    assert second.status_code == 201 and second.json() == first.json()
    assert second.headers["idempotent-replayed"] == "true"
    assert second.headers["content-type"] == first.headers["content-type"]
    assert await _count(app, Campaign) == 1
    third = await gm.post("/api/v1/campaigns", json=body, headers={"Idempotency-Key": "other"})
    assert third.status_code == 201 and third.json()["id"] != first.json()["id"]
    assert await _count(app, Campaign) == 2


async def test_a_repeated_roll_appends_no_event(make_client: ClientFactory, app: FastAPI) -> None:
    table = await make_table(make_client, app)
    url = f"/api/v1/campaigns/{table.campaign_id}/rolls"
    headers = {"Idempotency-Key": "roll-1"}
    first = await table.player.post(url, json={"expression": "2W10"}, headers=headers)
    events = await _count(app, CampaignEvent)
    again = await table.player.post(url, json={"expression": "2W10"}, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert await _count(app, CampaignEvent) == events


async def test_a_repeat_leaves_no_gap_in_the_log(make_client: ClientFactory, app: FastAPI) -> None:
    """The repeat rolls again before it meets the key, then rolls that back: the campaign's
    next event takes the very next place after the first roll's."""
    table = await make_table(make_client, app)
    url = f"/api/v1/campaigns/{table.campaign_id}/rolls"
    first = await table.player.post(
        url, json={"expression": "2W10"}, headers={"Idempotency-Key": "k"}
    )
    again = await table.player.post(
        url, json={"expression": "2W10"}, headers={"Idempotency-Key": "k"}
    )
    assert again.headers["idempotent-replayed"] == "true" and again.json() == first.json()
    after = await table.player.post(url, json={"expression": "2W10"})
    assert after.json()["event_id"] == first.json()["event_id"] + 1


async def test_a_repeat_that_fails_itself_replays_the_first_answer(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """A repeat runs into what its first request did (here: the session it started runs),
    yet answers like the first; a new request with another key gets the error."""
    table = await make_table(make_client, app)
    url = f"/api/v1/campaigns/{table.campaign_id}/sessions"
    first = await table.gm.post(url, headers={"Idempotency-Key": "start-1"})
    assert first.status_code == 201, first.text
    again = await table.gm.post(url, headers={"Idempotency-Key": "start-1"})
    assert (again.status_code, again.json()) == (201, first.json())
    assert again.headers["idempotent-replayed"] == "true"
    other = await table.gm.post(url, headers={"Idempotency-Key": "start-2"})
    assert other.status_code == 409 and "idempotent-replayed" not in other.headers


async def test_a_failed_request_looks_its_key_up_on_its_own_connection(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """A burst of failing requests must not each wait for a second connection of the pool
    while holding their first."""
    table = await make_table(make_client, app)
    url = f"/api/v1/campaigns/{table.campaign_id}/sessions"
    assert (await table.gm.post(url, headers={"Idempotency-Key": "a"})).status_code == 201
    held, most = [0], [0]

    def checkout(*_args: object) -> None:
        held[0] += 1
        most[0] = max(most[0], held[0])

    def checkin(*_args: object) -> None:
        held[0] -= 1

    pool = app.state.ctx.engine.sync_engine.pool
    event.listen(pool, "checkout", checkout)
    event.listen(pool, "checkin", checkin)
    try:
        refused = await table.gm.post(url, headers={"Idempotency-Key": "b"})
    finally:
        event.remove(pool, "checkout", checkout)
        event.remove(pool, "checkin", checkin)
    assert refused.status_code == 409
    assert most == [1]


async def test_the_same_key_for_another_request_is_refused_at_the_field(
    make_client: ClientFactory, app: FastAPI
) -> None:
    table = await make_table(make_client, app)
    url = f"/api/v1/campaigns/{table.campaign_id}/rolls"
    headers = {"Idempotency-Key": "roll-1"}
    assert (await table.gm.post(url, json={"expression": "1W6"}, headers=headers)).is_success
    events = await _count(app, CampaignEvent)
    r = await table.gm.post(url, json={"expression": "1W20"}, headers=headers)
    assert r.status_code == 422
    assert "andere Anfrage" in r.json()["errors"]["idempotency_key"]
    other_path = await table.gm.post(
        "/api/v1/campaigns", json={"name": "X", "system": "hh"}, headers=headers
    )
    assert other_path.status_code == 422
    assert await _count(app, CampaignEvent) == events


async def test_keys_belong_to_their_user(make_client: ClientFactory, app: FastAPI) -> None:
    table = await make_table(make_client, app)
    url = f"/api/v1/campaigns/{table.campaign_id}/rolls"
    headers = {"Idempotency-Key": "shared"}
    a = await table.gm.post(url, json={"expression": "1W6"}, headers=headers)
    b = await table.player.post(url, json={"expression": "1W6"}, headers=headers)
    assert a.status_code == b.status_code == 201
    assert a.json()["event_id"] != b.json()["event_id"]


async def test_a_failed_request_forgets_its_key(make_client: ClientFactory, app: FastAPI) -> None:
    gm = make_client()
    await register(gm, "gm_user")
    headers = {"Idempotency-Key": "retry-me"}
    bad = await gm.post("/api/v1/campaigns", json={"name": "", "system": "hh"}, headers=headers)
    assert bad.status_code == 422
    good = await gm.post(
        "/api/v1/campaigns", json={"name": "Nordmark", "system": "hh"}, headers=headers
    )
    assert good.status_code == 201, good.text
    assert await _count(app, Campaign) == 1


async def test_a_key_expires_after_a_day(make_client: ClientFactory, app: FastAPI) -> None:
    gm = make_client()
    await register(gm, "gm_user")
    body = {"name": "Nordmark", "system": "hh"}
    headers = {"Idempotency-Key": "old"}
    assert (await gm.post("/api/v1/campaigns", json=body, headers=headers)).status_code == 201
    async with app.state.ctx.sessionmaker() as session:
        await session.execute(
            update(IdempotentRequest).values(created_at=utcnow() - timedelta(hours=25))
        )
        await session.commit()
    again = await gm.post("/api/v1/campaigns", json=body, headers=headers)
    assert again.status_code == 201 and "idempotent-replayed" not in again.headers
    assert await _count(app, Campaign) == 2


async def test_each_process_sweeps_out_the_keys_of_a_day_ago(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """A request reads only its own key; the expired keys of every user leave the database with
    the process's sweep (every ten minutes), the others stay and still replay."""
    gm, player = make_client(), make_client()
    await register(gm, "gm_user")
    await register(player, "player_user")
    for client, key in ((gm, "alt"), (player, "alt"), (gm, "neu")):
        body = {"name": f"Nordmark {key}", "system": "hh"}
        r = await client.post("/api/v1/campaigns", json=body, headers={"Idempotency-Key": key})
        assert r.status_code == 201, r.text
    async with app.state.ctx.sessionmaker() as session:
        await session.execute(
            update(IdempotentRequest)
            .where(IdempotentRequest.key == "alt")
            .values(created_at=utcnow() - timedelta(hours=25))
        )
        await session.commit()
    assert await KeySweeper(app.state.ctx.sessionmaker).tick() == 2
    async with app.state.ctx.sessionmaker() as session:
        assert list(await session.scalars(select(IdempotentRequest.key))) == ["neu"]
    again = await gm.post(
        "/api/v1/campaigns",
        json={"name": "Nordmark neu", "system": "hh"},
        headers={"Idempotency-Key": "neu"},
    )
    assert again.headers["idempotent-replayed"] == "true"
    assert await _count(app, Campaign) == 3


async def test_bad_keys_are_refused(make_client: ClientFactory, app: FastAPI) -> None:
    gm = make_client()
    await register(gm, "gm_user")
    for key in (b"x" * 101, b"with space", "ümlaut".encode()):
        r = await gm.post(
            "/api/v1/campaigns",
            json={"name": "N", "system": "hh"},
            headers={b"Idempotency-Key": key},
        )
        assert r.status_code == 422 and "idempotency_key" in r.text
    assert await _count(app, Campaign) == 0


async def test_concurrent_duplicates_create_once(make_client: ClientFactory, app: FastAPI) -> None:
    table = await make_table(make_client, app)
    url = f"/api/v1/campaigns/{table.campaign_id}/rolls"
    events = await _count(app, CampaignEvent)
    answers = await asyncio.gather(
        *(
            table.gm.post(url, json={"expression": "3W6"}, headers={"Idempotency-Key": "race"})
            for _ in range(6)
        )
    )
    assert {r.status_code for r in answers} == {201}, [r.text for r in answers]
    assert len({r.json()["event_id"] for r in answers}) == 1
    assert [r.headers.get("idempotent-replayed") for r in answers].count(None) == 1
    assert await _count(app, CampaignEvent) == events + 1


async def test_a_double_submitted_form_answers_like_the_first(
    make_client: ClientFactory, app: FastAPI
) -> None:
    gm = make_client()
    await register(gm, "gm_user")
    page = await gm.get("/campaigns")
    key = re.search(r'name="idempotency_key" value="([0-9a-f-]{36})"', page.text)
    assert key, "the create-campaign form carries a fresh idempotency key"
    form = {"name": "Nordmark", "system": "hh", "idempotency_key": key.group(1)}
    first = await gm.post("/campaigns", data=form)
    second = await gm.post("/campaigns", data=form)
    assert first.status_code in (200, 303)
    assert (second.status_code, second.headers.get("location")) == (
        first.status_code,
        first.headers.get("location"),
    )
    assert await _count(app, Campaign) == 1
    assert key.group(1) not in (await gm.get("/campaigns")).text


def test_every_creating_route_is_idempotent(app: FastAPI) -> None:
    """Every POST that answers 201 (API) and every creating form takes an idempotency key."""
    creating_pages = {
        "/campaigns",
        "/campaigns/{campaign_id}/rolls",
        "/campaigns/{campaign_id}/invites",
        "/join/{code}",
        "/campaigns/{campaign_id}/characters",
        "/campaigns/{campaign_id}/characters/import",
        "/campaigns/{campaign_id}/characters/{character_id}/roll",
        "/campaigns/{campaign_id}/characters/{character_id}/items",
        "/campaigns/{campaign_id}/items",
        "/campaigns/{campaign_id}/encounters",
        "/campaigns/{campaign_id}/encounters/{encounter_id}/duplicate",
        "/campaigns/{campaign_id}/encounters/{encounter_id}/participants",
        "/campaigns/{campaign_id}/encounters/{encounter_id}/{action}",
        "/campaigns/{campaign_id}/bestiary",
        "/campaigns/{campaign_id}/bestiary/samples",
        "/campaigns/import",
        "/campaigns/{campaign_id}/sessions",
    }
    unguarded = []
    for route in api_routes(app):
        if "POST" not in (route.methods or set()) or route.path.startswith("/api/v1/auth"):
            continue
        creates = route.status_code == 201 or route.path in creating_pages
        guarded = any(isinstance(d, Depends) and d is IDEMPOTENT for d in route.dependencies)
        if creates and not (guarded and isinstance(route, IdempotentRoute)):
            unguarded.append(route.path)
    assert unguarded == []


async def test_an_htmx_submit_replays_its_redirect(
    make_client: ClientFactory, app: FastAPI
) -> None:
    gm = make_client()
    await register(gm, "gm_user")
    form = {"name": "Nordmark", "system": "hh", "idempotency_key": "htmx-1"}
    headers = {"HX-Request": "true"}
    first = await gm.post("/campaigns", data=form, headers=headers)
    second = await gm.post("/campaigns", data=form, headers=headers)
    assert first.status_code == second.status_code == 204
    assert second.headers["hx-redirect"] == first.headers["hx-redirect"]
    assert "content-length" not in second.headers or second.headers["content-length"] == "0"
    assert await _count(app, Campaign) == 1
