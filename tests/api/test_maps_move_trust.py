"""What a move tells its mover (issue 25: N2, N5, N6, N10): the answer is the caller's own
form of the move's ``token_moved``; a hidden or unseen figure on the way stops the move on
the last free cell before it with «Etwas versperrt den Weg»; no two tokens share a cell; two
moves of one token at once never answer 500."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import httpx
from fastapi import FastAPI

from app.core.viewer import Role, Viewer
from tests.api.helpers import make_table
from tests.api.test_maps import _last_seq, base, events_for, get, new_scene
from tests.api.test_maps_tactics import _pids, hh_fight
from tests.conftest import ClientFactory
from tests.encounters.helpers import Fight, script

BLOCKED = "Etwas versperrt den Weg"
ROW = [[1, 2], [2, 2], [3, 2], [4, 2], [5, 2]]


@dataclass
class Trap:
    """A running H&H fight on a 12 × 6 scene, on Alrik's turn (Bewegung 4): Alrik (the
    player's) on (1, 2), two goblins far east, the hidden «Goblin 3» on (3, 1)."""

    fight: Fight
    url: str
    pids: dict[str, int]
    tokens: dict[str, int]

    @property
    def player(self) -> httpx.AsyncClient:
        return self.fight.players[0]

    @property
    def move(self) -> str:
        return f"{self.url}/tokens/{self.tokens['Alrik']}/move"

    def viewer(self) -> Viewer:
        return Viewer(self.fight.ids["p0"], "p0", Role.player)


async def alriks_turn(fight: Fight, alrik: int) -> None:
    for _step in range(8):
        if str((await fight.view(fight.gm))["turn"]["pid"]) == str(alrik):
            return
        await fight.act(fight.gm, "next")
    raise AssertionError("Alrik never gets a turn")


async def trap(make_client: ClientFactory, app: FastAPI, prefix: str) -> Trap:
    fight = await hh_fight(make_client, app, prefix)
    script(app)
    await fight.act(fight.gm, "start")
    pids = await _pids(fight)
    scene = await new_scene(fight.gm, fight.campaign_id, 12, 6, encounter_id=fight.encounter_id)
    url = f"{base(fight.campaign_id)}/{scene['id']}"
    tokens = {}
    for name, (x, y) in {
        "Alrik": (1, 2), "Goblin 1": (11, 0), "Goblin 2": (11, 5), "Goblin 3": (3, 1),
    }.items():  # fmt: skip
        r = await fight.gm.post(
            f"{url}/tokens", json={"x": x, "y": y, "participant_id": pids[name]}
        )
        assert r.status_code == 201, r.text
        tokens[name] = int(r.json()["id"])
    await alriks_turn(fight, pids["Alrik"])
    return Trap(fight, url, pids, tokens)


def cells_in(value: Any) -> list[list[int]]:
    """Every [x, y] pair anywhere in a JSON value."""
    if isinstance(value, list):
        pair = len(value) == 2 and all(isinstance(v, int) for v in value)
        return [value] if pair else [c for v in value for c in cells_in(v)]
    if isinstance(value, dict):
        return [c for v in value.values() for c in cells_in(v)]
    return []


def ids_in(value: Any) -> set[int]:
    """Every number under an ``…id`` key anywhere in a JSON value."""
    if isinstance(value, list):
        return {i for v in value for i in ids_in(v)}
    if isinstance(value, dict):
        own = {v for k, v in value.items() if k.endswith("id") and isinstance(v, int)}
        return own | {i for v in value.values() for i in ids_in(v)}
    return set()


async def hidden_cell(t: Trap) -> list[int]:
    found = next(tk for tk in (await get(t.fight.gm, t.url))["tokens"] if tk["label"] == "Goblin 3")
    return [found["x"], found["y"]]


async def assert_keeps_the_secret(t: Trap, answer: dict[str, Any]) -> None:
    """Neither the hidden goblin's name, nor its participant or token id, nor its cell."""
    assert "Goblin 3" not in json.dumps(answer, ensure_ascii=False), answer
    assert not ids_in(answer) & {t.pids["Goblin 3"], t.tokens["Goblin 3"]}, answer
    assert await hidden_cell(t) not in cells_in(answer), answer


