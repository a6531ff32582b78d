"""Attacks on a fight linked to a scene use the board, decided on the server (issue 27):
reach, range, line of effect and cover come from the tokens and walls, not from the form."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from tests.api.test_maps import ALRIK, base, get, new_scene
from tests.api.test_maps_tactics import _add, _encounter, _entry, _pids
from tests.conftest import ClientFactory
from tests.encounters.helpers import Fight, add_character, make_fight, script
from tests.encounters.test_hh_magic import magic_fight


async def _scene(fight: Fight, cols: int, rows: int, where: dict[str, tuple[int, int]]) -> str:
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
    return url


async def _written(fight: Fight) -> tuple[int, int]:
    """The encounter's version and the length of its log: what an action writes."""
    view = await fight.view(fight.gm)
    log = (await fight.gm.get(f"{fight.base}/log")).json()
    return int(view["version"]), len(log)


async def _refused(fight: Fight, client: httpx.AsyncClient, app: FastAPI, **body: Any) -> str:
    """The attack is refused at ``target``, nothing rolled, nothing written."""
    before = await _written(fight)
    roller = script(app, 5, 5, 5, 5)
    r = await client.post(f"{fight.base}/actions/attack", json=body)
    assert r.status_code == 422, r.text
    assert roller.remaining == 4
    assert await _written(fight) == before
    return str(r.json()["errors"]["target"])


async def _turn_of(fight: Fight, name: str, *, then: bool = False) -> None:
    """On to ``name``'s next turn (``then``: not the current one)."""
    if then:
        await fight.act(fight.gm, "next")
    for _ in range(8):
        if (await fight.view(fight.gm))["turn"]["name"] == name:
            return
        await fight.act(fight.gm, "next")
    raise AssertionError(name)


async def _log_for(fight: Fight, client: httpx.AsyncClient) -> str:
    """The newest log entry as ``client`` reads it, its lines and details in one text."""
    entry = (await client.get(f"{fight.base}/log")).json()[0]
    return " | ".join(part for line in entry["lines"] for part in [line["text"], *line["details"]])


async def _all_logged(fight: Fight, client: httpx.AsyncClient) -> str:
    """Every log entry as ``client`` reads it, in one text."""
    entries = (await client.get(f"{fight.base}/log")).json()
    return " | ".join(
        part for e in entries for line in e["lines"] for part in [line["text"], *line["details"]]
    )


async def _hit(fight: Fight, app: FastAPI, client: httpx.AsyncClient, **body: Any) -> str:
    """An H&H attack that hits (2W10: 3 + 4) and is taken undefended; the attack's log
    entry as the player reads it."""
    script(app, 3, 4)
    await fight.act(client, "attack", **body)
    logged = await _log_for(fight, fight.players[0])
    script(app, *[1] * 8)
    await fight.act(fight.gm, "respond", choice="none")
    return logged


async def _move(fight: Fight, url: str, pid: int, to: tuple[int, int]) -> None:
    token = next(t for t in (await get(fight.gm, url))["tokens"] if t["participant_id"] == pid)
    r = await fight.gm.post(
        f"{url}/tokens/{token['id']}/move", json={"to": list(to), "override": True}
    )
    assert r.status_code == 200, r.text


