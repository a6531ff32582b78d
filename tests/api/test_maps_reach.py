"""Where a chosen figure can move (issue 28): ``GET …/scenes/{sid}/tokens/{tid}/reach`` gives
its player on its turn (and a GM) the movement left and the cells a move may end on — the
cheapest way on the true board within that movement, never onto a figure the caller sees,
never giving away one the caller does not see."""

from __future__ import annotations

from fastapi import FastAPI

from app.rules import grid as g
from tests.api.test_board_attacks import _scene, _turn_of
from tests.api.test_maps import get
from tests.api.test_maps_tactics import _pids, hh_fight
from tests.conftest import ClientFactory
from tests.encounters.helpers import script


async def test_the_reach_of_a_chosen_figure(make_client: ClientFactory, app: FastAPI) -> None:
    fight = await hh_fight(make_client, app, "reach")
    script(app)
    await fight.act(fight.gm, "start")
    await _turn_of(fight, "Alrik")
    where = {"Alrik": (3, 3), "Goblin 1": (4, 3), "Goblin 2": (9, 0), "Goblin 3": (2, 3)}
    url = await _scene(fight, 10, 7, where)
    r = await fight.gm.put(
        f"{url}/walls", json={"segments": [[5, 0, 5, 7]], "difficult": [[3, 4], [3, 5]]}
    )
    assert r.status_code == 200, r.text
    pids = await _pids(fight)
    scene = await get(fight.gm, url)
    tokens = {t["participant_id"]: t["id"] for t in scene["tokens"]}
    player = fight.players[0]

    r = await player.get(f"{url}/tokens/{tokens[pids['Alrik']]}/reach")
    assert r.status_code == 200, r.text
    reach = r.json()
    left = reach["left"]
    assert left == 4, reach
    costs = {(x, y): cost for x, y, cost in reach["cells"]}
    # What the cheapest way costs on the board, and no cell of a figure the player sees; the
    # hidden Goblin 3's cell is offered (a move there stops short, as any move past it).
    board = g.Grid(
        10, 7, frozenset(g.segment_edges((5, 0, 5, 7), 10, 7)), frozenset({(3, 4), (3, 5)})
    )
    expected = {}
    for cell, cost in g.reachable(board, (3, 3), left, "one").items():
        path = g.shortest_path(board, (3, 3), cell, "one")
        assert path is not None and g.path_cost(board, path, "one").cost == cost
        if cost and cell != (4, 3):
            expected[cell] = cost
    assert costs == expected
    assert (2, 3) in costs and (4, 3) not in costs and (3, 3) not in costs
    assert all(x < 5 for x, _y in costs), "the wall at column 5 stops the way"
    assert costs[(3, 4)] == 2 and costs[(3, 5)] == 3  # difficult terrain costs double

    # Another's token or a goblin's: not the player's to move; the GM's is.
    r = await player.get(f"{url}/tokens/{tokens[pids['Goblin 1']]}/reach")
    assert r.status_code == 422, r.text
    r = await fight.gm.get(f"{url}/tokens/{tokens[pids['Goblin 1']]}/reach")
    assert r.status_code == 200 and r.json()["left"] is not None, r.text

    # A move spends movement: the reach shrinks by its cost.
    r = await player.post(f"{url}/tokens/{tokens[pids['Alrik']]}/move", json={"to": [3, 2]})
    assert r.status_code == 200, r.text
    r = await player.get(f"{url}/tokens/{tokens[pids['Alrik']]}/reach")
    assert r.json()["left"] == 3, r.text
