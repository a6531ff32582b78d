"""One combat action writes the encounter row once; a refused one writes nothing."""

from __future__ import annotations

from fastapi import FastAPI
from sqlalchemy import func, select

from app.events.models import CampaignEvent
from tests.conftest import ClientFactory
from tests.encounters.helpers import Fight, script
from tests.encounters.test_hh import hh_fight


async def _events(app: FastAPI, fight: Fight) -> int:
    async with app.state.ctx.sessionmaker() as session:
        count = await session.scalar(
            select(func.count()).where(CampaignEvent.campaign_id == fight.campaign_id)
        )
        return int(count or 0)


async def test_one_action_bumps_the_encounter_version_by_one(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await hh_fight(make_client, app)
    gm = fight.gm
    script(app, *[5] * 60)
    for action, body in (
        ("next", {}),
        ("adjust", {"participant": pids["Goblin 1"], "delta": -2, "reason": "Falle"}),
        ("condition", {"participant": pids["Goblin 1"], "condition": "benommen"}),
        ("check", {"participant": pids["Brida"], "skill": "Spürsinn", "secret": True}),
    ):
        before = (await fight.view(gm))["version"]
        after = (await fight.act(gm, action, **body))["version"]
        assert after == before + 1, action
    view = await fight.view(gm)
    undo = await fight.act(gm, "undo", version=view["version"])
    assert undo["version"] == view["version"] + 1


async def test_a_refused_html_action_saves_nothing(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await hh_fight(make_client, app)
    before, events = await fight.view(fight.gm), await _events(app, fight)
    url = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}/adjust"
    r = await fight.gm.post(
        url,
        data={"participant": pids["Goblin 1"], "delta": "-3", "reason": "x" * 201},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 422 and 'role="alert"' in r.text
    r = await fight.gm.post(
        url,
        data={"participant": pids["Goblin 1"], "delta": "-3", "reason": "Falle", "version": "1"},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 409
    assert await fight.view(fight.gm) == before
    assert await _events(app, fight) == events
