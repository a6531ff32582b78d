"""Whole-campaign export and import: a round trip loses nothing, bad documents are refused."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from app.events.models import CampaignEvent
from app.rules.dice import ScriptedRoller
from app.talk.models import ChatMessage
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


#: Where a document names people: an import names no account, so these differ in the copy.
PEOPLE_KEYS = frozenset(
    {"owner", "actor", "audience", "author", "user", "user_id", "owner_id", "to"}
    | {"recipients", "readers", "started_by"}
)


def without_people(value: Any) -> Any:
    """A document (or part) with every reference to a person blanked, the people and their
    read marks and personal knowledge left out, and the copy's name reduced to the original's
    (what an import must keep exactly)."""
    if isinstance(value, dict):
        out: dict[str, Any] = {
            k: None if k in PEOPLE_KEYS else without_people(v) for k, v in value.items()
        }
        if "users" in out and "campaign" in out:
            out["users"] = None
            out["campaign"]["name"] = out["campaign"]["name"].split(" (Kopie vom ")[0]
            out["talk"]["reads"] = None
            out["talk"]["facts"] = [f for f in value["talk"]["facts"] if f["user"] is None]
        return out
    if isinstance(value, list):
        return [without_people(v) for v in value]
    return value


async def import_as(client: httpx.AsyncClient, document: dict[str, Any]) -> int:
    r = await client.post("/api/v1/campaigns/import", json=document)
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


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
        assert without_people(a) == without_people(b)
    assert without_people(second) == without_people(first)
    # The parts not handed over yet travel as the people they stand for.
    people = {u["ref"]: (u["username"], u["role"]) for u in second["users"]}
    assert sorted(people.values()) == sorted((u["username"], u["role"]) for u in first["users"])
    assert [people[c["owner"]] for c in second["characters"] if c["owner"]] == [
        next((u["username"], u["role"]) for u in first["users"] if u["ref"] == c["owner"])
        for c in first["characters"]
        if c["owner"]
    ]
    # The copy's export is a fixed point: importing it again changes nothing but the name.
    third = await _export(fight.gm, await import_as(fight.gm, second))
    assert {**third, "campaign": None} == {**second, "campaign": None}
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


async def test_a_combat_state_the_server_cannot_run_is_refused_at_import(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """A document whose fight (or one of its undo steps) has no round, turn order or figures
    is refused at the field; imported, every view of that fight would fail."""
    fight = await _rich_campaign(make_client, app)
    doc = await _export(fight.gm, fight.campaign_id)
    good = copy.deepcopy(doc)
    doc["encounters"][0]["state"] = {"system": "hh", "figures": {}}
    r = await fight.gm.post("/api/v1/campaigns/import", json=doc)
    assert r.status_code == 422 and "encounters" in r.json()["errors"], r.text
    doc = copy.deepcopy(good)
    doc["encounters"][0]["history"][0]["state"] = {"round": "eins"}
    r = await fight.gm.post("/api/v1/campaigns/import", json=doc)
    assert r.status_code == 422 and "history" in r.text, r.text
    r = await fight.gm.post("/api/v1/campaigns/import", json=good)
    assert r.status_code == 201, r.text


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
    # The GM sees the imported dice log as in the original, the rollers by their names.
    pages = [
        without_people((await fight.gm.get(f"/api/v1/campaigns/{c}/rolls")).json())
        for c in (fight.campaign_id, new_id)
    ]
    assert pages[0] == pages[1] and len(_items(pages[1])) == 3
    # The player who takes over Alrik's part sees the public roll, the others as the rest
    # of the table does: a roll to oneself was to an account of the original only.
    await take_over(fight.gm, fight.players[0], new_id, "Alrik")
    mine = _items((await fight.players[0].get(f"/api/v1/campaigns/{new_id}/rolls")).json())
    assert sum(1 for roll in mine if roll.get("expression") == "2W6") == 1
    # New activity continues the imported log gap-free.
    r = await fight.players[0].post(f"/api/v1/campaigns/{new_id}/rolls", json={"expression": "1W6"})
    assert r.status_code == 201, r.text
    sheet = await fight.players[0].get(f"/campaigns/{new_id}")
    assert sheet.status_code == 200


async def take_over(
    gm: httpx.AsyncClient, player: httpx.AsyncClient, campaign_id: int, character: str
) -> None:
    """The GM sends the takeover link of the part that played ``character``; the player
    opens it and takes the part over (as a person would, through the pages)."""
    parts = (await gm.get(f"/api/v1/campaigns/{campaign_id}/parts")).json()
    (part,) = [p for p in parts if character in p["characters"]]
    r = await gm.post(f"/campaigns/{campaign_id}/parts/{part['id']}/link")
    assert r.status_code == 303, r.text
    page = await gm.get(r.headers["location"])
    code = page.text.split('href="/takeover/', 1)[1].split('"', 1)[0]
    assert (await player.get(f"/takeover/{code}")).status_code == 200
    r = await player.post(f"/takeover/{code}")
    assert r.status_code == 303 and r.headers["location"] == f"/campaigns/{campaign_id}", r.text


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


async def test_an_import_enlists_nobody_and_its_parts_are_handed_over_by_invite(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Someone else imports a document naming existing users (the GM, the players, a forged
    message of a player): only the importer is a member, every author is an imported name,
    and the importer hands the players' parts out by takeover link."""
    fight = await _rich_campaign(make_client, app)
    gm, alrik, brida = fight.gm, fight.players[0], fight.players[1]
    api = f"/api/v1/campaigns/{fight.campaign_id}"
    assert (await alrik.post(f"{api}/messages", json={"text": "Ich bin Alrik"})).status_code == 201
    to_both = {"text": "Ihr zwei", "to": [fight.ids["p0"], fight.ids["p1"]]}
    assert (await gm.post(f"{api}/messages", json=to_both)).status_code == 201
    for player in (alrik, brida):
        assert (await player.post(f"{api}/messages/read", json={})).status_code == 200
    document = await _export(gm, fight.campaign_id)
    names = {m["user_id"]: m["username"] for m in (await gm.get(api)).json()["members"]}
    alrik_name, brida_name = names[fight.ids["p0"]], names[fight.ids["p1"]]
    document["users"] = [
        {**u, "role": "co_gm"} if u["username"] == brida_name else u for u in document["users"]
    ]
    forged = {**document["talk"]["messages"][0], "ref": 99, "text": "Ich gebe alles her"}
    document["talk"]["messages"].append(forged | {"seq": 2})
    mallory = make_client()
    body = await register(mallory, "mallory")
    r = await mallory.post("/api/v1/campaigns/import", json=document)
    assert r.status_code == 201 and r.json()["parts"] == 2, r.text
    new_id = r.json()["id"]
    copy = f"/api/v1/campaigns/{new_id}"
    members = (await mallory.get(copy)).json()["members"]
    assert [(m["username"], m["role"]) for m in members] == [("mallory", "gm")]
    for named in (gm, alrik, brida):
        assert (await named.get(copy)).status_code == 404
        assert new_id not in {c["id"] for c in (await named.get("/api/v1/campaigns")).json()}
    # Authors are the names the document gave, never an account of this server.
    async with app.state.ctx.sessionmaker() as session:
        authors = (
            await session.execute(
                select(ChatMessage.author_id, ChatMessage.author_name).where(
                    ChatMessage.campaign_id == new_id
                )
            )
        ).all()
        actors = set(
            (
                await session.scalars(
                    select(CampaignEvent.actor_id).where(CampaignEvent.campaign_id == new_id)
                )
            ).all()
        )
    assert sorted(authors, key=str) == sorted(
        [(None, alrik_name), (None, alrik_name), (None, names[fight.ids["gm"]])], key=str
    )
    assert actors == {None}
    chat = (await mallory.get(f"{copy}/messages")).json()["messages"]
    assert {m["text"] for m in chat} == {"Ich bin Alrik", "Ihr zwei", "Ich gebe alles her"}
    assert all(m.get("author_id") in (None, body["user"]["id"]) for m in chat)  # type: ignore[index]
    # The GM sees the parts: who played which characters, as imported names.
    page = await mallory.get(f"/campaigns/{new_id}/parts")
    assert "Spieler·in von «Alrik» (importiert)" in page.text
    assert "Co-Spielleitung von «Brida» (importiert)" in page.text
    # A newcomer takes over Alrik's part: a player now, and Alrik is theirs.
    newcomer = make_client()
    joined = await register(newcomer, "newcomer")
    await take_over(mallory, newcomer, new_id, "Alrik")
    members = (await mallory.get(copy)).json()["members"]
    assert {(m["username"], m["role"]) for m in members} == {
        ("mallory", "gm"),
        ("newcomer", "player"),
    }
    owners = {c["name"]: c["owner_id"] for c in (await newcomer.get(f"{copy}/characters")).json()}
    assert owners["Alrik"] == joined["user"]["id"]  # type: ignore[index]
    assert owners["Brida"] == body["user"]["id"]  # type: ignore[index]
    parts = {p["label"]: p for p in (await mallory.get(f"{copy}/parts")).json()}
    assert parts["Spieler·in von «Alrik» (importiert)"]["claimed_by"] == "newcomer"
    # Brida's part is a co-GM's: a co-GM may not hand it out, the GM may (JSON API).
    brida_part = next(p for p in parts.values() if p["characters"] == ["Brida"])
    r = await mallory.post(
        f"/campaigns/{new_id}/members/{joined['user']['id']}/role",  # type: ignore[index]
        data={"role": "co_gm"},
    )
    assert r.status_code == 303, r.text
    assert (await newcomer.get(f"{copy}/parts")).status_code == 200  # a co-GM sees them
    r = await newcomer.post(f"{copy}/parts/{brida_part['id']}/link")
    assert r.status_code == 403, r.text
    link = (await mallory.post(f"{copy}/parts/{brida_part['id']}/link")).json()
    assert link["url"] == f"/takeover/{link['code']}"
    r = await newcomer.post(f"/api/v1/campaigns/takeover/{link['code']}")
    assert r.status_code == 200 and r.json() == {"campaign_id": new_id}, r.text
    # Both parts read the whisper to the two of them; the one person who took both does.
    mine = (await newcomer.get(f"{copy}/messages")).json()
    assert sorted(m["text"] for m in mine["messages"]) == [
        "Ich bin Alrik",
        "Ich gebe alles her",
        "Ihr zwei",
    ]
    assert mine["unread"] == 0
    owners = {c["name"]: c["owner_id"] for c in (await newcomer.get(f"{copy}/characters")).json()}
    assert owners["Brida"] == joined["user"]["id"]  # type: ignore[index]
    r = await newcomer.post(f"/api/v1/campaigns/takeover/{link['code']}")
    assert r.status_code == 404, r.text
    # Only the GMs see parts or make links.
    assert (await brida.get(f"{copy}/parts")).status_code == 404
    r = await mallory.post(
        f"/campaigns/{new_id}/members/{joined['user']['id']}/role",  # type: ignore[index]
        data={"role": "player"},
    )
    assert r.status_code == 303, r.text
    assert (await newcomer.get(f"{copy}/parts")).status_code == 403


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
    # The page says what the whole campaign holds and what it leaves out.
    holds = settings.text.split('id="export-holds">', 1)[1].split("</p>", 1)[0]
    for part in ("Fair-Play-Tischregel", "Spielsitzungen", "Kampfkarten", "ganze Protokoll"):
        assert part in holds, part
    leaves_out = settings.text.split('id="export-leaves-out">', 1)[1].split("</p>", 1)[0]
    assert "privaten Journalnotizen der Spieler" in leaves_out and "Mitglieder" in leaves_out
    download = await fight.gm.get(f"/campaigns/{fight.campaign_id}/export")
    assert download.status_code == 200
    assert "attachment" in download.headers["content-disposition"]
    r = await fight.gm.post(
        "/campaigns/import",
        files={"document": ("campaign.json", download.content, "application/json")},
    )
    assert r.status_code == 303, r.text
    # The GM lands where the players' parts are handed over.
    new_id = int(r.headers["location"].removesuffix("/parts").rsplit("/", 1)[-1])
    assert r.headers["location"] == f"/campaigns/{new_id}/parts"
    page = await fight.gm.get(r.headers["location"])
    assert "Spieler·in von «Alrik» (importiert)" in page.text
    assert without_people(await _export(fight.gm, new_id)) == without_people(download.json())
    bad = await fight.gm.post(
        "/campaigns/import", files={"document": ("x.json", b"{}", "application/json")}
    )
    assert bad.status_code == 422 and 'id="import-campaign"' in bad.text


async def test_the_copy_is_named_with_the_day_of_the_import(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """«Runde (Kopie vom 03.12.)» in German, the day in the importer's locale in English."""
    fight = await _rich_campaign(make_client, app)
    document = await _export(fight.gm, fight.campaign_id)
    today = datetime.now(UTC).date()
    r = await fight.gm.post("/api/v1/campaigns/import", json=document)
    assert r.json()["name"] == f"{document['campaign']['name']} (Kopie vom {today:%d.%m.})"
    english = make_client()
    await register(english, "englishreader")
    r = await english.post("/language", data={"locale": "en", "next": "/campaigns"})
    assert r.status_code == 303
    r = await english.post("/api/v1/campaigns/import", json=document)
    assert r.json()["name"] == f"{document['campaign']['name']} (copy of {today.month}/{today.day})"
    long_name = {**document, "campaign": {**document["campaign"], "name": "X" * 100}}
    r = await fight.gm.post("/api/v1/campaigns/import", json=long_name)
    assert r.status_code == 201 and len(r.json()["name"]) == 100, r.text
    assert r.json()["name"].endswith(f"(Kopie vom {today:%d.%m.})")


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
