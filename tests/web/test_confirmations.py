"""Destructive actions ask first, on the server: the first post answers with a page that says
what happens, the second (``confirm=1``) does it. Works without JavaScript."""

from __future__ import annotations

import re

from fastapi import FastAPI

from tests.api.helpers import Table, make_table
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


async def _members(table: Table) -> dict[int, str]:
    r = await table.gm.get(f"/api/v1/campaigns/{table.campaign_id}")
    assert r.status_code == 200, r.text
    return {m["user_id"]: m["role"] for m in r.json()["members"]}


async def test_member_invite_and_item_actions_ask_first_and_only_who_may_do_them(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Removing a member, handing over the GM role, leaving, revoking an invite and removing
    an item from a sheet: the first post asks (nothing changes), the second does it."""
    t = await make_table(make_client, app)
    cid, observer = t.campaign_id, t.ids["observer"]
    remove = f"/campaigns/{cid}/members/{observer}/remove"
    assert (await t.player.post(remove)).status_code == 403  # not asked: not theirs to do
    r = await t.gm.post(remove)
    assert r.status_code == 200 and "observer_user" in r.text and 'name="confirm"' in r.text
    assert observer in await _members(t)
    assert (await t.gm.post(remove, data={"confirm": "1"})).status_code == 303
    assert observer not in await _members(t)

    handover = f"/campaigns/{cid}/members/{t.ids['player']}/transfer-gm"
    r = await t.gm.post(handover)
    assert r.status_code == 200 and "player_user" in r.text and 'name="confirm"' in r.text
    assert (await _members(t))[t.ids["player"]] == "player"

    leave = f"/campaigns/{cid}/leave"
    r = await t.player.post(leave)
    assert r.status_code == 200 and "Die Nordmark" in r.text and 'name="confirm"' in r.text
    assert t.ids["player"] in await _members(t)

    page = (await t.gm.get(f"/campaigns/{cid}")).text
    revoke = re.search(r'action="(/campaigns/\d+/invites/\d+/revoke)"', page)
    assert revoke is not None
    r = await t.gm.post(revoke[1])
    assert r.status_code == 200 and 'name="confirm"' in r.text
    assert revoke[1] in (await t.gm.get(f"/campaigns/{cid}")).text  # still open
    assert (await t.gm.post(revoke[1], data={"confirm": "1"})).status_code == 303
    assert revoke[1] not in (await t.gm.get(f"/campaigns/{cid}")).text

    r = await t.player.post(f"/api/v1/campaigns/{cid}/characters", json={"name": "Arjun"})
    sheet = f"/campaigns/{cid}/characters/{r.json()['id']}"
    r = await t.player.post(
        f"/api/v1/campaigns/{cid}/characters/{r.json()['id']}/items", json={"starter": "hh:seil"}
    )
    item = f"{sheet}/items/{r.json()['id']}/remove"
    r = await t.observer.post(item)  # an observer may not change the sheet: not asked
    assert r.status_code in (403, 404) and 'name="confirm"' not in r.text
    r = await t.player.post(item)
    assert r.status_code == 200 and "Seil" in r.text and 'name="confirm"' in r.text
    assert "Seil" in (await t.player.get(sheet)).text
    assert (await t.player.post(item, data={"confirm": "1"})).status_code == 303
    items = (await t.player.get(f"/api/v1{sheet}")).json()["items"]
    assert not items
