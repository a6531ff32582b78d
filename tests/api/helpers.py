"""A campaign with one member of each role, for the API and permission tests."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import httpx
from fastapi import FastAPI
from fastapi.routing import APIRoute
from sqlalchemy import select
from starlette.routing import BaseRoute

from app.campaigns.models import Invite
from app.web.context import AppContext
from tests.conftest import ClientFactory, register


@dataclass
class Table:
    campaign_id: int
    invite_code: str
    gm: httpx.AsyncClient
    player: httpx.AsyncClient
    observer: httpx.AsyncClient
    outsider: httpx.AsyncClient
    anonymous: httpx.AsyncClient
    ids: dict[str, int]


async def observer_code(app: FastAPI, campaign_id: int, gm: httpx.AsyncClient) -> str:
    r = await gm.post(
        f"/campaigns/{campaign_id}/invites", data={"role": "observer", "expires_days": ""}
    )
    assert r.status_code == 303, r.text
    ctx: AppContext = app.state.ctx
    async with ctx.sessionmaker() as session:
        code = await session.scalar(
            select(Invite.code).where(Invite.campaign_id == campaign_id, Invite.role == "observer")
        )
    assert code
    return code


async def make_table(make_client: ClientFactory, app: FastAPI, system: str = "hh") -> Table:
    gm, player, observer, outsider = make_client(), make_client(), make_client(), make_client()
    ids = {}
    for name, client in (
        ("gm", gm),
        ("player", player),
        ("observer", observer),
        ("outsider", outsider),
    ):
        body = await register(client, f"{name}_user")
        ids[name] = body["user"]["id"]  # type: ignore[index]
    r = await gm.post("/api/v1/campaigns", json={"name": "Die Nordmark", "system": system})
    assert r.status_code == 201, r.text
    campaign_id, code = r.json()["id"], r.json()["invite_code"]
    assert (await player.post("/api/v1/campaigns/join", json={"invite_code": code})).json()[
        "role"
    ] == "player"
    obs = await observer_code(app, campaign_id, gm)
    assert (await observer.post("/api/v1/campaigns/join", json={"invite_code": obs})).json()[
        "role"
    ] == "observer"
    return Table(campaign_id, code, gm, player, observer, outsider, make_client(), ids)


def api_routes(app: FastAPI) -> list[APIRoute]:
    """Every route of the app, through the routers it includes (none adds a prefix)."""

    def walk(routes: Sequence[BaseRoute]) -> Iterator[APIRoute]:
        for route in routes:
            if isinstance(route, APIRoute):
                yield route
            elif (router := getattr(route, "original_router", None)) is not None:
                yield from walk(router.routes)

    return list(walk(app.routes))
