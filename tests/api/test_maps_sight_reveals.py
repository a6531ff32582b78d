"""Sight that reveals (issue 27; docs/map.md «What is sent to whom»): with fog and line of
sight on, a player gets their own token, the tokens on the cells it sees, and the map of
the cells the party has seen (explored: walls and terrain, no tokens) — nothing of the
rest; what the party's tokens see is revealed for good; the GM's fog hides cells again and
sends token_removed / token_added to the views it changes; the GM sees the scene as any
member gets it («view as»)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx
from fastapi import FastAPI

from app.core.viewer import Role, Viewer
from tests.api.helpers import Table, make_table
from tests.api.regions import element
from tests.api.test_maps import _last_seq, base, events_for, get
from tests.api.test_maps_sight import _character
from tests.conftest import ClientFactory, register

#: A 12 × 6 room; Anna's hero at (1, 1) sees 2 cells far. A chest beside her, a goblin in
#: the far corner, a wall and a difficult cell there too (never seen by the party).
RADIUS = 2
FAR_WALL = [10, 0, 10, 2]
FAR_TERRAIN = [11, 5]


@dataclass
class Room:
    t: Table
    bert: httpx.AsyncClient
    ids: dict[str, int]
    url: str
    page: str

    def viewer(self, who: str) -> Viewer:
        role = {"gm": Role.gm, "observer": Role.observer}.get(who, Role.player)
        return Viewer(self.ids[who], who, role)


def around(x: int, y: int) -> set[tuple[int, int]]:
    """The cells within ``RADIUS`` steps of (x, y) on the 12 × 6 grid (no walls between)."""
    return {
        (x + dx, y + dy)
        for dx in range(-RADIUS, RADIUS + 1)
        for dy in range(-RADIUS, RADIUS + 1)
        if 0 <= x + dx < 12 and 0 <= y + dy < 6
    }


def cells(listed: list[list[int]] | None) -> set[tuple[int, int]]:
    assert listed is not None
    return {(c[0], c[1]) for c in listed}


def labels(scene: dict[str, Any]) -> set[str]:
    return {tk["label"] for tk in scene["tokens"]}


async def room(make_client: ClientFactory, app: FastAPI) -> Room:
    t = await make_table(make_client, app)
    bert = make_client()
    bert_id = int((await register(bert, "bert_room"))["user"]["id"])  # type: ignore[index]
    joined = await bert.post("/api/v1/campaigns/join", json={"invite_code": t.invite_code})
    assert joined.status_code == 200, joined.text
    r = await t.gm.post(
        base(t.campaign_id), json={"name": "Keller", "cols": 12, "rows": 6, "shown": True}
    )
    sid = r.json()["id"]
    url = f"{base(t.campaign_id)}/{sid}"
    walls = {"segments": [FAR_WALL], "difficult": [FAR_TERRAIN]}
    assert (await t.gm.put(f"{url}/walls", json=walls)).status_code == 200
    ids = {"gm": t.ids["gm"], "anna": t.ids["player"], "bert": bert_id}
    ids["observer"] = t.ids["observer"]
    char = await _character(app, t.campaign_id, ids["anna"], "Anna")
    r = await t.gm.post(f"{url}/tokens", json={"x": 1, "y": 1, "character_id": char})
    ids["Anna"] = r.json()["id"]
    for label, cell in (("Kiste", (0, 2)), ("Goblin", (10, 4))):
        r = await t.gm.post(f"{url}/tokens", json={"x": cell[0], "y": cell[1], "label": label})
        assert r.status_code == 201, r.text
        ids[label] = r.json()["id"]
    page = f"/campaigns/{t.campaign_id}/scenes/{sid}"
    return Room(t, bert, ids, url, page)


async def test_fog_and_sight_show_a_player_their_token_what_it_sees_and_what_was_seen(
    make_client: ClientFactory, app: FastAPI
) -> None:
    h = await room(make_client, app)
    anna, gm = h.t.player, h.t.gm
    # The fog on, every cell hidden; then line of sight on.
    r = await gm.patch(h.url, json={"fog": True})
    assert r.status_code == 200
    r = await gm.post(f"{h.url}/fog", json={"hide": [[x, y] for x in range(12) for y in range(6)]})
    assert r.status_code == 200
    seq = await _last_seq(app, h.t.campaign_id)
    r = await gm.patch(h.url, json={"line_of_sight": True, "sight_radius": RADIUS})
    assert r.status_code == 200
    # Sight reveals what Anna's hero sees, for good, with the usual fog event.
    sees = around(1, 1)
    assert cells(r.json()["revealed"]) == sees
    got = await events_for(app, h.t.campaign_id, h.viewer("anna"), seq)
    fog = [e for e in got if e["type"] == "fog_changed" and e["revealed"]]
    assert [cells(e["revealed"]) for e in fog] == [sees]
    # Her answer: her own token, the chest she sees, the cells she sees — nothing else.
    seen = await get(anna, h.url)
    assert labels(seen) == {"Anna", "Kiste"}
    assert cells(seen["visible"]) == sees and seen["explored"] == []
    assert seen["walls"] == [] and seen["difficult"] == []
    assert "Goblin" not in str(seen)
    # She walks away (no fight: no allowance): the cells seen stay explored, the chest
    # on them is no longer sent. Her sight revealed fogged cells with the move (the map she
    # knows grew): her move says her sight changed without the cells, her board is drawn
    # anew (docs/map.md «Per-player line of sight», the events).
    seq = await _last_seq(app, h.t.campaign_id)
    r = await anna.post(f"{h.url}/tokens/{h.ids['Anna']}/move", json={"to": [4, 1]})
    assert r.status_code == 200, r.text
    moved = (await events_for(app, h.t.campaign_id, h.viewer("anna"), seq))[0]
    assert moved["type"] == "token_moved" and moved["sight"] is True
    assert "visible_added" not in moved and "visible_removed" not in moved
    seen = await get(anna, h.url)
    assert labels(seen) == {"Anna"} and "Kiste" not in str(seen)
    assert cells(seen["visible"]) == around(4, 1)
    assert cells(seen["explored"]) == sees - around(4, 1)
    assert (0, 2) in cells(seen["explored"])
    assert cells(seen["revealed"]) == sees | around(4, 1)
    assert "Goblin" not in str(seen) and FAR_WALL not in seen["walls"]
    # Bert has no token here: he gets the party's view (Anna's eyes), the same cells.
    bert = await get(h.bert, h.url)
    assert labels(bert) == {"Anna"} and cells(bert["visible"]) == around(4, 1)
    # The GM gets everything, and no notice: Anna's hero sees.
    everything = await get(gm, h.url)
    assert labels(everything) == {"Anna", "Kiste", "Goblin"} and everything["explored"] is None
    assert "map-blind" not in (await gm.get(h.page)).text
    # The page: explored cells dimmed, hidden ones fogged, the chest and the goblin absent.
    html = (await anna.get(h.page)).text
    board = element(html, "map-board")
    assert board.count('class="map-explored"') == len(sees - around(4, 1))
    assert board.count('class="map-fog"') == 72 - len(sees | around(4, 1))
    assert "Kiste" not in html and "Goblin" not in html


async def test_the_gm_is_told_when_players_would_see_nothing(
    make_client: ClientFactory, app: FastAPI
) -> None:
    h = await room(make_client, app)
    gm = h.t.gm
    await gm.delete(f"{h.url}/tokens/{h.ids['Anna']}")
    assert (await gm.patch(h.url, json={"fog": True, "line_of_sight": True})).status_code == 200
    html = (await gm.get(h.page)).text
    assert "map-blind" in html and "bert_room" in html
    assert (await get(h.bert, h.url))["tokens"] == []
    # Revealing cells is enough: the players see the map there.
    await gm.post(f"{h.url}/fog", json={"reveal": [[0, 0], [1, 0]]})
    assert "map-blind" not in (await gm.get(h.page)).text


async def test_fog_reveal_and_hide_send_tokens_into_and_out_of_view(
    make_client: ClientFactory, app: FastAPI
) -> None:
    h = await room(make_client, app)
    gm, cid = h.t.gm, h.t.campaign_id
    await gm.patch(h.url, json={"fog": True, "line_of_sight": True, "sight_radius": RADIUS})
    assert "Kiste" in labels(await get(h.t.player, h.url))
    # The GM hides the chest's cell again: it leaves Anna's view (and the party's).
    seq = await _last_seq(app, cid)
    r = await gm.post(f"{h.url}/fog", json={"hide": [[0, 2]]})
    assert r.status_code == 200
    for who in ("anna", "bert", "observer"):
        got = await events_for(app, cid, h.viewer(who), seq)
        assert [(e["type"], e.get("token_id")) for e in got] == [
            ("fog_changed", None),
            ("token_removed", h.ids["Kiste"]),
        ], who
    assert "Kiste" not in labels(await get(h.t.player, h.url))
    # Her own token stays hers to see even when the GM hides its cell.
    await gm.post(f"{h.url}/fog", json={"hide": [[1, 1]]})
    assert "Anna" in labels(await get(h.t.player, h.url))
    # Revealed again: token_added, in the player's form (no «hidden»).
    seq = await _last_seq(app, cid)
    await gm.post(f"{h.url}/fog", json={"reveal": [[0, 2]]})
    got = await events_for(app, cid, h.viewer("anna"), seq)
    assert [(e["type"], e.get("token", {}).get("label")) for e in got] == [
        ("fog_changed", None),
        ("token_added", "Kiste"),
    ]
    assert "hidden" not in got[1]["token"]
    # A reveal out of everyone's sight adds no token (the goblin is not in sight).
    seq = await _last_seq(app, cid)
    await gm.post(f"{h.url}/fog", json={"reveal": [[10, 4]]})
    got = await events_for(app, cid, h.viewer("anna"), seq)
    assert [e["type"] for e in got] == ["fog_changed"]
    gms = await events_for(app, cid, h.viewer("gm"), seq)
    assert [e["type"] for e in gms] == ["fog_changed"]


async def test_the_gm_views_the_scene_as_each_member_gets_it(
    make_client: ClientFactory, app: FastAPI
) -> None:
    h = await room(make_client, app)
    t = h.t
    await t.gm.patch(h.url, json={"fog": True, "line_of_sight": True, "sight_radius": RADIUS})
    await t.player.post(f"{h.url}/tokens/{h.ids['Anna']}/move", json={"to": [3, 2]})
    for who, client in (("anna", t.player), ("bert", h.bert), ("observer", t.observer)):
        own = await get(client, h.url)
        r = await t.gm.get(f"{h.url}/view", params={"as": h.ids[who]})
        assert r.status_code == 200, r.text
        assert r.json() == own, who
    assert (await get(t.gm, f"{h.url}/view?as={h.ids['gm']}")) == await get(t.gm, h.url)
    # Only GMs: a player 403, a non-member 404; not a member: 422 at «as».
    r = await t.player.get(f"{h.url}/view", params={"as": h.ids["bert"]})
    assert r.status_code == 403
    r = await t.outsider.get(f"{h.url}/view", params={"as": h.ids["anna"]})
    assert r.status_code == 404
    r = await t.gm.get(f"{h.url}/view", params={"as": 999_999})
    assert r.status_code == 422 and "as" in r.json()["errors"]
    assert (await t.gm.get(f"{h.url}/view")).status_code == 422
    # The page: «view as» Anna shows her board exactly as her own page has it.
    theirs = (await t.gm.get(h.page, params={"as": h.ids["anna"]})).text
    mine = (await t.player.get(h.page)).text
    assert element(theirs, "map-board") == element(mine, "map-board")
    assert "Goblin" not in theirs and "map-view-as" in theirs
    assert 'id="view-as"' in (await t.gm.get(h.page)).text
    assert (await t.player.get(h.page, params={"as": h.ids["bert"]})).status_code == 403
    r = await t.gm.get(h.page, params={"as": 999_999})
    assert r.status_code == 422
    # A scene hidden from the players: the member gets 404, and so does the view as them.
    await t.gm.patch(h.url, json={"shown": False})
    await get(t.player, h.url, 404)
    assert (await t.gm.get(f"{h.url}/view", params={"as": h.ids["anna"]})).status_code == 404


async def test_a_wall_taken_away_brings_tokens_into_view_and_reveals(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Every change of sight sends the tokens it concerns: the GM takes a wall away, and
    the goblin behind it comes into Anna's view (fog on: the cells are revealed too)."""
    h = await room(make_client, app)
    gm, cid = h.t.gm, h.t.campaign_id
    wall = {"segments": [[3, 0, 3, 6], FAR_WALL], "difficult": [FAR_TERRAIN]}
    assert (await gm.put(f"{h.url}/walls", json=wall)).status_code == 200
    await gm.patch(h.url, json={"fog": True, "line_of_sight": True})
    seen = await get(h.t.player, h.url)
    assert "Goblin" not in labels(seen) and [10, 4] not in seen["revealed"]
    seq = await _last_seq(app, cid)
    assert (await gm.put(f"{h.url}/walls", json={"segments": [FAR_WALL]})).status_code == 200
    got = await events_for(app, cid, h.viewer("anna"), seq)
    assert [(e["type"], e.get("token", {}).get("label")) for e in got] == [
        ("scene_updated", None),
        ("fog_changed", None),
        ("token_added", "Goblin"),
    ]
    assert [10, 4] in got[1]["revealed"]
    seen = await get(h.t.player, h.url)
    assert "Goblin" in labels(seen) and FAR_WALL in seen["walls"]


async def test_sight_reveals_on_a_scene_still_hidden_from_the_players(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Found by the fuzz step: on a scene the GM still prepares (not shown), the fog events
    that sight's reveal writes are the GMs' alone, not a server error."""
    r = await room(make_client, app)
    hide = await r.t.gm.patch(r.url, json={"shown": False})
    assert hide.status_code == 200, hide.text
    on = await r.t.gm.patch(r.url, json={"fog": True, "line_of_sight": True})
    assert on.status_code == 200, on.text
    after = await _last_seq(app, r.t.campaign_id)
    fog = await r.t.gm.post(f"{r.url}/fog", json={"hide": [[1, 2], [2, 2]]})
    assert fog.status_code == 200, fog.text
    moved = await r.t.gm.post(f"{r.url}/tokens/{r.ids['Anna']}/move", json={"to": [3, 2]})
    assert moved.status_code == 200, moved.text
    player = await events_for(app, r.t.campaign_id, r.viewer("anna"), after)
    assert not [e for e in player if e.get("type") == "fog_changed"]
