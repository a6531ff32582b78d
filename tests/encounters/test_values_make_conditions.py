"""Issue 31, items 1 and 3: what follows from a sheet's values follows however the sheet got
them — an H&H hero created or imported at LP ≤ half is «angeschlagen» (sheet rolls and the
fight take its −2), a new DS4 hero's current LK are its Lebenskraft and follow KÖR/HÄ/Volk
until the hero is first hurt."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from tests.api.helpers import make_table
from tests.conftest import ClientFactory
from tests.encounters.helpers import script

HURT_HH = {"skills": {"Kampfkunst": 12}, "lp_max": 20, "lp": 8}


async def _into_fight(gm: httpx.AsyncClient, api: str, character_id: int) -> dict[str, Any]:
    """The hero's row in a new encounter against a goblin, after the start."""
    r = await gm.post(f"{api}/encounters", json={"name": "Hohlweg"})
    base = f"{api}/encounters/{r.json()['id']}"
    r = await gm.post(f"{base}/participants", json={"character_id": character_id})
    assert r.status_code == 201, r.text
    r = await gm.post(f"{api}/bestiary/samples")
    goblin = next(e for e in r.json() if e["name"] == "Goblin")
    await gm.post(f"{base}/participants", json={"entry_id": goblin["id"], "count": 1})
    r = await gm.post(f"{base}/actions/start", json={})
    assert r.status_code == 200, r.text
    rows = r.json()["participants"]
    return next(p for p in rows if p["name"].startswith(("Arjun", "Rurik")))


async def _angeschlagen_everywhere(
    app: FastAPI, client: httpx.AsyncClient, gm: httpx.AsyncClient, api: str, cid: int
) -> None:
    sheet = (await client.get(f"{api}/characters/{cid}")).json()
    assert "angeschlagen" in sheet["conditions"]
    script(app, 4, 5)
    r = await client.post(f"{api}/characters/{cid}/roll", json={"target": "skill:Kampfkunst"})
    assert r.status_code == 201, r.text
    assert "Kampfkunst 12 − angeschlagen 2 = 10" in r.json()["summary"]
    row = await _into_fight(gm, api, cid)
    assert row["points"] == "8/20 LP"
    assert "angeschlagen" in row["conditions"]


async def test_an_hh_hero_created_at_half_lp_is_angeschlagen_on_the_sheet_and_in_the_fight(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "hh")
    api = f"/api/v1/campaigns/{t.campaign_id}"
    r = await t.player.post(f"{api}/characters", json={"name": "Arjun", "data": HURT_HH})
    assert r.status_code == 201, r.text
    await _angeschlagen_everywhere(app, t.player, t.gm, api, r.json()["id"])


async def test_an_hh_hero_imported_at_half_lp_is_angeschlagen(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "hh")
    api = f"/api/v1/campaigns/{t.campaign_id}"
    r = await t.player.post(f"{api}/characters", json={"name": "Arjun"})
    document = (await t.player.get(f"{api}/characters/{r.json()['id']}/export")).json()
    document["name"] = "Arjun II"
    document["data"].update(HURT_HH)
    r = await t.player.post(f"{api}/characters/import", json=document)
    assert r.status_code == 201, r.text
    await _angeschlagen_everywhere(app, t.player, t.gm, api, r.json()["id"])


async def _edit(client: httpx.AsyncClient, url: str, changes: dict[str, Any]) -> dict[str, Any]:
    version = (await client.get(url)).json()["version"]
    r = await client.patch(url, json={"version": version, "changes": changes})
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


async def test_a_new_ds4_heros_lk_are_its_lebenskraft_and_follow_it_until_hurt(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "ds4")
    api = f"/api/v1/campaigns/{t.campaign_id}"
    r = await t.player.post(f"{api}/characters", json={"name": "Rurik"})
    assert r.status_code == 201, r.text
    url = f"{api}/characters/{r.json()['id']}"
    assert r.json()["data"]["lk"] == 20  # KÖR 8 + HÄ 2 + 10
    sheet = await _edit(t.player, url, {"traits.haerte": 3, "traits.aura": 0})
    assert sheet["data"]["lk"] == 21
    sheet = await _edit(t.player, url, {"volk_bonus": "haerte"})
    assert sheet["data"]["lk"] == 22
    row = await _into_fight(t.gm, api, sheet["id"])
    assert row["points"].replace(" ", "").startswith("22/22"), row
    assert "unverletzt" in row.values(), row
    history = (await t.player.get(f"{url}/history")).text
    assert "lk" in history
    # Hurt once, the current LK stay where they are when the maximum changes.
    sheet = await _edit(t.player, url, {"lk": 15})
    sheet = await _edit(t.player, url, {"traits.haerte": 4, "traits.verstand": 0})
    assert sheet["data"]["lk"] == 15
