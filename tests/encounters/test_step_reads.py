"""What a combat step reads (issue 29): the participants with their characters in one
statement, and the board only for a fight that has one — a fight in theatre of the mind
asks the map nothing, a fight linked to a scene reads its scene and tokens."""

from __future__ import annotations

from fastapi import FastAPI

from tests.api.test_maps import base, new_scene
from tests.api.test_maps_tactics import hh_fight
from tests.api.test_shared_render import statements
from tests.conftest import ClientFactory
from tests.encounters.helpers import Fight


def _reading(sql: list[str], table: str) -> list[str]:
    """The SELECTs whose main table (after their last FROM; subqueries come before it in
    the select list) is ``table``."""
    return [
        s for s in sql if s.startswith("SELECT") and s.rsplit("FROM ", 1)[-1].split()[0] == table
    ]


async def _next_turn(fight: Fight, app: FastAPI) -> list[str]:
    with statements(app, own_task=True) as sql:
        await fight.act(fight.gm, "next")
    return sql


async def test_a_fight_without_a_board_reads_no_scene_and_each_row_once(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await hh_fight(make_client, app, "reads")
    await fight.act(fight.gm, "start")
    sql = await _next_turn(fight, app)
    assert not _reading(sql, "map_scene") and not _reading(sql, "map_token"), sql
    participants = _reading(sql, "encounter_participant")
    assert len(participants) == 1 and "JOIN character" in participants[0], sql
    assert not _reading(sql, "character"), sql  # the sheets came with the participants
    assert len(_reading(sql, "item")) == 1, sql
    view = await fight.view(fight.gm)
    assert view["status"] == "running"


async def test_a_fight_linked_to_a_scene_reads_its_board(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await hh_fight(make_client, app, "board")
    await fight.act(fight.gm, "start")
    scene = await new_scene(fight.gm, fight.campaign_id, 8, 6, encounter_id=fight.encounter_id)
    r = await fight.gm.post(
        f"{base(fight.campaign_id)}/{scene['id']}/tokens", json={"x": 1, "y": 1}
    )
    assert r.status_code == 201, r.text
    sql = await _next_turn(fight, app)
    assert len(_reading(sql, "map_scene")) == 1 and len(_reading(sql, "map_token")) == 1, sql
