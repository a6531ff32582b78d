"""Areas on the map (issue 27): an area placed on a fight's linked scene hits the figures in
its cells, each system resolves it, and a hidden figure in it is never named to players."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from app.core.viewer import Role, Viewer
from app.events.models import CampaignEvent
from app.events.stream import projected
from app.maps.present import scenes_now
from tests.api.test_board_attacks import _scene, _turn_of, _written
from tests.api.test_maps_tactics import _add, _encounter, _entry, _pids, hh_fight
from tests.conftest import ClientFactory
from tests.encounters.helpers import Fight, make_fight, script


async def received(app: FastAPI, fight: Fight, viewer: Viewer) -> list[dict[str, Any]]:
    """Every event ``viewer`` receives of the campaign (as the stream sends them)."""
    async with app.state.ctx.sessionmaker() as session:
        rows = (
            await session.scalars(
                select(CampaignEvent)
                .where(CampaignEvent.campaign_id == fight.campaign_id)
                .order_by(CampaignEvent.seq)
            )
        ).all()
    shown = await projected(app.state.ctx, fight.campaign_id, viewer, rows, scenes_now)
    return [e.data() for e in shown]


def player_of(fight: Fight) -> Viewer:
    return Viewer(fight.ids["p0"], "p0", Role.player)


async def log_lines(fight: Fight, client: httpx.AsyncClient) -> list[str]:
    """Every log line ``client`` reads, oldest first, with its details."""
    entries = (await client.get(f"{fight.base}/log")).json()
    return [
        " | ".join([line["text"], *line["details"]])
        for entry in reversed(entries)
        for line in entry["lines"]
    ]


async def test_hh_area_each_target_defends_with_unbeugsamkeit_hidden_never_named(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await hh_fight(make_client, app, "ar")
    script(app)
    await fight.act(fight.gm, "start")
    pids = await _pids(fight)
    hidden = pids["Goblin 3"]
    # Goblin 2 stands behind a wall along its lower edge (half cover against Goblin 1):
    # an area ignores it. Goblin 1, who attacks, stands outside the circle.
    where = {"Goblin 1": (4, 4), "Alrik": (9, 1), "Goblin 2": (7, 3), "Goblin 3": (10, 2)}
    url = await _scene(fight, 12, 6, where)
    await fight.gm.put(f"{url}/walls", json={"segments": [[7, 4, 8, 4]]})
    await _turn_of(fight, "Goblin 1")
    player = fight.players[0]
    body: dict[str, Any] = {
        "shape": "circle", "origin": [8, 2], "size": 2.5, "source": {"kind": "attack"}
    }  # fmt: skip
    # Not the player's turn: refused like every other action of another figure.
    r = await player.post(f"{fight.base}/actions/area", json=body)
    assert r.status_code == 403, r.text
    # Attack Probe 3 + 4 ≤ 10, then every defence 2 + 3 and damage dice of 2.
    script(app, 3, 4, *[2, 3] * 30)
    answer = await fight.act(fight.gm, "area", **body)
    assert answer["area"]["targets"] == [
        {"participant_id": pids[n], "name": n} for n in ("Alrik", "Goblin 2", "Goblin 3")
    ]
    assert [8, 2] in answer["area"]["cells"] and [4, 4] not in answer["area"]["cells"]
    seen = (await fight.view(player))["area"]
    assert [t["name"] for t in seen["targets"]] == ["Alrik", "Goblin 2"]
    assert seen["resolved"] is False
    # While it resolves, everyone's board shows its cells (not who is in them).
    scene_page = url.replace("/api/v1", "")
    board = (await player.get(scene_page)).text
    assert board.count('class="map-area"') == len(answer["area"]["cells"]), board
    # Each target's prompt in turn: Alrik's on his player's device, the goblins' the GM's.
    prompted: list[str] = []
    for _ in range(10):
        pending = (await fight.view(fight.gm))["pending"]
        if pending is None:
            break
        prompted.append(pending["target"])
        mine = pending["target"] == "Alrik"
        shown = (await fight.view(player))["pending"]
        assert (shown is not None) is (pending["target"] != "Goblin 3"), shown
        choice = "defend" if pending["kind"] == "defence" else "accept"
        await fight.act(player if mine else fight.gm, "respond", choice=choice)
    assert [n for n in dict.fromkeys(prompted)] == ["Alrik", "Goblin 2", "Goblin 3"]
    assert (await fight.view(fight.gm))["area"]["resolved"] is True
    assert 'class="map-area"' not in (await player.get(scene_page)).text
    lines = await log_lines(fight, fight.gm)
    attack = next(i for i, line in enumerate(lines) if "Flächenangriff" in line)
    assert "Deckung" not in lines[attack], lines[attack]
    for name, value in (("Alrik", 10), ("Goblin 2", 6), ("Goblin 3", 6)):
        # Its outcome (a hit Alrik could still spend Glück on is written again, booked).
        outcome = [line for line in lines if line.startswith(f"Goblin 1 trifft {name}")]
        assert outcome, (name, lines)
        defence = rf"Verteidigung \(Unbeugsamkeit\): 2W10: \d \+ \d = 5 ≤ {value} "
        assert re.search(defence, outcome[-1]) and "Deckung" not in outcome[-1], outcome
    # The player's log and events never name the hidden goblin nor give its id.
    player_lines = await log_lines(fight, player)
    assert not any("Goblin 3" in line for line in player_lines), player_lines
    assert any(line.startswith("Goblin 1 trifft Alrik") for line in player_lines)
    events = await received(app, fight, player_of(fight))
    areas = [e for e in events if e["type"] in ("area_placed", "area_resolved")]
    assert [e["type"] for e in areas] == ["area_placed", "area_resolved"]
    for e in areas:
        assert hidden not in [t["participant_id"] for t in e["targets"]]
    assert "Goblin 3" not in json.dumps(events, ensure_ascii=False)
    gm_events = await received(app, fight, Viewer(fight.ids["gm"], "gm", Role.gm))
    placed = next(e for e in gm_events if e["type"] == "area_placed")
    assert hidden in [t["participant_id"] for t in placed["targets"]]


def hp(rows: list[dict[str, Any]]) -> dict[str, int]:
    """Each figure's current TP from the GM's roster («24/24 TP»)."""
    return {r["name"]: int(str(r["points"]).split("/")[0]) for r in rows}


async def test_pf2e_fireball_saves_and_damage_by_degree(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await make_fight(make_client, app, "pf2e", players=0, prefix="arp")
    await _encounter(fight)
    goblin = await _entry(fight, "Wolf")
    await _add(fight, entry_id=goblin, count=4)
    script(app, *range(20, 0, -1))
    await fight.act(fight.gm, "start")
    pids = await _pids(fight)
    where = {"Wolf 1": (0, 0), "Wolf 2": (5, 5), "Wolf 3": (6, 5), "Wolf 4": (5, 7)}
    await _scene(fight, 12, 12, where)
    before = hp((await fight.view(fight.gm))["participants"])
    # 6W6 (3 each: 18), then the saves: 20 (a natural 20), 12, 2 (three wolves, Reflex +9).
    script(app, 3, 3, 3, 3, 3, 3, 20, 12, 2)
    source = {"kind": "save", "save": "ref", "dc": 20, "damage": "6W6", "basic": True}
    answer = await fight.act(fight.gm, "area", shape="circle", origin=[5, 6], size=6, source=source)
    assert {t["name"] for t in answer["area"]["targets"]} == {"Wolf 2", "Wolf 3", "Wolf 4"}
    assert answer["area"]["resolved"] is True
    entry = (await fight.gm.get(f"{fight.base}/log")).json()[0]
    faces = [face for line in entry["lines"] for d in line["dice"] for face in d["faces"]]
    damage, saves = sum(faces[:6]), faces[6:]
    after = hp(answer["participants"])

    def expected(d20: int) -> int:
        total = d20 + 9
        degree = 3 if total >= 30 else 2 if total >= 20 else 0 if total <= 10 else 1
        degree = min(3, degree + 1) if d20 == 20 else max(0, degree - 1) if d20 == 1 else degree
        return int([damage * 2, damage, damage // 2, 0][degree])

    for name, d20 in zip(("Wolf 2", "Wolf 3", "Wolf 4"), saves, strict=True):
        assert before[name] - after[name] == min(before[name], expected(d20)), (name, d20)
    assert after["Wolf 1"] == before["Wolf 1"]
    names = [line["text"] for line in entry["lines"]]
    assert names[-3:] == [
        "Wolf 2: Reflex-Rettungswurf – Kritischer Erfolg.",
        "Wolf 3: Reflex-Rettungswurf – Erfolg.",
        "Wolf 4: Reflex-Rettungswurf – Fehlschlag.",
    ], names
    del pids


async def test_ds4_area_each_target_rolls_abwehr(make_client: ClientFactory, app: FastAPI) -> None:
    fight = await make_fight(make_client, app, "ds4", players=0, prefix="ard")
    await _encounter(fight)
    goblin = await _entry(fight, "Goblin")
    await _add(fight, entry_id=goblin, side="abenteurer")
    await _add(fight, entry_id=goblin, count=2)
    script(app, *range(20, 0, -1))
    await fight.act(fight.gm, "start")
    (first, _a), (second, _b), (third, _c) = sorted((await _pids(fight)).items())
    await _scene(fight, 10, 10, {first: (0, 0), second: (5, 5), third: (6, 5)})
    await _turn_of(fight, first)
    script(app, *[3, 2] * 10)
    answer = await fight.act(
        fight.gm, "area", shape="line", origin=[4, 5], toward=[9, 5], size=4,
        source={"kind": "attack", "attack_kind": "schlagen"},
    )  # fmt: skip
    assert {t["name"] for t in answer["area"]["targets"]} == {second, third}
    lines = await log_lines(fight, fight.gm)
    for name in (second, third):
        outcome = [line for line in lines if line.startswith(f"{first} trifft {name}")]
        assert len(outcome) == 1 and "Abwehr PW" in outcome[0], (name, lines)
    # The whole area was the turn's one Aktion.
    r = await fight.gm.post(f"{fight.base}/actions/attack", json={"target": second})
    assert r.status_code == 422, r.text


async def test_bad_areas_are_refused_at_their_field(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await make_fight(make_client, app, "pf2e", players=0, prefix="arb")
    await _encounter(fight)
    wolf = await _entry(fight, "Wolf")
    await _add(fight, entry_id=wolf, count=2)
    script(app, *range(20, 0, -1))
    await fight.act(fight.gm, "start")
    save = {"kind": "save", "save": "reflex", "dc": 20, "damage": "2W6"}
    ok = {"shape": "circle", "origin": [1, 1], "size": 3, "source": save}
    # Theatre of the mind: no board, no area.
    r = await fight.gm.post(f"{fight.base}/actions/area", json=ok)
    assert r.status_code == 422 and "combat" in r.json()["errors"], r.text
    await _scene(fight, 8, 8, {"Wolf 1": (1, 1), "Wolf 2": (6, 6)})
    before = await _written(fight)
    for body, field in (
        ({**ok, "shape": "square"}, "shape"),
        ({**ok, "origin": [8, 1]}, "origin"),
        ({**ok, "origin": "x"}, "origin"),
        ({**ok, "size": 0}, "size"),
        ({**ok, "size": "viel"}, "size"),
        ({**ok, "shape": "cone"}, "toward"),
        ({**ok, "shape": "line", "toward": [1, 1]}, "toward"),
        ({**ok, "shape": "line", "toward": [20, 1]}, "toward"),
        ({**ok, "source": {"kind": "magic"}}, "source"),
        ({**ok, "source": {"kind": "attack"}}, "source"),
        ({**ok, "source": {**save, "dc": "hoch"}}, "dc"),
        ({**ok, "source": {**save, "save": "luck"}}, "save"),
        ({**ok, "source": {**save, "damage": "viel"}}, "damage"),
    ):
        r = await fight.gm.post(f"{fight.base}/actions/area", json=body)
        assert r.status_code == 422, (body, r.text)
        assert field in r.json()["errors"], (body, r.text)
    assert await _written(fight) == before


async def test_a_free_gm_area_lists_its_figures_and_deals_its_damage(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await hh_fight(make_client, app, "arf")
    script(app)
    await fight.act(fight.gm, "start")
    where = {"Alrik": (1, 1), "Goblin 1": (2, 1), "Goblin 2": (6, 6), "Goblin 3": (1, 2)}
    await _scene(fight, 8, 8, where)
    body: dict[str, Any] = {"shape": "cone", "origin": [0, 1], "toward": [3, 1], "size": 3}
    # A player may not place a free area, not even on his own turn.
    await _turn_of(fight, "Alrik")
    r = await fight.players[0].post(
        f"{fight.base}/actions/area", json={**body, "source": {"kind": "free"}}
    )
    assert r.status_code == 403, r.text
    before = hp((await fight.view(fight.gm))["participants"])
    script(app, 4)
    source = {"kind": "free", "damage": "1W6"}
    answer = await fight.act(fight.gm, "area", **body, source=source)
    assert answer["area"]["resolved"] is True
    after = hp(answer["participants"])
    hit = {t["name"] for t in answer["area"]["targets"]}
    assert hit == {"Alrik", "Goblin 1", "Goblin 3"}, answer["area"]
    for name in ("Alrik", "Goblin 1", "Goblin 3"):
        assert before[name] - after[name] == 4, name
    assert after["Goblin 2"] == before["Goblin 2"]
    lines = await log_lines(fight, fight.players[0])
    assert "Alrik ist in der Fläche." in lines and "Goblin 1 ist in der Fläche." in lines
    assert not any("Goblin 3" in line for line in lines), lines