def as_in_event(answer: dict[str, Any], event: dict[str, Any]) -> None:
    """The answer says what the caller's ``token_moved`` says, and not more."""
    assert event["type"] == "token_moved", event
    mine = {k: answer[k] for k in ("x", "y", "cost", "blocked")}
    assert mine == {k: event.get(k, False) for k in mine}, (answer, event)
    assert answer["reactions"] == (event["reactions"] or []), (answer, event)
    assert answer["stopped_at"] == ([answer["x"], answer["y"]] if answer["reactions"] else None)


async def no_shared_cell(t: Trap) -> None:
    cells = [(tk["x"], tk["y"]) for tk in (await get(t.fight.gm, t.url))["tokens"]]
    assert len(set(cells)) == len(cells), cells


async def test_the_move_answer_is_the_players_form_of_its_event(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """N2: walking past the hidden goblin's Gefährdungsbereich stops Alrik by the rules,
    but neither his player's answer nor their event names the goblin; the GM's does."""
    t = await trap(make_client, app, "n2")
    seq = await _last_seq(app, t.fight.campaign_id)
    r = await t.player.post(t.move, json={"to": [5, 2], "path": ROW})
    assert r.status_code == 200, r.text
    answer = r.json()
    assert (answer["x"], answer["y"], answer["cost"]) == (4, 2, 3)  # stopped by the rules
    assert answer["reactions"] == [] and answer["stopped_at"] is None
    await assert_keeps_the_secret(t, answer)
    (event,) = await events_for(app, t.fight.campaign_id, t.viewer(), seq)
    as_in_event(answer, event)
    gm_viewer = Viewer(t.fight.ids["gm"], "gm", Role.gm)
    (whole,) = await events_for(app, t.fight.campaign_id, gm_viewer, seq)
    assert [(x["participant_id"], x["name"]) for x in whole["reactions"]] == [
        (t.pids["Goblin 3"], "Goblin 3")
    ]


async def test_a_way_through_a_hidden_figure_ends_before_it(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """N6 and N5: the hidden goblin stands on Alrik's way; he stops on the free cell before
    it, never on it, and learns only «Etwas versperrt den Weg» — also without JavaScript."""
    t = await trap(make_client, app, "n6")
    gm, player = t.fight.gm, t.player
    r = await gm.post(f"{t.url}/tokens/{t.tokens['Goblin 3']}/move", json={"to": [3, 2]})
    assert r.status_code == 200, r.text
    seq = await _last_seq(app, t.fight.campaign_id)
    r = await player.post(t.move, json={"to": [5, 2], "path": ROW})
    assert r.status_code == 200, r.text
    answer = r.json()
    assert (answer["x"], answer["y"], answer["cost"]) == (2, 2, 1)
    assert (answer["blocked"], answer["message"]) == (True, BLOCKED)
    await assert_keeps_the_secret(t, answer)
    (event,) = await events_for(app, t.fight.campaign_id, t.viewer(), seq)
    as_in_event(answer, event)
    await no_shared_cell(t)
    # The form without JavaScript: a step onto the goblin's cell (column 4, row 3).
    page = await player.post(
        f"/campaigns/{t.fight.campaign_id}/scenes/{t.url.rsplit('/', 1)[1]}/move",
        data={"token_id": t.tokens["Alrik"], "x": 4, "y": 3},
    )
    assert page.status_code == 200, page.text[:300]
    assert BLOCKED in page.text and "Goblin 3" not in page.text
    await no_shared_cell(t)
    # The GM sees the goblin: the same way is no secret to them, it is refused at `to`.
    r = await gm.post(t.move, json={"to": [3, 2]})
    assert r.status_code == 422 and "to" in r.json()["errors"], r.text


async def test_an_unseen_figure_is_no_occupancy_oracle(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """N5: without movement left, a move onto the hidden goblin's cell is refused as a move
    onto an empty cell as far away is; with movement, it ends before the goblin, spends
    the way up to there and says «Etwas versperrt den Weg». A token in the fog the same."""
    t = await trap(make_client, app, "n5")
    gm, player = t.fight.gm, t.player
    r = await player.post(t.move, json={"to": [0, 5], "path": [[1, 3], [1, 4], [1, 5], [0, 5]]})
    assert r.status_code == 200 and r.json()["cost"] == 4, r.text
    onto_goblin = await player.post(t.move, json={"to": [3, 1]})
    onto_floor = await player.post(t.move, json={"to": [4, 5]})
    assert onto_goblin.status_code == onto_floor.status_code == 422, onto_goblin.text
    assert onto_goblin.json() == onto_floor.json()
    # Next round, Alrik's turn again: the way onto the goblin ends on (3, 2).
    await t.fight.act(gm, "next")
    await alriks_turn(t.fight, t.pids["Alrik"])
    way = [[1, 4], [2, 3], [3, 2], [3, 1]]
    r = await player.post(t.move, json={"to": [3, 1], "path": way})
    assert r.status_code == 200, r.text
    answer = r.json()
    assert (answer["x"], answer["y"], answer["cost"], answer["allowance"]) == (3, 2, 3, 4)
    assert (answer["blocked"], answer["message"]) == (True, BLOCKED)
    await assert_keeps_the_secret(t, answer)
    # A crate on a fogged cell is as unseen; the movement left is 1.
    r = await gm.post(f"{t.url}/tokens", json={"x": 4, "y": 3, "label": "Kiste"})
    assert r.status_code == 201
    open_cells = [[x, y] for x in range(12) for y in range(6) if (x, y) != (4, 3)]
    assert (await gm.patch(t.url, json={"fog": True})).status_code == 200
    assert (await gm.post(f"{t.url}/fog", json={"reveal": open_cells})).status_code == 200
    r = await player.post(t.move, json={"to": [4, 3]})
    assert r.status_code == 200, r.text
    assert (r.json()["x"], r.json()["y"], r.json()["allowance"]) == (3, 2, 1)
    assert (r.json()["blocked"], r.json()["cost"]) == (True, 0)
    assert "Kiste" not in r.text
    await no_shared_cell(t)
    # A figure the player sees is refused at `to`, before the allowance is looked at.
    r = await gm.post(f"{t.url}/tokens", json={"x": 2, "y": 2, "label": "Fass"})
    r = await player.post(t.move, json={"to": [2, 2]})
    assert r.status_code == 422 and "Spielfigur" in r.json()["errors"]["to"], r.text
    # A GM's override never puts two tokens on one cell either.
    r = await gm.post(t.move, json={"to": [3, 1], "override": True})
    assert r.status_code == 422 and "to" in r.json()["errors"], r.text
    await no_shared_cell(t)


RACERS = 6


async def test_concurrent_moves_of_one_token_never_answer_500(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """N10: moves of one token at once (on PostgreSQL they overlap; SQLite queues them): each
    is applied or answered 409, and the log holds one token_moved per applied move."""
    t = await make_table(make_client, app)
    sid = (await new_scene(t.gm, t.campaign_id, 10, 8))["id"]
    url = f"{base(t.campaign_id)}/{sid}/tokens"
    r = await t.gm.post(url, json={"x": 0, "y": 0, "label": "Fass"})
    move = f"{url}/{r.json()['id']}/move"
    seq = await _last_seq(app, t.campaign_id)
    clients = []
    for _i in range(RACERS):
        client = make_client()
        client.cookies = t.gm.cookies
        clients.append(client)
    answers = await asyncio.gather(
        *(c.post(move, json={"to": [i + 1, 7]}) for i, c in enumerate(clients))
    )
    statuses = [a.status_code for a in answers]
    assert set(statuses) <= {200, 409} and 200 in statuses, [
        (a.status_code, a.text) for a in answers
    ]
    moved = {(a.json()["x"], a.json()["y"]) for a in answers if a.status_code == 200}
    scene = await get(t.gm, f"{base(t.campaign_id)}/{sid}")
    assert {(tk["x"], tk["y"]) for tk in scene["tokens"]} <= moved
    gm = Viewer(t.ids["gm"], "gm_user", Role.gm)
    events = [
        e for e in await events_for(app, t.campaign_id, gm, seq) if e["type"] == "token_moved"
    ]
    assert len(events) == statuses.count(200)
