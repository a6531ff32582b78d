"""Personal API tokens as a script author uses them: scope × route, one campaign, expiry,
revocation (streams end too), hashed at rest, last use noted at most once a minute."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select, update

from app.accounts.models import ApiToken
from app.accounts.service import token_hash
from app.db import utcnow
from tests.api.helpers import Table, make_table
from tests.conftest import ClientFactory, LiveServer
from tests.stream.sse import account, messages, take, unique


async def new_token(client: httpx.AsyncClient, scope: str, **extra: Any) -> dict[str, Any]:
    r = await client.post("/api/v1/auth/tokens", json={"name": f"Skript {scope}", "scope": scope,
                                                       **extra})  # fmt: skip
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    assert body["token"].startswith("tfr_pat_")
    return body


def bearer(make_client: ClientFactory, secret: str) -> httpx.AsyncClient:
    client = make_client()
    client.headers["Authorization"] = f"Bearer {secret}"
    return client


async def own_character(t: Table) -> tuple[int, int]:
    """The player's hero and the GM's NSC."""
    ids = []
    for client, name in ((t.player, "Alrik"), (t.gm, "Wirt")):
        r = await client.post(f"/api/v1/campaigns/{t.campaign_id}/characters", json={"name": name})
        assert r.status_code == 201, r.text
        ids.append(int(r.json()["id"]))
    return ids[0], ids[1]


def writes(t: Table, hero: int, npc: int) -> dict[str, tuple[str, str, dict[str, Any]]]:
    base = f"/api/v1/campaigns/{t.campaign_id}"
    return {
        "roll": ("POST", f"{base}/rolls", {"expression": "1d6"}),
        "chat": ("POST", f"{base}/messages", {"text": "Hallo"}),
        "own sheet": ("PATCH", f"{base}/characters/{hero}", {"changes": {"name": "Alrik B"}}),
        "other sheet": ("PATCH", f"{base}/characters/{npc}", {"changes": {"name": "Wirt B"}}),
        "new campaign": ("POST", "/api/v1/campaigns", {"name": "Neu", "system": "hh"}),
        "logout everywhere": ("POST", "/api/v1/auth/logout-everywhere", {}),
        "new token": ("POST", "/api/v1/auth/tokens", {"name": "x", "scope": "read"}),
    }


#: What the player's token of each scope gets (the player may not edit the GM's NSC).
EXPECTED = {
    "read": {"roll": 403, "chat": 403, "own sheet": 403, "other sheet": 403,
             "new campaign": 403, "logout everywhere": 403, "new token": 403},
    "play": {"roll": 201, "chat": 201, "own sheet": 200, "other sheet": 403,
             "new campaign": 403, "logout everywhere": 403, "new token": 403},
    "manage": {"roll": 201, "chat": 201, "own sheet": 200, "other sheet": 403,
               "new campaign": 201, "logout everywhere": 403, "new token": 403},
}  # fmt: skip


@pytest.mark.parametrize("scope", ["read", "play", "manage"])
async def test_scope_by_route(make_client: ClientFactory, app: FastAPI, scope: str) -> None:
    t = await make_table(make_client, app)
    hero, npc = await own_character(t)
    client = bearer(make_client, (await new_token(t.player, scope))["token"])
    assert (await client.get(f"/api/v1/campaigns/{t.campaign_id}")).status_code == 200
    assert (await client.get(f"/api/v1/campaigns/{t.campaign_id}/rolls")).status_code == 200
    assert (await client.get("/api/v1/auth/tokens")).status_code == 403
    assert (await client.get("/account/tokens")).status_code == 403
    got = {}
    for what, (method, url, body) in writes(t, hero, npc).items():
        got[what] = (await client.request(method, url, json=body)).status_code
    assert got == EXPECTED[scope]
    # Still signed in: nothing above ended the user's sessions or tokens.
    assert (await t.player.get("/api/v1/auth/tokens")).status_code == 200


async def test_a_token_does_no_more_than_its_user(make_client: ClientFactory, app: FastAPI) -> None:
    t = await make_table(make_client, app)
    fairplay = f"/api/v1/campaigns/{t.campaign_id}/fairplay"
    body = {"enabled": True, "overrides": "marked", "reveal_secret_rolls": True}
    player = bearer(make_client, (await new_token(t.player, "manage"))["token"])
    assert (await player.put(fairplay, json=body)).status_code == 403
    gm_play = bearer(make_client, (await new_token(t.gm, "play"))["token"])
    assert (await gm_play.put(fairplay, json=body)).status_code == 403
    gm_manage = bearer(make_client, (await new_token(t.gm, "manage"))["token"])
    assert (await gm_manage.put(fairplay, json=body)).status_code == 200


async def test_a_token_for_one_campaign_finds_no_other(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    r = await t.player.post("/api/v1/campaigns", json={"name": "Zweite", "system": "ds4"})
    other = r.json()["id"]
    secret = (await new_token(t.player, "play", campaign_id=t.campaign_id))["token"]
    client = bearer(make_client, secret)
    assert (await client.get(f"/api/v1/campaigns/{t.campaign_id}")).status_code == 200
    for url in (
        f"/api/v1/campaigns/{other}",
        f"/api/v1/campaigns/{other}/rolls",
        "/api/v1/campaigns",
    ):
        assert (await client.get(url)).status_code == 404, url
    r = await client.post(f"/api/v1/campaigns/{other}/rolls", json={"expression": "1d6"})
    assert r.status_code == 404
    r = await t.outsider.post(
        "/api/v1/auth/tokens", json={"name": "x", "scope": "read", "campaign_id": t.campaign_id}
    )
    assert r.status_code == 422 and "campaign_id" in r.text


async def test_tokens_are_hashed_at_rest_listed_without_secret_and_revoked(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    created = await new_token(t.player, "read")
    async with app.state.ctx.sessionmaker() as session:
        rows = (await session.execute(select(ApiToken.__table__))).all()
    assert len(rows) == 1
    assert created["token"] not in repr(rows)
    assert rows[0].token_hash == token_hash(created["token"])
    listed = (await t.player.get("/api/v1/auth/tokens")).json()
    assert [x["name"] for x in listed] == ["Skript read"] and "token" not in listed[0]
    assert (await t.gm.get("/api/v1/auth/tokens")).json() == []
    assert (await t.gm.delete(f"/api/v1/auth/tokens/{created['id']}")).status_code == 404

    client = bearer(make_client, created["token"])
    assert (await client.get(f"/api/v1/campaigns/{t.campaign_id}")).status_code == 200
    assert (await t.player.delete(f"/api/v1/auth/tokens/{created['id']}")).status_code == 204
    assert (await client.get(f"/api/v1/campaigns/{t.campaign_id}")).status_code == 401


async def test_logging_out_everywhere_revokes_every_token(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    client = bearer(make_client, (await new_token(t.player, "manage"))["token"])
    assert (await client.get(f"/api/v1/campaigns/{t.campaign_id}")).status_code == 200
    assert (await t.player.post("/api/v1/auth/logout-everywhere")).status_code == 204
    assert (await client.get(f"/api/v1/campaigns/{t.campaign_id}")).status_code == 401


async def test_an_expired_token_signs_nobody_in(make_client: ClientFactory, app: FastAPI) -> None:
    t = await make_table(make_client, app)
    past = (utcnow() - timedelta(days=1)).isoformat()
    r = await t.player.post(
        "/api/v1/auth/tokens", json={"name": "alt", "scope": "read", "expires_at": past}
    )
    assert r.status_code == 422 and "expires_at" in r.text
    soon = (utcnow() + timedelta(days=1)).isoformat()
    created = await new_token(t.player, "read", expires_at=soon)
    client = bearer(make_client, created["token"])
    assert (await client.get(f"/api/v1/campaigns/{t.campaign_id}")).status_code == 200
    await _set(app, created["id"], expires_at=utcnow() - timedelta(seconds=1))
    assert (await client.get(f"/api/v1/campaigns/{t.campaign_id}")).status_code == 401


async def _set(app: FastAPI, token_id: int, **values: object) -> None:
    async with app.state.ctx.sessionmaker() as session:
        await session.execute(update(ApiToken).where(ApiToken.id == token_id).values(**values))
        await session.commit()


async def _last_used(app: FastAPI, token_id: int) -> Any:
    async with app.state.ctx.sessionmaker() as session:
        return await session.scalar(select(ApiToken.last_used_at).where(ApiToken.id == token_id))


async def test_last_use_is_noted_at_most_once_a_minute(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    created = await new_token(t.player, "play")
    client = bearer(make_client, created["token"])
    assert await _last_used(app, created["id"]) is None
    await client.get(f"/api/v1/campaigns/{t.campaign_id}")
    first = await _last_used(app, created["id"])
    assert first is not None
    # A refused write is a use too, and its rollback does not take the note back.
    await client.post("/api/v1/campaigns", json={"name": "Neu", "system": "hh"})
    await client.get(f"/api/v1/campaigns/{t.campaign_id}")
    assert await _last_used(app, created["id"]) == first
    await _set(app, created["id"], last_used_at=utcnow() - timedelta(minutes=2))
    await client.get(f"/api/v1/campaigns/{t.campaign_id}")
    assert await _last_used(app, created["id"]) > first - timedelta(minutes=1)
    listed = (await t.player.get("/api/v1/auth/tokens")).json()
    assert listed[0]["last_used_at"] is not None


async def test_the_tokens_page_shows_a_new_secret_once_and_revokes(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    r = await t.player.post(
        "/account/tokens",
        data={"name": "Discord-Bot", "scope": "play", "campaign_id": str(t.campaign_id),
              "days": "30"},
    )  # fmt: skip
    assert r.status_code == 201, r.text
    listed = (await t.player.get("/api/v1/auth/tokens")).json()
    assert listed[0]["scope"] == "play" and listed[0]["campaign_id"] == t.campaign_id
    assert "tfr_pat_" in r.text
    page = await t.player.get("/account/tokens")
    assert "Discord-Bot" in page.text and "tfr_pat_" not in page.text
    assert "Die Nordmark" in page.text
    bad = await t.player.post("/account/tokens", data={"name": "", "scope": "root", "days": "7"})
    assert bad.status_code == 422 and 'aria-invalid="true"' in bad.text
    assert (await t.anonymous.get("/api/v1/auth/tokens")).status_code == 401
    assert (await t.anonymous.get("/account/tokens")).status_code in (303, 307)
    r = await t.anonymous.post(f"/account/tokens/{listed[0]['id']}/revoke")
    assert r.status_code in (303, 307)
    assert (await t.gm.post(f"/account/tokens/{listed[0]['id']}/revoke")).status_code == 404
    r = await t.player.post(f"/account/tokens/{listed[0]['id']}/revoke")
    assert r.status_code == 303
    assert (await t.player.get("/api/v1/auth/tokens")).json() == []


async def test_revoking_a_token_ends_its_stream_within_seconds(live_server: LiveServer) -> None:
    gm = await account(live_server.url, unique("gm"))
    r = await gm.post("/api/v1/campaigns", json={"name": "Skript", "system": "hh"})
    cid = r.json()["id"]
    created = await new_token(gm, "read")
    script = httpx.AsyncClient(
        base_url=live_server.url,
        timeout=10,
        headers={"Authorization": f"Bearer {created['token']}"},
    )
    try:
        async with script.stream("GET", f"/api/v1/campaigns/{cid}/events") as response:
            assert response.status_code == 200
            stream = messages(response)
            await gm.post(f"/api/v1/campaigns/{cid}/rolls", json={"expression": "1d6"})
            assert (await take(stream, 1))[0].id is not None
            assert (await gm.delete(f"/api/v1/auth/tokens/{created['id']}")).status_code == 204

            async def rest() -> None:
                async for _ in stream:
                    pass

            await asyncio.wait_for(rest(), 2.0)
        assert (await script.get(f"/api/v1/campaigns/{cid}/events")).status_code == 401
    finally:
        with contextlib.suppress(Exception):
            await script.aclose()
        await gm.aclose()
