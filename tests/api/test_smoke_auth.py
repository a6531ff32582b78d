from __future__ import annotations

import httpx

from tests.conftest import register


async def test_register_login_and_me(client: httpx.AsyncClient) -> None:
    body = await register(client, "alrik")
    assert body["user"]["username"] == "alrik"
    r = await client.post("/api/v1/campaigns", json={"name": "Nordmark", "system": "hh"})
    assert r.status_code == 201
