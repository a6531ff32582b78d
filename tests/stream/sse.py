"""A small SSE reader for tests against a real server."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx

from tests.conftest import PASSWORD


@dataclass(frozen=True)
class Message:
    id: int | None
    event: str
    data: str

    def json(self) -> dict[str, Any]:
        return json.loads(self.data)  # type: ignore[no-any-return]


async def messages(response: httpx.Response) -> AsyncIterator[Message]:
    fields: dict[str, list[str]] = {}
    async for line in response.aiter_lines():
        if line == "":
            if "data" in fields:
                ident = fields.get("id", [""])[0]
                yield Message(
                    int(ident) if ident.isdigit() else None,
                    fields.get("event", ["message"])[0],
                    "\n".join(fields["data"]),
                )
            fields = {}
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        fields.setdefault(name, []).append(value.removeprefix(" "))


async def take(stream: AsyncIterator[Message], count: int, timeout: float = 10) -> list[Message]:
    """The next ``count`` messages, failing if they do not arrive in time."""

    async def collect() -> list[Message]:
        out: list[Message] = []
        async for message in stream:
            out.append(message)
            if len(out) == count:
                break
        return out

    return await asyncio.wait_for(collect(), timeout)


async def nothing_within(stream: AsyncIterator[Message], seconds: float) -> None:
    try:
        message = await asyncio.wait_for(anext(stream), seconds)
    except TimeoutError:
        return
    raise AssertionError(f"unexpected message {message}")


def unique(name: str) -> str:
    return f"{name}_{uuid.uuid4().hex[:8]}"


#: A pooled connection is dropped after 2 s idle, before uvicorn closes it (5 s): httpx's own
#: default is the same 5 s, and a request sent on a connection the server is closing at that
#: moment fails with a ReadError — no answer, which the fault tests would count as lost.
CLIENT_LIMITS = httpx.Limits(keepalive_expiry=2.0)


async def account(base_url: str, name: str) -> httpx.AsyncClient:
    """A client logged in as a new user (bearer token, no cookie) on a live server."""
    client = httpx.AsyncClient(base_url=base_url, timeout=10, limits=CLIENT_LIMITS)
    r = await client.post("/api/v1/auth/register", json={"username": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    r = await client.post("/api/v1/auth/login", json={"username": name, "password": PASSWORD})
    token = r.json()["token"]
    client.cookies.clear()
    client.headers["Authorization"] = f"Bearer {token}"
    return client


async def gm_and_player(
    base_url: str, name: str
) -> tuple[httpx.AsyncClient, httpx.AsyncClient, int]:
    """A new campaign ``name`` (H&H) on a live server: its GM, a player who joined, its id."""
    gm = await account(base_url, unique("gm"))
    player = await account(base_url, unique("player"))
    r = await gm.post("/api/v1/campaigns", json={"name": name, "system": "hh"})
    cid, code = r.json()["id"], r.json()["invite_code"]
    r = await player.post("/api/v1/campaigns/join", json={"invite_code": code})
    assert r.status_code == 200, r.text
    return gm, player, int(cid)
