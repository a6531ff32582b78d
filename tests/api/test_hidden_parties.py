"""An event is no more visible than everything it names (issue 20, H2).

The GM does everything a sheet's log records, to a visible character and to a hidden NSC,
and moves items between them both ways. No player or observer may then find the NSC's
name or id on any channel: the API history, the HTML history, the dice log, the SSE replay
and the history live stream. An event about the visible character that names the NSC in
passing still reaches them, without the NSC.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from sqlalchemy import select

from app.characters.live import HISTORY_PAGE
from app.characters.views import CharacterPage
from app.core.viewer import Role, Viewer
from app.events.audience import PARTIES, about
from app.events.encoding import render_json
from app.events.models import CampaignEvent
from app.events.service import project
from app.events.stream import Outgoing, Render, follow
from app.web.streams import recheck_for
from tests.api.test_characters import Table, create, make_table
from tests.conftest import ClientFactory

SECRET = "Geheimrat Zyx"
HISTORY_SOURCE = Path(__file__).resolve().parents[2] / "app" / "characters" / "history.py"
#: Every character event type the sheet history knows, and the dice roll.
EVENT_TYPES = {*re.findall(r'kind == "(character_\w+)"', HISTORY_SOURCE.read_text()), "roll"}
OTHER_ID_KEYS = [p.id_key for p in PARTIES[1:]]


async def _everything_to(t: Table, character: dict[str, Any], who: str = "gm") -> None:
    """Every change the sheet's log records, by ``who`` on ``character``."""
    url = f"{t.api}/characters/{character['id']}"
    client = t[who]
    assert (await client.patch(url, json={"changes": {"xp": 3}})).status_code == 200
    item = (await client.post(f"{url}/items", json={"starter": "hh:decke"})).json()["id"]
    r = await client.put(f"{url}/items/{item}", json={"name": "Wolldecke", "fields": {}})
    assert r.status_code == 200, r.text
    sword = (await client.post(f"{url}/items", json={"starter": "hh:schwert"})).json()["id"]
    r = await client.post(f"{url}/items/{sword}/equip", json={"slot": "waffenhand"})
    assert r.status_code == 200, r.text
    assert (await client.post(f"{url}/items/{sword}/unequip", json={})).status_code == 200
    assert (await client.delete(f"{url}/items/{item}")).status_code == 204
    r = await client.post(f"{url}/roll", json={"target": "skill:Kampfkunst"})
    assert r.status_code == 201, r.text
    assert (await client.post(f"{url}/archive")).status_code == 200
    assert (await client.post(f"{url}/restore")).status_code == 200


async def _move(t: Table, source: dict[str, Any], target: dict[str, Any]) -> None:
    url = f"{t.api}/characters/{source['id']}/items"
    rope = (await t["gm"].post(url, json={"starter": "hh:seil"})).json()["id"]
    r = await t["gm"].post(f"{url}/{rope}/move", json={"to_character_id": target["id"]})
    assert r.status_code == 200, r.text


async def _play(t: Table) -> tuple[dict[str, Any], dict[str, Any]]:
    """The scenario; returns the visible character and the hidden NSC."""
    pc = await create(t)
    npc = await create(t, "gm", name=SECRET, kind="npc", hidden_from_players=True)
    for character in (pc, npc):
        await _everything_to(t, character)
    await _move(t, pc, npc)
    await _move(t, npc, pc)
    gone = await create(t, "gm", name=f"{SECRET} II", kind="npc", hidden_from_players=True)
    r = await t["gm"].delete(f"{t.api}/characters/{gone['id']}", params={"confirm": "true"})
    assert r.status_code == 204
    export = (await t["player"].get(f"{t.api}/characters/{pc['id']}/export")).json()
    assert (await t["player"].post(f"{t.api}/characters/import", json=export)).status_code == 201
    # Last, something everyone sees: the streams below read up to it.
    assert (await t["player"].post(f"{t.api}/rolls", json={"expression": "1d6"})).is_success
    return pc, npc


def _leaks(text: str, npc_id: int) -> list[str]:
    found = [SECRET] if SECRET in text else []
    found += [k for k in OTHER_ID_KEYS if re.search(f'"{k}": ?{npc_id}\\b', text)]
    return found


async def _stream(app: FastAPI, cid: int, viewer: Viewer, render: Render) -> str:
    """What a stream that starts at the beginning sends ``viewer`` up to the last event."""
    ctx = app.state.ctx
    async with ctx.sessionmaker() as session:
        last = max((await session.scalars(select(CampaignEvent.seq))).all())
    sent: list[Outgoing] = []
    messages: AsyncIterator[Outgoing] = follow(
        ctx, cid, viewer, 0, render, recheck_for(ctx.members.current_viewer, cid, None)
    )

    async def read() -> None:
        async for item in messages:
            sent.append(item)
            if item.seq >= last:
                return

    try:
        await asyncio.wait_for(read(), 10)
    finally:
        await messages.aclose()  # type: ignore[attr-defined]
    return "\n".join(item.data for item in sent)


