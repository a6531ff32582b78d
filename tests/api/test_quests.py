"""Quests and threads in the journal: a status (open, done, failed), shared like any note."""

from __future__ import annotations

from fastapi import FastAPI
from sqlalchemy import select

from app.events.models import CampaignEvent
from tests.api.helpers import make_table
from tests.conftest import ClientFactory


async def test_a_quest_has_a_status_its_readers_follow(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    api = f"/api/v1/campaigns/{t.campaign_id}/journal"
    r = await t.gm.post(
        api, json={"title": "Der verschwundene Müller", "sharing": "group", "quest": "open"}
    )
    assert r.status_code == 201, r.text
    quest = r.json()
    assert quest["quest"] == "open"
    for client in (t.player, t.observer):
        notes = (await client.get(api)).json()["notes"]
        assert [(n["title"], n["quest"]) for n in notes] == [("Der verschwundene Müller", "open")]
    r = await t.gm.patch(
        f"{api}/{quest['id']}",
        json={"title": quest["title"], "sharing": "group", "quest": "done", "version": 1},
    )
    assert r.status_code == 200, r.text
    assert (await t.player.get(api)).json()["notes"][0]["quest"] == "done"
    page = (await t.player.get(f"/campaigns/{t.campaign_id}/journal")).text
    assert "Queste: erledigt" in page
    async with app.state.ctx.sessionmaker() as session:
        events = (
            await session.scalars(
                select(CampaignEvent.payload).where(CampaignEvent.type == "journal_note_shared")
            )
        ).all()
    assert [e["quest"] for e in events] == ["open", "done"]
    # Not a member: nothing.
    assert (await t.outsider.get(api)).status_code == 404
    assert (await t.anonymous.get(api)).status_code == 401


async def test_a_players_private_quest_and_bad_status(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    api = f"/api/v1/campaigns/{t.campaign_id}/journal"
    r = await t.player.post(api, json={"title": "Rache", "quest": "open"})
    assert r.status_code == 201, r.text
    assert (await t.gm.get(api)).json()["notes"] == []
    r = await t.player.post(api, json={"title": "X", "quest": "vielleicht"})
    assert r.status_code == 422
    assert (await t.observer.post(api, json={"title": "X", "quest": "open"})).status_code == 403
    r = await t.player.post(
        f"/campaigns/{t.campaign_id}/journal", data={"title": "Y", "quest": "kaputt"}
    )
    assert r.status_code == 422 and 'id="quest-error"' in r.text
    r = await t.player.post(
        f"/campaigns/{t.campaign_id}/journal", data={"title": "Drache", "quest": "failed"}
    )
    assert r.status_code == 303
    notes = (await t.player.get(api)).json()["notes"]
    assert {n["title"]: n["quest"] for n in notes} == {"Rache": "open", "Drache": "failed"}
