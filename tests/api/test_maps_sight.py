"""Per-player line of sight on the battle map (docs/map.md «What is sent to whom»): each
player receives only what their own figures' tokens see through walls — in the scene's
JSON, on the page and in every event — a token coming into their sight arrives as
``token_added``, one leaving it as ``token_removed``; observers see the party's view, the
GM everything; walls only where seen."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import httpx
from fastapi import FastAPI

from app.characters.models import Character
from app.core.viewer import Role, Viewer
from app.maps.live import SCENE_PAGE, ScenePage
from tests.api.helpers import Table, make_table
from tests.api.regions import element, pushed
from tests.api.test_maps import _last_seq, base, events_for, get, hh_scene
from tests.conftest import ClientFactory, register
from tests.encounters.helpers import script

#: A 10 × 5 hall: a wall on the line x = 5 from the top down to row 3 (row 4 open: the way
#: round the corner), and a short wall far behind it (between rows 0 and 1 at x 7–8).
WALLS = [[5, 0, 5, 4], [7, 1, 9, 1]]
HIDDEN_WALL = [7, 1, 9, 1]


@dataclass
class Hall:
    t: Table
    bert: httpx.AsyncClient
    ids: dict[str, int]
    url: str

    def viewer(self, who: str) -> Viewer:
        role = {"gm": Role.gm, "observer": Role.observer}.get(who, Role.player)
        return Viewer(self.ids[who], who, role)


async def _character(app: FastAPI, campaign_id: int, owner: int, name: str) -> int:
    async with app.state.ctx.sessionmaker() as session:
        row = Character(
            campaign_id=campaign_id, owner_id=owner, system="hh", name=name, kind="pc",
            hidden_from_players=False, data={"statblock": {}},
        )  # fmt: skip
        session.add(row)
        await session.commit()
        return row.id


async def hall(make_client: ClientFactory, app: FastAPI) -> Hall:
    t = await make_table(make_client, app)
    bert = make_client()
    bert_id = int((await register(bert, "bert_user"))["user"]["id"])  # type: ignore[index]
    joined = await bert.post("/api/v1/campaigns/join", json={"invite_code": t.invite_code})
    assert joined.status_code == 200, joined.text
    r = await t.gm.post(
        base(t.campaign_id), json={"name": "Halle", "cols": 10, "rows": 5, "shown": True}
    )
    url = f"{base(t.campaign_id)}/{r.json()['id']}"
    assert (await t.gm.put(f"{url}/walls", json={"segments": WALLS})).status_code == 200
    ids = {"gm": t.ids["gm"], "anna": t.ids["player"], "bert": bert_id}
    ids["observer"] = t.ids["observer"]
    for name, owner, cell in (("Anna", "anna", (1, 1)), ("Bert", "bert", (1, 3))):
        char = await _character(app, t.campaign_id, ids[owner], name)
        body = {"x": cell[0], "y": cell[1], "character_id": char}
        r = await t.gm.post(f"{url}/tokens", json=body)
        assert r.status_code == 201, r.text
        ids[name] = r.json()["id"]
    r = await t.gm.post(f"{url}/tokens", json={"x": 8, "y": 1, "label": "Goblin"})
    ids["Goblin"] = r.json()["id"]
    r = await t.gm.patch(url, json={"line_of_sight": True})
    assert r.status_code == 200 and r.json()["line_of_sight"] is True, r.text
    return Hall(t, bert, ids, url)


def labels(scene: dict[str, Any]) -> set[str]:
    return {tk["label"] for tk in scene["tokens"]}


async def test_each_player_gets_what_their_own_tokens_see(
    make_client: ClientFactory, app: FastAPI
) -> None:
    h = await hall(make_client, app)
    t, cid = h.t, h.t.campaign_id
    anna, bert, gm, observer = t.player, h.bert, t.gm, t.observer
    # Behind the wall: the goblin reaches no player, the GM gets all. The fog is off, so
    # the whole map is known: the far wall is sent, its cells explored (no tokens).
    assert labels(await get(gm, h.url)) == {"Anna", "Bert", "Goblin"}
    for client in (anna, bert, observer):
        seen = await get(client, h.url)
        assert labels(seen) == {"Anna", "Bert"}
        assert "Goblin" not in str(seen) and HIDDEN_WALL in seen["walls"]
        assert [8, 1] in seen["explored"] and [8, 1] not in seen["visible"]
    assert (await get(gm, h.url))["explored"] is None
    # Anna walks round the corner: the goblin comes into her sight, not into Bert's.
    was = {tuple(c) for c in (await get(anna, h.url))["visible"]}
    seq = await _last_seq(app, cid)
    r = await anna.post(f"{h.url}/tokens/{h.ids['Anna']}/move", json={"to": [6, 4]})
    assert r.status_code == 200, r.text
    seen = await get(anna, h.url)
    assert labels(seen) == {"Anna", "Bert", "Goblin"} and HIDDEN_WALL in seen["walls"]
    assert [8, 1] in seen["visible"] and [8, 1] not in (await get(bert, h.url))["visible"]
    assert (await get(gm, h.url))["visible"] is None
    seen = await get(bert, h.url)
    assert labels(seen) == {"Anna", "Bert"} and [8, 1] in seen["explored"]
    assert "Goblin" not in str(seen)
    # The observer sees what the party sees (Anna's eyes among them).
    assert labels(await get(observer, h.url)) == {"Anna", "Bert", "Goblin"}
    got = await events_for(app, cid, h.viewer("anna"), seq)
    assert [(e["type"], e.get("token_id") or e["token"]["label"]) for e in got] == [
        ("token_moved", h.ids["Anna"]),
        ("token_added", "Goblin"),
    ]
    assert "hidden" not in got[1]["token"]
    # Her sight changed: the cells that came into it and went out of it, and no others —
    # each one she sees now or saw before, none she never saw; no token in them.
    assert got[0]["sight"] is True
    now = await get(anna, h.url)
    visible = {tuple(c) for c in now["visible"]}
    added = {tuple(c) for c in got[0]["visible_added"]}
    removed = {tuple(c) for c in got[0]["visible_removed"]}
    assert added == visible - was and removed == was - visible and (8, 1) in added
    assert removed <= {tuple(c) for c in now["explored"]}
    gm_form = (await events_for(app, cid, h.viewer("gm"), seq))[0]
    assert set(got[0]) - set(gm_form) == {"visible_added", "visible_removed", "sight"}
    got = await events_for(app, cid, h.viewer("bert"), seq)
    assert [(e["type"], e["token_id"]) for e in got] == [("token_moved", h.ids["Anna"])]
    assert "sight" not in got[0]
    # The scene page's live pushes, from the events alone (no board drawn anew): Anna's
    # the cells of her sight and the goblin as her board draws it, Bert's only the move.
    sid = int(h.url.rsplit("/", 1)[1])
    key = ScenePage(cid, sid)
    out = await pushed(app, SCENE_PAGE, key, h.viewer("anna"), cid, seq)
    assert not [m for m in out if 'id="map-board"' in m.data]
    sight = "".join(m.data for m in out if 'id="map-sight"' in m.data)
    pushed_added = re.search(r'data-visible-added="([^"]*)"', sight)
    assert pushed_added and "8,1" in pushed_added.group(1).split(" ")
    page_html = (await anna.get(f"/campaigns/{cid}/scenes/{sid}")).text
    goblin = f'data-token="{h.ids["Goblin"]}"'
    assert goblin in sight and goblin in element(page_html, "map-board")
    out = await pushed(app, SCENE_PAGE, key, h.viewer("bert"), cid, seq)
    assert out and all("map-board" not in m.data and "Goblin" not in m.data for m in out)
    got = await events_for(app, cid, h.viewer("gm"), seq)
    assert [e["type"] for e in got] == ["token_moved", "token_sighted"]
    # The page's HTML: Anna's has the goblin, Bert's none of it.
    page = f"/campaigns/{cid}/scenes/{h.url.rsplit('/', 1)[1]}"
    assert "Goblin" in (await anna.get(page)).text
    assert "Goblin" not in (await bert.get(page)).text
    assert "Goblin" in (await gm.get(page)).text
    token_url = f"{h.url}/tokens/{h.ids['Goblin']}"
    # The GM moves the goblin: Anna sees the move, Bert nothing of it.
    seq = await _last_seq(app, cid)
    r = await gm.post(f"{token_url}/move", json={"to": [8, 2]})
    assert r.status_code == 200, r.text
    got = await events_for(app, cid, h.viewer("anna"), seq)
    assert [(e["type"], e["x"], e["y"]) for e in got] == [("token_moved", 8, 2)]
    assert await events_for(app, cid, h.viewer("bert"), seq) == []
    # Back behind the wall: the goblin leaves Anna's sight as token_removed.
    seq = await _last_seq(app, cid)
    r = await anna.post(f"{h.url}/tokens/{h.ids['Anna']}/move", json={"to": [1, 1]})
    assert r.status_code == 200, r.text
    got = await events_for(app, cid, h.viewer("anna"), seq)
    assert [(e["type"], e["token_id"]) for e in got] == [
        ("token_moved", h.ids["Anna"]),
        ("token_removed", h.ids["Goblin"]),
    ]
    assert "x" not in got[1]
    assert labels(await get(anna, h.url)) == {"Anna", "Bert"}


async def test_what_one_move_brings_into_and_out_of_sight_is_pushed_in_one_message(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """A move that changes what its player sees of many tokens reaches their page as two
    messages — the move with its cells, then every token that came into or went out of
    sight in one box — not one per token (a phone applied each: issue 29); the log keeps
    a ``token_sighted`` per token, and the API its form per token."""
    h = await hall(make_client, app)
    t, cid = h.t, h.t.campaign_id
    for label, cell in (("Ork", (8, 3)), ("Wolf", (9, 4)), ("Fass", (0, 0)), ("Kiste", (2, 0))):
        r = await t.gm.post(f"{h.url}/tokens", json={"x": cell[0], "y": cell[1], "label": label})
        h.ids[label] = r.json()["id"]
    ids = {v: k for k, v in h.ids.items() if k[0].isupper()}
    before = {tk["id"] for tk in (await get(t.player, h.url))["tokens"]}
    seq = await _last_seq(app, cid)
    r = await t.player.post(f"{h.url}/tokens/{h.ids['Anna']}/move", json={"to": [6, 4]})
    assert r.status_code == 200, r.text
    after = {tk["id"] for tk in (await get(t.player, h.url))["tokens"]}
    came, went = after - before, before - after
    assert {ids[i] for i in came} == {"Goblin", "Ork", "Wolf"}
    assert {ids[i] for i in went} == {"Fass", "Kiste"}
    got = await events_for(app, cid, h.viewer("anna"), seq)
    assert sorted(e["type"] for e in got[1:]) == ["token_added"] * 3 + ["token_removed"] * 2
    sid = int(h.url.rsplit("/", 1)[1])
    out = await pushed(app, SCENE_PAGE, ScenePage(cid, sid), h.viewer("anna"), cid, seq)
    moved, sighted = out
    assert f'id="map-at-{h.ids["Anna"]}"' in moved.data and "data-visible-added" in moved.data
    assert sighted.seq == await _last_seq(app, cid) and sighted.seq > moved.seq
    marks = set(re.findall(r'class="map-token[^"]*"[^>]* data-token="(\d+)"', sighted.data))
    assert {int(i) for i in marks} == came
    assert {int(i) for i in re.findall(r'id="map-item-(\d+)"', sighted.data)} == came
    removed = re.search(r'data-token-removed="([^"]*)"', sighted.data)
    assert removed and {int(i) for i in removed.group(1).split(" ")} == went
    page_html = (await t.player.get(f"/campaigns/{cid}/scenes/{sid}")).text
    for token_id in came:
        mark = f'data-token="{token_id}"'
        assert element(sighted.data, str(token_id), "data-token") == element(
            page_html, str(token_id), "data-token"
        ), mark
    # Bert's view did not change: his page gets the move alone.
    (bert_out,) = await pushed(app, SCENE_PAGE, ScenePage(cid, sid), h.viewer("bert"), cid, seq)
    assert 'id="map-sight"' not in bert_out.data


async def test_sight_radius_fog_and_switching_it_off(
    make_client: ClientFactory, app: FastAPI
) -> None:
    h = await hall(make_client, app)
    t = h.t
    r = await t.player.post(f"{h.url}/tokens/{h.ids['Anna']}/move", json={"to": [6, 4]})
    assert r.status_code == 200, r.text
    assert "Goblin" in labels(await get(t.player, h.url))
    # A sight radius of 2 cells: the goblin three cells away is out of sight.
    r = await t.gm.patch(h.url, json={"sight_radius": 2})
    assert r.status_code == 200 and r.json()["sight_radius"] == 2
    assert "Goblin" not in labels(await get(t.player, h.url))
    bad = await t.gm.patch(h.url, json={"sight_radius": 101})
    assert bad.status_code == 422 and "sight_radius" in bad.json()["errors"]
    assert (await t.player.patch(h.url, json={"line_of_sight": False})).status_code == 403
    await t.gm.patch(h.url, json={"sight_radius": 0})
    # The fog on top: sight reveals what the tokens see when it comes on; the GM's fog
    # hides a cell again (a token there must be revealed AND in sight).
    await t.gm.patch(h.url, json={"fog": True})
    assert "Goblin" in labels(await get(t.player, h.url))
    await t.gm.post(f"{h.url}/fog", json={"hide": [[8, 1]]})
    assert "Goblin" not in labels(await get(t.player, h.url))
    await t.gm.post(f"{h.url}/fog", json={"reveal": [[8, 1]]})
    assert "Goblin" in labels(await get(t.player, h.url))
    # Line of sight off: the fog alone decides, the same for every player.
    r = await t.gm.patch(h.url, json={"line_of_sight": False})
    assert r.status_code == 200
    assert labels(await get(h.bert, h.url)) == {"Anna", "Bert", "Goblin"}


async def test_wegstossen_pushes_the_token_until_a_wall_stops_it(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """H&H Wegstossen (2 Schritt back): the goblin's token goes east, away from Alrik, and
    the wall after one cell stops it — in the action's transaction, as a token_moved."""
    fight, url, ids = await hh_scene(make_client, app)
    gm, player = fight.gm, fight.players[0]
    r = await gm.post(f"{url}/tokens/{ids['Goblin']}/move", json={"to": [1, 2], "override": True})
    assert r.status_code == 200, r.text
    assert (await gm.put(f"{url}/walls", json={"segments": [[3, 2, 3, 3]]})).status_code == 200
    seq = await _last_seq(app, fight.campaign_id)
    script(app, 2, 3, 9, 9)  # Alrik's Probe succeeds, the goblin's defence fails
    await fight.act(player, "maneuver", target=ids["pid:Goblin"], maneuver="wegstossen")
    goblin = next(t for t in (await get(gm, url))["tokens"] if t["id"] == ids["Goblin"])
    assert (goblin["x"], goblin["y"]) == (2, 2)
    player_viewer = Viewer(fight.ids["p0"], "p0", Role.player)
    moved = [e for e in await events_for(app, fight.campaign_id, player_viewer, seq)]
    assert [(e["type"], e["x"], e["y"], e["pushed"]) for e in moved] == [
        ("token_moved", 2, 2, "Wegstossen")
    ]
    # Without the wall, another token in the way stops it.
    await gm.put(f"{url}/walls", json={"segments": []})
    await gm.post(f"{url}/tokens", json={"x": 3, "y": 2, "label": "Fass"})
    await gm.post(f"{url}/tokens/{ids['Goblin']}/move", json={"to": [1, 2], "override": True})
    for _step in range(6):
        await fight.act(gm, "next")
        if str((await fight.view(gm))["turn"]["pid"]) == str(ids["pid:Alrik"]):
            break
    script(app, 2, 3, 9, 9)
    await fight.act(player, "maneuver", target=ids["pid:Goblin"], maneuver="wegstossen")
    goblin = next(t for t in (await get(gm, url))["tokens"] if t["id"] == ids["Goblin"])
    assert (goblin["x"], goblin["y"]) == (2, 2)
