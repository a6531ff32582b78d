"""Gefährten from an H&H sheet (hh.md §12, issue 13): a companion is a character of its own,
owned by its hero's player; XP come by «Band der Erfahrung»; the Steigerungskosten of its
Monsterstufe are shown and paid; in a fight it is its own sheet (one truth)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from tests.api.test_characters import Table, create, derived, make_table
from tests.conftest import ClientFactory
from tests.encounters.helpers import script


async def hero_and_companion(t: Table) -> tuple[dict[str, Any], dict[str, Any]]:
    hero = await create(t)
    r = await t["player"].post(
        f"{t.api}/characters/{hero['id']}/companions", json={"name": "Irrlicht"}
    )
    assert r.status_code == 201, r.text
    return hero, r.json()


async def test_a_hero_binds_a_companion_of_its_own(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "hh")
    hero, companion = await hero_and_companion(t)
    assert companion["owner_id"] == t.ids["player"] and companion["kind"] == "npc"
    assert companion["data"]["companion_of"] == hero["id"]
    assert companion["data"]["monsterstufe"] == 1 and companion["data"]["xp"] == 0
    assert derived(companion, "level_up_cost") == "Monsterstufe 2: 1 XP"
    url = f"{t.api}/characters/{hero['id']}/companions"
    for who, status in (("player2", 403), ("observer", 403), ("outsider", 404)):
        assert (await t[who].post(url, json={"name": "X"})).status_code == status, who
    r = await t["player"].post(
        f"{t.api}/characters/{companion['id']}/companions", json={"name": "Y"}
    )
    assert r.status_code == 422 and "companion_name" in r.json()["errors"]
    # Its owner edits it like any sheet of theirs; the hero's sheet lists it.
    page = f"/campaigns/{t.campaign_id}/characters"
    html = (await t["player"].get(f"{page}/{hero['id']}")).text
    assert 'id="companion-list"' in html and "Irrlicht" in html
    html = (await t["player"].get(f"{page}/{companion['id']}")).text
    assert 'id="companion-of"' in html and 'id="advance-button"' in html


async def test_band_der_erfahrung_and_steigerungskosten(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "hh")
    hero, companion = await hero_and_companion(t)
    hero_url = f"{t.api}/characters/{hero['id']}"
    comp_url = f"{t.api}/characters/{companion['id']}"
    r = await t["player"].post(
        f"{hero_url}/xp", json={"amount": 3, "companion_id": companion["id"]}
    )
    assert r.status_code == 200 and r.json()["data"]["xp"] == 3, r.text
    assert (await t["player"].get(comp_url)).json()["data"]["xp"] == 3
    r = await t["player"].post(f"{hero_url}/xp", json={"amount": 2})
    assert r.json()["data"]["xp"] == 5
    assert (await t["player"].get(comp_url)).json()["data"]["xp"] == 3
    other = await create(t, who="player2", name="Brida")
    for body, field in (
        ({"amount": 0}, "xp_gain"),
        ({"amount": 1, "companion_id": other["id"]}, "companion_id"),
    ):
        r = await t["player"].post(f"{hero_url}/xp", json=body)
        assert r.status_code == 422 and field in r.json()["errors"], r.text
    assert (await t["observer"].post(f"{hero_url}/xp", json={"amount": 1})).status_code == 403
    # Monsterstufe 1 → 2 for 1 XP: LP +2, Bewegung 8 + ½ kept exact, then 2 → 3: Bewegung 9.
    before = (await t["player"].get(comp_url)).json()["data"]
    r = await t["player"].post(f"{comp_url}/advance", json={})
    assert r.status_code == 200, r.text
    data = r.json()["data"]
    assert (data["monsterstufe"], data["xp"], data["lp_max"]) == (2, 2, before["lp_max"] + 2)
    assert data["bewegung"] == 8 and data["companion_growth"]["bewegung"] == "1/2"
    data = (await t["player"].post(f"{comp_url}/advance", json={})).json()["data"]
    assert (data["monsterstufe"], data["xp"], data["bewegung"]) == (3, 1, 9)
    version = (await t["player"].get(comp_url)).json()["version"]
    r = await t["player"].patch(comp_url, json={"changes": {"monsterstufe": 7}, "version": version})
    assert r.status_code == 200, r.text
    r = await t["player"].post(f"{comp_url}/advance", json={})
    assert r.status_code == 422 and "kostet 2 XP" in r.json()["errors"]["advance"], r.text
    assert (await t["player"].post(f"{hero_url}/advance", json={})).status_code == 422
    history = (
        await t["player"].get(f"/campaigns/{t.campaign_id}/characters/{companion['id']}/history")
    ).text
    assert "Monsterstufe 3 für 1 XP" in history, history


async def test_a_companion_fights_as_its_own_sheet(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "hh")
    hero, companion = await hero_and_companion(t)
    comp_url = f"{t.api}/characters/{companion['id']}"
    r = await t["gm"].post(f"{t.api}/encounters", json={"name": "Gruft"})
    eid = r.json()["id"]
    fight = f"{t.api}/encounters/{eid}"
    for cid in (hero["id"], companion["id"]):
        r = await t["gm"].post(f"{fight}/participants", json={"character_id": cid})
        assert r.status_code == 201, r.text
    script(app)
    r = await t["gm"].post(f"{fight}/actions/start", json={})
    assert r.status_code == 200, r.text
    pid = next(p["pid"] for p in r.json()["participants"] if p["name"] == "Irrlicht")
    lp = companion["data"]["lp"]
    r = await t["gm"].post(
        f"{fight}/actions/adjust", json={"participant": pid, "delta": -4, "reason": "Falle"}
    )
    assert r.status_code == 200, r.text
    assert (await t["player"].get(comp_url)).json()["data"]["lp"] == lp - 4
    hero_lp = (await t["player"].get(f"{t.api}/characters/{hero['id']}")).json()["data"]["lp"]
    assert hero_lp == hero["data"]["lp"]
    events = (await t["player"].get(f"{comp_url}/history")).json()
    assert any(e["type"] == "character_fought" for e in events)
