"""A combat action reads its fight once (issue 26): the operation's load (authorized, its rows
locked) is what the answer is built from, so no row of the fight is read a second time for
the HTMX controls or the JSON view that answer it."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from fastapi import FastAPI

from tests.api.test_live_regions import HTMX, _fight, _version
from tests.api.test_shared_render import statements
from tests.conftest import ClientFactory

#: The fight's own tables: the encounter, its figures and their sheets, the campaign and
#: the viewer's membership, what players know, the board.
FIGHT_TABLES = (
    "encounter",
    "encounter_undo",
    "encounter_participant",
    "campaign",
    "membership",
    "character",
    "item",
    "known_fact",
    "bestiary_entry",
    "map_scene",
    "map_token",
)

_TABLE = re.compile(r"\b(?:from|join)\s+\"?([a-z_]+)\"?", re.IGNORECASE)


def selected_tables(statements: list[str]) -> Counter[str]:
    """How many SELECT statements read each table (a table read twice in one statement, a
    join of it with itself, counts once)."""
    counts: Counter[str] = Counter()
    for sql in statements:
        if not sql.lstrip().lower().startswith(("select", "with")):
            continue
        counts.update({t.lower() for t in _TABLE.findall(sql)})
    return counts


def _read_twice(seen: list[str]) -> dict[str, int]:
    counts = selected_tables(seen)
    return {t: counts[t] for t in FIGHT_TABLES if counts[t] > 1}


def test_selected_tables_counts_each_statement_once_per_table() -> None:
    counts = selected_tables(
        [
            "SELECT a.id FROM encounter JOIN encounter_participant ON x JOIN encounter AS e2",
            "SELECT 1 FROM campaign",
            "UPDATE encounter SET state = 1",
            "INSERT INTO campaign_event (seq) SELECT max(seq) FROM campaign_event",
        ]
    )
    assert counts == Counter({"encounter": 1, "encounter_participant": 1, "campaign": 1})


@pytest.mark.parametrize("via", ["htmx", "api"])
async def test_an_attack_and_its_answer_read_each_fight_table_once(
    make_client: ClientFactory, app: FastAPI, via: str
) -> None:
    fight, pids = await _fight(make_client, app)
    html_base = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}"
    version = await _version(fight)
    target = pids["Goblin 1"]
    with statements(app, own_task=True) as seen:
        if via == "htmx":
            r = await fight.gm.post(
                f"{html_base}/attack", data={"version": version, "target": target}, headers=HTMX
            )
            assert r.status_code == 200, r.text
            assert 'id="controls"' in r.text
        else:
            r = await fight.gm.post(
                f"{fight.base}/actions/attack", json={"version": version, "target": target}
            )
            assert r.status_code == 200, r.text
            assert r.json()["version"] == int(version) + 1
    assert _read_twice(seen) == {}, "\n".join(seen)
    print(f"{via}: {len(seen)} statements, tables read {dict(selected_tables(seen))}")


async def test_an_undo_and_its_answer_read_each_fight_table_once(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await _fight(make_client, app)
    html_base = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}"
    await fight.act(fight.gm, "adjust", participant=pids["Goblin 1"], delta=-1, reason="Treffer")
    version = await _version(fight)
    with statements(app, own_task=True) as seen:
        r = await fight.gm.post(f"{html_base}/undo", data={"version": version}, headers=HTMX)
    assert r.status_code == 200, r.text
    # The steps are counted with the encounter row; the undo itself reads the newest step.
    assert _read_twice(seen) == {"encounter_undo": 2}, "\n".join(seen)
    view = await fight.view(fight.gm)
    assert view["can_undo"] is False and view["version"] == int(version) + 1
