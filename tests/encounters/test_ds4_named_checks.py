"""Issue 31, item 15: the GM's secret check in a DS4 fight knows every check of the rules and
the sheet — Attribut + Eigenschaft («GEI + VE», by abbreviation or name, in any order) and
the Kampfwerte — lists them, and a refused name stays in the form with the reason."""

from __future__ import annotations

import re

from fastapi import FastAPI

from tests.conftest import ClientFactory
from tests.encounters.helpers import Fight, make_fight, script

HTMX = {"HX-Request": "true"}


async def ds4_fight(make_client: ClientFactory, app: FastAPI) -> tuple[Fight, dict[str, str]]:
    """Rurik (a new sheet: GEI 6, VE 1) against a goblin from the samples, started."""
    fight = await make_fight(make_client, app, "ds4")
    gm, player = fight.gm, fight.players[0]
    api = f"/api/v1/campaigns/{fight.campaign_id}"
    r = await player.post(f"{api}/characters", json={"name": "Rurik"})
    assert r.status_code == 201, r.text
    character_id = r.json()["id"]
    r = await gm.post(f"{api}/encounters", json={"name": "Hohlweg"})
    fight.encounter_id = r.json()["id"]
    r = await gm.post(f"{fight.base}/participants", json={"character_id": character_id})
    assert r.status_code == 201, r.text
    samples = (await gm.post(f"{api}/bestiary/samples")).json()
    goblin = next(e for e in samples if e["name"] == "Goblin")
    await gm.post(f"{fight.base}/participants", json={"entry_id": goblin["id"], "count": 1})
    script(app, 10, 11, 12, 13)
    view = await fight.act(gm, "start")
    return fight, {p["name"].split()[0]: str(p["pid"]) for p in view["participants"]}


async def test_the_gm_rolls_gei_ve_and_every_kampfwert_secretly(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await ds4_fight(make_client, app)
    gm, player = fight.gm, fight.players[0]
    for typed in ("GEI + VE", "Geist + Verstand", "ve+gei"):
        script(app, 5)
        await fight.act(gm, "check", participant=pids["Rurik"], skill=typed, secret="1")
    for typed in ("Abwehr", "Schlagen", "Initiative", "Zaubern", "KÖR + HÄ", "AGI+GE"):
        script(app, 5)
        await fight.act(gm, "check", participant=pids["Rurik"], skill=typed, secret="1")
    log = (await gm.get(f"{fight.base}/log")).text
    assert log.count("GEI + VE") >= 3 and "PW 7" in log  # GEI 6 + VE 1
    assert "KÖR + HÄ" in log and "AGI + GE" in log and "Zaubern" in log
    assert "GEI + VE" not in (await player.get(f"{fight.base}/log")).text  # secret


async def test_an_unknown_check_is_refused_with_the_known_ones_and_stays_typed(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await ds4_fight(make_client, app)
    gm = fight.gm
    await fight.act(gm, "check", 422, participant=pids["Rurik"], skill="Kochen", secret="1")
    # The goblin's stat block holds no GEI: refused with the reason, not rolled as 0.
    r = await gm.post(
        f"{fight.base}/actions/check",
        json={"participant": pids["Goblin"], "skill": "GEI + VE", "secret": "1"},
    )
    assert r.status_code == 422 and "GEI" in r.text
    page = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}"
    html = (await gm.get(page)).text
    names = re.findall(r'<datalist id="check-names">(.*?)</datalist>', html, re.S)
    assert names and 'value="GEI + VE"' in names[0] and 'value="Abwehr"' in names[0]
    version = re.search(r'name="version" value="(\d+)"', html)
    assert version
    form = {"participant": pids["Rurik"], "skill": "GEI + Kochen", "modifier": "0",
            "secret": "1", "version": version.group(1)}  # fmt: skip
    r = await gm.post(f"{page}/check", data=form, headers=HTMX)
    assert r.status_code == 422
    assert 'value="GEI + Kochen"' in r.text and "Unbekannte Probe" in r.text
