"""Whole-campaign export and import: a round trip loses nothing, bad documents are refused."""

from __future__ import annotations

import json
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from app.events.models import CampaignEvent
from app.rules.dice import ScriptedRoller
from tests.conftest import ClientFactory, LiveServer, register
from tests.encounters.helpers import Fight
from tests.encounters.test_hh import hh_fight
from tests.stream.sse import account, messages, take, unique


async def _rich_campaign(make_client: ClientFactory, app: FastAPI) -> Fight:
    """A running H&H fight plus items, the library, a hidden NSC, secret and public rolls."""
    fight, pids = await hh_fight(make_client, app)
    gm, alrik = fight.gm, fight.players[0]
    cid = fight.campaign_id
    app.state.ctx.roller = ScriptedRoller([3, 4, 6, 5, 4, 5, 2, 2, 1, 6] * 20)
    await fight.act(alrik, "attack", target=pids["Goblin 1"])
    await fight.act(gm, "respond", choice="defend")
    r = await gm.post(
        f"/api/v1/campaigns/{cid}/characters",
        json={"name": "Der Graue", "kind": "npc", "hidden_from_players": True},
    )
    assert r.status_code == 201, r.text
    hidden = r.json()["id"]
    r = await gm.post(f"/api/v1/campaigns/{cid}/items", json={"name": "Heiltrank", "price": 5})
    assert r.status_code == 201, r.text
    base = f"/api/v1/campaigns/{cid}/characters"
    r = await alrik.post(f"{base}/{fight.characters['Alrik']}/items", json={"name": "Seil"})
    assert r.status_code == 201, r.text
    r = await gm.post(
        f"{base}/{fight.characters['Alrik']}/items/{r.json()['id']}/move",
        json={"to_character_id": hidden},
    )
    assert r.status_code == 200, r.text
    for visibility in ("public", "gm", "self"):
        r = await alrik.post(
            f"/api/v1/campaigns/{cid}/rolls", json={"expression": "2W6", "visibility": visibility}
        )
        assert r.status_code == 201, r.text
    return fight


async def _export(client: httpx.AsyncClient, campaign_id: int) -> dict[str, Any]:
    r = await client.get(f"/api/v1/campaigns/{campaign_id}/export")
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


async def test_export_import_export_loses_nothing(make_client: ClientFactory, app: FastAPI) -> None:
    fight = await _rich_campaign(make_client, app)
    first = await _export(fight.gm, fight.campaign_id)
    assert {u["role"] for u in first["users"]} == {"gm", "player"}
    assert first["encounters"][0]["status"] == "running" and first["encounters"][0]["state"]
    assert {e["type"] for e in first["events"]} >= {"combat", "roll", "character_item_moved"}
    r = await fight.gm.post("/api/v1/campaigns/import", json=first)
    assert r.status_code == 201, r.text
    new_id = r.json()["id"]
    assert new_id != fight.campaign_id and r.json()["events"] == len(first["events"])
    second = await _export(fight.gm, new_id)
    for a, b in zip(first["events"], second["events"], strict=True):
        assert a == b
    assert second == first
    # The copy has rows of its own, and its combat state names its own participants.
    (copy,) = (await fight.gm.get(f"/api/v1/campaigns/{new_id}/encounters")).json()
    assert copy["id"] != fight.encounter_id
    original = await fight.view(fight.gm)
    fight.campaign_id, fight.encounter_id = new_id, copy["id"]
    imported = await fight.view(fight.gm)
    assert {p["pid"] for p in imported["participants"]}.isdisjoint(
        {p["pid"] for p in original["participants"]}
    )
    assert _without_ids(imported) == _without_ids(original)
    assert imported["turn"]["name"] == original["turn"]["name"]


