"""One figure, one truth (issue 13, defects 1 and 2) in DS4 and PF2e: a hero enters a fight
with the sheet's current LK / TP (not the maximum), every change of the fight reaches the
sheet, and healing on the sheet reaches the running fight."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from tests.conftest import ClientFactory
from tests.encounters.helpers import Fight, make_fight, script


async def _hero(fight: Fight, name: str, data: dict[str, Any], foe: str) -> int:
    """The player's hero with ``data`` on its sheet, in a new encounter against ``foe``."""
    gm, player = fight.gm, fight.players[0]
    api = f"/api/v1/campaigns/{fight.campaign_id}"
    r = await player.post(f"{api}/characters", json={"name": name, "data": data})
    assert r.status_code == 201, r.text
    r = await gm.post(f"{api}/encounters", json={"name": "Hohlweg"})
    fight.encounter_id = r.json()["id"]
    r = await gm.post(f"{fight.base}/participants", json={"character_id": r.json()["id"]})
    r = await gm.post(f"{api}/bestiary/samples")
    entry = next(e for e in r.json() if e["name"] == foe)
    await gm.post(f"{fight.base}/participants", json={"entry_id": entry["id"], "count": 1})
    return int((await player.get(f"{api}/characters")).json()[0]["id"])


async def _sheet(client: httpx.AsyncClient, fight: Fight, character_id: int) -> dict[str, Any]:
    r = await client.get(f"/api/v1/campaigns/{fight.campaign_id}/characters/{character_id}")
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


async def _heal_on_sheet(
    client: httpx.AsyncClient, fight: Fight, character_id: int, changes: dict[str, Any]
) -> None:
    sheet = await _sheet(client, fight, character_id)
    r = await client.patch(
        f"/api/v1/campaigns/{fight.campaign_id}/characters/{character_id}",
        json={"version": sheet["version"], "changes": changes},
    )
    assert r.status_code == 200, r.text


def _row(view: dict[str, Any], name: str) -> dict[str, Any]:
    return next(p for p in view["participants"] if p["name"] == name)


async def test_ds4_hero_fights_with_the_sheets_lk_and_the_sheet_follows(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await make_fight(make_client, app, "ds4", prefix="of")
    gm, player = fight.gm, fight.players[0]
    hero = await _hero(fight, "Rurik", {"lk": 7}, "Goblin")
    lk_max = (await _sheet(player, fight, hero))["data"].get("lk_max")
    script(app, 15, 5, 12, 3, 7, 9)  # the Initiative rolls (ties roll again)
    view = await fight.act(gm, "start")
    points = _row(view, "Rurik")["points"]
    assert points.split("/")[0].strip() == "7", points  # not the maximum
    assert lk_max is None or points.endswith(str(lk_max))
    pid = fight.pid(view, "Rurik")
    # The fight's damage is on the sheet at once.
    view = await fight.act(gm, "adjust", participant=pid, delta=-3, reason="Falle")
    assert (await _sheet(player, fight, hero))["data"]["lk"] == 4
    # Healing on the sheet is in the fight at its next step.
    await _heal_on_sheet(player, fight, hero, {"lk": 9})
    view = await fight.view(gm)
    assert _row(view, "Rurik")["points"].split("/")[0].strip() == "9"


async def test_pf2e_hero_fights_with_the_sheets_hp_and_dies_on_the_sheet(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await make_fight(make_client, app, "pf2e", prefix="of")
    gm, player = fight.gm, fight.players[0]
    hero = await _hero(fight, "Kyra", {"hp": 8, "hp_max": 15, "wounded": 1}, "Goblin-Krieger")
    script(app, 10, 10)  # Wahrnehmung for the Initiative
    view = await fight.act(gm, "start")
    row = _row(view, "Kyra")
    assert row["points"].replace(" ", "").startswith("8/15"), row
    pid = fight.pid(view, "Kyra")
    # Down to 0 TP: Sterbend 1 + Verwundet 1 = 2; the sheet shows 0 TP, still «verwundet 1».
    view = await fight.act(gm, "adjust", participant=pid, delta=-8, reason="Armbrust")
    assert "sterbend 2" in _row(view, "Kyra")["conditions"]
    data = (await _sheet(player, fight, hero))["data"]
    assert data["hp"] == 0 and data["wounded"] == 1 and not data.get("dead")
    # Damage while dying: Sterbend 3, then 4 — she dies, and the sheet says so.
    for _ in range(2):
        view = await fight.act(gm, "adjust", participant=pid, delta=-1, reason="Bolzen")
    assert _row(view, "Kyra")["status"] == "dead", _row(view, "Kyra")
    assert (await _sheet(player, fight, hero))["data"]["dead"] is True
