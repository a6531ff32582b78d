"""A list field (DS4 armour slots) in the user's words (issue 31): the sheet shows the slots'
names, not their keys, and takes them as typed, in either language."""

from __future__ import annotations

import re
from typing import Any

import httpx
from fastapi import FastAPI

from tests.api.test_characters import create, make_table
from tests.conftest import ClientFactory


async def test_armour_slots_are_shown_and_taken_as_their_names(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "ds4")
    player = t["player"]
    c = await create(t)
    items = f"{t.api}/characters/{c['id']}/items"
    fields = {"kind": "armour", "armour_slots": "Körper, helm"}
    body: dict[str, Any] = {"name": "Kettenhemd", "fields": fields}
    r = await player.post(items, json=body)
    assert r.status_code == 201, r.text
    assert r.json()["fields"]["armour_slots"] == ["body", "helmet"]
    assert "Rüstungsplätze: Körper, Helm" in await item_fields(player, t.campaign_id, c["id"])

    fields["armour_slots"] = "koerper"
    r = await player.post(items, json=body)
    assert r.status_code == 422
    assert r.json()["errors"]["fields.armour_slots"] == (
        "Unbekannt: koerper. Erlaubt: Helm, Körper, Arme, Beine, Schild."
    ), r.json()

    await player.post("/language", data={"locale": "en", "next": "/campaigns"})
    fields["armour_slots"] = "Shield, arms"
    r = await player.post(items, json=body)
    assert r.status_code == 201, r.text
    assert r.json()["fields"]["armour_slots"] == ["shield", "arm"]
    shown = await item_fields(player, t.campaign_id, c["id"])
    assert "Armour slots: shield, arms" in shown and "Armour slots: body, helmet" in shown


async def item_fields(client: httpx.AsyncClient, campaign_id: int, character_id: int) -> str:
    """The item fields the sheet shows, one item a line."""
    page = (await client.get(f"/campaigns/{campaign_id}/characters/{character_id}")).text
    return "\n".join(re.findall(r'<small class="item-fields">([^<]*)</small>', page))
