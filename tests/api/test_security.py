"""Cross-origin protection on every state-changing route, and the security headers."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.campaigns.models import Campaign
from app.events.models import CampaignEvent
from tests.api.helpers import api_routes, make_table
from tests.conftest import ClientFactory, register

UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}


class _Ids(dict[str, object]):
    """Path parameters: the table's ids where it has them, 1 for any other."""

    def __missing__(self, key: str) -> object:
        return 1


def _unsafe_routes(app: FastAPI) -> list[tuple[str, str]]:
    return sorted(
        (method, route.path)
        for route in api_routes(app)
        for method in (route.methods or set()) & UNSAFE
    )


@pytest.mark.parametrize(
    "headers",
    [
        {"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"},
        {"Sec-Fetch-Site": "same-site", "Origin": "https://sub.testserver"},
        {"Origin": "https://evil.example"},
    ],
)
async def test_every_unsafe_route_refuses_cross_origin_requests(
    make_client: ClientFactory, app: FastAPI, headers: dict[str, str]
) -> None:
    table = await make_table(make_client, app)
    async with app.state.ctx.sessionmaker() as session:
        events_before = await session.scalar(select(func.count()).select_from(CampaignEvent))
        campaigns_before = await session.scalar(select(func.count()).select_from(Campaign))
    routes = _unsafe_routes(app)
    assert len(routes) >= 15
    for method, path in routes:
        url = path.format_map(_Ids(campaign_id=table.campaign_id, user_id=table.ids["player"]))
        r = await table.gm.request(method, url, headers=headers, data={"name": "x"})
        assert r.status_code == 403, (method, path, r.status_code)
    async with app.state.ctx.sessionmaker() as session:
        assert (
            await session.scalar(select(func.count()).select_from(CampaignEvent)) == events_before
        )
        assert await session.scalar(select(func.count()).select_from(Campaign)) == campaigns_before


async def test_same_origin_and_non_browser_requests_pass(make_client: ClientFactory) -> None:
    client = make_client()
    await register(client, "alrik")
    same = {"Sec-Fetch-Site": "same-origin", "Origin": "http://testserver"}
    r = await client.post("/api/v1/campaigns", json={"name": "A", "system": "hh"}, headers=same)
    assert r.status_code == 201
    r = await client.post("/api/v1/campaigns", json={"name": "B", "system": "hh"})
    assert r.status_code == 201
    r = await client.post(
        "/api/v1/campaigns",
        json={"name": "C", "system": "hh"},
        headers={"Origin": "http://testserver"},
    )
    assert r.status_code == 201


async def test_pages_carry_security_headers(make_client: ClientFactory) -> None:
    client = make_client()
    r = await client.get("/login")
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp
    assert r.headers["referrer-policy"] == "same-origin"
    assert r.headers["x-content-type-options"] == "nosniff"
    assert "<script>" not in r.text and " onclick=" not in r.text


async def test_static_assets_are_served_locally(make_client: ClientFactory) -> None:
    client = make_client()
    page = (await client.get("/login")).text
    for asset in (
        "/static/vendor/htmx-2.0.11.min.js",
        "/static/vendor/htmx-ext-sse-2.2.4.js",
        "/static/js/app.js",
        "/static/css/app.css",
    ):
        assert f'"{asset}?v=' in page
        assert (await client.get(asset)).status_code == 200
    assert "http://" not in page.split("<body")[0] and "https://" not in page.split("<body")[0]
