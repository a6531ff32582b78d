"""Issue 27, «Movement lives in the fight»: a figure's move on the battle map while the
linked fight runs is a step of the fight. The movement it spent is the fight's, so the GM's
undo gives it back; the undo puts every token the undone step moved — a pushed one too —
back where it stood, each a ``token_moved`` with ``undo``, projected to each viewer like
any move (a hidden token never named to the players)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from app.core.viewer import Role, Viewer
from tests.api.test_maps import _last_seq, base, events_for, get, hh_scene, new_scene
from tests.api.test_maps_stride import _budget, _linked_scene, _where
from tests.conftest import ClientFactory
from tests.encounters.helpers import Fight, script
from tests.encounters.test_hh import assert_never_seen, hh_fight


def _player(fight: Fight) -> Viewer:
    return Viewer(fight.ids["p0"], "p0", Role.player)


def _gm(fight: Fight) -> Viewer:
    return Viewer(fight.ids["gm"], "gm", Role.gm)


async def _at(fight: Fight, url: str, token_id: int) -> tuple[int, int]:
    found = next(t for t in (await get(fight.gm, url))["tokens"] if t["id"] == token_id)
    return found["x"], found["y"]


def _moves(events: list[dict[str, Any]]) -> list[tuple[int, int, int, bool]]:
    return [
        (e["token_id"], e["x"], e["y"], bool(e.get("undo")))
        for e in events
        if e["type"] == "token_moved"
    ]


async def test_hh_undoing_the_attack_and_the_move_gives_the_movement_back(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Alrik (Bewegung 4) walks 3 Schritt to the goblin and attacks; the GM undoes the
    attack, then the move: Alrik stands where he started, and may walk his whole Bewegung."""
    fight, url, ids = await hh_scene(make_client, app)
    gm, player = fight.gm, fight.players[0]
    alrik, goblin = ids["Alrik"], ids["pid:Goblin"]
    r = await gm.post(f"{url}/tokens/{ids['Goblin']}/move", json={"to": [4, 2], "override": True})
    assert r.status_code == 200, r.text
    move = f"{url}/tokens/{alrik}/move"
    r = await player.post(move, json={"to": [3, 2], "path": [[0, 2], [1, 2], [2, 2], [3, 2]]})
    assert r.status_code == 200, r.text
    assert (r.json()["x"], r.json()["y"], r.json()["cost"], r.json()["allowance"]) == (3, 2, 3, 4)
    # One Schritt is left of this Handlung: two are refused.
    r = await player.post(move, json={"to": [3, 4]})
    assert r.status_code == 422 and "1" in r.json()["errors"]["to"], r.text
    script(app, 2, 3, 9, 9)
    await fight.act(player, "attack", target=goblin)
    seq = await _last_seq(app, fight.campaign_id)
    await fight.act(gm, "undo")  # the attack: nothing on the map moved
    assert await _at(fight, url, alrik) == (3, 2)
    assert _moves(await events_for(app, fight.campaign_id, _player(fight), seq)) == []
    await fight.act(gm, "undo")  # the move
    assert await _at(fight, url, alrik) == (0, 2)
    for viewer in (_player(fight), _gm(fight)):
        got = await events_for(app, fight.campaign_id, viewer, seq)
        assert _moves(got) == [(alrik, 0, 2, True)], viewer
    # The Handlung's whole Bewegung again: four Schritt.
    r = await player.post(
        move, json={"to": [1, 5], "path": [[0, 2], [0, 3], [0, 4], [0, 5], [1, 5]]}
    )
    assert r.status_code == 200, r.text
    assert (r.json()["x"], r.json()["y"], r.json()["cost"], r.json()["allowance"]) == (1, 5, 4, 4)


