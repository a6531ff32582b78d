"""A starter item added again joins the stack already on the sheet (one row, more of it)."""

from __future__ import annotations

from fastapi import FastAPI

from tests.api.helpers import make_table
from tests.conftest import ClientFactory


async def test_the_same_starter_twice_is_one_stack(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "hh")
    api = f"/api/v1/campaigns/{t.campaign_id}"
    alrik = (await t.player.post(f"{api}/characters", json={"name": "Alrik"})).json()
    items = f"{api}/characters/{alrik['id']}/items"
    starter = (await t.player.get(f"{api}/starter-items")).json()[0]
    for _n in range(2):
        r = await t.player.post(items, json={"starter": starter["key"]})
        assert r.status_code == 201, r.text
    sheet = (await t.player.get(f"{api}/characters/{alrik['id']}")).json()
    same = [i for i in sheet["items"] if i["name"] == starter["name"]]
    assert len(same) == 1 and same[0]["quantity"] == 2 * starter["quantity"], same
    # A different item of the same name (typed by hand) stays a row of its own.
    r = await t.player.post(items, json={"name": starter["name"], "description": "anders"})
    assert r.status_code == 201
    sheet = (await t.player.get(f"{api}/characters/{alrik['id']}")).json()
    assert len([i for i in sheet["items"] if i["name"] == starter["name"]]) == 2
