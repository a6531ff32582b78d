"""Issue 20 H1: the per-user rate limit on writes (429 with Retry-After), set low here."""

from __future__ import annotations

import pytest
from fastapi import FastAPI

from app.config import Settings
from app.errors import TooManyRequests
from app.limits import WriteRateLimiter
from tests.conftest import ClientFactory, register

BURST = 5


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"write_rate_per_minute": 6.0, "write_burst": BURST})


async def test_writes_beyond_the_burst_answer_429_with_retry_after(
    make_client: ClientFactory, app: FastAPI
) -> None:
    gm, other = make_client(), make_client()
    await register(gm, "eilig")  # logging in is no write of a signed-in user
    await register(other, "gemach")
    r = await gm.post("/api/v1/campaigns", json={"name": "Runde", "system": "hh"})
    assert r.status_code == 201, r.text
    rolls = f"/api/v1/campaigns/{r.json()['id']}/rolls"
    statuses = [(await gm.post(rolls, json={"expression": "1W20"})).status_code for _ in range(5)]
    assert statuses == [201] * (BURST - 1) + [429]
    r = await gm.post(rolls, json={"expression": "1W20"})
    assert r.status_code == 429
    assert 1 <= int(r.headers["retry-after"]) <= 10
    assert r.headers["retry-after"] in r.json()["detail"]
    # Reading goes on, and the HTML forms are limited the same way.
    assert (await gm.get(rolls)).status_code == 200
    r = await gm.post("/campaigns", data={"name": "Noch eine", "system": "hh"})
    assert r.status_code == 429 and r.headers["retry-after"]
    # Other users have buckets of their own.
    r = await other.post("/api/v1/campaigns", json={"name": "Ihre", "system": "ds4"})
    assert r.status_code == 201, r.text


def test_the_bucket_refills_at_the_configured_rate() -> None:
    limiter = WriteRateLimiter(per_minute=60.0, burst=2)
    limiter.take(1, now=100.0)
    limiter.take(1, now=100.0)
    with pytest.raises(TooManyRequests) as refused:
        limiter.take(1, now=100.5)
    assert refused.value.retry_after == 1
    limiter.take(1, now=101.5)  # one write per second comes back
    with pytest.raises(TooManyRequests):
        limiter.take(1, now=101.6)
    limiter.take(2, now=101.6)
