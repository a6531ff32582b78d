"""The GM's forms for one participant: fetched when the GM opens a roster row, not sent with
every row of every roster render and push."""

from __future__ import annotations

from fastapi import FastAPI

from tests.conftest import ClientFactory, register
from tests.encounters.test_hh import hh_fight

HTMX = {"HX-Request": "true"}


async def test_roster_rows_link_the_forms_and_the_forms_work(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await hh_fight(make_client, app)
    gm = fight.gm
    page_url = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}"
    manage = f"{page_url}/participants/{pids['Goblin 1']}/manage"

    page = (await gm.get(page_url)).text
    assert f'hx-get="{manage}"' in page and f'href="{manage}"' in page
    assert f'id="delta-{pids["Goblin 1"]}"' not in page  # the forms are not in the page

    fragment = await gm.get(manage, headers=HTMX)
    assert fragment.status_code == 200
    assert "<html" not in fragment.text
    assert f'id="delta-{pids["Goblin 1"]}"' in fragment.text
    assert f'hx-post="{page_url}/adjust"' in fragment.text
    assert "Moralwurf" in fragment.text and "angeschlagen" in fragment.text  # H&H conditions

    # Without JavaScript: a page of its own, plain forms that post and return to the fight.
    standalone = await gm.get(manage)
    assert standalone.status_code == 200 and "<html" in standalone.text
    assert "hx-post" not in standalone.text.split("<main", 1)[1]
    r = await gm.post(
        f"{page_url}/adjust",
        data={"participant": pids["Goblin 1"], "delta": "-2", "reason": "Falle"},
    )
    assert r.status_code == 303 and r.headers["location"] == page_url
    view = await fight.view(gm)
    goblin = next(p for p in view["participants"] if p["name"] == "Goblin 1")
    assert goblin["points"] == "10/12 LP"


async def test_only_the_gm_gets_the_forms(make_client: ClientFactory, app: FastAPI) -> None:
    fight, pids = await hh_fight(make_client, app)
    base = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}/participants"
    manage = f"{base}/{pids['Goblin 1']}/manage"
    assert (await fight.players[0].get(manage, headers=HTMX)).status_code == 403
    assert (await make_client().get(manage)).status_code in (303, 401)  # not logged in
    outsider = make_client()
    await register(outsider, "fremder")
    assert (await outsider.get(manage)).status_code == 404
    assert (await fight.gm.get(f"{base}/999999/manage")).status_code == 404
    # The hidden goblin's forms exist for the GM only.
    hidden = f"{base}/{pids['Goblin 2']}/manage"
    assert (await fight.gm.get(hidden, headers=HTMX)).status_code == 200
    assert (await fight.players[1].get(hidden, headers=HTMX)).status_code == 403
