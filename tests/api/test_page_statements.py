"""The campaign page and the combat view read the database a fixed number of times,
however long the dice log or the roster; the combat view reads its linked map once; the
member list the page's panels share is read once per request, the campaign row comes with
the session lookup, and a write in the same transaction is seen by the next read."""

from __future__ import annotations

import re

from fastapi import FastAPI

from app.accounts.models import User
from app.campaigns import service as campaigns
from app.campaigns.models import Membership
from app.core.viewer import Role
from app.db import utcnow
from tests.api.helpers import make_table
from tests.api.regions import element
from tests.api.test_maps import get
from tests.api.test_maps_tactics import _placed, hh_fight
from tests.api.test_shared_render import statements
from tests.conftest import ClientFactory, register

ENTRY = re.compile(r'<li class="roll[" ][^>]*\bid="roll-\d+"')


async def _roll(t: object, first: int, n: int) -> None:
    for i in range(first, first + n):
        r = await t.gm.post(  # type: ignore[attr-defined]
            f"/api/v1/campaigns/{t.campaign_id}/rolls",  # type: ignore[attr-defined]
            json={"expression": "1d20", "label": f"Probe {i}"},
        )
        assert r.status_code == 201, r.text


async def test_the_campaign_page_reads_as_often_with_3_entries_as_with_55(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    url = f"/campaigns/{t.campaign_id}"
    await _roll(t, 0, 3)
    with statements(app, own_task=True) as few:
        r = await t.gm.get(url)
    assert r.status_code == 200 and len(ENTRY.findall(r.text)) == 3
    await _roll(t, 3, 52)  # past one page of the log (50)
    with statements(app, own_task=True) as many:
        r = await t.gm.get(url)
    assert r.status_code == 200 and len(ENTRY.findall(r.text)) == 50
    assert "Probe 54" in r.text and '<span class="label">Probe 5</span>' in r.text
    assert '<span class="label">Probe 4</span>' not in r.text
    assert len(many) == len(few), (few, many)
    # The members panel, the chat and the handouts show the same member list: one read.
    member_reads = [s for s in many if "join user_account" in s.lower() and "membership" in s]
    assert len(member_reads) == 1, many
    # The campaign row comes with the session lookup: no statement of its own.
    assert not [s for s in many if s.lstrip().lower().startswith("select campaign.id")], many


async def test_the_combat_view_reads_as_often_with_2_goblins_as_with_12(
    make_client: ClientFactory, app: FastAPI
) -> None:
    gm = make_client()
    await register(gm, "spielleitung")
    cid = (await gm.post("/api/v1/campaigns", json={"name": "K", "system": "hh"})).json()["id"]
    api = f"/api/v1/campaigns/{cid}"
    goblin = next(
        e for e in (await gm.post(f"{api}/bestiary/samples")).json() if e["name"] == "Goblin"
    )
    counts = []
    for n in (2, 12):
        eid = (await gm.post(f"{api}/encounters", json={"name": f"E{n}"})).json()["id"]
        r = await gm.post(
            f"{api}/encounters/{eid}/participants", json={"entry_id": goblin["id"], "count": n}
        )
        assert r.status_code == 201, r.text
        assert (await gm.post(f"{api}/encounters/{eid}/actions/start", json={})).status_code == 200
        with statements(app, own_task=True) as seen:
            r = await gm.get(f"/campaigns/{cid}/encounters/{eid}")
        assert r.status_code == 200
        assert r.text.count("Goblin") >= n
        counts.append(len(seen))
    assert counts[0] == counts[1], counts


async def test_a_member_added_in_the_transaction_is_in_the_next_member_list(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    newcomer = make_client()
    body = await register(newcomer, "neuling")
    uid = int(body["user"]["id"])  # type: ignore[index]
    async with app.state.ctx.sessionmaker() as session:
        before = await campaigns.members(session, t.campaign_id)
        assert uid not in {m.user_id for m in before}
        assert await session.get(User, uid) is not None
        session.add(
            Membership(
                campaign_id=t.campaign_id, user_id=uid, role=Role.player.value, joined_at=utcnow()
            )
        )
        after = await campaigns.members(session, t.campaign_id)  # pending, not yet flushed
        assert uid in {m.user_id for m in after}
        await session.rollback()
        assert uid not in {m.user_id for m in await campaigns.members(session, t.campaign_id)}


async def test_the_combat_view_reads_its_linked_map_once(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """The fight and the map region beside it share one read of the scene and its tokens,
    and each viewer's map still shows only what they may see (the hidden goblin: the GM's)."""
    fight = await hh_fight(make_client, app, "einmal")
    gm, player = fight.gm, fight.players[0]
    await fight.act(gm, "start")
    where = {"Alrik": (0, 0), "Goblin 1": (9, 5), "Goblin 3": (5, 5)}
    url, pids = await _placed(fight, 10, 6, where)
    tokens = {t["participant_id"]: t["id"] for t in (await get(gm, url))["tokens"]}
    page = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}"
    for client, shown in ((gm, ("Alrik", "Goblin 1", "Goblin 3")), (player, ("Alrik", "Goblin 1"))):
        with statements(app, own_task=True) as seen:
            r = await client.get(page)
        assert r.status_code == 200
        reads = [s.split(".", 1)[0] for s in seen if s.startswith("SELECT map_")]
        assert sorted(reads) == ["SELECT map_scene", "SELECT map_token"], seen
        board = element(r.text, "map-board")
        for name in where:
            assert (f'data-token="{tokens[pids[name]]}"' in board) == (name in shown), name


async def test_the_scene_page_reads_its_scene_once(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Opening the scene for the request and drawing its map share one read of it."""
    fight = await hh_fight(make_client, app, "szene")
    url, _pids = await _placed(fight, 10, 6, {"Alrik": (0, 0), "Goblin 1": (9, 5)})
    page = f"/campaigns/{fight.campaign_id}/scenes/{url.rsplit('/', 1)[1]}"
    for client in (fight.gm, fight.players[0]):
        with statements(app, own_task=True) as seen:
            r = await client.get(page)
        assert r.status_code == 200 and "Alrik" in element(r.text, "map-board")
        reads = [s.split(".", 1)[0] for s in seen if s.startswith("SELECT map_")]
        assert sorted(reads) == ["SELECT map_scene", "SELECT map_token"], seen