async def test_hh_reach_cover_and_the_gm_override_come_from_the_board(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await make_fight(make_client, app, "hh", players=1, prefix="ba")
    archer = {**ALRIK, "fernkampf": 1, "waffe": "Kurzbogen"}
    await add_character(app, fight, "p0", "Alrik", archer, "hh")
    await _encounter(fight)
    goblin = await _entry(fight, "Goblin")
    await _add(fight, character_id=fight.characters["Alrik"])
    await _add(fight, entry_id=goblin, count=2)
    await _add(fight, entry_id=goblin, hidden=True)
    script(app)
    await fight.act(fight.gm, "start")
    await _turn_of(fight, "Alrik")
    gm, player = fight.gm, fight.players[0]
    page = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}"
    assert 'name="cover"' in (await player.get(page)).text  # theatre of the mind
    where = {"Alrik": (3, 3), "Goblin 1": (7, 3), "Goblin 2": (14, 3), "Goblin 3": (5, 3)}
    url = await _scene(fight, 16, 6, where)
    # On the linked scene the player's form has no cover fields; the GM's offers them as an
    # explicit override.
    shown = (await player.get(page)).text
    assert 'name="cover"' not in shown and 'name="covering"' not in shown
    assert "Entfernung und Deckung ergeben sich aus dem Plan." in shown
    shown = (await gm.get(page)).text
    assert 'name="cover"' in shown and 'name="override_geometry"' in shown
    pids = await _pids(fight)
    alrik, g1, g2 = pids["Alrik"], pids["Goblin 1"], pids["Goblin 2"]
    # A goblin's sword 11 Schritt from Alrik: refused, naming the distance and the reach.
    message = await _refused(fight, gm, app, attacker=g2, target=alrik)
    assert "11 Schritt" in message and "Kurzschwert (1 Schritt)" in message, message
    # Alrik shoots at Goblin 1 past the hidden Goblin 3: living cover −4 from the board,
    # whatever the player's form claims; the player's log does not name the hidden goblin,
    # the GM's line does. A posted cover source is dropped too.
    seen = await _hit(fight, app, player, target=g1, cover="none", covering="", cover_from="wall")
    assert "Kampfkunst (Angriff) 12 − Deckung 4 (lebend, ¾) = 8" in seen, seen
    assert "Goblin 3" not in seen
    assert "Goblin 3" not in await _all_logged(fight, player)
    assert "Goblin 3 steht in der Angriffslinie: lebende Deckung." in await _all_logged(fight, gm)
    # A miss the cover caused (10 > 8, ≤ 12) hits the hidden goblin (1W10: 1): it appears.
    await _turn_of(fight, "Alrik", then=True)
    script(app, 5, 5, 1, *[1] * 8)
    await fight.act(player, "attack", target=g1)
    seen = await _log_for(fight, player)
    assert "lebende Deckung Goblin 3" in seen, seen
    assert "Goblin 3" in [p["name"] for p in (await fight.view(player))["participants"]]
    # A wall between them: no line of effect, for the player and for the GM.
    await gm.put(f"{url}/walls", json={"segments": [[6, 0, 6, 6]]})
    for client in (player, gm):
        message = await _refused(fight, client, app, attacker=alrik, target=g1, cover="none")
        assert message == "Volle Deckung: keine Wirkungslinie zum Ziel.", message
    # A wall along the target's lower edge, Goblin 3 out of the way: the wall's half cover
    # (−2), not the cover the player's or the GM's form claims; a player cannot override.
    await _move(fight, url, pids["Goblin 3"], (0, 0))
    await _move(fight, url, alrik, (4, 4))
    await gm.put(f"{url}/walls", json={"segments": [[7, 4, 8, 4]]})
    for client, extra in ((player, {"override_geometry": True}), (gm, {})):
        await _turn_of(fight, "Alrik", then=True)
        logged = await _hit(fight, app, client, attacker=alrik, target=g1, cover="none", **extra)
        assert "12 − Deckung 2 (Wand, ½) = 10" in logged and "von Hand" not in logged, logged
    # The GM's override keeps the form's cover, and the log names it.
    await _turn_of(fight, "Alrik", then=True)
    body = {"attacker": alrik, "target": g1, "cover": "none", "override_geometry": True}
    logged = await _hit(fight, app, gm, **body)
    assert "Die SL legt die Geometrie von Hand fest: cover none." in logged, logged
    assert "3 + 4 = 7 ≤ 12" in logged and "Deckung" not in logged, logged