async def test_no_channel_names_a_hidden_nsc_to_players(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    pc, npc = await _play(t)
    async with app.state.ctx.sessionmaker() as session:
        log = (
            await session.scalars(
                select(CampaignEvent)
                .where(CampaignEvent.campaign_id == t.campaign_id)
                .order_by(CampaignEvent.seq)
            )
        ).all()
    assert {e.type for e in log} >= EVENT_TYPES, EVENT_TYPES - {e.type for e in log}
    sheet = f"/campaigns/{t.campaign_id}/characters/{pc['id']}/history"
    history = HISTORY_PAGE.stream(CharacterPage(t.campaign_id, pc["id"]))
    for role, name in (
        ("player", "player_hh"),
        ("player2", "player2_hh"),
        ("observer", "observer_hh"),
    ):
        viewer = Viewer(t.ids[role], name, Role(role.rstrip("2")))
        channels = {
            "projection": json.dumps([e.data() for e in project(log, viewer)], ensure_ascii=False),
            "api history": (await t[role].get(f"{t.api}/characters/{pc['id']}/history")).text,
            "html history": (await t[role].get(sheet)).text,
            "dice log": (await t[role].get(f"{t.api}/rolls")).text,
            "sse replay": await _stream(app, t.campaign_id, viewer, render_json),
            "history stream": await _stream(
                app,
                t.campaign_id,
                viewer,
                HISTORY_PAGE.stream(CharacterPage(t.campaign_id, pc["id"])),
            ),
        }
        for channel, text in channels.items():
            assert not _leaks(text, npc["id"]), (role, channel, _leaks(text, npc["id"]))
        # The visible side of each move still arrives, without the NSC.
        history = (await t[role].get(f"{t.api}/characters/{pc['id']}/history")).json()
        types = [e["type"] for e in history]
        assert "character_item_moved" in types and "character_item_received" in types
        assert all("withheld_parties" not in e for e in history)
        assert "× «Seil» weggegeben" in channels["html history"]
        assert "× «Seil» erhalten" in channels["history stream"]
    # The GMs see everything, names included.
    gm_history = (await t["gm"].get(f"{t.api}/characters/{pc['id']}/history")).json()
    moved = next(e for e in gm_history if e["type"] == "character_item_moved")
    received = next(e for e in gm_history if e["type"] == "character_item_received")
    assert (moved["to_character_id"], moved["to_character_name"]) == (npc["id"], SECRET)
    assert (received["from_character_id"], received["from_character_name"]) == (npc["id"], SECRET)
    assert "withheld_parties" not in moved
    assert f"an {SECRET} gegeben" in (await t["gm"].get(sheet)).text


def test_every_party_an_event_may_name_is_left_out_when_hidden() -> None:
    player = Viewer(2, "player", Role.player)
    gm = Viewer(1, "gm", Role.gm)
    for party in PARTIES:
        payload: dict[str, Any] = {"actor_name": "gm", "item_name": "Seil"}
        payload.update({key: 7 if key == party.id_key else SECRET for key in party.keys})
        event = CampaignEvent(
            id=1,
            campaign_id=1,
            seq=1,
            type="character_item_moved",
            actor_id=1,
            audience=about(payload, {7}).to_json(),
            payload=payload,
            created_at=datetime.now(UTC),
        )
        seen = [e.data() for e in project([event], player)]
        assert not _leaks(json.dumps(seen, ensure_ascii=False), 7), party
        assert all(party.id_key not in e for e in seen)
        (whole,) = [e.data() for e in project([event], gm)]
        assert whole[party.id_key] == 7 and "withheld_parties" not in whole
        # Named in passing: the event itself still reaches the player.
        assert len(seen) == (0 if party.id_key == "character_id" else 1), party


async def test_a_hidden_nsc_joins_a_fight_hidden(make_client: ClientFactory, app: FastAPI) -> None:
    t = await make_table(make_client, app)
    npc = await create(t, "gm", name=SECRET, kind="npc", hidden_from_players=True)
    r = await t["gm"].post(f"{t.api}/encounters", json={"name": "Hinterhalt"})
    assert r.status_code == 201, r.text
    fight = f"{t.api}/encounters/{r.json()['id']}"
    r = await t["gm"].post(f"{fight}/participants", json={"character_id": npc["id"]})
    assert r.status_code == 201, r.text
    assert [p["hidden"] for p in r.json()] == [True]
    assert SECRET in (await t["gm"].get(fight)).text
    for role in ("player", "observer"):
        assert SECRET not in (await t[role].get(fight)).text, role
