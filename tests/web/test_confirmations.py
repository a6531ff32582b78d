"""Destructive actions ask first, on the server: the first post answers with a page that says
what happens, the second (``confirm=1``) does it. Works without JavaScript."""

from __future__ import annotations

from fastapi import FastAPI

from tests.conftest import ClientFactory
from tests.encounters.test_hh import hh_fight


async def test_ending_a_fight_and_deleting_an_encounter_ask_first(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, _pids = await hh_fight(make_client, app)
    url = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}"
    version = str((await fight.view(fight.gm))["version"])
    r = await fight.gm.post(f"{url}/end", data={"version": version, "idempotency_key": "k" * 16})
    assert r.status_code == 200 and "Den Kampf beenden?" in r.text
    assert 'name="confirm" value="1"' in r.text and f'name="version" value="{version}"' in r.text
    assert 'value="kkkkkkkkkkkkkkkk"' not in r.text  # a fresh idempotency key
    assert (await fight.view(fight.gm))["status"] == "running"
    # A player is not asked: they may not end the fight at all.
    r = await fight.players[0].post(f"{url}/end", data={"version": version})
    assert r.status_code == 403 and 'name="confirm"' not in r.text
    r = await fight.gm.post(f"{url}/end", data={"version": version, "confirm": "1"})
    assert r.status_code == 303
    assert (await fight.view(fight.gm))["status"] == "ended"

    r = await fight.gm.post(f"{url}/delete")
    assert r.status_code == 200 and "Hinterhalt" in r.text and 'name="confirm"' in r.text
    assert (await fight.gm.get(url)).status_code == 200
    r = await fight.gm.post(f"{url}/delete", data={"confirm": "1"})
    assert r.status_code == 303
    assert (await fight.gm.get(url)).status_code == 404


async def test_removing_a_participant_and_a_bestiary_entry_ask_first(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await hh_fight(make_client, app)
    cid = fight.campaign_id
    url = f"/campaigns/{cid}/encounters/{fight.encounter_id}"
    remove = f"{url}/participants/{pids['Goblin 1']}/remove"
    r = await fight.gm.post(remove)
    assert r.status_code == 200 and "Goblin 1 entfernen?" in r.text
    assert len((await fight.view(fight.gm))["participants"]) == 4
    assert (await fight.gm.post(remove, data={"confirm": "1"})).status_code == 303
    assert len((await fight.view(fight.gm))["participants"]) == 3

    entries = (await fight.gm.get(f"/api/v1/campaigns/{cid}/bestiary")).json()
    wolf = next(e for e in entries if e["name"] == "Wolf")
    delete = f"/campaigns/{cid}/bestiary/{wolf['id']}/delete"
    r = await fight.gm.post(delete)
    assert r.status_code == 200 and "„Wolf“ aus dem Bestiarium löschen?" in r.text
    assert (await fight.gm.post(delete, data={"confirm": "1"})).status_code == 303
    entries = (await fight.gm.get(f"/api/v1/campaigns/{cid}/bestiary")).json()
    assert "Wolf" not in [e["name"] for e in entries]
