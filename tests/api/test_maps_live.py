"""The battle map's live regions: a push is the page's own board and token list, for the GM
and a player (who never receives a hidden or fogged token); a move alone is that token's
place in the list, the same as the page shows; rulers and pings; the map on the combat page
joins its bundled push; a step, a sheet or a move elsewhere builds no viewer's board."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI

from app.encounters.live import COMBAT_PAGE, CombatPage
from app.maps import views
from app.maps.live import SCENE_PAGE, ScenePage
from tests.api.helpers import make_table
from tests.api.regions import element, last_seq, pushed, viewer
from tests.conftest import ClientFactory
from tests.encounters.helpers import make_fight

OOB = ' hx-swap-oob="outerHTML"'


def same(push: str, page: str, element_id: str) -> None:
    assert element(push.replace(OOB, ""), element_id) == element(page, element_id), element_id


async def test_scene_pushes_match_the_page_and_keep_secrets(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    cid = t.campaign_id
    api = f"/api/v1/campaigns/{cid}/scenes"
    sid = (
        await t.gm.post(api, json={"name": "Halle", "cols": 6, "rows": 5, "shown": True})
    ).json()["id"]
    before = await last_seq(app, cid)
    r = await t.gm.post(f"{api}/{sid}/tokens", json={"x": 0, "y": 0, "label": "Heldin"})
    hero = r.json()["id"]
    await t.gm.post(f"{api}/{sid}/tokens", json={"x": 4, "y": 4, "label": "Geist", "hidden": True})
    await t.gm.post(f"{api}/{sid}/tokens/{hero}/move", json={"to": [2, 1]})
    await t.player.post(f"{api}/{sid}/pointer", json={"kind": "ruler", "cells": [[0, 0], [3, 0]]})
    url = f"/campaigns/{cid}/scenes/{sid}"
    key = ScenePage(cid, sid)
    who = {
        "gm": (viewer(t.ids["gm"], "gm_user", "gm"), t.gm),
        "player": (viewer(t.ids["player"], "player_user", "player"), t.player),
    }
    for role, (seen_by, client) in who.items():
        html = (await client.get(url)).text
        out = await pushed(app, SCENE_PAGE, key, seen_by, cid, before)
        assert {m.event for m in out} == {"map"}
        boards = [m for m in out if 'id="map-board"' in m.data]
        assert len(boards) == 1  # one board for the batch, after its last map event
        same(boards[0].data, html, "map-board")
        same(boards[0].data, html, "map-list")
        assert ("Geist" in boards[0].data) is (role == "gm"), role
        moved = [m for m in out if f'id="map-at-{hero}"' in m.data and "map-board" not in m.data]
        assert len(moved) == 1  # the move's own message, after the tokens were added
        same(moved[0].data, html, f"map-at-{hero}")
        ruler = [m for m in out if 'id="map-pointer"' in m.data]
        assert len(ruler) == 1 and "polyline" in ruler[0].data
        assert "player_user" in ruler[0].data and "3 Schritt" in ruler[0].data
        assert [m.seq for m in out] == sorted(m.seq for m in out)


async def test_a_move_pushes_that_token_alone_and_only_where_it_is_seen(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    cid = t.campaign_id
    api = f"/api/v1/campaigns/{cid}/scenes"
    sid = (await t.gm.post(api, json={"name": "Gang", "cols": 8, "rows": 4, "shown": True})).json()[
        "id"
    ]
    body = {"x": 0, "y": 0, "label": "Späherin"}
    scout = (await t.gm.post(f"{api}/{sid}/tokens", json=body)).json()["id"]
    body = {"x": 5, "y": 3, "label": "Geist", "hidden": True}
    ghost = (await t.gm.post(f"{api}/{sid}/tokens", json=body)).json()["id"]
    await t.gm.patch(f"{api}/{sid}", json={"fog": True})
    reveal = [[x, y] for x in range(4) for y in range(4)]
    await t.gm.post(f"{api}/{sid}/fog", json={"reveal": reveal})
    url = f"/campaigns/{cid}/scenes/{sid}"
    key = ScenePage(cid, sid)
    gm = viewer(t.ids["gm"], "gm_user", "gm")
    player = viewer(t.ids["player"], "player_user", "player")
    before = await last_seq(app, cid)
    await t.gm.post(f"{api}/{sid}/tokens/{scout}/move", json={"to": [2, 1]})
    await t.gm.post(f"{api}/{sid}/tokens/{ghost}/move", json={"to": [6, 3], "override": True})
    for seen_by, client in ((gm, t.gm), (player, t.player)):
        html = (await client.get(url)).text
        out = await pushed(app, SCENE_PAGE, key, seen_by, cid, before)
        assert all("map-board" not in m.data and "map-list" not in m.data for m in out)
        same(out[0].data, html, f"map-at-{scout}")
        assert 'data-x="2" data-y="1"' in out[0].data
        # The hidden ghost's move reaches the GM alone.
        assert (f"map-at-{ghost}" in "".join(m.data for m in out)) is seen_by.is_gm
        if seen_by.is_gm:
            same(out[1].data, html, f"map-at-{ghost}")
    # Into the fog: the player's page takes the scout off from the event alone (issue 29:
    # no board drawn anew; nothing of where it went), the GM's move stays small.
    before = await last_seq(app, cid)
    await t.gm.post(f"{api}/{sid}/tokens/{scout}/move", json={"to": [6, 1], "override": True})
    out = await pushed(app, SCENE_PAGE, key, player, cid, before)
    assert len(out) == 1 and "map-board" not in out[0].data and "Späherin" not in out[0].data
    assert 'id="map-sight"' in out[0].data and f'data-token-removed="{scout}"' in out[0].data
    assert 'data-x="6"' not in out[0].data
    assert "Späherin" not in (await t.player.get(url)).text
    out = await pushed(app, SCENE_PAGE, key, gm, cid, before)
    assert len(out) == 1 and "map-board" not in out[0].data and f"map-at-{scout}" in out[0].data
    # Back into sight: the player's page puts the scout on the board and in the list from
    # the event alone («sighted»), drawn as the page draws it.
    before = await last_seq(app, cid)
    await t.gm.post(f"{api}/{sid}/tokens/{scout}/move", json={"to": [1, 2], "override": True})
    (came,) = await pushed(app, SCENE_PAGE, key, player, cid, before)
    assert "map-board" not in came.data and 'id="map-sight"' in came.data
    html = (await t.player.get(url)).text
    assert element(came.data, str(scout), "data-token") == element(html, str(scout), "data-token")
    same(came.data, html, f"map-at-{scout}")


async def test_map_on_the_combat_page_joins_its_bundled_push(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await make_fight(make_client, app, "hh", players=1, prefix="maplive")
    cid = fight.campaign_id
    r = await fight.gm.post(f"/api/v1/campaigns/{cid}/bestiary/samples")
    goblin = next(e for e in r.json() if e["name"] == "Goblin")
    r = await fight.gm.post(f"/api/v1/campaigns/{cid}/encounters", json={"name": "Brücke"})
    fight.encounter_id = r.json()["id"]
    await fight.gm.post(f"{fight.base}/participants", json={"entry_id": goblin["id"], "count": 2})
    view = await fight.act(fight.gm, "start")
    pid = view["participants"][0]["pid"]
    api = f"/api/v1/campaigns/{cid}/scenes"
    r = await fight.gm.post(
        api,
        json={
            "name": "Brücke",
            "cols": 8,
            "rows": 4,
            "encounter_id": fight.encounter_id,
            "shown": True,
        },
    )
    sid = r.json()["id"]
    other = (
        await fight.gm.post(api, json={"name": "Anderswo", "cols": 3, "rows": 3, "shown": True})
    ).json()
    before = await last_seq(app, cid)
    r = await fight.gm.post(f"{api}/{sid}/tokens", json={"x": 1, "y": 1, "participant_id": pid})
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    body = {"to": [3, 2], "override": True}
    assert (await fight.gm.post(f"{api}/{sid}/tokens/{tid}/move", json=body)).status_code == 200
    await fight.gm.post(f"{api}/{other['id']}/tokens", json={"x": 0, "y": 0, "label": "Fremd"})
    key = CombatPage(cid, fight.encounter_id)
    url = f"/campaigns/{cid}/encounters/{fight.encounter_id}"
    for seen_by, client in (
        (viewer(fight.ids["gm"], "maplivegmhh", "gm"), fight.gm),
        (viewer(fight.ids["p0"], "maplivep0hh", "player"), fight.players[0]),
    ):
        html = (await client.get(url)).text
        assert 'id="map-region"' in html
        out = await pushed(app, COMBAT_PAGE, key, seen_by, cid, before)
        assert {m.event for m in out} <= {"combat"}
        joined = "\n".join(m.data for m in out)
        assert "Fremd" not in joined  # the other scene's token is not this fight's map
        if seen_by.is_gm:
            same(joined, html, "map-board")
            same(joined, html, f"map-at-{tid}")
            assert 'data-x="3" data-y="2"' in element(joined, f"map-at-{tid}")


async def test_steps_sheets_and_moves_elsewhere_build_no_board(
    make_client: ClientFactory, app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scene page follows the fight linked to its scene and the sheets of its tokens'
    characters, a fight's page the scene linked to it: a step of another fight, the sheet of
    a character elsewhere or a move on another scene builds no viewer's board (the scene as
    read says so before anyone's context is built)."""
    fight = await make_fight(make_client, app, "hh", players=1, prefix="elsewhere")
    cid, player = fight.campaign_id, fight.players[0]
    base = f"/api/v1/campaigns/{cid}"
    r = await player.post(f"{base}/characters", json={"name": "Brida"})
    brida = r.json()["id"]
    r = await fight.gm.post(f"{base}/encounters", json={"name": "Furt"})
    fight.encounter_id = r.json()["id"]
    goblin = next(
        e for e in (await fight.gm.post(f"{base}/bestiary/samples")).json() if e["name"] == "Goblin"
    )
    await fight.gm.post(f"{fight.base}/participants", json={"character_id": brida})
    await fight.gm.post(f"{fight.base}/participants", json={"entry_id": goblin["id"], "count": 1})
    await fight.act(fight.gm, "start")
    api = f"{base}/scenes"
    linked = {"name": "Furt", "cols": 6, "rows": 4, "encounter_id": fight.encounter_id}
    scenes = {
        "fight": (await fight.gm.post(api, json={**linked, "shown": True, "place": True})).json(),
        "hers": (await fight.gm.post(api, json={"name": "Lager", "cols": 3, "rows": 3})).json(),
        "else": (await fight.gm.post(api, json={"name": "Wald", "cols": 3, "rows": 3})).json(),
    }
    hers = {"x": 0, "y": 0, "character_id": brida}
    assert (await fight.gm.post(f"{api}/{scenes['hers']['id']}/tokens", json=hers)).is_success
    barrel = {"x": 1, "y": 1, "label": "Fass"}
    barrel_id = (await fight.gm.post(f"{api}/{scenes['else']['id']}/tokens", json=barrel)).json()[
        "id"
    ]
    built: list[int] = []
    real = views.context_of

    async def counted(session: Any, seen_by: Any, read: Any) -> Any:
        built.append(read[1].id)
        return await real(session, seen_by, read)

    monkeypatch.setattr(views, "context_of", counted)
    gm = viewer(fight.ids["gm"], "elsewheregmhh", "gm")

    async def boards_built(after: int) -> dict[str, bool]:
        """Per scene: whether its page's push built the GM's board (only then can it push:
        whether the tokens tell anything new is decided on the board)."""
        found = {}
        for name, scene in scenes.items():
            built.clear()
            out = await pushed(app, SCENE_PAGE, ScenePage(cid, scene["id"]), gm, cid, after)
            assert built or not out, name
            found[name] = bool(built)
        return found

    before = await last_seq(app, cid)
    joins = {"entry_id": goblin["id"], "count": 1}  # who takes part: the tokens tell it
    assert (await fight.gm.post(f"{fight.base}/participants", json=joins)).is_success
    assert await boards_built(before) == {"fight": True, "hers": False, "else": False}

    before = await last_seq(app, cid)
    version = (await player.get(f"{base}/characters/{brida}")).json()["version"]
    changes = {"version": version, "changes": {"name": "Brida Furtlauf"}}
    assert (await player.patch(f"{base}/characters/{brida}", json=changes)).is_success
    found = await boards_built(before)
    assert found == {"fight": True, "hers": True, "else": False}

    # The fight's own page: a move on another scene builds no board there, one on its own does.
    page = CombatPage(cid, fight.encounter_id)
    for scene, token, to in (("else", barrel_id, [2, 2]), ("fight", None, [5, 3])):
        if token is None:
            tokens = (await fight.gm.get(f"{api}/{scenes['fight']['id']}")).json()["tokens"]
            token = next(t["id"] for t in tokens if t["participant_id"] is not None)
        before = await last_seq(app, cid)
        move = {"to": to, "override": True}
        path = f"{api}/{scenes[scene]['id']}/tokens/{token}/move"
        assert (await fight.gm.post(path, json=move)).is_success
        built.clear()
        out = await pushed(app, COMBAT_PAGE, page, gm, cid, before)
        assert bool(built) is bool(out) is (scene == "fight"), scene