async def test_ds4_and_pf2e_reach_range_and_line_of_effect_come_from_the_board(
    make_client: ClientFactory, app: FastAPI
) -> None:
    for system, name, melee, ranged, refusal, board, form in (
        ("ds4", "Goblin", {"kind": "schlagen"}, {"kind": "schiessen"},
         "25 m entfernt, außer Reichweite von Schlagen (1 m)",
         "Auf dem Plan: Schießen / Zielzauber auf 25 m, Entfernung -2. | Goblin 1 trifft "
         "Goblin 2 nicht. | Schießen PW 4:", "PW 6:"),
        ("pf2e", "Goblin-Krieger", {"strike": 0}, {"strike": 1},
         "37,5 m entfernt, außer Reichweite von Hundeschlitzer (1,5 m)",
         "Auf dem Plan: Kurzbogen auf 37.5 m, Entfernung -4. | Goblin-Krieger 1 trifft "
         "Goblin-Krieger 2 nicht. | Kurzbogen: 1W20: 10 +2 = 12", "10 +6 = 16"),
    ):  # fmt: skip
        fight = await make_fight(make_client, app, system, players=0, prefix=f"b{system}")
        await _encounter(fight)
        entry = await _entry(fight, name)
        await _add(fight, entry_id=entry, side="abenteurer")
        await _add(fight, entry_id=entry)
        script(app, *range(20, 0, -1))
        await fight.act(fight.gm, "start")
        (first, a), (second, b) = sorted((await _pids(fight)).items())
        url = await _scene(fight, 27, 3, {first: (0, 1), second: (25, 1)})
        # Melee out of reach: refused, whatever distance the form claims.
        message = await _refused(fight, fight.gm, app, attacker=a, target=b, distance=1, **melee)
        assert refusal in message, (system, message)
        # A shot: the range modifier of the board's distance, not of the form's 0 m;
        # the GM's explicit override keeps the form's distance.
        for body, expected in (({}, board), ({"override_geometry": True}, form)):
            await _turn_of(fight, first, then=bool(body))
            script(app, 10, *[1] * 9)
            await fight.act(fight.gm, "attack", attacker=a, target=b, distance=0, **ranged, **body)
            logged = await _log_for(fight, fight.gm)
            assert expected in logged, (system, logged)
            assert ("Auf dem Plan" in logged) is not bool(body), (system, logged)
        # A wall across the scene: no line of effect, the shot is refused.
        await fight.gm.put(f"{url}/walls", json={"segments": [[10, 0, 10, 3]]})
        message = await _refused(fight, fight.gm, app, attacker=a, target=b, **ranged)
        assert message == "Volle Deckung: keine Wirkungslinie zum Ziel.", message


async def test_hh_spell_range_and_line_of_effect_come_from_the_board(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await magic_fight(make_client, app)
    alrik, goblin = int(pids["Alrik"]), int(pids["Goblin 1"])
    url = await _scene(fight, 24, 3, {"Alrik": (0, 1), "Goblin 1": (20, 1)})
    player = fight.players[0]
    # Funke at a goblin 20 Schritt away: out of the spell's range, whatever the form says.
    before = await _written(fight)
    r = await player.post(
        f"{fight.base}/actions/cast", json={"spell": "funke", "target": goblin, "distance": 1}
    )
    assert r.status_code == 422, r.text
    assert "Reichweite des Zaubers (10 Schritt)" in r.json()["errors"]["combat"]
    assert await _written(fight) == before
    # Next to it, behind a wall: no line of effect.
    await _move(fight, url, alrik, (19, 1))
    await fight.gm.put(f"{url}/walls", json={"segments": [[20, 0, 20, 3]]})
    r = await player.post(
        f"{fight.base}/actions/cast", json={"spell": "funke", "target": goblin, "distance": 1}
    )
    assert r.status_code == 422, r.text
    assert r.json()["errors"]["target"] == "Volle Deckung: keine Wirkungslinie zum Ziel."
    assert await _written(fight) == before
