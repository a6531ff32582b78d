"""Verschnaufen from a DS4 sheet (ds4.md §2): half the lost LK back, once per fight, one
``character_rested`` event; who may do it; other systems offer no rest."""

from __future__ import annotations

from fastapi import FastAPI
from sqlalchemy import select

from app.events.models import CampaignEvent
from tests.api.test_characters import create, make_table
from tests.conftest import ClientFactory


async def test_verschnaufen_restores_half_the_lost_lk(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "ds4")
    c = await create(t)  # default sheet: KÖR 8 + HÄ 2 + 10 = Lebenskraft 20
    url = f"{t.api}/characters/{c['id']}"
    r = await t["player"].patch(url, json={"changes": {"lk": 5}, "version": c["version"]})
    assert r.status_code == 200, r.text
    # Another player, an observer and an outsider may not; a stale version is a conflict.
    for who, status in (("player2", 403), ("observer", 403), ("outsider", 404)):
        r = await t[who].post(f"{url}/rest", json={"rest": "verschnaufen"})
        assert r.status_code == status, (who, r.text)
    r = await t["player"].post(f"{url}/rest", json={"rest": "verschnaufen", "version": 1})
    assert r.status_code == 409
    r = await t["player"].post(f"{url}/rest", json={"rest": "verschnaufen"})
    assert r.status_code == 200, r.text
    assert r.json()["data"]["lk"] == 12  # 15 lost → +7 (rounded down)
    # Once per fight: without new damage it is refused at the rest.
    r = await t["player"].post(f"{url}/rest", json={"rest": "verschnaufen"})
    assert r.status_code == 422 and "rest" in r.json()["errors"], r.text
    # After the next fight (LK 10): half of the 10 lost → 15. The GM may do it too.
    version = (await t["player"].get(url)).json()["version"]
    await t["player"].patch(url, json={"changes": {"lk": 10}, "version": version})
    r = await t["gm"].post(f"{url}/rest", json={"rest": "verschnaufen"})
    assert r.json()["data"]["lk"] == 15
    r = await t["player"].post(f"{url}/rest", json={"rest": "lange_rast"})
    assert r.status_code == 422
    history = await t["player"].get(f"/campaigns/{t.campaign_id}/characters/{c['id']}/history")
    assert "Verschnaufen: LK 5 → 12 (+7 = 15 / 2)" in history.text
    events = (await t["player"].get(f"{url}/history")).json()
    rested = [e for e in events if e["type"] == "character_rested"]
    assert [e["changes"]["lk"] for e in rested] == [[10, 15], [5, 12]], rested
    # An event written before the notation (German words) reads as the notation is now.
    async with app.state.ctx.sessionmaker() as session:
        event = await session.scalar(
            select(CampaignEvent).where(
                CampaignEvent.campaign_id == t.campaign_id, CampaignEvent.seq == rested[0]["seq"]
            )
        )
        assert event is not None
        old = "Verschnaufen: LK 10 → 15 (+5, die Hälfte von 10 verlorenen)"
        event.payload = {**event.payload, "detail": old}
        await session.commit()
    history = await t["player"].get(f"/campaigns/{t.campaign_id}/characters/{c['id']}/history")
    assert "Verschnaufen: LK 10 → 15 (+5 = 10 / 2)" in history.text
    assert "verlorenen" not in history.text


async def test_the_sheet_offers_verschnaufen_only_in_ds4(
    make_client: ClientFactory, app: FastAPI
) -> None:
    for system in ("ds4", "hh", "pf2e"):
        t = await make_table(make_client, app, system)
        c = await create(t)
        page = f"/campaigns/{t.campaign_id}/characters/{c['id']}"
        sheet = (await t["player"].get(page)).text
        assert ('data-rest="verschnaufen"' in sheet) == (system == "ds4"), system
        assert 'data-rest="verschnaufen"' not in (await t["player2"].get(page)).text
        if system != "ds4":
            r = await t["player"].post(f"{t.api}/characters/{c['id']}/rest", json={"rest": "x"})
            assert r.status_code == 422
            continue
        # Without JavaScript: the form posts, then the sheet (LK 18/20 → 19); a refusal
        # comes back with the sheet and the message at the rest buttons.
        sheet_url = f"{t.api}/characters/{c['id']}"
        version = (await t["player"].get(sheet_url)).json()["version"]
        await t["player"].patch(sheet_url, json={"changes": {"lk": 18}, "version": version})
        r = await t["player"].post(f"{page}/rest", data={"rest": "verschnaufen"})
        assert r.status_code == 303
        r = await t["player"].post(f"{page}/rest", data={"rest": "verschnaufen"})
        assert r.status_code == 422 and 'id="rest-error"' in r.text
        assert "Verschnaufen einmal nach einem Kampf" in r.text
        version = (await t["player"].get(sheet_url)).json()["version"]
        await t["player"].patch(sheet_url, json={"changes": {"lk": 20}, "version": version})
        r = await t["player"].post(f"{page}/rest", data={"rest": "verschnaufen"})
        assert r.status_code == 422 and "Keine Lebenskraft verloren" in r.text
        assert (await t["player"].get(sheet_url)).json()["data"]["lk"] == 20
