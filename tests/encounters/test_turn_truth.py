"""Issue 28: the controls tell the truth. Once the step's Handlung (H&H) or the turn's
Aktion (DS4) is used, the attack and the system's other actions are disabled with the
reason the server refuses them with, for the player and the GM alike; «Zug beenden» stays."""

from __future__ import annotations

import re

import httpx
from fastapi import FastAPI

from tests.conftest import ClientFactory
from tests.encounters.helpers import Fight, add_character, make_fight, script
from tests.encounters.test_hh import hh_fight

DS4_ALRIK = {"lk": 20, "koerper": 8, "abwehr": 8, "initiative": 8, "schlagen": 12, "ga": 0}


async def _controls(client: httpx.AsyncClient, fight: Fight) -> str:
    r = await client.get(f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}")
    assert r.status_code == 200, r.text
    return r.text


def _disabled(html: str, button: str) -> bool:
    """Whether the submit button whose tag contains ``button`` is disabled with the reason."""
    tag = re.search(r"<button[^>]*" + re.escape(button) + r"[^>]*>", html)
    assert tag, button
    return 'disabled aria-describedby="budget-reason"' in tag.group(0)


def _reason(html: str) -> str:
    found = re.search(r'<p class="meta" id="budget-reason">([^<]*)</p>', html)
    return found.group(1) if found else ""


async def test_hh_a_used_handlung_disables_the_actions_with_the_reason(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await hh_fight(make_client, app)
    gm, alrik = fight.gm, fight.players[0]
    html = await _controls(alrik, fight)
    assert not _disabled(html, 'id="attack-button"') and not _reason(html)
    script(app, 3, 4)  # a hit: the GM answers for the goblin, no defence
    await fight.act(alrik, "attack", target=pids["Goblin 1"])
    script(app, 4, 5)
    view = await fight.act(gm, "respond", choice="none")
    assert not view.get("pending"), view["pending"]
    reason = "Alrik hat die Handlung dieses Initiativeschritts schon genutzt."
    for client in (alrik, gm):
        html = await _controls(client, fight)
        assert _reason(html) == reason
        for button in ('id="attack-button"', 'id="aim-button"', 'id="maneuver-button"'):
            assert _disabled(html, button), button
        assert 'id="next-turn">' in html and not _disabled(html, 'id="next-turn"')
    r = await alrik.post(f"{fight.base}/actions/aim", json={})
    assert r.status_code == 422 and reason in r.text, r.text
    await fight.act(alrik, "next")
    html = await _controls(gm, fight)  # the next step's figure has its Handlung
    assert not _disabled(html, 'id="attack-button"') and not _reason(html)


async def test_ds4_a_used_aktion_disables_the_attack_and_picking_up_with_the_reason(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await make_fight(make_client, app, "ds4")
    gm, player = fight.gm, fight.players[0]
    await add_character(app, fight, "p0", "Alrik", DS4_ALRIK, "ds4")
    r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/bestiary/samples")
    ork = next(e for e in r.json() if e["name"] == "Ork")
    r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/encounters", json={"name": "Wald"})
    fight.encounter_id = r.json()["id"]
    await gm.post(f"{fight.base}/participants", json={"character_id": fight.characters["Alrik"]})
    await gm.post(f"{fight.base}/participants", json={"entry_id": ork["id"], "count": 1})
    script(app)
    view = await fight.act(gm, "start")
    ork_pid = fight.pid(view, "Ork 1")
    assert view["turn"]["name"] == "Alrik", view["turn"]
    assert not _disabled(await _controls(player, fight), 'id="attack-button"')
    script(app, 20)  # a Patzer: the Aktion is used and the weapon dropped
    await fight.act(player, "attack", target=ork_pid)
    reason = "Alrik hat die Aktion dieser Runde schon genutzt."
    for client in (player, gm):
        html = await _controls(client, fight)
        assert _reason(html) == reason
        assert _disabled(html, 'id="attack-button"')
        assert _disabled(html, 'data-condition="Waffe fallen gelassen"')
        assert not _disabled(html, 'id="next-turn"')
    r = await player.post(
        f"{fight.base}/actions/shake_off", json={"condition": "Waffe fallen gelassen"}
    )
    assert r.status_code == 422 and reason in r.text, r.text
