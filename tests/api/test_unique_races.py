"""Every unique constraint, raced: concurrent writers get 2xx, 409 or 422, never a 500.

On PostgreSQL the requests really overlap (one connection each); on SQLite the IMMEDIATE
transactions queue them. Each race checks the answers and what ended up in the database.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import Index, Select, UniqueConstraint, func, select

from app.accounts.models import UserSession
from app.campaigns.models import Invite, Membership
from app.events.models import CampaignEvent
from app.models import Base
from tests.api.helpers import make_table
from tests.conftest import PASSWORD, ClientFactory, register

RACERS = 6

Race = Callable[[FastAPI, ClientFactory], Awaitable[None]]


def unique_keys() -> set[tuple[str, tuple[str, ...]]]:
    """(table, columns) of every unique constraint and unique index in the models."""
    keys: set[tuple[str, tuple[str, ...]]] = set()
    for table in Base.metadata.tables.values():
        for constraint in table.constraints:
            if isinstance(constraint, UniqueConstraint):
                keys.add((table.name, tuple(c.name for c in constraint.columns)))
        for index in table.indexes:
            if isinstance(index, Index) and index.unique:
                keys.add((table.name, tuple(c.name for c in index.columns)))
    return keys


async def at_once(calls: list[Awaitable[httpx.Response]]) -> list[httpx.Response]:
    responses = await asyncio.gather(*calls)
    assert all(r.status_code < 500 for r in responses), [(r.status_code, r.text) for r in responses]
    return responses


async def count(app: FastAPI, statement: Select[int]) -> int:
    async with app.state.ctx.sessionmaker() as session:
        return int(await session.scalar(statement) or 0)


async def race_register(app: FastAPI, make_client: ClientFactory) -> None:
    responses = await at_once(
        [
            make_client().post(
                "/api/v1/auth/register",
                json={"username": "Ada" if i % 2 else "ada", "password": PASSWORD},
            )
            for i in range(RACERS)
        ]
    )
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201] + [422] * (RACERS - 1)
    refused = [r.json() for r in responses if r.status_code == 422]
    assert all("username" in body["errors"] for body in refused)


async def race_login(app: FastAPI, make_client: ClientFactory) -> None:
    await register(make_client(), "ada")
    responses = await at_once(
        [
            make_client().post("/api/v1/auth/login", json={"username": "ada", "password": PASSWORD})
            for _ in range(RACERS)
        ]
    )
    assert [r.status_code for r in responses] == [200] * RACERS
    assert len({r.json()["token"] for r in responses}) == RACERS
    # The registration helper logged in once more.
    assert await count(app, select(func.count()).select_from(UserSession)) == RACERS + 1


async def race_join(app: FastAPI, make_client: ClientFactory) -> None:
    table = await make_table(make_client, app)
    # One login per request, as from several devices of one person.
    sessions = [make_client() for _ in range(RACERS)]
    await register(sessions[0], "newcomer")
    for client in sessions[1:]:
        login = {"username": "newcomer", "password": PASSWORD}
        assert (await client.post("/api/v1/auth/login", json=login)).status_code == 200
    api = [
        client.post("/api/v1/campaigns/join", json={"invite_code": table.invite_code})
        for client in sessions[1:]
    ]
    page = sessions[0].post(f"/join/{table.invite_code}")
    responses = await at_once([*api, page])
    assert [r.status_code for r in responses] == [200] * (RACERS - 1) + [303]
    assert {r.json()["role"] for r in responses[:-1]} == {"player"}
    members = select(func.count()).select_from(Membership)
    assert await count(app, members.where(Membership.campaign_id == table.campaign_id)) == 4
    joined = (
        select(func.count())
        .select_from(CampaignEvent)
        .where(
            CampaignEvent.campaign_id == table.campaign_id, CampaignEvent.type == "member_joined"
        )
    )
    assert await count(app, joined) == 3  # player, observer, newcomer: once each


async def race_invite(app: FastAPI, make_client: ClientFactory) -> None:
    table = await make_table(make_client, app)
    before = await count(app, select(func.count()).select_from(Invite))
    responses = await at_once(
        [
            table.gm.post(
                f"/campaigns/{table.campaign_id}/invites",
                data={"role": "observer", "expires_days": ""},
            )
            for _ in range(RACERS)
        ]
    )
    assert [r.status_code for r in responses] == [303] * RACERS
    assert await count(app, select(func.count(func.distinct(Invite.code)))) == before + RACERS


async def race_event_seq(app: FastAPI, make_client: ClientFactory) -> None:
    table = await make_table(make_client, app)
    url = f"/api/v1/campaigns/{table.campaign_id}/rolls"
    responses = await at_once(
        [
            client.post(url, json={"expression": "1d20"})
            for client in (table.gm, table.player) * (RACERS // 2)
        ]
    )
    assert [r.status_code for r in responses] == [201] * RACERS
    async with app.state.ctx.sessionmaker() as session:
        seqs = (
            await session.scalars(
                select(CampaignEvent.seq)
                .where(CampaignEvent.campaign_id == table.campaign_id)
                .order_by(CampaignEvent.seq)
            )
        ).all()
    assert list(seqs) == list(range(1, len(seqs) + 1))


async def race_api_token(app: FastAPI, make_client: ClientFactory) -> None:
    """Tokens are random: concurrent creations each get their own."""
    table = await make_table(make_client, app)
    responses = await at_once(
        [
            table.player.post("/api/v1/auth/tokens", json={"name": f"T{n}", "scope": "read"})
            for n in range(RACERS)
        ]
    )
    assert [r.status_code for r in responses] == [201] * RACERS
    assert len({r.json()["token"] for r in responses}) == RACERS


async def race_takeover_link(app: FastAPI, make_client: ClientFactory) -> None:
    """Takeover codes are random: links made at once for one imported part each differ."""
    table = await make_table(make_client, app)
    document = (await table.gm.get(f"/api/v1/campaigns/{table.campaign_id}/export")).json()
    copy = (await table.gm.post("/api/v1/campaigns/import", json=document)).json()["id"]
    parts = (await table.gm.get(f"/api/v1/campaigns/{copy}/parts")).json()
    part = parts[0]["id"]
    responses = await at_once(
        [table.gm.post(f"/api/v1/campaigns/{copy}/parts/{part}/link") for _ in range(RACERS)]
    )
    assert all(r.status_code in (200, 201) for r in responses), [r.text for r in responses]


RACES: dict[tuple[str, tuple[str, ...]], Race] = {
    ("user_account", ("username_key",)): race_register,
    ("user_session", ("token_hash",)): race_login,
    ("membership", ("campaign_id", "user_id")): race_join,
    ("invite", ("code",)): race_invite,
    ("campaign_event", ("campaign_id", "seq")): race_event_seq,
    ("api_token", ("token_hash",)): race_api_token,
    ("imported_part", ("code",)): race_takeover_link,
}


def test_every_unique_constraint_has_a_race() -> None:
    assert unique_keys() == set(RACES), "add a race for the new unique constraint to RACES"


@pytest.mark.parametrize("key", sorted(RACES), ids=lambda key: f"{key[0]}.{'+'.join(key[1])}")
async def test_concurrent_writers_of_a_unique_key_never_get_500(
    app: FastAPI, make_client: ClientFactory, key: tuple[str, tuple[str, ...]]
) -> None:
    await RACES[key](app, make_client)


async def test_a_unique_violation_past_every_check_answers_409_not_500(
    app: FastAPI, make_client: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The safety net: an invite code drawn twice (as if by chance) is a 409 on both channels."""
    table = await make_table(make_client, app)
    monkeypatch.setattr("app.campaigns.service._new_code", lambda: table.invite_code)
    form = {"role": "observer", "expires_days": ""}
    page = await table.gm.post(f"/campaigns/{table.campaign_id}/invites", data=form)
    assert page.status_code == 409
    assert "text/html" in page.headers["content-type"]
    api = await table.gm.post("/api/v1/campaigns", json={"name": "Zweite", "system": "hh"})
    assert api.status_code == 409
    assert api.json()["detail"]
    assert await count(app, select(func.count()).select_from(Invite)) == 2
