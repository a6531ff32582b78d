"""One combat action writes the encounter row once; a refused one writes nothing;
concurrent ones run one after the other."""

from __future__ import annotations

import asyncio

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


async def test_concurrent_actions_are_applied_one_after_the_other(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """The row is locked when an action loads it: a second action waits and then works on
    the new state (no lost update, no deadlock between the log and the row)."""
    fight, pids = await hh_fight(make_client, app)
    script(app, *[5] * 20)
    before, events = await fight.view(fight.gm), await _events(app, fight)
    gm2 = make_client()
    gm2.cookies = fight.gm.cookies
    goblin = {"participant": pids["Goblin 1"], "reason": "Falle"}
    answers = await asyncio.gather(
        fight.gm.post(f"{fight.base}/actions/adjust", json={**goblin, "delta": -1}),
        gm2.post(f"{fight.base}/actions/adjust", json={**goblin, "delta": -2}),
    )
    assert [r.status_code for r in answers] == [200, 200], [r.text for r in answers]
    after = await fight.view(fight.gm)
    assert after["version"] == before["version"] + 2
    assert await _events(app, fight) == events + 2
    lp = {p["name"]: p["points"] for p in after["participants"]}
    assert lp["Goblin 1"] == "9/12 LP"
