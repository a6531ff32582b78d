"""The words of a log line's details in the reader's language (issue 31): an H&H jump or
fall is a msgid with parameters (rule terms stay German), translated when read; an event
written before shows its stored German rule text."""

from __future__ import annotations

from fastapi import FastAPI
from sqlalchemy import select

from app.events.models import CampaignEvent
from tests.conftest import ClientFactory
from tests.encounters.helpers import script
from tests.encounters.test_hh_one_figure import wounded_hero

OLD = "Sprung 3 Schritt weit: ohne Probe (bis zur halben Bewegung, 4 Schritt)"
LINES = {
    "en": (
        "Sprung 2 Schritt high: no Probe (up to half the Bewegung, 4 Schritt)",
        "Sturz 1 Schritt: caught (less than half the Bewegung)",
    ),
    "de": (
        "Sprung 2 Schritt hoch: ohne Probe (bis zur halben Bewegung, 4 Schritt)",
        "Sturz 1 Schritt: abgefangen (weniger als die halbe Bewegung)",
    ),
}


async def _as_written_before(app: FastAPI, campaign_id: int, seq: int) -> None:
    """The details of combat event ``seq`` as events stored them before: German text."""
    async with app.state.ctx.sessionmaker() as session:
        event = await session.scalar(
            select(CampaignEvent).where(
                CampaignEvent.campaign_id == campaign_id, CampaignEvent.seq == seq
            )
        )
        assert event is not None and event.type == "combat"
        entries = [dict(e) for e in event.payload["entries"]]
        entries[0]["details"] = [OLD]
        event.payload = {**event.payload, "entries": entries}
        await session.commit()


async def test_jump_and_fall_details_in_both_languages_older_ones_as_stored(
    make_client: ClientFactory, app: FastAPI
) -> None:
    hero = await wounded_hero(make_client, app)
    gm, arjun = hero.table.gm, hero.pids["Arjun"]
    script(app)  # within half the Bewegung: no Probe, no dice
    await hero.act(gm, "jump", participant=arjun, distance=2, direction="vertical")
    await hero.act(gm, "fall", participant=arjun, distance=1)
    await hero.act(gm, "jump", participant=arjun, distance=3)
    r = await gm.get(f"{hero.fight}/log")
    await _as_written_before(app, hero.table.campaign_id, max(e["seq"] for e in r.json()))
    for locale, (jump, fall) in LINES.items():
        r = await gm.post("/language", data={"locale": locale, "next": "/campaigns"})
        assert r.status_code == 303
        log = await hero.log()
        assert jump in log and fall in log and OLD in log, log
    assert "Schritt high" not in log and "caught" not in log
