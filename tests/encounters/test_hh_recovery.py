"""H&H in play: a fumble jams the attacker's weapon (attack Patzer table «Waffe blockiert»),
the figure attacks no more until its Handlung and a Probe free it; the combat page offers
that and the conditions the figure can shake off itself (hh.md §6.5, §8)."""

from __future__ import annotations

import re
from typing import Any

import httpx
from fastapi import FastAPI

from tests.api.test_maps import hh_scene
from tests.conftest import ClientFactory
from tests.encounters.helpers import Fight, script
from tests.encounters.test_hh import hh_fight


async def _page(fight: Fight, client: httpx.AsyncClient) -> str:
    r = await client.get(f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}")
    assert r.status_code == 200, r.text
    return r.text


def _row(view: dict[str, Any], name: str) -> dict[str, Any]:
    return next(p for p in view["participants"] if p["name"] == name)


async def test_a_jammed_weapon_attacks_no_more_until_a_handlung_frees_it(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await hh_fight(make_client, app)
    gm, alrik = fight.gm, fight.players[0]
    assert 'id="free-weapon-button"' not in await _page(fight, alrik)

    # 10 + 10 is a Patzer; the fumble table 4 + 4 − 0 = 8 (7–9): «Waffe blockiert».
    script(app, 10, 10, 4, 4)
    view = await fight.act(alrik, "attack", target=pids["Goblin 1"])
    assert "Waffe blockiert" in _row(view, "Alrik")["extra"]
    await fight.act(gm, "grant_action", participant=pids["Alrik"])
    refused = await fight.act(alrik, "attack", 422, target=pids["Goblin 1"])
    assert "Die Waffe von Alrik ist blockiert" in str(refused)
    page = await _page(fight, alrik)
    assert 'id="free-weapon-button"' in page and "Waffe befreien" in page

    # Unbeugsamkeit 10 (melee): 9 + 9 fails, the weapon stays jammed; 2 + 3 frees it.
    script(app, 9, 9)
    view = await fight.act(alrik, "free_weapon")
    assert "Waffe blockiert" in _row(view, "Alrik")["extra"]
    await fight.act(alrik, "free_weapon", 422)  # the Handlung is spent
    await fight.act(gm, "grant_action", participant=pids["Alrik"])
    script(app, 2, 3)
    view = await fight.act(alrik, "free_weapon")
    assert "Waffe blockiert" not in _row(view, "Alrik")["extra"]
    log = (await gm.get(f"{fight.base}/log")).text
    assert "versucht, die blockierte Waffe zu befreien" in log and "Waffe befreit" in log
    await fight.act(alrik, "free_weapon", 422)  # nothing jammed any more
    await fight.act(gm, "grant_action", participant=pids["Alrik"])
    script(app, 3, 4)
    view = await fight.act(alrik, "attack", target=pids["Goblin 1"])
    assert view["pending"]["target"] == "Goblin 1"


async def test_the_page_offers_the_conditions_the_figure_can_shake_off(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await hh_fight(make_client, app)
    gm, alrik, brida = fight.gm, fight.players[0], fight.players[1]
    for key in ("angeschlagen", "eingeschränkt"):
        await fight.act(gm, "condition", participant=pids["Alrik"], condition=key)
    page = await _page(fight, alrik)
    form = re.search(r'<form[^>]*class="row shake-off-form".*?</form>', page, re.S)
    assert form, "no shake-off form for the acting figure"
    assert re.findall(r'<option value="([^"]+)"', form.group(0)) == [
        "angeschlagen",
        "eingeschränkt",
    ]
    assert "shake-off-form" not in await _page(fight, brida)  # not Brida's turn

    # Unbeugsamkeit 10 − 2 («angeschlagen» itself): 2 + 3 shakes it off.
    script(app, 2, 3)
    view = await fight.act(alrik, "shake_off", condition="angeschlagen")
    assert _row(view, "Alrik")["conditions"] == ["eingeschränkt"]
    page = await _page(fight, alrik)
    button = re.search(r'<button[^>]*id="shake-off-button"[^>]*>', page)
    assert button and "disabled" in button.group(0)  # the Handlung is spent


async def test_a_figure_with_a_jammed_weapon_makes_no_blockadeangriff(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, url, ids = await hh_scene(make_client, app)
    gm = fight.gm
    alrik = ids["Alrik"]
    for _step in range(6):  # on to the goblin's step
        if str((await fight.act(gm, "next"))["turn"]["pid"]) == str(ids["pid:Goblin"]):
            break
    await gm.post(f"{url}/tokens/{alrik}/move", json={"to": [2, 2], "override": True})
    script(app, 10, 10, 4, 4)  # its attack fumbles: «Waffe blockiert»
    view = await fight.act(gm, "attack", target=str(ids["pid:Alrik"]))
    assert "Waffe blockiert" in _row(view, "Goblin 1")["extra"]
    await gm.post(f"{url}/tokens/{alrik}/move", json={"to": [1, 2], "override": True})
    path = [[1, 2], [2, 2], [3, 2], [4, 2], [5, 2]]
    r = await gm.post(f"{url}/tokens/{alrik}/move", json={"to": [5, 2], "path": path})
    assert r.status_code == 200, r.text
    assert r.json()["reactions"] == [] and r.json()["stopped_at"] is None