async def test_an_imported_undo_history_can_be_undone(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """The export's ``history`` (oldest first) becomes the copy's undo steps; a file of
    before seqs were kept (``"seq": null``) still imports; a malformed step is refused."""
    fight = await _rich_campaign(make_client, app)
    doc = await _export(fight.gm, fight.campaign_id)
    history = doc["encounters"][0]["history"]
    assert len(history) == 2 and all(h["seq"] and h["state"]["figures"] for h in history)
    history[0]["seq"] = None
    r = await fight.gm.post("/api/v1/campaigns/import", json=doc)
    assert r.status_code == 201, r.text
    new_id = r.json()["id"]
    (copy,) = (await fight.gm.get(f"/api/v1/campaigns/{new_id}/encounters")).json()
    fight.campaign_id, fight.encounter_id = new_id, copy["id"]
    assert (await _export(fight.gm, new_id))["encounters"][0]["history"][1] == history[1]
    for _step in history:
        assert (await fight.view(fight.gm))["can_undo"] is True
        await fight.act(fight.gm, "undo")
    assert (await fight.view(fight.gm))["can_undo"] is False
    doc["encounters"][0]["history"] = [{"seq": [1]}]
    r = await fight.gm.post("/api/v1/campaigns/import", json=doc)
    assert r.status_code == 422 and "history" in r.text, r.text


async def test_the_imported_log_replays_per_viewer(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await _rich_campaign(make_client, app)
    document = await _export(fight.gm, fight.campaign_id)
    new_id = (await fight.gm.post("/api/v1/campaigns/import", json=document)).json()["id"]
    async with app.state.ctx.sessionmaker() as session:
        seqs = list(
            (
                await session.scalars(
                    select(CampaignEvent.seq)
                    .where(CampaignEvent.campaign_id == new_id)
                    .order_by(CampaignEvent.seq)
                )
            ).all()
        )
    assert seqs == list(range(1, len(document["events"]) + 1))
    # Each viewer (matched by name) sees the imported dice log as they saw the original:
    # the GM everything, the other player the secret rolls as stubs.
    for client in (fight.gm, fight.players[0], fight.players[1]):
        pages = [
            (await client.get(f"/api/v1/campaigns/{c}/rolls")).json()
            for c in (fight.campaign_id, new_id)
        ]
        assert pages[0] == pages[1] and len(_items(pages[1])) == 3
    other = _items(pages[1])
    assert sum(1 for roll in other if roll.get("expression") == "2W6") == 1
    # New activity continues the imported log gap-free.
    r = await fight.players[0].post(f"/api/v1/campaigns/{new_id}/rolls", json={"expression": "1W6"})
    assert r.status_code == 201, r.text
    sheet = await fight.players[0].get(f"/campaigns/{new_id}")
    assert sheet.status_code == 200


def _items(page: dict[str, Any]) -> list[Any]:
    return page["rolls"]  # type: ignore[no-any-return]


def _without_ids(view: dict[str, Any]) -> dict[str, Any]:
    """An encounter view with its ids taken out (the figures by name instead)."""
    text = json.dumps(view)
    for p in view["participants"]:
        text = text.replace(f'"{p["pid"]}"', json.dumps(p["name"]))
    out: dict[str, Any] = json.loads(text)
    out.pop("id", None)
    out.pop("campaign_id", None)
    out.pop("version", None)
    for p in out["participants"]:
        p.pop("character_id", None)
        p.pop("entry_id", None)
    return out


async def test_users_missing_here_are_dropped_and_their_sheets_go_to_the_importer(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await _rich_campaign(make_client, app)
    document = await _export(fight.gm, fight.campaign_id)
    for user in document["users"]:
        if user["role"] == "player":
            user["username"] = "nobody_" + user["username"]
    newcomer = make_client()
    body = await register(newcomer, "newcomer")
    r = await newcomer.post("/api/v1/campaigns/import", json=document)
    assert r.status_code == 201, r.text
    new_id = r.json()["id"]
    members = (await newcomer.get(f"/api/v1/campaigns/{new_id}")).json()["members"]
    assert {(m["username"], m["role"]) for m in members} == {
        ("newcomer", "gm"),
        ("gmhh", "co_gm"),
    }
    characters = (await newcomer.get(f"/api/v1/campaigns/{new_id}/characters")).json()
    owners = {c["name"]: c.get("owner_id") for c in characters}
    assert owners["Alrik"] == owners["Brida"] == body["user"]["id"]  # type: ignore[index]


async def test_only_the_gm_exports(make_client: ClientFactory, app: FastAPI) -> None:
    fight = await _rich_campaign(make_client, app)
    r = await fight.players[0].get(f"/api/v1/campaigns/{fight.campaign_id}/export")
    assert r.status_code == 403
    outsider = make_client()
    await register(outsider, "outsider")
    r = await outsider.get(f"/api/v1/campaigns/{fight.campaign_id}/export")
    assert r.status_code == 404


async def test_bad_documents_are_refused_and_nothing_is_saved(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await _rich_campaign(make_client, app)
    document = await _export(fight.gm, fight.campaign_id)
    url = "/api/v1/campaigns/import"
    cases: list[tuple[bytes, int]] = [
        (b"not json", 422),
        (json.dumps({**document, "version": 99}).encode(), 422),
        (json.dumps({**document, "campaign": {**document["campaign"], "name": ""}}).encode(), 422),
        (json.dumps({**document, "events": document["events"][::-1]}).encode(), 422),
        (
            json.dumps(
                {**document, "events": [{**document["events"][0], "type": "nonsense"}]}
            ).encode(),
            422,
        ),
        (b" " * (16 * 1024 * 1024 + 1), 413),
    ]
    before = (await fight.gm.get("/api/v1/campaigns")).json()
    for body, status in cases:
        r = await fight.gm.post(url, content=body, headers={"content-type": "application/json"})
        assert r.status_code == status, (body[:80], r.text)
    assert (await fight.gm.get("/api/v1/campaigns")).json() == before


async def test_the_html_export_button_and_import_form(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await _rich_campaign(make_client, app)
    settings = await fight.gm.get(f"/campaigns/{fight.campaign_id}/settings")
    assert f'href="/campaigns/{fight.campaign_id}/export"' in settings.text
    download = await fight.gm.get(f"/campaigns/{fight.campaign_id}/export")
    assert download.status_code == 200
    assert "attachment" in download.headers["content-disposition"]
    r = await fight.gm.post(
        "/campaigns/import",
        files={"document": ("campaign.json", download.content, "application/json")},
    )
    assert r.status_code == 303, r.text
    new_id = int(r.headers["location"].rsplit("/", 1)[-1])
    assert await _export(fight.gm, new_id) == download.json()
    bad = await fight.gm.post(
        "/campaigns/import", files={"document": ("x.json", b"{}", "application/json")}
    )
    assert bad.status_code == 422 and 'id="import-campaign"' in bad.text


async def test_an_imported_log_streams_and_continues(live_server: LiveServer) -> None:
    gm = await account(live_server.url, unique("gm"))
    r = await gm.post("/api/v1/campaigns", json={"name": "Stream", "system": "hh"})
    cid = r.json()["id"]
    for i in range(3):
        await gm.post(
            f"/api/v1/campaigns/{cid}/rolls", json={"expression": "1W6", "label": f"r{i}"}
        )
    document = (await gm.get(f"/api/v1/campaigns/{cid}/export")).json()
    new_id = (await gm.post("/api/v1/campaigns/import", json=document)).json()["id"]
    async with gm.stream("GET", f"/api/v1/campaigns/{new_id}/events") as response:
        stream = messages(response)
        replay = await take(stream, 4)
        assert [m.event for m in replay] == ["campaign_created"] + ["roll"] * 3
        assert [m.id for m in replay] == [1, 2, 3, 4]
        assert [m.json()["label"] for m in replay[1:]] == ["r0", "r1", "r2"]
        r = await gm.post(f"/api/v1/campaigns/{new_id}/rolls", json={"expression": "1W6"})
        (live,) = await take(stream, 1)
        assert live.id == 5 == r.json()["event_id"]