async def test_hh_an_undone_wegstossen_puts_the_pushed_token_back(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Wegstossen pushes the goblin 2 Schritt; the GM's undo puts it back, and the player
    is told with ``undo``. A token hidden from the players goes back unnamed to them."""
    fight, url, ids = await hh_scene(make_client, app)
    gm, player = fight.gm, fight.players[0]
    token = ids["Goblin"]
    r = await gm.post(f"{url}/tokens/{token}/move", json={"to": [1, 2], "override": True})
    assert r.status_code == 200, r.text
    script(app, 2, 3, 9, 9)  # Alrik's Probe succeeds, the goblin's defence fails
    await fight.act(player, "maneuver", target=ids["pid:Goblin"], maneuver="wegstossen")
    assert await _at(fight, url, token) == (3, 2)
    seq = await _last_seq(app, fight.campaign_id)
    await fight.act(gm, "undo")
    assert await _at(fight, url, token) == (1, 2)
    got = await events_for(app, fight.campaign_id, _player(fight), seq)
    assert _moves(got) == [(token, 1, 2, True)]
    assert [e["pushed"] for e in got if e["type"] == "token_moved"] == [None]
    # Pushed again; the GM hides the goblin's token; the undo moves it unseen.
    script(app, 2, 3, 9, 9)
    await fight.act(player, "maneuver", target=ids["pid:Goblin"], maneuver="wegstossen")
    assert await _at(fight, url, token) == (3, 2)
    r = await gm.patch(f"{url}/tokens/{token}", json={"hidden": True})
    assert r.status_code == 200, r.text
    seq = await _last_seq(app, fight.campaign_id)
    await fight.act(gm, "undo")
    assert await _at(fight, url, token) == (1, 2)
    got = await events_for(app, fight.campaign_id, _player(fight), seq)
    assert all(e.get("token_id") != token for e in got), got
    assert _moves(await events_for(app, fight.campaign_id, _gm(fight), seq)) == [
        (token, 1, 2, True)
    ]


async def test_pf2e_an_undone_stride_gives_back_the_action_and_the_movement(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, move, _valeros, _goblin = await _linked_scene(make_client, app)
    player = fight.players[0]
    r = await player.post(move, json={"to": [5, 0]})
    assert r.status_code == 200 and r.json()["actions"]["left"] == 2, r.text
    assert await _budget(fight) == "◆◆◇"
    seq = await _last_seq(app, fight.campaign_id)
    await fight.act(fight.gm, "undo")
    assert await _where(fight, move) == (0, 0)
    assert await _budget(fight) == "◆◆◆"
    token_id = int(move.split("/tokens/")[1].split("/")[0])
    got = await events_for(app, fight.campaign_id, _player(fight), seq)
    assert _moves(got) == [(token_id, 0, 0, True)]
    # Three whole Strides again.
    for to, left in (([5, 0], 2), ([10, 0], 1), ([10, 5], 0)):
        r = await player.post(move, json={"to": to})
        assert r.status_code == 200 and r.json()["actions"]["left"] == left, r.text


async def test_a_move_outside_a_running_fight_is_no_step_of_it(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Once the fight is over, the GM's moves are the map's alone: no limit, nothing to
    undo."""
    fight, url, ids = await hh_scene(make_client, app)
    gm = fight.gm
    await fight.act(gm, "end")
    r = await gm.post(f"{url}/tokens/{ids['Alrik']}/move", json={"to": [11, 2]})
    assert r.status_code == 200 and r.json()["allowance"] is None, r.text
    assert await _at(fight, url, ids["Alrik"]) == (11, 2)


async def test_a_hidden_figures_move_and_its_undo_stay_the_gms(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """The GM moves a hidden goblin in the fight: a step the GMs alone are told of (a log
    line of theirs), undone unseen by the players."""
    fight, pids = await hh_fight(make_client, app)
    gm, player = fight.gm, fight.players[0]
    scene = await new_scene(gm, fight.campaign_id, 12, 6, encounter_id=fight.encounter_id)
    url = f"{base(fight.campaign_id)}/{scene['id']}"
    r = await gm.post(f"{url}/tokens", json={"x": 8, "y": 3, "participant_id": pids["Goblin 2"]})
    assert r.status_code == 201 and r.json()["hidden"] is True, r.text
    token = r.json()["id"]
    seq = await _last_seq(app, fight.campaign_id)
    r = await gm.post(f"{url}/tokens/{token}/move", json={"to": [6, 3]})
    assert r.status_code == 200 and r.json()["cost"] == 2, r.text
    log = (await gm.get(f"{fight.base}/log")).text
    assert "SL: Goblin 2 bewegt sich auf der Karte." in log
    await fight.act(gm, "undo")
    assert await _at(fight, url, token) == (8, 3)
    assert _moves(await events_for(app, fight.campaign_id, _gm(fight), seq)) == [
        (token, 6, 3, False),
        (token, 8, 3, True),
    ]
    assert await events_for(app, fight.campaign_id, _player(fight), seq) == []
    await assert_never_seen(player, fight, "Goblin 2")
