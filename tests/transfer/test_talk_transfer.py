"""The campaign document carries table talk and knowledge: chat, whispers and read marks,
handouts with readers and image, journal notes and quests, the facts the heroes know."""

from __future__ import annotations

from fastapi import FastAPI

from tests.api.test_handout_images import png
from tests.conftest import ClientFactory
from tests.encounters.test_hh import hh_fight
from tests.transfer.test_campaign_transfer import (
    _export,
    import_as,
    take_over,
    without_people,
)


async def test_talk_and_knowledge_survive_a_round_trip(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, _pids = await hh_fight(make_client, app)
    gm, alrik, brida = fight.gm, fight.players[0], fight.players[1]
    api = f"/api/v1/campaigns/{fight.campaign_id}"
    assert (await gm.post(f"{api}/messages", json={"text": "Willkommen"})).status_code == 201
    r = await alrik.post(f"{api}/messages", json={"text": "psst", "to": [fight.ids["p1"]]})
    assert r.status_code == 201, r.text
    assert (await brida.post(f"{api}/messages/read", json={})).status_code == 200
    r = await gm.post(f"{api}/handouts", json={"title": "Karte", "body": "Der Weg"})
    hid = r.json()["id"]
    r = await gm.post(f"{api}/handouts/{hid}/image", files={"image": ("k.png", png(), "image/png")})
    assert r.status_code == 200, r.text
    await gm.post(f"{api}/handouts/{hid}/show", json={"to": [fight.ids["p0"]]})
    await gm.post(f"{api}/journal", json={"title": "Queste", "sharing": "group", "quest": "open"})
    await gm.post(
        f"{api}/journal", json={"title": "Für Brida", "sharing": "listed", "to": [fight.ids["p1"]]}
    )
    await alrik.post(f"{api}/journal", json={"title": "Mein Geheimnis"})  # private: stays home
    goblin = (await gm.get(f"{api}/bestiary")).json()[0]["id"]
    await gm.post(f"{api}/bestiary/{goblin}/reveal", json={"facts": ["lp"]})
    await gm.post(
        f"{api}/bestiary/{goblin}/reveal", json={"facts": ["rs"], "to": [fight.ids["p1"]]}
    )

    first = await _export(gm, fight.campaign_id)
    talk = first["talk"]
    assert len(talk["messages"]) == 2 and talk["messages"][1]["recipients"]
    assert [n["title"] for n in talk["notes"]] == ["Queste", "Für Brida"]
    assert talk["handouts"][0]["image"]["mime"] == "image/png"
    assert len(talk["facts"]) == 2
    r = await gm.post("/api/v1/campaigns/import", json=first)
    assert r.status_code == 201, r.text
    new = r.json()["id"]
    second = await _export(gm, new)
    assert without_people(second) == without_people(first)
    # Until their parts are taken over, the people travel on: a copy of the copy is the same.
    assert [len(m["recipients"]) for m in second["talk"]["messages"]] == [0, 1]
    assert len(second["talk"]["facts"]) == len(first["talk"]["facts"])
    third = await _export(gm, await import_as(gm, second))
    assert {**third, "campaign": None} == {**second, "campaign": None}

    # Whoever takes over a part reads in the copy what that person was given in the
    # original (whispers, shown handouts, shared notes, knowledge); a whisper the part sent
    # is an imported name's, not theirs, and stays with its recipients and the GMs.
    await take_over(gm, alrik, new, "Alrik")
    await take_over(gm, brida, new, "Brida")
    copy = f"/api/v1/campaigns/{new}"
    for client in (gm, alrik, brida):
        for path in ("messages", "handouts", "journal"):
            before = (await client.get(f"{api}/{path}")).json()
            after = (await client.get(f"{copy}/{path}")).json()
            sent = {"Mein Geheimnis", "psst"} if client is alrik else {"Mein Geheimnis"}
            shown = [t for t in _texts(before) if t[0] not in sent]
            assert shown == _texts(after), (path, before, after)
    # A private note is its author's alone: not even the GM's export carries it.
    assert "Mein Geheimnis" not in str(first)
    brida_msgs = [m["text"] for m in (await brida.get(f"{copy}/messages")).json()["messages"]]
    assert brida_msgs == ["Willkommen", "psst"]
    new_goblin = (await gm.get(f"{copy}/bestiary")).json()[0]["id"]
    known = (await brida.get(f"{copy}/bestiary/{new_goblin}/knowledge")).json()
    assert [f["text"] for f in known["facts"]] == ["LP ~10", "RS 1"]
    known = (await alrik.get(f"{copy}/bestiary/{new_goblin}/knowledge")).json()
    assert [f["text"] for f in known["facts"]] == ["LP ~10"]
    image = (await alrik.get(f"{copy}/handouts")).json()["handouts"][0]["image"]["url"]
    assert f"/campaigns/{new}/" in image
    assert (await alrik.get(image)).status_code == 200
    assert (await brida.get(image)).status_code == 404


def _texts(body: dict[str, object]) -> list[tuple[str, object]]:
    """What a listing shows, without the ids and seqs of its rows."""
    (rows,) = [v for v in body.values() if isinstance(v, list)]
    return [
        (str(r.get("title") or r.get("text")), r.get("quest") or r.get("to_names")) for r in rows
    ]
