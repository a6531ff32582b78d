"""A fair-play session on the API: the GM turns fair play on and starts a session."""

from __future__ import annotations

import copy
from typing import Any

import httpx

from tests.api.helpers import Table


def base(t: Table) -> str:
    return f"/api/v1/campaigns/{t.campaign_id}"


async def fair_session(
    t: Table, *, overrides: str = "marked", reveal: bool = True
) -> dict[str, Any]:
    r = await t.gm.put(
        f"{base(t)}/fairplay",
        json={"enabled": True, "overrides": overrides, "reveal_secret_rolls": reveal},
    )
    assert r.status_code == 200, r.text
    r = await t.gm.post(f"{base(t)}/sessions")
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


async def roll(client: httpx.AsyncClient, t: Table, expression: str, **extra: str) -> int:
    r = await client.post(f"{base(t)}/rolls", json={"expression": expression, **extra})
    assert r.status_code == 201, r.text
    return int(r.json()["event_id"])


async def export(client: httpx.AsyncClient, campaign_id: int, session_id: int) -> dict[str, Any]:
    r = await client.get(f"/api/v1/campaigns/{campaign_id}/sessions/{session_id}/fairplay")
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def event(data: dict[str, Any], seq: int) -> dict[str, Any]:
    found: dict[str, Any] = next(e for e in data["events"] if e["seq"] == seq)
    return found


def tampered(data: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(data)
