"""The GM's undo history (``app.encounters.undo``): 30 steps deep, newest first; a combat
action adds one step without reading any old one; a reset of the fight drops them all."""

from __future__ import annotations

import asyncio
import re

from fastapi import FastAPI
from sqlalchemy import func, select

from app.encounters.models import UndoStep
from app.limits import UNDO_STEPS
from tests.api.test_shared_render import statements
from tests.conftest import ClientFactory
from tests.encounters.helpers import Fight, script
from tests.encounters.test_hh import hh_fight

#: LP changes that keep Goblin 1 (12 LP) alive however many are made.
DELTAS = (-1, -1, -1, 1, 1, 1)


async def _steps(app: FastAPI, fight: Fight) -> int:
    async with app.state.ctx.sessionmaker() as session:
        count = await session.scalar(
            select(func.count()).where(UndoStep.encounter_id == fight.encounter_id)
        )
        return int(count or 0)


async def _lp(fight: Fight, name: str) -> str:
    view = await fight.view(fight.gm)
    return str(next(p["points"] for p in view["participants"] if p["name"] == name))


async def _adjust(fight: Fight, pid: str, delta: int) -> None:
    await fight.act(fight.gm, "adjust", participant=pid, delta=delta, reason="Probe")


async def test_thirty_of_35_actions_can_be_undone_newest_first(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await hh_fight(make_client, app)
    script(app, *[5] * 200)
    before = [await _lp(fight, "Goblin 1")]
    for i in range(35):
        await _adjust(fight, pids["Goblin 1"], DELTAS[i % len(DELTAS)])
        before.append(await _lp(fight, "Goblin 1"))
    assert await _steps(app, fight) == UNDO_STEPS
    for undone in range(1, UNDO_STEPS + 1):
        assert (await fight.view(fight.gm))["can_undo"] is True
        await fight.act(fight.gm, "undo")
        # Each undo restores the state before the action it undoes, newest first.
        assert await _lp(fight, "Goblin 1") == before[35 - undone], undone
    assert (await fight.view(fight.gm))["can_undo"] is False
    r = await fight.gm.post(f"{fight.base}/actions/undo", json={})
    assert r.status_code == 422 and "nichts rückgängig" in r.text, r.text
    assert await _lp(fight, "Goblin 1") == before[5]


async def test_a_combat_action_reads_no_old_state(make_client: ClientFactory, app: FastAPI) -> None:
    """The undo table in one action: counted with the encounter row, one INSERT,
    and (once 30 steps are kept) one DELETE of the oldest; never a SELECT of a state."""
    fight, pids = await hh_fight(make_client, app)
    script(app, *[5] * 200)
    seen: dict[int, list[str]] = {}
    for i in range(UNDO_STEPS + 2):
        with statements(app, own_task=True) as sql:
            await _adjust(fight, pids["Goblin 1"], DELTAS[i % len(DELTAS)])
        seen[i] = sql
    for i, sql in seen.items():
        undo_sql = [s for s in sql if "encounter_undo" in s]
        assert not [s for s in undo_sql if re.search(r"encounter_undo\.(state|seqs)", s)], i
        inserts = [s for s in undo_sql if s.lstrip().upper().startswith("INSERT")]
        deletes = [s for s in undo_sql if s.lstrip().upper().startswith("DELETE")]
        # Read with the encounter row only (the action's and its answer's), as a count.
        reads = [s for s in undo_sql if s.lstrip().upper().startswith("SELECT")]
        assert reads and all(
            s.startswith("SELECT encounter.id") and "count(*)" in s for s in reads
        ), (i, reads)
        assert len(inserts) == 1, (i, undo_sql)
        assert len(deletes) == (1 if i >= UNDO_STEPS else 0), (i, undo_sql)
        assert len(undo_sql) == len(inserts) + len(deletes) + len(reads), (i, undo_sql)
    # As many statements with 1 step kept as with 29, one more (the DELETE) past 30.
    assert len(seen[1]) == len(seen[UNDO_STEPS - 1]) == len(seen[UNDO_STEPS + 1]) - 1
    assert await _steps(app, fight) == UNDO_STEPS


async def test_the_end_of_a_fight_and_a_roster_change_drop_the_steps(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await hh_fight(make_client, app)
    script(app, *[5] * 200)
    for delta in (-1, -1):
        await _adjust(fight, pids["Goblin 1"], delta)
    assert await _steps(app, fight) == 2
    r = await fight.gm.delete(f"{fight.base}/participants/{pids['Goblin 1']}")
    assert r.status_code in (200, 204), r.text
    assert await _steps(app, fight) == 0
    assert (await fight.view(fight.gm))["can_undo"] is False
    await _adjust(fight, pids["Goblin 2"], -1)
    assert await _steps(app, fight) == 1
    await fight.act(fight.gm, "end", version=(await fight.view(fight.gm))["version"])
    assert await _steps(app, fight) == 0


async def test_an_undo_and_an_action_racing_end_in_one_409(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await hh_fight(make_client, app)
    script(app, *[5] * 200)
    await _adjust(fight, pids["Goblin 1"], -1)
    version = (await fight.view(fight.gm))["version"]
    gm2 = make_client()
    gm2.cookies = fight.gm.cookies
    goblin = {"participant": pids["Goblin 1"], "reason": "Falle", "delta": -2}
    answers = await asyncio.gather(
        fight.gm.post(f"{fight.base}/actions/undo", json={"version": version}),
        gm2.post(f"{fight.base}/actions/adjust", json={**goblin, "version": version}),
    )
    assert sorted(r.status_code for r in answers) == [200, 409], [r.text for r in answers]
    assert (await fight.view(fight.gm))["version"] == version + 1
    undone = answers[0].status_code == 200
    # The winner's change alone: the undo took the one step, or the action added one.
    assert await _steps(app, fight) == (0 if undone else 2)
    assert await _lp(fight, "Goblin 1") == ("12/12 LP" if undone else "9/12 LP")
