"""Ids and seqs beyond a 32-bit integer are refused at the field, never a database error.

Found by scripts/schemathesis_run.py on PostgreSQL (500 "integer out of range").
"""

from __future__ import annotations

from fastapi import FastAPI

from app.web.ids import MAX_ROW_ID
from app.web.streams import resume_point
from tests.api.helpers import make_table
from tests.conftest import ClientFactory

HUGE = 10**25


async def test_huge_ids_and_seqs_are_refused_with_422(
    make_client: ClientFactory, app: FastAPI
) -> None:
    table = await make_table(make_client, app)
    gm, base = table.gm, f"/api/v1/campaigns/{table.campaign_id}"
    character = (await gm.post(f"{base}/characters", json={"name": "Alrik"})).json()["id"]
    item = (await gm.post(f"{base}/characters/{character}/items", json={"name": "Seil"})).json()
    encounter = (await gm.post(f"{base}/encounters", json={"name": "Hinterhalt"})).json()["id"]
    requests = [
        ("GET", f"{base}/characters/{character}/history?before={HUGE}", None),
        ("GET", f"{base}/encounters/{encounter}/log?before={HUGE}", None),
        ("GET", f"{base}/rolls?before={HUGE}", None),
        ("POST", f"{base}/characters", {"name": "B", "owner_id": -(2**40)}),
        ("POST", f"{base}/characters/{character}/items", {"library_item_id": -29783237377}),
        (
            "POST",
            f"{base}/characters/{character}/items/{item['id']}/move",
            {"to_character_id": -(10**21)},
        ),
        ("POST", f"{base}/encounters/{encounter}/participants", {"character_id": 2**31}),
        ("POST", f"{base}/encounters/{encounter}/participants", {"entry_id": HUGE}),
    ]
    for method, url, body in requests:
        r = await gm.request(method, url, json=body)
        assert r.status_code == 422, (url, body, r.status_code, r.text)
    ok = await gm.get(f"{base}/characters/{character}/history?before={MAX_ROW_ID}")
    assert ok.status_code == 200


def test_a_resume_point_beyond_any_seq_is_clamped() -> None:
    assert resume_point("9" * 30, None) == MAX_ROW_ID
    assert resume_point(None, HUGE) == MAX_ROW_ID
    assert resume_point("7", 3) == 7
