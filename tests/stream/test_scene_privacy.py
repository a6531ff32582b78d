"""What a player's event stream replays of the battle map (issue 25, finding N4): a map
event reaches a player only if they could see it when it happened and can see its scene
and token now; a scene the GM prepares in private reaches them not at all until shown."""

from __future__ import annotations

import httpx

from tests.conftest import LiveServer
from tests.stream.sse import Message, gm_and_player, messages, take, unique


async def _replay(
    client: httpx.AsyncClient, cid: int, until: str, *, header: bool = False
) -> list[Message]:
    """What a stream from the log's start sends up to the roll labelled ``until`` (the GM's
    marker that everything before it is in the log)."""
    path = f"/api/v1/campaigns/{cid}/events"
    headers = {"Last-Event-ID": "0"} if header else {}
    out: list[Message] = []
    async with client.stream(
        "GET", path if header else f"{path}?after=0", headers=headers
    ) as response:
        stream = messages(response)
        while not out or until not in out[-1].data:
            out += await take(stream, 1)
    return out


async def _marker(gm: httpx.AsyncClient, cid: int) -> str:
    label = unique("ENDE")
    r = await gm.post(f"/api/v1/campaigns/{cid}/rolls", json={"expression": "1W6", "label": label})
    assert r.status_code == 201, r.text
    return label


async def test_a_token_placed_before_the_fog_is_not_replayed_to_players(
    live_server: LiveServer,
) -> None:
    gm, player, cid = await gm_and_player(live_server.url, "Nebel")
    r = await gm.post(
        f"/api/v1/campaigns/{cid}/scenes",
        json={"name": "Gruft", "cols": 8, "rows": 5, "shown": True},
    )
    assert r.status_code == 201, r.text
    url = f"/api/v1/campaigns/{cid}/scenes/{r.json()['id']}"
    canary = unique("LICH")
    r = await gm.post(f"{url}/tokens", json={"x": 6, "y": 3, "label": canary})
    assert r.status_code == 201, r.text
    token_id = r.json()["id"]
    r = await gm.patch(url, json={"fog": True})
    assert r.status_code == 200, r.text
    # The scene JSON hides it, and so does every replay: ``?after=0`` and ``Last-Event-ID``.
    seen = (await player.get(url)).json()
    assert seen["tokens"] == [] and canary not in str(seen)
    marker = await _marker(gm, cid)
    for header in (False, True):
        replayed = await _replay(player, cid, marker, header=header)
        text = "".join(m.data for m in replayed)
        assert canary not in text and '"x":6' not in text, header
        assert not [m for m in replayed if m.json().get("token", {}).get("id") == token_id]
    gm_replay = "".join(m.data for m in await _replay(gm, cid, marker))
    assert canary in gm_replay
    # Once its cell is revealed the player sees the token now, and saw it when it was
    # placed: the replay brings it — its placement, and the reveal that brought it into
    # their view (docs/map.md: a fog change sends token_added).
    r = await gm.post(f"{url}/fog", json={"reveal": [[6, 3]]})
    assert r.status_code == 200, r.text
    marker = await _marker(gm, cid)
    replayed = await _replay(player, cid, marker)
    added = [m.json() for m in replayed if m.event == "token_added"]
    assert [a["token"]["label"] for a in added] == [canary, canary]
    assert [m.event for m in replayed][-3:-1] == ["fog_changed", "token_added"]


async def test_a_scene_prepared_in_private_reaches_players_only_once_shown(
    live_server: LiveServer,
) -> None:
    gm, player, cid = await gm_and_player(live_server.url, "Nebel")
    scenes = f"/api/v1/campaigns/{cid}/scenes"
    r = await gm.post(scenes, json={"name": unique("Falle"), "cols": 8, "rows": 5})
    assert r.status_code == 201, r.text
    name, scene_id = r.json()["name"], r.json()["id"]
    url = f"{scenes}/{scene_id}"
    canary = unique("SPEERFALLE")
    r = await gm.post(f"{url}/tokens", json={"x": 2, "y": 2, "label": canary})
    assert r.status_code == 201, r.text
    r = await gm.put(f"{url}/walls", json={"segments": [[4, 0, 4, 5]]})
    assert r.status_code == 200, r.text
    # Nothing of it for the player: not in the list, 404 for the scene and its parts, no
    # event in the replay.
    assert (await player.get(url)).status_code == 404
    assert (await player.get(f"{url}/background")).status_code == 404
    assert name not in (await player.get(scenes)).text
    marker = await _marker(gm, cid)
    replayed = await _replay(player, cid, marker)
    assert [m for m in replayed if m.json().get("scene_id") == scene_id] == []
    assert canary not in "".join(m.data for m in replayed)
    # The GM shows it: the player's live stream hears of it, and the scene is theirs to see.
    after = replayed[-1].json()["seq"]
    async with player.stream("GET", f"/api/v1/campaigns/{cid}/events?after={after}") as response:
        stream = messages(response)
        r = await gm.patch(url, json={"shown": True})
        assert r.status_code == 200, r.text
        got = await take(stream, 2)
    assert [(m.event, m.json()["change"]) for m in got] == [
        ("scene_updated", "changed"),
        ("scene_updated", "shown"),
    ]
    seen = (await player.get(url)).json()
    assert [t["label"] for t in seen["tokens"]] == [canary]
    assert name in (await player.get(scenes)).text
    # The preparation stays the GM's: the replay has the showing, not the private steps.
    marker = await _marker(gm, cid)
    replayed = await _replay(player, cid, marker)
    mine = [m for m in replayed if m.json().get("scene_id") == scene_id]
    assert [m.json()["change"] for m in mine] == ["changed", "shown"]
    # Hidden again: players hear that it is hidden, then nothing more of it.
    r = await gm.patch(url, json={"shown": False})
    assert r.status_code == 200, r.text
    assert (await player.get(url)).status_code == 404
    r = await gm.post(f"{url}/tokens", json={"x": 1, "y": 1, "label": canary + "2"})
    assert r.status_code == 201, r.text
    marker = await _marker(gm, cid)
    replayed = await _replay(player, cid, marker)
    mine = [m for m in replayed if m.json().get("scene_id") == scene_id]
    assert [m.json()["change"] for m in mine] == ["hidden"]
