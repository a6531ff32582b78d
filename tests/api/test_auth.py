"""Accounts over the JSON API: registration rules, sessions, throttling, password storage."""

from __future__ import annotations

import re

import httpx
import pytest
from argon2 import extract_parameters
from fastapi import FastAPI
from sqlalchemy import select

from app.accounts.models import User
from app.config import Settings
from tests.conftest import PASSWORD, ClientFactory, register


@pytest.mark.parametrize(
    ("length", "status"), [(11, 422), (12, 201), (64, 201), (128, 201), (129, 422)]
)
async def test_password_length_limits(client: httpx.AsyncClient, length: int, status: int) -> None:
    password = ("Zauberwald-" * 20)[:length]
    r = await client.post("/api/v1/auth/register", json={"username": "len", "password": password})
    assert r.status_code == status, r.text
    if status == 422:
        assert r.json()["errors"]["password"]


async def test_common_password_and_bad_username_are_refused(client: httpx.AsyncClient) -> None:
    r = await client.post(
        "/api/v1/auth/register", json={"username": "x", "password": "password1234"}
    )
    assert r.status_code == 422
    errors = r.json()["errors"]
    assert set(errors) == {"username", "password"}


async def test_names_are_unique_regardless_of_case(client: httpx.AsyncClient) -> None:
    await register(client, "Alrik")
    r = await client.post("/api/v1/auth/register", json={"username": "alrik", "password": PASSWORD})
    assert r.status_code == 422
    assert "username" in r.json()["errors"]


async def test_password_is_stored_as_argon2id(client: httpx.AsyncClient, app: FastAPI) -> None:
    await register(client, "alrik")
    async with app.state.ctx.sessionmaker() as session:
        stored = await session.scalar(select(User.password_hash))
    assert stored is not None and stored.startswith("$argon2id$v=19$")
    assert PASSWORD not in stored


def test_production_argon2_parameters_meet_asvs() -> None:
    from app.accounts.passwords import Hasher

    defaults = Settings()
    hasher = Hasher(defaults.argon2_time_cost, defaults.argon2_memory_kib)
    params = extract_parameters(hasher._dummy)
    assert params.time_cost >= 3 and params.memory_cost >= 12 * 1024
    assert params.type.name == "ID"


async def test_no_truncation_of_long_passwords(client: httpx.AsyncClient) -> None:
    first = "a" * 74 + "X" + "b" * 5
    second = "a" * 74 + "Y" + "b" * 5
    r = await client.post("/api/v1/auth/register", json={"username": "long", "password": first})
    assert r.status_code == 201
    r = await client.post("/api/v1/auth/login", json={"username": "long", "password": second})
    assert r.status_code == 401


async def test_login_sets_an_httponly_lax_cookie_and_returns_a_token(
    client: httpx.AsyncClient,
) -> None:
    await client.post("/api/v1/auth/register", json={"username": "alrik", "password": PASSWORD})
    r = await client.post("/api/v1/auth/login", json={"username": "alrik", "password": PASSWORD})
    assert r.status_code == 200
    cookie = r.headers["set-cookie"]
    assert re.search(r"tafelrunde_session=[A-Za-z0-9_-]{43};", cookie)
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/" in cookie
    assert "Domain" not in cookie
    assert len(r.json()["token"]) >= 43


async def test_each_login_gets_a_new_token(client: httpx.AsyncClient) -> None:
    first = await register(client, "alrik")
    r = await client.post("/api/v1/auth/login", json={"username": "alrik", "password": PASSWORD})
    assert r.json()["token"] != first["token"]


async def test_bearer_token_authenticates_without_cookie(make_client: ClientFactory) -> None:
    body = await register(make_client(), "alrik")
    bare = make_client()
    assert (await bare.get("/api/v1/campaigns")).status_code == 401
    r = await bare.get("/api/v1/campaigns", headers={"Authorization": f"Bearer {body['token']}"})
    assert r.status_code == 200 and r.json() == []


async def test_logout_ends_the_session(client: httpx.AsyncClient) -> None:
    body = await register(client, "alrik")
    assert (await client.post("/api/v1/auth/logout")).status_code == 204
    auth = {"Authorization": f"Bearer {body['token']}"}
    assert (await client.get("/api/v1/campaigns", headers=auth)).status_code == 401


async def test_logout_everywhere_ends_every_session(make_client: ClientFactory) -> None:
    laptop, phone = make_client(), make_client()
    await register(laptop, "alrik")
    r = await phone.post("/api/v1/auth/login", json={"username": "alrik", "password": PASSWORD})
    assert r.status_code == 200
    assert (await phone.get("/api/v1/campaigns")).status_code == 200
    assert (await laptop.post("/api/v1/auth/logout-everywhere")).status_code == 204
    assert (await phone.get("/api/v1/campaigns")).status_code == 401


async def test_failed_logins_are_throttled_per_account(
    make_client: ClientFactory, settings: Settings
) -> None:
    client = make_client()
    await register(client, "alrik")
    for _ in range(settings.login_free_failures):
        r = await client.post("/api/v1/auth/login", json={"username": "alrik", "password": "nope"})
        assert r.status_code == 401
    r = await client.post("/api/v1/auth/login", json={"username": "alrik", "password": "nope"})
    assert r.status_code == 429
    assert int(r.headers["retry-after"]) > 0
    # The right password during the lock gets the same answer: no oracle.
    right = await client.post(
        "/api/v1/auth/login", json={"username": "ALRIK", "password": PASSWORD}
    )
    assert right.status_code == 429 and right.json() == r.json()
    # Other accounts are unaffected.
    other = make_client()
    await register(other, "boronia")


async def test_unknown_user_and_wrong_password_answer_alike(client: httpx.AsyncClient) -> None:
    await register(client, "alrik")
    a = await client.post("/api/v1/auth/login", json={"username": "alrik", "password": "wrong-pw"})
    b = await client.post("/api/v1/auth/login", json={"username": "nobody", "password": "wrong-pw"})
    assert a.status_code == b.status_code == 401
    assert a.json() == b.json()
