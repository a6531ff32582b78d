"""Issue 14: the combat page shows the newest log entries and pages back through the rest,
with HTMX (appended to the page's log) and without JavaScript (a page of its own)."""

from __future__ import annotations

import re

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from app.encounters.views import LOG_SHOWN
from app.events.models import CampaignEvent
from tests.conftest import ClientFactory, register
from tests.encounters.helpers import Fight, make_fight
from tests.encounters.test_log_paging import running_encounter

SEQ = re.compile(r'<li id="log-(\d+)"')
OLDER = re.compile(r'href="([^"]+/log\?before=\d+)"')
HTMX = {"HX-Request": "true"}


async def busy_fight(
    make_client: ClientFactory, app: FastAPI, more_goblins: int = 0, steps: int = 8 * LOG_SHOWN
) -> Fight:
    fight = await make_fight(make_client, app, "ds4")
    r = await fight.gm.post(f"/api/v1/campaigns/{fight.campaign_id}/bestiary/samples")
    goblin = next(e for e in r.json() if e["name"] == "Goblin")
    await running_encounter(fight, goblin["id"], "Am Pass")
    if more_goblins:
        body = {"entry_id": goblin["id"], "count": more_goblins}
        r = await fight.gm.post(f"{fight.base}/participants", json=body)
        assert r.status_code == 201, r.text
    for _ in range(steps):  # a new round (a line) every (3 + more_goblins)th step
        await fight.act(fight.gm, "next")
    return fight


async def shown_seqs(app: FastAPI, fight: Fight, *, gm: bool) -> list[int]:
    """The seqs of the encounter's steps that have a line to show, newest first."""
    async with app.state.ctx.sessionmaker() as session:
        query = select(CampaignEvent).where(
            CampaignEvent.campaign_id == fight.campaign_id, CampaignEvent.type == "combat"
        )
        if not gm:
            query = query.where(CampaignEvent.visibility == "public")
        events = (await session.scalars(query.order_by(CampaignEvent.seq.desc()))).all()
    return [
        e.seq
        for e in events
        if e.payload["encounter_id"] == fight.encounter_id and e.payload.get("entries")
    ]


async def walk_back(client: httpx.AsyncClient, page_url: str, headers: dict[str, str]) -> list[int]:
    """Every entry's seq, from the combat page and then each "Older entries" link in turn."""
    r = await client.get(page_url)
    assert r.status_code == 200, r.text
    seqs = [int(s) for s in SEQ.findall(r.text)]
    assert len(seqs) == LOG_SHOWN
    while link := OLDER.search(r.text):
        r = await client.get(link.group(1).replace("&amp;", "&"), headers=headers)
        assert r.status_code == 200, r.text
        page = [int(s) for s in SEQ.findall(r.text)]
        assert len(page) <= LOG_SHOWN
        assert not page or max(page) < seqs[-1]
        if headers:
            assert 'hx-swap-oob="beforeend:#combat-log"' in r.text and "<html" not in r.text
        else:
            assert "<html" in r.text
        seqs.extend(page)
    return seqs


async def test_the_combat_page_shows_the_newest_entries_and_pages_back(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await busy_fight(make_client, app)
    page_url = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}"
    for headers in (HTMX, {}):
        gm = await walk_back(fight.gm, page_url, headers)
        assert gm == await shown_seqs(app, fight, gm=True)
        player = await walk_back(fight.players[0], page_url, headers)
        assert player == await shown_seqs(app, fight, gm=False)
        assert len(player) > 2 * LOG_SHOWN


async def test_a_window_of_turns_passed_on_still_shows_its_newest_lines(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Thirteen figures: one step in thirteen has a line (a new round), so one read of the
    log holds fewer lines than a window shows; the page reads on until it has them."""
    fight = await busy_fight(make_client, app, more_goblins=10, steps=13 * LOG_SHOWN)
    page_url = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}"
    for headers in (HTMX, {}):
        gm = await walk_back(fight.gm, page_url, headers)
        assert gm == await shown_seqs(app, fight, gm=True)
        assert len(gm) > LOG_SHOWN


async def test_older_entries_need_a_member_and_a_seq(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await busy_fight(make_client, app)
    url = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}/log"
    assert (await fight.gm.get(url)).status_code == 422
    assert (await fight.gm.get(f"{url}?before=0")).status_code == 422
    outsider = make_client()
    await register(outsider, "fremder")
    assert (await outsider.get(f"{url}?before=999")).status_code == 404
