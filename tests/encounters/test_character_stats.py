"""A player character joins a fight with the values its sheet shows, computed by the engines."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from app.encounters.models import Participant
from app.rules.dice import ScriptedRoller
from app.web.context import AppContext
from tests.api.helpers import make_table
from tests.conftest import ClientFactory


def _derived(sheet: dict[str, Any], key: str) -> str:
    return str(next(d for d in sheet["derived"] if d["key"] == key)["value"])


async def _join_fight(
    app: FastAPI, gm: httpx.AsyncClient, campaign_id: int, character_id: int
) -> dict[str, Any]:
    api = f"/api/v1/campaigns/{campaign_id}"
    r = await gm.post(f"{api}/encounters", json={"name": "Probe"})
    assert r.status_code == 201, r.text
    r = await gm.post(
        f"{api}/encounters/{r.json()['id']}/participants", json={"character_id": character_id}
    )
    assert r.status_code == 201, r.text
    ctx: AppContext = app.state.ctx
    async with ctx.sessionmaker() as session:
        stats: dict[str, Any] | None = await session.scalar(
            select(Participant.stats).where(Participant.character_id == character_id)
        )
    assert stats is not None
    return stats


async def test_ds4_character_brings_its_kampfwerte(
    make_client: ClientFactory, app: FastAPI
) -> None:
    table = await make_table(make_client, app, "ds4")
    api = f"/api/v1/campaigns/{table.campaign_id}"
    r = await table.player.post(f"{api}/characters", json={"name": "Gruffneck"})
    assert r.status_code == 201, r.text
    cid = r.json()["id"]
    for starter, slot in (("ds4:langschwert", "melee"), ("ds4:kettenpanzer", "armour")):
        item = await table.player.post(f"{api}/characters/{cid}/items", json={"starter": starter})
        r = await table.player.post(
            f"{api}/characters/{cid}/items/{item.json()['id']}/equip", json={"slot": slot}
        )
        assert r.status_code == 200, r.text
    sheet = (await table.player.get(f"{api}/characters/{cid}")).json()
    stats = await _join_fight(app, table.gm, table.campaign_id, cid)
    for sheet_key, stat_key in (
        ("schlagen", "schlagen"),
        ("abwehr", "abwehr"),
        ("initiative", "initiative"),
        ("lebenskraft", "lk"),
    ):
        assert _derived(sheet, sheet_key) == str(stats[stat_key]), sheet_key
    assert stats["waffe"] == "Langschwert"


async def test_hh_character_brings_initiative_and_skills(
    make_client: ClientFactory, app: FastAPI
) -> None:
    table = await make_table(make_client, app, "hh")
    api = f"/api/v1/campaigns/{table.campaign_id}"
    r = await table.player.post(f"{api}/characters", json={"name": "Arjun"})
    cid, version = r.json()["id"], r.json()["version"]
    r = await table.player.patch(
        f"{api}/characters/{cid}",
        json={
            "version": version,
            "changes": {"skills.Spürsinn": 15, "be": 2, "skills.Kampfkunst": 13},
        },
    )
    assert r.status_code == 200, r.text
    sheet = r.json()
    stats = await _join_fight(app, table.gm, table.campaign_id, cid)
    assert _derived(sheet, "initiative") == str(stats["initiative"]) == "13"
    assert stats["angriff"] == stats["verteidigung"] == 13 and stats["be"] == 2


async def test_pf2e_character_brings_rk_saves_and_strikes(
    make_client: ClientFactory, app: FastAPI
) -> None:
    table = await make_table(make_client, app, "pf2e")
    api = f"/api/v1/campaigns/{table.campaign_id}"
    r = await table.player.post(f"{api}/characters", json={"name": "Valeros"})
    cid = r.json()["id"]
    item = await table.player.post(
        f"{api}/characters/{cid}/items", json={"starter": "pf2e:langschwert"}
    )
    assert item.status_code == 201, item.text
    r = await table.player.post(
        f"{api}/characters/{cid}/items/{item.json()['id']}/equip", json={"slot": "weapon"}
    )
    assert r.status_code == 200, r.text
    sheet = (await table.player.get(f"{api}/characters/{cid}")).json()
    stats = await _join_fight(app, table.gm, table.campaign_id, cid)
    assert _derived(sheet, "ac") == str(stats["rk"])
    assert [s["name"] for s in stats["angriffe"]] == ["Langschwert"]


async def test_hh_nsc_sheet_brings_monsterstufe_and_resistances(
    make_client: ClientFactory, app: FastAPI
) -> None:
    table = await make_table(make_client, app, "hh")
    api = f"/api/v1/campaigns/{table.campaign_id}"
    r = await table.gm.post(f"{api}/characters", json={"name": "Oger", "kind": "npc"})
    assert r.status_code == 201, r.text
    cid, version = r.json()["id"], r.json()["version"]
    r = await table.gm.patch(
        f"{api}/characters/{cid}",
        json={"version": version, "changes": {"monsterstufe": 12, "resistances": "Feuer: immun"}},
    )
    assert r.status_code == 200, r.text
    stats = await _join_fight(app, table.gm, table.campaign_id, cid)
    assert stats["monsterstufe"] == 12
    assert stats["resistenzen"] == {"Feuer": "immune"}
    # An NSC without its own Kampfkunst fights with its Monsterstufe.
    assert stats["angriff"] == 12


async def test_pf2e_sheet_strength_reaches_strike_damage(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """pf2e.md §3: Langschwert 1W8 with Stärke 4, a critical hit on an 8 → (8 + 4) × 2 = 24."""
    table = await make_table(make_client, app, "pf2e")
    api = f"/api/v1/campaigns/{table.campaign_id}"
    r = await table.player.post(f"{api}/characters", json={"name": "Valeros"})
    cid, version = r.json()["id"], r.json()["version"]
    r = await table.player.patch(
        f"{api}/characters/{cid}",
        json={"version": version, "changes": {"attributes.strength": 4}},
    )
    assert r.status_code == 200, r.text
    item = await table.player.post(
        f"{api}/characters/{cid}/items", json={"starter": "pf2e:langschwert"}
    )
    r = await table.player.post(
        f"{api}/characters/{cid}/items/{item.json()['id']}/equip", json={"slot": "weapon"}
    )
    assert r.status_code == 200, r.text
    r = await table.gm.post(f"{api}/bestiary/samples")
    goblin = next(e for e in r.json() if e["name"] == "Goblin-Krieger")
    r = await table.gm.post(f"{api}/encounters", json={"name": "Überfall"})
    base = f"{api}/encounters/{r.json()['id']}"
    await table.gm.post(f"{base}/participants", json={"character_id": cid})
    await table.gm.post(f"{base}/participants", json={"entry_id": goblin["id"], "count": 1})
    app.state.ctx.roller = ScriptedRoller([19, 1])  # Valeros first
    r = await table.gm.post(f"{base}/actions/start", json={})
    view = r.json()
    assert view["turn"]["name"] == "Valeros", view["turn"]
    g1 = next(p["pid"] for p in view["participants"] if p["name"] == "Goblin-Krieger 1")
    app.state.ctx.roller = ScriptedRoller([20, 8])
    r = await table.player.post(f"{base}/actions/attack", json={"target": g1, "strike": 0})
    assert r.status_code == 200, r.text
    r = await table.gm.get(f"{base}/log")
    details = [d for e in r.json() for line in e["lines"] for d in line["details"]]
    assert any("+4 (Stärke) = 12 × 2 (Kritischer Treffer) = 24" in d for d in details), details
    texts = [line["text"] for e in r.json() for line in e["lines"]]
    assert any("24" in t for t in texts), texts
