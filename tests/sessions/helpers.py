"""A fair-play session on the API: the GM turns fair play on and starts a session."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
from typing import Any

import httpx

from app.events.fairplay import canonical
from app.sessions.verify_fairplay import Export, Report, verify
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


def reseal(data: dict[str, Any], seq: int) -> None:
    """What a server that recorded a payload other than its dice would publish: the digest
    of the changed payload (salted as the record says) and every chain link from there."""
    events = data["events"]
    start = next(n for n, e in enumerate(events) if e["seq"] == seq)
    fp = events[start]["fairplay"]
    body = canonical(events[start]["payload"])
    fp["digest"] = (
        hmac.new(bytes.fromhex(fp["salt"]), body, hashlib.sha256).hexdigest()
        if "salt" in fp
        else hashlib.sha256(body).hexdigest()
    )
    previous = data["commitment"] if start == 0 else events[start - 1]["fairplay"]["chain"]
    for e in events[start:]:
        e["fairplay"]["chain"] = hashlib.sha256(
            (previous + e["fairplay"]["digest"]).encode()
        ).hexdigest()
        previous = e["fairplay"]["chain"]


def unsalted(data: dict[str, Any]) -> None:
    """An export as a session recorded before the salt has it (format version 1): unsalted
    SHA-256 digests, no version, no salt, the chain over those digests."""
    previous = data["commitment"]
    for e in data["events"]:
        fp = e["fairplay"]
        fp.pop("salt", None)
        fp.pop("version", None)
        fp["digest"] = hashlib.sha256(canonical(e["payload"])).hexdigest()
        fp["chain"] = previous = hashlib.sha256((previous + fp["digest"]).encode()).hexdigest()


def verified(data: dict[str, Any]) -> Report:
    """The standalone verifier's report on an export (as the API sent it, maybe tampered),
    read from its JSON text as ``verify_fairplay.py`` reads a saved file."""
    loaded: Export = json.loads(json.dumps(data))
    return verify(loaded)
