"""The live combat stream: resume after a dropped connection, and across two processes."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.events.models import CampaignEvent
from tests.conftest import PASSWORD, LiveServer
from tests.encounters.helpers import Fight, add_character
from tests.encounters.test_hh import ALRIK

Message = tuple[int, str, str]


async def messages(response: httpx.Response) -> AsyncIterator[Message]:
    seq, event = 0, ""
    data: list[str] = []
    async for line in response.aiter_lines():
        if line.startswith(":"):
            continue
        if not line:
            if data:
                yield seq, event, "\n".join(data)
            seq, event, data = 0, "", []
            continue
        key, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if key == "id":
            seq = int(value)
        elif key == "event":
            event = value
        elif key == "data":
            data.append(value)


async def read_until(
    client: httpx.AsyncClient, url: str, last: int, until: int, *, stop_after: int = 0
) -> list[Message]:
    """Messages from ``url`` resuming after ``last``, until seq ``until`` (or ``stop_after``
    messages, then the connection is dropped)."""
    got: list[Message] = []
    headers = {"Last-Event-ID": str(last)} if last else {}
    async with asyncio.timeout(20), client.stream("GET", url, headers=headers) as response:
        assert response.status_code == 200
        async for message in messages(response):
            got.append(message)
            if (stop_after and len(got) >= stop_after) or message[0] >= until:
                break
    return got


async def login(base_url: str, name: str) -> tuple[httpx.AsyncClient, int]:
    client = httpx.AsyncClient(base_url=base_url, timeout=20)
    r = await client.post("/api/v1/auth/register", json={"username": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    r = await client.post("/api/v1/auth/login", json={"username": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    return client, int(r.json()["user"]["id"])


async def live_fight(app: FastAPI, base_url: str, prefix: str) -> tuple[Fight, dict[str, str]]:
    gm, _gm_id = await login(base_url, f"{prefix}gm")
    player, player_id = await login(base_url, f"{prefix}pl")
    r = await gm.post("/api/v1/campaigns", json={"name": "Live", "system": "hh"})
    cid, code = r.json()["id"], r.json()["invite_code"]
    await player.post("/api/v1/campaigns/join", json={"invite_code": code})
    fight = Fight(cid, gm, [player], {"p0": player_id})
    await add_character(app, fight, "p0", "Alrik", ALRIK, "hh")
    r = await gm.post(f"/api/v1/campaigns/{cid}/bestiary/samples")
    goblin = next(e for e in r.json() if e["name"] == "Goblin")
    r = await gm.post(f"/api/v1/campaigns/{cid}/encounters", json={"name": "Live"})
    fight.encounter_id = r.json()["id"]
    await gm.post(f"{fight.base}/participants", json={"character_id": fight.characters["Alrik"]})
    await gm.post(f"{fight.base}/participants", json={"entry_id": goblin["id"], "count": 2})
    await gm.post(f"{fight.base}/participants", json={"entry_id": goblin["id"], "hidden": True})
    view = await fight.act(gm, "start")
    return fight, {p["name"]: str(p["pid"]) for p in view["participants"]}


async def visible_seqs(app: FastAPI, fight: Fight) -> list[int]:
    async with app.state.ctx.sessionmaker() as session:
        events = (
            await session.scalars(
                select(CampaignEvent)
                .where(
                    CampaignEvent.campaign_id == fight.campaign_id,
                    CampaignEvent.type == "combat",
                    CampaignEvent.visibility == "public",
                )
                .order_by(CampaignEvent.seq)
            )
        ).all()
    return [e.seq for e in events if e.payload.get("encounter_id") == fight.encounter_id]


async def last_seq(app: FastAPI, fight: Fight) -> int:
    async with app.state.ctx.sessionmaker() as session:
        seqs = (
            await session.scalars(
                select(CampaignEvent.seq).where(CampaignEvent.campaign_id == fight.campaign_id)
            )
        ).all()
    return int(max(seqs))


async def gm_actions(fight: Fight, pids: dict[str, str], n: int) -> None:
    for i in range(n):
        await fight.act(fight.gm, "adjust", participant=pids["Goblin 1"], delta=-1, reason=f"R{i}")
        await fight.act(
            fight.gm, "check", participant=pids["Goblin 3"], skill="Spürsinn", secret="1"
        )
        await fight.act(fight.gm, "adjust", participant=pids["Goblin 3"], delta=-1, reason="geheim")


async def test_dropped_stream_resumes_without_loss_or_duplicates(
    app: FastAPI, live_server: LiveServer
) -> None:
    fight, pids = await live_fight(app, live_server.url, "drop")
    player = fight.players[0]
    url = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}/live"
    try:
        start = await visible_seqs(app, fight)
        await gm_actions(fight, pids, 2)
        first = await read_until(player, url, 0, 10**9, stop_after=len(start) + 2)
        assert len(first) == len(start) + 2
        # Mid-combat the connection drops; the fight goes on meanwhile.
        await gm_actions(fight, pids, 3)
        await fight.act(fight.gm, "next")
        expected = await visible_seqs(app, fight)
        second = await read_until(player, url, first[-1][0], expected[-1])
        seen = [m[0] for m in first + second]
        assert seen == expected  # every visible event once, in order
        assert len(set(seen)) == len(seen)
        for _seq, event, data in first + second:
            assert event == "combat"
            assert "Goblin 3" not in data and "Spürsinn" not in data and "geheim" not in data
        # The GM's stream carries the hidden goblin.
        gm_msgs = await read_until(fight.gm, url, 0, await last_seq(app, fight))
        assert any("Goblin 3" in m[2] for m in gm_msgs)
    finally:
        await fight.gm.aclose()
        await player.aclose()


@pytest.mark.skipif(
    not os.environ.get("TAFELRUNDE_TEST_DATABASE_URL", "").startswith("postgresql"),
    reason="two app processes share a database only on PostgreSQL",
)
async def test_action_on_one_process_reaches_a_viewer_on_another(
    app: FastAPI, live_server: LiveServer, database_url: str, data_dir: Path
) -> None:
    other = LiveServer(database_url, data_dir)
    try:
        fight, pids = await live_fight(app, live_server.url, "twoproc")
        viewer = httpx.AsyncClient(base_url=other.url, timeout=20, cookies=fight.players[0].cookies)
        url = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}/live"
        after = await last_seq(app, fight)

        async def act_later() -> None:
            await asyncio.sleep(1.0)
            await fight.act(fight.gm, "adjust", participant=pids["Goblin 1"], delta=-2, reason="X")

        task = asyncio.create_task(act_later())
        got = await read_until(viewer, url, after, after + 1)
        await task
        assert got[0][0] == after + 1
        assert "Goblin 1" in got[0][2]
        await viewer.aclose()
        await fight.gm.aclose()
        await fight.players[0].aclose()
    finally:
        other.stop()
