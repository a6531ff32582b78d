"""Issue 31, item 4: in PF2e a Stride costs one action. A token's move on the battle map in
its figure's turn, in the running fight linked to the scene, spends one action of the
turn's budget per move (each up to the figure's Speed), is refused at ``to`` when none is
left (nothing moves), and answers the actions left."""

from __future__ import annotations

import re

from fastapi import FastAPI

from tests.api.test_maps import base, get, new_scene
from tests.conftest import ClientFactory
from tests.encounters.helpers import Fight, script
from tests.encounters.test_play_pf2e_ds4 import pf2e_fight

REFUSED = "Stride kostet 1 Aktion(en); in diesem Zug bleiben 0."


async def _linked_scene(make_client: ClientFactory, app: FastAPI) -> tuple[Fight, str, str, str]:
    """Valeros (Speed 7.5 m: 5 squares a Stride) in his turn against a goblin, both on a
    scene linked to the fight. Returns (fight, Valeros' move url, his pid, the goblin's)."""
    fight, valeros, goblin = await pf2e_fight(make_client, app)
    scene = await new_scene(fight.gm, fight.campaign_id, 12, 6, encounter_id=fight.encounter_id)
    url = f"{base(fight.campaign_id)}/{scene['id']}"
    tokens = {}
    for pid, x, y in ((valeros, 0, 0), (goblin, 11, 5)):
        r = await fight.gm.post(f"{url}/tokens", json={"x": x, "y": y, "participant_id": pid})
        assert r.status_code == 201, r.text
        tokens[pid] = r.json()["id"]
    return fight, f"{url}/tokens/{tokens[valeros]}/move", valeros, goblin


async def _where(fight: Fight, move: str) -> tuple[int, int]:
    scene = await get(fight.gm, move.rsplit("/tokens/", 1)[0])
    token_id = int(move.split("/tokens/")[1].split("/")[0])
    found = next(t for t in scene["tokens"] if t["id"] == token_id)
    return found["x"], found["y"]


async def _budget(fight: Fight) -> str:
    page = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}"
    html = (await fight.players[0].get(page)).text
    found = re.search(r'id="action-budget">.*?<span aria-hidden="true">([◆◇]*)</span>', html)
    assert found, html[:2000]
    return found.group(1)


async def test_three_strides_then_a_fourth_is_refused(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, move, _valeros, _goblin = await _linked_scene(make_client, app)
    player = fight.players[0]
    # Each Stride has the whole Speed (5 squares), whatever the moves before it cost.
    for to, left, symbols in (([5, 0], 2, "◆◆◇"), ([10, 0], 1, "◆◇◇"), ([10, 5], 0, "◇◇◇")):
        r = await player.post(move, json={"to": to})
        assert r.status_code == 200, r.text
        body = r.json()
        assert (body["x"], body["y"], body["cost"], body["allowance"]) == (*to, 5, 5), body
        assert body["actions"] == {
            "left": left, "total": 3, "symbols": symbols,
            "text": f"Aktionen übrig: {symbols} ({left} von 3)",
        }  # fmt: skip
        assert await _budget(fight) == symbols
    r = await player.post(move, json={"to": [9, 5]})
    assert r.status_code == 422, r.text
    assert r.json()["errors"]["to"] == REFUSED
    assert await _where(fight, move) == (10, 5)  # nothing moved
    log = (await player.get(f"{fight.base}/log")).text
    assert "Valeros schreitet: 0 Aktion(en) übrig." in log
    # The GM places the token past the rules (an override): no action, no refusal.
    r = await fight.gm.post(move, json={"to": [0, 0], "override": True})
    assert r.status_code == 200 and r.json()["actions"] is None, r.text
    # The next turn of Valeros has three actions, and Strides again.
    await fight.act(player, "next")
    await fight.act(fight.gm, "next")
    r = await player.post(move, json={"to": [1, 0]})
    assert r.status_code == 200 and r.json()["actions"]["left"] == 2, r.text


async def test_strike_stride_stride_then_nothing_is_left(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, move, valeros, goblin = await _linked_scene(make_client, app)
    player = fight.players[0]
    script(app, 2, 1)  # a miss: the goblin stays up
    # The goblin stands far off: the GM's override keeps the Strike off the board's reach.
    await fight.act(fight.gm, "attack", attacker=valeros, target=goblin, strike=0,
                    override_geometry=True)  # fmt: skip
    # A Stride longer than the Speed is refused as before, and costs no action.
    r = await player.post(move, json={"to": [6, 0]})
    assert r.status_code == 422 and "5" in r.json()["errors"]["to"], r.text
    for to, left in (([2, 0], 1), ([4, 0], 0)):
        r = await player.post(move, json={"to": to})
        assert r.status_code == 200 and r.json()["actions"]["left"] == left, r.text
    assert await _budget(fight) == "◇◇◇"
    r = await player.post(move, json={"to": [5, 0]})
    assert r.status_code == 422 and r.json()["errors"]["to"] == REFUSED, r.text
    script(app, 20, 6)
    r = await fight.gm.post(
        f"{fight.base}/actions/attack",
        json={"attacker": valeros, "target": goblin, "strike": 0, "override_geometry": True},
    )
    assert r.status_code == 422 and "Strike kostet 1 Aktion(en)" in r.text, r.text
    assert await _where(fight, move) == (4, 0)
