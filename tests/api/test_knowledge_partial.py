"""Issue 31, item 5: knowledge counts fact by fact. With the RK revealed a PF2e player sees
the hit chance (the TP alone stay unknown), and a creature met in two running fights is one
entry of the check's «Über» list."""

from __future__ import annotations

import re

from fastapi import FastAPI

from tests.api.helpers import make_table
from tests.api.test_knowledge import base, hero, running_fight
from tests.conftest import ClientFactory
from tests.encounters.helpers import add_character, make_fight, script

HTMX = {"HX-Request": "true"}
VALEROS = {"wahrnehmung": 6, "rk": 18, "tp": 20, "reflex": 5, "wille": 3, "zaehigkeit": 7,
           "angriffe": [{"name": "Langschwert", "bonus": 9, "schaden": "1W8+4"}]}  # fmt: skip


async def test_a_revealed_rk_gives_the_hit_chance_and_only_the_tp_stay_unknown(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await make_fight(make_client, app, "pf2e", prefix="rk")
    await add_character(app, fight, "p0", "Valeros", VALEROS, "pf2e")
    gm, player = fight.gm, fight.players[0]
    api = f"/api/v1/campaigns/{fight.campaign_id}"
    goblin = next(e for e in (await gm.post(f"{api}/bestiary/samples")).json()
                  if e["name"] == "Goblin-Krieger")  # fmt: skip
    r = await gm.post(f"{api}/encounters", json={"name": "Wald"})
    fight.encounter_id = enc = r.json()["id"]
    await gm.post(f"{fight.base}/participants", json={"character_id": fight.characters["Valeros"]})
    await gm.post(f"{fight.base}/participants", json={"entry_id": goblin["id"]})
    script(app, 10, 10, 10, 10)
    view = await fight.act(gm, "start")
    pids = {p["name"]: str(p["pid"]) for p in view["participants"]}
    wolf = goblin["id"]
    wolf_pid = next(pid for name, pid in pids.items() if name.startswith("Goblin"))
    url = f"{api}/encounters/{enc}/forecast"
    body = {"actor_id": pids["Valeros"], "target_id": wolf_pid}
    r = await player.post(url, json=body)
    assert r.status_code == 200, r.text
    before = r.json()
    assert before["p_attack"] is None and set(before["unknown"]) == {"RK", "TP"}
    await gm.post(f"{api}/bestiary/{wolf}/reveal", json={"facts": ["name", "rk"]})
    mine = (await player.post(url, json=body)).json()
    full = (await gm.post(url, json=body)).json()
    assert mine["unknown"] == ["TP"]
    assert mine["p_attack"] is not None and mine["p_attack"] == full["p_hit"]
    assert mine["p_hit"] is None and mine["damage"] is None  # what the damage does: TP
    # The attack form's odds box says the same.
    page = f"/campaigns/{fight.campaign_id}/encounters/{enc}"
    html = (await player.get(page)).text
    version = re.search(r'name="version" value="(\d+)"', html)
    assert version
    form = {"attacker": pids["Valeros"], "target": wolf_pid, "version": version.group(1)}
    fragment = (await player.post(f"{page}/forecast", data=form, headers=HTMX)).text
    assert 'data-odds="attack"' in fragment and "Dir unbekannt: TP." in fragment


async def test_a_creature_in_two_running_fights_is_listed_once(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "pf2e")
    r = await t.gm.post(f"{base(t)}/bestiary/samples")
    goblin = next(e for e in r.json() if e["name"] == "Goblin-Krieger")
    await hero(t, t.player, "Valeros")
    first = await running_fight(t, goblin["id"])
    r = await t.gm.post(f"{base(t)}/encounters/{first}/duplicate")
    assert r.status_code in (200, 201), r.text
    second = r.json()["id"]
    await t.gm.post(f"{base(t)}/encounters/{second}/actions/start", json={})
    html = (await t.player.get(f"/campaigns/{t.campaign_id}/knowledge")).text
    about = re.search(r'<select id="check-entry" name="entry_id">(.*?)</select>', html, re.S)
    assert about
    option = re.search(r">([^<]*Goblin-Krieger[^<]*)</option>", about.group(1))
    assert option
    names = [n.strip() for n in option.group(1).split(",")]
    assert len(names) == len(set(names)) == 2, names  # «Goblin-Krieger 1, Goblin-Krieger 2»


async def test_a_secret_knowledge_check_leaves_its_roller_a_trace(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "pf2e")
    r = await t.gm.post(f"{base(t)}/bestiary/samples")
    wolf = next(e["id"] for e in r.json() if e["name"] == "Wolf")
    await running_fight(t, wolf)
    valeros = await hero(t, t.player, "Valeros")
    script(app, 5)  # a failure: nothing revealed, and the roll is a Verdeckter Wurf
    page = f"/campaigns/{t.campaign_id}/knowledge"
    form = {"check": f"{valeros}:skill:Naturkunde", "entry_id": str(wolf), "modifier": "0"}
    r = await t.player.post(f"{page}/check", data=form)
    assert r.status_code == 303, r.text
    html = (await t.player.get(r.headers["location"])).text
    trace = re.search(r'<p class="notice" role="status" id="check-trace">(.*?)</p>', html)
    assert trace and "verdeckt gewürfelt: Die SL antwortet" in trace.group(1)
    assert "Wolf" in trace.group(1)
