"""The combat page of a fight on a linked scene (issue 28): the board first, the actions in
a sheet (a plain <details> without scripts), and an attack out of reach refused with the
server's message at the target field, the target kept — by HTMX and without it."""

from __future__ import annotations

import re

from fastapi import FastAPI

from tests.api.test_board_attacks import _scene, _turn_of
from tests.api.test_maps_tactics import _add, _encounter, _entry, _pids
from tests.conftest import ClientFactory
from tests.encounters.helpers import make_fight, script

HTMX = {"HX-Request": "true"}


async def test_the_board_page_and_a_refusal_at_the_target(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await make_fight(make_client, app, "hh", players=1, prefix="bp")
    player = fight.players[0]
    api = f"/api/v1/campaigns/{fight.campaign_id}"
    r = await player.post(f"{api}/characters", json={"name": "Alrik"})
    assert r.status_code == 201, r.text
    await _encounter(fight)
    await _add(fight, character_id=r.json()["id"])
    await _add(fight, entry_id=await _entry(fight, "Goblin"), count=2)
    script(app)
    await fight.act(fight.gm, "start")
    await _turn_of(fight, "Alrik")
    page = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}"
    # Theatre of the mind: the page as before, no board and no sheet.
    html = (await player.get(page)).text
    assert "on-board" not in html and 'id="action-sheet"' not in html
    assert 'class="columns"' in html

    where = {"Alrik": (0, 1), "Goblin 1": (1, 1), "Goblin 2": (9, 1)}
    await _scene(fight, 10, 3, where)
    html = (await player.get(page)).text
    assert 'class="encounter on-board"' in html
    # The board before the actions sheet, the sheet before the roster and the log.
    places = [html.index(s) for s in ('id="map-board"', 'id="action-sheet"', 'id="roster"',
                                      'id="combat-log"')]  # fmt: skip
    assert places == sorted(places), places
    sheet = re.search(r'<details class="action-sheet" id="action-sheet"[^>]*>', html)
    assert sheet and " open" not in sheet.group(0)  # closed until a tap or a refusal
    assert 'id="attack-target"' in html

    pids = await _pids(fight)
    version = re.search(r'name="version" value="(\d+)"', html)
    assert version
    form = {"attacker": str(pids["Alrik"]), "target": str(pids["Goblin 2"]), "modifier": "0",
            "version": version.group(1)}  # fmt: skip
    message = "Das Ziel ist 9 Schritt entfernt, außer Reichweite"
    # HTMX: the controls come back with the message at the target field, the target kept.
    r = await player.post(f"{page}/attack", data=form, headers=HTMX)
    assert r.status_code == 422, r.text
    field = re.search(r'<select id="attack-target"[^>]*>', r.text)
    assert field and 'aria-describedby="target-error"' in field.group(0)
    assert 'aria-invalid="true"' in field.group(0)
    error = re.search(r'<p class="error" id="target-error" role="alert">([^<]*)</p>', r.text)
    assert error and message in error.group(1), r.text
    assert r.text.index('id="attack-target"') < r.text.index('id="target-error"')
    assert f'<option value="{pids["Goblin 2"]}" selected>' in r.text
    # Without JavaScript: the whole page, the sheet open at the message.
    r = await player.post(f"{page}/attack", data=form)
    assert r.status_code == 422, r.text
    sheet = re.search(r'<details class="action-sheet" id="action-sheet"[^>]*>', r.text)
    assert sheet and " open" in sheet.group(0)
    assert 'id="target-error"' in r.text and message in r.text
