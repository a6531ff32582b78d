"""Issue 31, item 6: when every hero is down the GM is told so and offered the end of the
fight, instead of clicking through empty rounds; the players see no such offer."""

from __future__ import annotations

from fastapi import FastAPI

from tests.conftest import ClientFactory
from tests.encounters.test_ds4_named_checks import HTMX, ds4_fight


async def test_the_gm_is_offered_the_end_when_every_hero_is_down(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await ds4_fight(make_client, app)
    gm, player = fight.gm, fight.players[0]
    page = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}"
    assert 'id="heroes-down"' not in (await gm.get(page)).text
    version = (await fight.view(gm))["version"]
    form = {"participant": pids["Rurik"], "delta": "-40", "reason": "Steinschlag",
            "version": str(version)}  # fmt: skip
    r = await gm.post(f"{page}/adjust", data=form, headers=HTMX)
    assert r.status_code == 200, r.text
    assert 'id="heroes-down"' in r.text and "Alle Helden sind ausgeschaltet." in r.text
    html = (await gm.get(page)).text
    assert 'id="heroes-down"' in html and f'action="{page}/end"' in html
    assert 'id="heroes-down"' not in (await player.get(page)).text
    # The offer ends the fight (after the confirmation the page asks for without JavaScript).
    r = await gm.post(f"{page}/end", data={"version": str(version + 1), "confirm": "1"})
    assert r.status_code == 303, r.text
    assert (await fight.view(gm))["status"] == "ended"
