"""H&H Flächenzauber and Arkane Explosion on a fight's linked scene (issue 27): a spell
marked ``flaeche`` is cast on an area, each figure in it defends with Unbeugsamkeit (its own
prompt) and half cover is ignored while a wall keeps a figure out; a magic Patzer's «Arkane
Explosion» places a circle around the caster and hits everyone in it, the caster included.
A hidden figure is hit but never named to players."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from typing import Any

from fastapi import FastAPI

from app.encounters.models import Encounter
from app.rules import grid as g
from app.rules.hh.cover import wall_cover
from tests.api.test_areas import hp, log_lines, player_of, received
from tests.api.test_board_attacks import _scene, _turn_of
from tests.api.test_maps import ALRIK
from tests.api.test_maps_tactics import _add, _encounter, _entry, _pids
from tests.conftest import ClientFactory
from tests.encounters.helpers import Fight, add_character, make_fight, script

FEUERBALL = {
    "key": "feuerball", "name": "Feuerball", "grade": "B", "focus": 0, "range": 25,
    "schaden_w": 6, "schaden_bonus": 1, "flaeche": True,
}  # fmt: skip
FUNKE = {"key": "funke", "name": "Funke", "grade": "C", "range": 10, "schaden_w": 6}
MAGIER = {**ALRIK, "magiekunde": 12, "zauber": [FEUERBALL, FUNKE]}
#: Half cover for Goblin 1 on (6, 2) against Alrik on (1, 3); a wall down x = 9 keeps
#: Goblin 2 on (9, 3) out of a circle around (7, 3).
WALLS = [[5, 3, 6, 3], [9, 0, 9, 8]]
WHERE = {"Alrik": (1, 3), "Goblin 1": (6, 2), "Goblin 2": (9, 3), "Goblin 3": (6, 4)}


async def mage_fight(make_client: ClientFactory, app: FastAPI, prefix: str) -> Fight:
    """Alrik the mage (the player's, first in the order), two goblins and a hidden third."""
    fight = await make_fight(make_client, app, "hh", players=1, prefix=prefix)
    await add_character(app, fight, "p0", "Alrik", MAGIER, "hh")
    await _encounter(fight)
    goblin = await _entry(fight, "Goblin")
    await _add(fight, character_id=fight.characters["Alrik"])
    await _add(fight, entry_id=goblin, count=2)
    await _add(fight, entry_id=goblin, hidden=True)
    script(app)
    view = await fight.act(fight.gm, "start")
    assert view["turn"]["name"] == "Alrik"
    return fight


async def test_a_flaechenzauber_each_defends_with_unbeugsamkeit_cover_ignored_walls_protect(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await mage_fight(make_client, app, "hzs")
    pids = await _pids(fight)
    hidden = str(pids["Goblin 3"])
    url = await _scene(fight, 12, 8, WHERE)
    await fight.gm.put(f"{url}/walls", json={"segments": WALLS})
    # The wall gives Goblin 1 half cover against a direct attack of Alrik's.
    edges = frozenset(e for s in WALLS for e in g.segment_edges(tuple(s), 12, 8))  # type: ignore[arg-type]
    board = g.Grid(12, 8, edges)
    assert wall_cover(*g.cover_lines(board, (1, 3), (6, 2))) == "half"
    assert (9, 3) not in g.area_cells(board, "circle", (7, 3), Fraction(2))
    player = fight.players[0]
    body: dict[str, Any] = {"shape": "circle", "origin": [7, 3], "size": 2}
    # Not a Flächenzauber, an unknown spell, no spell: refused at the field.
    for source, field in (
        ({"kind": "spell", "spell": "funke"}, "spell"),
        ({"kind": "spell", "spell": "blitz"}, "spell"),
        ({"kind": "spell"}, "spell"),
    ):
        r = await player.post(f"{fight.base}/actions/area", json={**body, "source": source})
        assert r.status_code == 422 and field in r.json()["errors"], (source, r.text)
    # Wirkprobe 3 + 4 = 7 ≤ 12 (QS 2); each defence 2 + 3 = 5 ≤ 6, lower: the caster wins
    # with QS 1; damage W6 + 1 − RS 1.
    script(app, 3, 4, *[2, 3] * 20)
    answer = await fight.act(player, "area", **body, source={"kind": "spell", "spell": "feuerball"})
    seen = answer["area"]
    assert [t["name"] for t in seen["targets"]] == ["Goblin 1"], seen
    gm_area = (await fight.view(fight.gm))["area"]
    assert [t["name"] for t in gm_area["targets"]] == ["Goblin 1", "Goblin 3"], gm_area
    assert [9, 3] not in gm_area["cells"]
    before = hp((await fight.view(fight.gm))["participants"])
    prompted: list[str] = []
    for _ in range(6):
        pending = (await fight.view(fight.gm))["pending"]
        if pending is None:
            break
        prompted.append(pending["target"])
        assert pending["kind"] == "defence"
        shown = (await fight.view(player))["pending"]
        assert (shown is not None) is (pending["target"] != "Goblin 3"), shown
        page = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}"
        prompt = (await fight.gm.get(page)).text
        assert f"{pending['target']} ist in der Fläche von Feuerball (Alrik)." in prompt
        # The goblins are the GM's: the player cannot answer for them.
        r = await player.post(f"{fight.base}/actions/respond", json={"choice": "defend"})
        assert r.status_code in (403, 422), r.text
        await fight.act(fight.gm, "respond", choice="defend")
    assert prompted == ["Goblin 1", "Goblin 3"]
    after = await fight.view(fight.gm)
    assert after["area"]["resolved"] is True
    lines = await log_lines(fight, fight.gm)
    cast = next(line for line in lines if line.startswith("Alrik wirkt den Flächenzauber"))
    assert "Wirkprobe (Feuerball, Güteklasse B, 6 Schritt)" in cast, cast
    for name in ("Goblin 1", "Goblin 3"):
        outcome = [line for line in lines if line.startswith(f"Feuerball von Alrik trifft {name}")]
        assert len(outcome) == 1, (name, lines)
        defence = r"Verteidigung \(Unbeugsamkeit\): 2W10: \d \+ \d = 5 ≤ 6 → Erfolg"
        assert re.search(defence, outcome[0]), outcome
        assert "Deckung" not in outcome[0]
        damage = int(re.findall(r": (\d+) Schaden", outcome[0])[0])
        assert before[name] - hp(after["participants"])[name] == damage > 0
    assert not any("Goblin 2" in line for line in lines if "Feuerball" in line), lines
    assert hp(after["participants"])["Goblin 2"] == before["Goblin 2"]
    # The cast was Alrik's Handlung.
    again = {**body, "source": {"kind": "spell", "spell": "feuerball"}}
    r = await player.post(f"{fight.base}/actions/area", json=again)
    assert r.status_code == 422, r.text
    # The player never reads the hidden goblin's name, nor its id in the area events.
    player_lines = await log_lines(fight, player)
    assert not any("Goblin 3" in line for line in player_lines), player_lines
    assert any(line.startswith("Feuerball von Alrik trifft Goblin 1") for line in player_lines)
    events = await received(app, fight, player_of(fight))
    areas = [e for e in events if e["type"] in ("area_placed", "area_resolved")]
    assert [e["type"] for e in areas] == ["area_placed", "area_resolved"]
    assert all(int(hidden) not in [t["participant_id"] for t in e["targets"]] for e in areas)
    assert "Goblin 3" not in json.dumps(events, ensure_ascii=False)


async def test_arkane_explosion_places_a_circle_around_the_caster(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await mage_fight(make_client, app, "hzx")
    pids = await _pids(fight)
    hidden = str(pids["Goblin 3"])
    # Radius (Fokus 0 + 1) × 5 = 5 Schritt around Alrik: Goblin 1 and the hidden Goblin 3
    # are in it, Goblin 2 (7 Schritt away) is not.
    where = {"Alrik": (1, 3), "Goblin 1": (4, 3), "Goblin 2": (8, 3), "Goblin 3": (1, 7)}
    await _scene(fight, 12, 9, where)
    player = fight.players[0]
    before = hp((await fight.view(fight.gm))["participants"])
    # Wirkprobe 10 + 10: Patzer; Kontrollverlust 1 + 1 = 2 → Arkane Explosion; 1W10: 8.
    script(app, 10, 10, 1, 1, 8, *[5] * 10)
    answer = await fight.act(player, "cast", spell="funke", target=str(pids["Goblin 1"]))
    area = answer["area"]
    assert area is not None and area["resolved"] is True and area["shape"] == "circle"
    assert [t["name"] for t in area["targets"]] == ["Alrik", "Goblin 1"], area
    gm_area = (await fight.view(fight.gm))["area"]
    assert [t["name"] for t in gm_area["targets"]] == ["Alrik", "Goblin 1", "Goblin 3"]
    after = hp((await fight.view(fight.gm))["participants"])
    # brechend: RS 1 halved to 0, so 8 each.
    assert {n: before[n] - after[n] for n in before} == {
        "Alrik": 8, "Goblin 1": 8, "Goblin 2": 0, "Goblin 3": 8
    }  # fmt: skip
    lines = await log_lines(fight, fight.gm)
    assert any("Arkane Explosion" in line and "auf der Karte" in line for line in lines), lines
    for name in ("Alrik", "Goblin 1", "Goblin 3"):
        assert (
            sum(line.startswith(f"Arkane Explosion erfasst {name}: 8 Schaden") for line in lines)
            == 1
        )
    player_lines = await log_lines(fight, player)
    assert not any("Goblin 3" in line for line in player_lines), player_lines
    assert any(line.startswith("Arkane Explosion erfasst Goblin 1") for line in player_lines)
    events = await received(app, fight, player_of(fight))
    areas = [e for e in events if e["type"] in ("area_placed", "area_resolved")]
    assert [e["type"] for e in areas] == ["area_placed", "area_resolved"]
    assert all(int(hidden) not in [t["participant_id"] for t in e["targets"]] for e in areas)
    assert "Goblin 3" not in json.dumps(events, ensure_ascii=False)


async def test_arkane_explosion_in_theatre_of_the_mind_is_the_gms(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await mage_fight(make_client, app, "hzt")
    pids = await _pids(fight)
    before = hp((await fight.view(fight.gm))["participants"])
    script(app, 10, 10, 1, 1, 8, *[5] * 10)
    answer = await fight.act(fight.players[0], "cast", spell="funke", target=str(pids["Goblin 1"]))
    assert answer["area"] is None
    after = hp((await fight.view(fight.gm))["participants"])
    assert {n: before[n] - after[n] for n in before if before[n] != after[n]} == {"Alrik": 8}
    lines = await log_lines(fight, fight.gm)
    assert any("brechender Schaden für alle dort (SL)" in line for line in lines), lines


async def test_other_systems_refuse_area_spells_at_source(
    make_client: ClientFactory, app: FastAPI
) -> None:
    for system, prefix in (("ds4", "hzd"), ("pf2e", "hzp")):
        fight = await make_fight(make_client, app, system, players=0, prefix=prefix)
        await _encounter(fight)
        entry = await _entry(fight, "Wolf" if system == "pf2e" else "Goblin")
        await _add(fight, entry_id=entry, count=2)
        script(app, *range(20, 0, -1))
        await fight.act(fight.gm, "start")
        first, second = list(await _pids(fight))
        await _scene(fight, 6, 6, {first: (1, 1), second: (4, 4)})
        body = {"shape": "circle", "origin": [2, 2], "size": 2, "source": {"kind": "spell"}}
        r = await fight.gm.post(f"{fight.base}/actions/area", json=body)
        assert r.status_code == 422, r.text
        assert "es bietet" in r.json()["errors"]["source"], r.text


async def test_the_area_form_offers_the_casters_flaechenzauber_and_shows_errors_at_the_field(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await mage_fight(make_client, app, "hzf")
    await _scene(fight, 12, 8, WHERE)
    player = fight.players[0]
    page = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}"
    html = (await player.get(page)).text
    assert '<option value="spell">Flächenzauber</option>' in html, html
    spell_select = html[html.index('id="area-spell"') :].split("</select>")[0]
    assert 'value="feuerball"' in spell_select and 'value="funke"' not in spell_select
    version = str((await fight.view(fight.gm))["version"])
    form = {"version": version, "source": "spell", "spell": "funke", "shape": "circle",
            "origin": "7,3", "size": "2"}  # fmt: skip
    script(app, 3, 4)
    r = await player.post(f"{page}/area", data=form, headers={"HX-Request": "true"})
    assert r.status_code == 422, r.text
    assert 'id="spell-error"' in r.text and "Funke ist kein Flächenzauber." in r.text, r.text
    r = await player.post(f"{page}/area", data={**form, "spell": "feuerball", "origin": "30,3"},
                          headers={"HX-Request": "true"})  # fmt: skip
    assert r.status_code == 422 and 'id="origin-error"' in r.text, r.text
    # The GM's page, on a goblin's turn (no spells): no Flächenzauber to offer.
    await _turn_of(fight, "Goblin 1")
    gm_html = (await fight.gm.get(page)).text
    assert 'id="area-spell"' not in gm_html and '<option value="spell">' not in gm_html


async def figure_wp(app: FastAPI, fight: Fight, pid: str) -> int:
    """A figure's WP in the fight (a stat-block sheet keeps them there)."""
    async with app.state.ctx.sessionmaker() as session:
        encounter = await session.get(Encounter, fight.encounter_id)
        assert encounter is not None
        return int(encounter.state["figures"][pid]["wp"])


async def turn_of(fight: Fight, name: str, *, then: bool = False) -> None:
    """On to ``name``'s next turn (Alrik acts eight times a round)."""
    if then:
        await fight.act(fight.gm, "next")
    for _ in range(30):
        if (await fight.view(fight.gm))["turn"]["name"] == name:
            return
        await fight.act(fight.gm, "next")
    raise AssertionError(name)


async def test_a_gefaehrtes_flaechenangriff_costs_its_summoner_one_wp(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await mage_fight(make_client, app, "hzw")
    player = fight.players[0]
    api = f"/api/v1/campaigns/{fight.campaign_id}/characters"
    hero = fight.characters["Alrik"]
    r = await player.post(f"{api}/{hero}/companions", json={"name": "Irrlicht"})
    assert r.status_code == 201, r.text
    companion = r.json()["id"]
    await _add(fight, character_id=companion)
    pids = await _pids(fight)
    where = {**WHERE, "Irrlicht": (5, 5)}
    await _scene(fight, 12, 8, where)
    wp = await figure_wp(app, fight, str(pids["Alrik"]))
    await turn_of(fight, "Irrlicht")
    body: dict[str, Any] = {
        "shape": "circle",
        "origin": [6, 3],
        "size": 1,
        "source": {"kind": "attack"},
    }
    script(app, 3, 4, *[2, 3] * 20)
    await fight.act(player, "area", **body)
    for _ in range(6):
        if (await fight.view(fight.gm))["pending"] is None:
            break
        await fight.act(fight.gm, "respond", choice="none")
    assert await figure_wp(app, fight, str(pids["Alrik"])) == wp - 1
    lines = await log_lines(fight, fight.gm)
    assert any("1 WP von Alrik (Beschwörer)" in line for line in lines), lines
    # Without its hero in the fight the talent cannot be paid: refused at the source.
    await fight.gm.delete(f"{fight.base}/participants/{pids['Alrik']}")
    await turn_of(fight, "Irrlicht", then=True)
    r = await player.post(f"{fight.base}/actions/area", json=body)
    assert r.status_code == 422 and "Beschwörer" in r.json()["errors"]["source"], r.text


async def test_a_flaechenzauber_patzer_reaches_nobody_and_explodes_around_the_caster(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await mage_fight(make_client, app, "hzq")
    where = {"Alrik": (1, 3), "Goblin 1": (3, 3), "Goblin 2": (10, 3), "Goblin 3": (11, 7)}
    await _scene(fight, 12, 8, where)
    before = hp((await fight.view(fight.gm))["participants"])
    # Wirkprobe 10 + 10: Patzer; Kontrollverlust 1 + 1 → Arkane Explosion, 1W10: 6.
    script(app, 10, 10, 1, 1, 6, *[5] * 10)
    body: dict[str, Any] = {"shape": "circle", "origin": [10, 3], "size": 1}
    answer = await fight.act(
        fight.players[0], "area", **body, source={"kind": "spell", "spell": "feuerball"}
    )
    assert [t["name"] for t in answer["area"]["targets"]] == ["Alrik", "Goblin 1"]
    after = hp((await fight.view(fight.gm))["participants"])
    assert {n: before[n] - after[n] for n in before} == {
        "Alrik": 6, "Goblin 1": 6, "Goblin 2": 0, "Goblin 3": 0
    }  # fmt: skip
    lines = await log_lines(fight, fight.gm)
    assert "Feuerball von Alrik erreicht Goblin 2 nicht." in lines, lines
    events = await received(app, fight, player_of(fight))
    areas = [(e["type"], e["area_id"]) for e in events if e["type"].startswith("area_")]
    spell, burst = areas[0][1], areas[-1][1]
    assert areas == [
        ("area_placed", spell), ("area_resolved", spell),
        ("area_placed", burst), ("area_resolved", burst),
    ] and burst != spell  # fmt: skip
