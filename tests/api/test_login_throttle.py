"""Failed logins slow down the guesser, never lock out the owner (issue 20, M3).

Counted per account and address (growing delays) and per address (much shorter ones);
the owner at another address is not slowed at all. Each client here has its own address.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from pathlib import Path

import httpx
import pydantic
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.accounts.models import LoginFailure
from app.config import Environment, Settings
from tests.conftest import PASSWORD, register

FREE, ADDRESS_FREE, ADDRESS_MAX = 3, 6, 60


@pytest.fixture
def settings(database_url: str, data_dir: Path) -> Settings:
    return Settings(
        environment=Environment.test,
        database_url=database_url,
        data_dir=data_dir,
        secret_key="test-secret",
        argon2_time_cost=1,
        argon2_memory_kib=8192,
        login_free_failures=FREE,
        login_address_free_failures=ADDRESS_FREE,
        login_address_max_delay_seconds=ADDRESS_MAX,
    )


At = Callable[[str], httpx.AsyncClient]


@pytest.fixture
async def at(app: FastAPI) -> AsyncIterator[At]:
    """A client whose requests come from ``address``."""
    clients: list[httpx.AsyncClient] = []

    def make(address: str) -> httpx.AsyncClient:
        transport = httpx.ASGITransport(app=app, client=(address, 40000))
        client = httpx.AsyncClient(transport=transport, base_url="http://testserver")
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.aclose()


async def _login(client: httpx.AsyncClient, username: str, password: str) -> httpx.Response:
    return await client.post(
        "/api/v1/auth/login", json={"username": username, "password": password}
    )


async def _fail(client: httpx.AsyncClient, username: str, times: int) -> None:
    for _ in range(times):
        assert (await _login(client, username, "falsch-falsch")).status_code == 401


async def _age_failures(app: FastAPI, seconds: float) -> None:
    """Let ``seconds`` pass for the throttle: every recorded failure becomes that much older."""
    async with app.state.ctx.sessionmaker() as session:
        for failure in (await session.scalars(select(LoginFailure))).all():
            failure.created_at -= timedelta(seconds=seconds)
        await session.commit()


async def test_a_stranger_cannot_lock_out_the_owner(app: FastAPI, at: At) -> None:
    owner, stranger = at("198.51.100.7"), at("203.0.113.9")
    await register(owner, "alrik")
    await _fail(stranger, "alrik", FREE)
    assert (await _login(stranger, "alrik", "falsch-falsch")).status_code == 429
    assert (await _login(stranger, "alrik", PASSWORD)).status_code == 429
    r = await _login(owner, "alrik", PASSWORD)
    assert r.status_code == 200, r.text
    # The owner's success does not reset the stranger's count.
    assert (await _login(stranger, "alrik", "falsch-falsch")).status_code == 429


async def test_delays_double_after_the_free_failures(app: FastAPI, at: At) -> None:
    guesser = at("203.0.113.9")
    await register(at("198.51.100.7"), "alrik")
    await _fail(guesser, "alrik", FREE)
    waits = []
    for _ in range(4):
        r = await _login(guesser, "alrik", "falsch-falsch")
        assert r.status_code == 429
        waits.append(int(r.headers["retry-after"]))
        await _age_failures(app, waits[-1])
        await _fail(guesser, "alrik", 1)
    assert waits == [1, 2, 4, 8]
    # Once the wait is over, the right password works from there too.
    await _age_failures(app, 16)
    assert (await _login(guesser, "alrik", PASSWORD)).status_code == 200


async def test_a_shared_address_is_slowed_but_never_for_long(app: FastAPI, at: At) -> None:
    office = at("192.0.2.1")
    await register(at("198.51.100.7"), "boronia")
    for n in range(ADDRESS_FREE):
        await _fail(office, f"nobody{n}", 1)
    # Everyone behind the address waits, even with the right password ...
    r = await _login(office, "boronia", PASSWORD)
    assert r.status_code == 429 and int(r.headers["retry-after"]) == 1
    # ... but however many failures pile up, never longer than the address limit.
    async with app.state.ctx.sessionmaker() as session:
        session.add_all(
            LoginFailure(username_key=f"spray{n}", address="192.0.2.1") for n in range(200)
        )
        await session.commit()
    r = await _login(office, "boronia", PASSWORD)
    assert r.status_code == 429 and int(r.headers["retry-after"]) == ADDRESS_MAX
    await _age_failures(app, ADDRESS_MAX)
    assert (await _login(office, "boronia", PASSWORD)).status_code == 200
    # Other addresses were never slowed.
    assert (await _login(at("198.51.100.8"), "boronia", PASSWORD)).status_code == 200


def test_trusted_proxies_must_be_addresses_or_networks() -> None:
    ok = Settings(trusted_proxies=" 10.0.0.1, 192.168.0.0/24 ,::1")
    assert ok.trusted_proxy_list == ["10.0.0.1", "192.168.0.0/24", "::1"]
    assert Settings().trusted_proxy_list == []
    with pytest.raises(pydantic.ValidationError, match="not an address"):
        Settings(trusted_proxies="10.0.0.1, proxy.local")
