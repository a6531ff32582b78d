"""Issue 12 item 7: one encounter's log pages back to its first entry, however busy the
other encounters of the campaign are (the log is filtered by subject in SQL)."""

from __future__ import annotations

from fastapi import FastAPI
from sqlalchemy import select

from app.events.models import CampaignEvent
from tests.conftest import ClientFactory
from tests.encounters.helpers import Fight, make_fight

ACTIONS = 100
PAGE = 30


async def running_encounter(fight: Fight, goblin_id: int, name: str) -> int:
    """A started DS4 encounter of two goblins and a hidden one."""
    r = await fight.gm.post(
        f"/api/v1/campaigns/{fight.campaign_id}/encounters", json={"name": name}
    )
    assert r.status_code == 201, r.text
    fight.encounter_id = r.json()["id"]
    for body in ({"entry_id": goblin_id, "count": 2}, {"entry_id": goblin_id, "hidden": True}):
        r = await fight.gm.post(f"{fight.base}/participants", json=body)
        assert r.status_code == 201, r.text
    await fight.act(fight.gm, "start")
    return fight.encounter_id


async def paged_log(fight: Fight, client_index: int) -> list[int]:
    """Every log entry's seq, read page by page the way a client pages back."""
    client = fight.gm if client_index < 0 else fight.players[client_index]
    seqs: list[int] = []
    before = ""
    while True:
        r = await client.get(f"{fight.base}/log?limit={PAGE}{before}")
        assert r.status_code == 200, r.text
        page = [int(e["seq"]) for e in r.json()]
        assert page == sorted(page, reverse=True)
        seqs.extend(page)
        if len(page) < PAGE:
            return seqs
        before = f"&before={page[-1]}"


async def combat_seqs(app: FastAPI, fight: Fight, *, gm: bool) -> list[int]:
    """The encounter's combat events straight from the log, by payload, newest first."""
    async with app.state.ctx.sessionmaker() as session:
        query = select(CampaignEvent).where(
            CampaignEvent.campaign_id == fight.campaign_id, CampaignEvent.type == "combat"
        )
        if not gm:
            query = query.where(CampaignEvent.visibility == "public")
        events = (await session.scalars(query.order_by(CampaignEvent.seq.desc()))).all()
    return [e.seq for e in events if e.payload["encounter_id"] == fight.encounter_id]


async def test_each_encounter_log_pages_back_to_its_first_entry(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await make_fight(make_client, app, "ds4")
    r = await fight.gm.post(f"/api/v1/campaigns/{fight.campaign_id}/bestiary/samples")
    goblin = next(e for e in r.json() if e["name"] == "Goblin")
    encounters = [await running_encounter(fight, goblin["id"], f"Kampf {n}") for n in range(3)]
    for encounter_id in encounters:
        fight.encounter_id = encounter_id
        for _ in range(ACTIONS):
            await fight.act(fight.gm, "next")

    for encounter_id in encounters:
        fight.encounter_id = encounter_id
        gm_log, player_log = await paged_log(fight, -1), await paged_log(fight, 0)
        assert gm_log == await combat_seqs(app, fight, gm=True)
        assert player_log == await combat_seqs(app, fight, gm=False)
        assert len(gm_log) > ACTIONS > PAGE
        assert len(set(player_log)) == len(player_log) and set(player_log) < set(gm_log)
