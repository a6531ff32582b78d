"""The battle map in the fight: automatic placement, attacks chosen on the map (range per
system, cover from walls and figures on the line) and the Gefährdungsbereich — each
answered from what the caller may see."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from app.core.viewer import Role, Viewer
from tests.api.test_maps import ALRIK, base, events_for, get, new_scene
from tests.api.test_shared_render import statements
from tests.conftest import ClientFactory
from tests.encounters.helpers import Fight, add_character, make_fight, script


async def _entry(fight: Fight, name: str) -> int:
    r = await fight.gm.post(f"/api/v1/campaigns/{fight.campaign_id}/bestiary/samples")
    return int(next(e for e in r.json() if e["name"] == name)["id"])


async def _encounter(fight: Fight) -> None:
    r = await fight.gm.post(
        f"/api/v1/campaigns/{fight.campaign_id}/encounters", json={"name": "Gang"}
    )
    fight.encounter_id = r.json()["id"]


async def _add(fight: Fight, **body: Any) -> list[dict[str, Any]]:
    r = await fight.gm.post(f"{fight.base}/participants", json=body)
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


async def hh_fight(make_client: ClientFactory, app: FastAPI, prefix: str) -> Fight:
    """An H&H encounter: Alrik (the player's), two goblins and a hidden third one."""
    fight = await make_fight(make_client, app, "hh", players=1, prefix=prefix)
    await add_character(app, fight, "p0", "Alrik", ALRIK, "hh")
    await _encounter(fight)
    goblin = await _entry(fight, "Goblin")
    await _add(fight, character_id=fight.characters["Alrik"])
    await _add(fight, entry_id=goblin, count=2)
    await _add(fight, entry_id=goblin, hidden=True)
    return fight


async def _pids(fight: Fight) -> dict[str, int]:
    view = await fight.view(fight.gm)
    return {p["name"]: int(p["pid"]) for p in view["participants"]}


def _tokens(scene: dict[str, Any]) -> dict[int, tuple[int, int]]:
    return {t["participant_id"]: (t["x"], t["y"]) for t in scene["tokens"] if t["participant_id"]}


# --- placement ------------------------------------------------------------------------------


async def test_placement_on_free_cells_behind_no_wall_and_hidden_stays_hidden(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await hh_fight(make_client, app, "pl")
    gm, player = fight.gm, fight.players[0]
    pids = await _pids(fight)
    scene = await new_scene(gm, fight.campaign_id, 8, 5, encounter_id=fight.encounter_id)
    url = f"{base(fight.campaign_id)}/{scene['id']}"
    # A crate stands on the goblins' start cell; a wall runs down the line x = 6, so the
    # cells east of it are not reachable from their area (2, 2).
    r = await gm.post(f"{url}/tokens", json={"x": 2, "y": 2, "label": "Kiste"})
    assert r.status_code == 201
    await gm.put(f"{url}/walls", json={"segments": [[3, 0, 3, 5]]})
    before = len(
        await events_for(app, fight.campaign_id, Viewer(fight.ids["p0"], "p", Role.player))
    )
    # A player may not place; an area of another side or outside the grid is refused.
    assert (await player.post(f"{url}/place", json={})).status_code == 403
    for areas in ({"orks": [[0, 0]]}, {"gegner": [[9, 9]]}):
        r = await gm.post(f"{url}/place", json={"areas": areas})
        assert r.status_code == 422 and "areas" in r.json()["errors"], r.text
    r = await gm.post(f"{url}/place", json={"areas": {"gegner": [[2, 2]]}})
    assert r.status_code == 200, r.text
    assert len(r.json()["tokens"]) == 4
    placed = _tokens(await get(gm, url))
    assert set(placed) == set(pids.values())
    cells = [*placed.values(), (2, 2)]
    assert len(set(cells)) == len(cells), "two tokens on one cell"
    # Alrik on the west edge in the middle row; the goblins next to the crate, west of the wall.
    assert placed[pids["Alrik"]] == (0, 2)
    for name in ("Goblin 1", "Goblin 2", "Goblin 3"):
        x, y = placed[pids[name]]
        assert x <= 2 and max(abs(x - 2), abs(y - 2)) == 1, (name, x, y)
    # The hidden goblin's token is hidden: not in the player's scene nor their events.
    shown = _tokens(await get(player, url))
    assert pids["Goblin 3"] not in shown and pids["Goblin 1"] in shown
    added = await events_for(app, fight.campaign_id, Viewer(fight.ids["p0"], "p", Role.player))
    seen = [e["token"]["participant_id"] for e in added[before:] if e["type"] == "token_added"]
    assert sorted(seen) == sorted([pids["Alrik"], pids["Goblin 1"], pids["Goblin 2"]])
    # Everyone has a token now: placing again adds none; the GM still moves them freely.
    r = await gm.post(f"{url}/place", json={})
    assert r.status_code == 200 and r.json()["tokens"] == []
    token = next(t for t in (await get(gm, url))["tokens"] if t["participant_id"] == pids["Alrik"])
    r = await gm.post(f"{url}/tokens/{token['id']}/move", json={"to": [1, 4]})
    assert r.status_code == 200, r.text


async def test_placement_on_linking_and_all_or_nothing(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await hh_fight(make_client, app, "pn")
    gm = fight.gm
    # No room: a 2 × 1 scene for four figures; nothing is placed.
    scene = await new_scene(gm, fight.campaign_id, 2, 1, encounter_id=fight.encounter_id)
    url = f"{base(fight.campaign_id)}/{scene['id']}"
    r = await gm.post(f"{url}/place", json={})
    assert r.status_code == 422 and "areas" in r.json()["errors"]
    assert (await get(gm, url))["tokens"] == []
    # Not linked: nothing to place. Linking with place: true places everyone.
    other = await new_scene(gm, fight.campaign_id, 10, 6)
    url = f"{base(fight.campaign_id)}/{other['id']}"
    r = await gm.post(f"{url}/place", json={})
    assert r.status_code == 422 and "encounter_id" in r.json()["errors"]
    r = await gm.patch(url, json={"encounter_id": fight.encounter_id, "place": True})
    assert r.status_code == 200, r.text
    assert len(r.json()["tokens"]) == 4
    xs = sorted(t["x"] for t in r.json()["tokens"])
    assert xs == [0, 9, 9, 9]
    # Creating a scene linked with place: true places everyone at once.
    third = await new_scene(gm, fight.campaign_id, 6, 6, encounter_id=fight.encounter_id,
                            place=True)  # fmt: skip
    placed = (await get(gm, f"{base(fight.campaign_id)}/{third['id']}"))["tokens"]
    assert sorted(t["x"] for t in placed) == [0, 5, 5, 5]
    # The scene page's button: a token removed is placed again, at the default edge.
    alrik = next(t for t in r.json()["tokens"] if t["x"] == 0)
    assert (await gm.delete(f"{url}/tokens/{alrik['id']}")).status_code == 204
    page = f"/campaigns/{fight.campaign_id}/scenes/{other['id']}"
    shown = await gm.get(page)
    assert "Figuren des Kampfes aufstellen" in shown.text
    r = await gm.post(f"{page}/place", follow_redirects=False)
    assert r.status_code == 303, r.text
    assert sorted(t["x"] for t in (await get(gm, url))["tokens"]) == [0, 9, 9, 9]


# --- attacks chosen on the map --------------------------------------------------------------


async def _placed(
    fight: Fight, cols: int, rows: int, where: dict[str, tuple[int, int]]
) -> tuple[str, dict[str, int]]:
    scene = await new_scene(
        fight.gm, fight.campaign_id, cols, rows, encounter_id=fight.encounter_id
    )
    url = f"{base(fight.campaign_id)}/{scene['id']}"
    pids = await _pids(fight)
    for name, (x, y) in where.items():
        r = await fight.gm.post(
            f"{url}/tokens", json={"x": x, "y": y, "participant_id": pids[name]}
        )
        assert r.status_code == 201, r.text
    return url, pids


async def aim(client: httpx.AsyncClient, url: str, a: int, t: int, status: int = 200) -> Any:
    r = await client.get(f"{url}/attack", params={"attacker": a, "target": t})
    assert r.status_code == status, r.text
    return r.json()


async def test_hh_range_and_cover_from_figures_and_walls_per_viewer(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await hh_fight(make_client, app, "cv")
    gm, player = fight.gm, fight.players[0]
    script(app)
    await fight.act(gm, "start")
    url, pids = await _placed(
        fight, 12, 6,
        {"Alrik": (0, 2), "Goblin 1": (6, 2), "Goblin 2": (3, 2), "Goblin 3": (3, 3)},
    )  # fmt: skip
    alrik, g1, g2, g3 = (pids[n] for n in ("Alrik", "Goblin 1", "Goblin 2", "Goblin 3"))
    # Goblin 2 stands on the line: an enemy of the attacker, as small as the target —
    # three-quarter cover (−4), and a miss may hit it. Alrik's sword does not reach.
    body = await aim(player, url, alrik, g1)
    assert (body["distance"], body["unit"], body["cells"]) == (6.0, "Schritt", 6)
    assert body["cover"] == "three_quarter" and body["covering"] == g2
    goblin2 = next(t for t in (await get(gm, url))["tokens"] if t["participant_id"] == g2)
    assert body["covering_token_id"] == goblin2["id"]
    assert body["fill"] == {"cover": "three_quarter", "covering": str(g2)}
    assert body["ranges"] == [{"label": "Waffenlos", "modifier": None, "in_range": False}]
    # Next to the target the weapon reaches.
    near = await aim(gm, url, g2, g3)
    assert near["ranges"][0]["in_range"] is True and near["cover"] == "none"
    # A wall between: full cover, no figure.
    await gm.put(f"{url}/walls", json={"segments": [[5, 0, 5, 6]]})
    walled = await aim(gm, url, g2, g1)
    assert walled["wall"] == {"blocked": 4, "lines": 4}
    assert walled["cover"] == "full" and walled["covering"] is None
    # A wall along the target's lower edge, seen from below left: one line of four
    # stopped, half cover.
    await gm.put(f"{url}/walls", json={"segments": [[6, 3, 7, 3]]})
    part = await aim(gm, url, g3, g1)
    assert part["wall"] == {"blocked": 1, "lines": 4} and part["cover"] == "half"
    # The hidden Goblin 3 on the line from (0, 2) to (6, 4): cover for the GM only.
    await gm.put(f"{url}/walls", json={"segments": []})
    r = await gm.post(f"{url}/tokens/{goblin2['id']}/move", json={"to": [3, 0], "override": True})
    assert r.status_code == 200
    target = next(t for t in (await get(gm, url))["tokens"] if t["participant_id"] == g1)
    await gm.post(f"{url}/tokens/{target['id']}/move", json={"to": [6, 4], "override": True})
    assert (await aim(gm, url, alrik, g1))["covering"] == g3
    seen = await aim(player, url, alrik, g1)
    assert seen["cover"] == "none" and seen["covering"] is None
    assert seen["covering_token_id"] is None and seen["fill"]["covering"] == ""
    # A wall in the fog between them: full cover for the GM, none known to the player.
    await gm.put(f"{url}/walls", json={"segments": [[3, 0, 3, 6]]})
    await gm.patch(url, json={"fog": True})
    await gm.post(f"{url}/fog", json={"reveal": [[0, 2], [6, 4]]})
    assert (await aim(gm, url, alrik, g1))["wall"] == {"blocked": 4, "lines": 4}
    fogged = await aim(player, url, alrik, g1)
    assert fogged["wall"] == {"blocked": 0, "lines": 4} and fogged["cover"] == "none"
    # A player may not aim at a hidden token, nor for a figure that is not theirs.
    bad = await aim(player, url, alrik, g3, 422)
    assert "target" in bad["errors"]
    assert "attacker" in (await aim(player, url, g2, alrik, 422))["errors"]
    assert "target" in (await aim(gm, url, alrik, alrik, 422))["errors"]


async def test_range_ds4_and_pf2e(make_client: ClientFactory, app: FastAPI) -> None:
    for system, a_name, cols, cells, expected in (
        ("ds4", "Goblin", 30, 25, ([("Schlagen", None), ("Schießen / Zielzauber", -2)], "25")),
        ("pf2e", "Goblin-Krieger", 40, 30, ([("Hundeschlitzer", None), ("Kurzbogen", -4)], "45")),
    ):
        fight = await make_fight(make_client, app, system, players=0, prefix=f"r{system}")
        await _encounter(fight)
        entry = await _entry(fight, a_name)
        await _add(fight, entry_id=entry, side="abenteurer")
        await _add(fight, entry_id=entry)
        script(app, *range(20, 0, -1))
        await fight.act(fight.gm, "start")
        pids = await _pids(fight)
        (first, a), (second, b) = sorted(pids.items())
        url, _ = await _placed(fight, cols, 3, {first: (0, 1), second: (cells, 1)})
        body = await aim(fight.gm, url, a, b)
        ranges, distance = expected
        assert [(r["label"], r["modifier"]) for r in body["ranges"]] == ranges, system
        assert body["fill"] == {"distance": distance} and body["cover"] is None, system
        close, _ = await _placed(fight, 5, 3, {first: (0, 1), second: (1, 1)})
        body = await aim(fight.gm, close, a, b)
        assert body["ranges"][0]["in_range"] is True, system


# --- Gefährdungsbereich ---------------------------------------------------------------------


async def test_gefahrdungsbereich_per_viewer(make_client: ClientFactory, app: FastAPI) -> None:
    fight = await hh_fight(make_client, app, "gz")
    gm, player = fight.gm, fight.players[0]
    script(app)
    await fight.act(gm, "start")
    url, pids = await _placed(
        fight, 8, 5, {"Alrik": (0, 0), "Goblin 1": (4, 2), "Goblin 3": (6, 2)}
    )
    zones = {z["participant_id"]: z for z in (await get(gm, f"{url}/zones"))["zones"]}
    assert len(zones[pids["Goblin 1"]]["cells"]) == 8
    assert sorted(map(tuple, zones[pids["Alrik"]]["cells"])) == [(0, 1), (1, 0), (1, 1)]
    assert pids["Goblin 3"] in zones
    # The player sees no zone of the hidden goblin; with fog, only zones on open cells.
    mine = {z["participant_id"]: z for z in (await get(player, f"{url}/zones"))["zones"]}
    assert set(mine) == {pids["Alrik"], pids["Goblin 1"]}
    await gm.patch(url, json={"fog": True})
    await gm.post(f"{url}/fog", json={"reveal": [[4, 2], [3, 2], [0, 0], [0, 1]]})
    mine = {z["participant_id"]: z for z in (await get(player, f"{url}/zones"))["zones"]}
    assert mine[pids["Goblin 1"]]["cells"] == [[3, 2]]
    assert mine[pids["Alrik"]]["cells"] == [[0, 1]]
    await get(gm, f"{base(fight.campaign_id)}/999999/zones", 404)


# --- moves through waypoints ----------------------------------------------------------------


async def test_move_through_waypoints(make_client: ClientFactory, app: FastAPI) -> None:
    fight = await hh_fight(make_client, app, "wp")
    gm, player = fight.gm, fight.players[0]
    script(app)
    await fight.act(gm, "start")
    until = 0
    while str((await fight.view(gm))["turn"]["name"]) != "Alrik" and until < 8:
        await fight.act(gm, "next")
        until += 1
    url, pids = await _placed(fight, 10, 6, {"Alrik": (0, 0), "Goblin 1": (9, 5)})
    alrik = next(t for t in (await get(gm, url))["tokens"] if t["participant_id"] == pids["Alrik"])
    move = f"{url}/tokens/{alrik['id']}/move"
    # A wall on x = 1 for rows 0–2: the way east leads round its end at (0, 3).
    await gm.put(f"{url}/walls", json={"segments": [[1, 0, 1, 3]]})
    for body, field in (
        ({"to": [1, 0], "via": [[0, 3]], "path": [[0, 1]]}, "via"),
        ({"to": [1, 0], "via": [[20, 3]]}, "via"),
        ({"to": [1, 0], "via": [[0, 1]] * 21}, "via"),
        ({"to": [3, 0], "via": [[0, 3]]}, "to"),  # 3 + 3 cells: over Bewegung 4
    ):
        r = await player.post(move, json=body)
        assert r.status_code == 422 and field in r.json()["errors"], (body, r.text)
    assert _tokens(await get(gm, url))[pids["Alrik"]] == (0, 0)
    r = await player.post(move, json={"to": [1, 3], "via": [[0, 2]]})
    assert r.status_code == 200, r.text
    assert (r.json()["x"], r.json()["y"], r.json()["cost"]) == (1, 3, 4)
    # A waypoint closed in by walls cannot be reached.
    await gm.put(f"{url}/walls", json={"segments": [[4, 4, 5, 4], [4, 5, 5, 5], [4, 4, 4, 5],
                                                    [5, 4, 5, 5]]})  # fmt: skip
    r = await gm.post(move, json={"to": [2, 2], "via": [[4, 4]]})
    assert r.status_code == 422 and "1" in r.json()["errors"]["via"], r.text


async def test_a_move_reads_the_board_in_one_statement(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """The board's tokens come with their fight's figures and their characters' owners:
    one statement, and each player still sees what their own figures see."""
    fight = await hh_fight(make_client, app, "onestmt")
    gm, player = fight.gm, fight.players[0]
    await fight.act(gm, "start")
    url, pids = await _placed(fight, 10, 6, {"Alrik": (0, 0), "Goblin 1": (9, 5)})
    brida = await add_character(app, fight, "p0", "Brida", ALRIK, "hh")
    r = await gm.post(f"{url}/tokens", json={"x": 0, "y": 5, "character_id": brida})
    assert r.status_code == 201, r.text
    await gm.put(f"{url}/walls", json={"segments": [[5, 0, 5, 6]]})
    assert (await gm.patch(url, json={"line_of_sight": True})).status_code == 200
    goblin = next(
        t for t in (await get(gm, url))["tokens"] if t["participant_id"] == pids["Goblin 1"]
    )
    assert goblin["id"] not in {t["id"] for t in (await get(player, url))["tokens"]}
    with statements(app, own_task=True) as seen:
        r = await gm.post(
            f"{url}/tokens/{goblin['id']}/move", json={"to": [4, 5], "override": True}
        )
    assert r.status_code == 200, r.text
    boards = [s for s in seen if s.lstrip().upper().startswith("SELECT") and "FROM map_token" in s]
    assert len(boards) == 1, seen
    assert "encounter_participant" in boards[0] and "owner_id" in boards[0]
    assert not [s for s in seen if s.lstrip().startswith("SELECT character.id, character.owner_id")]
    # Brida (a character's token, no figure) and Alrik (a figure) are the player's eyes.
    seen_by_player = {t["id"]: t for t in (await get(player, url))["tokens"]}
    assert goblin["id"] in seen_by_player
    assert {t.get("label") for t in seen_by_player.values()} >= {"Alrik", "Brida"}
