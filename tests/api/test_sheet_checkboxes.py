"""The sheet form's checkboxes: a post that leaves a checkbox out changes nothing (issue 20, L8).

Browsers do not post an unticked checkbox, so the form carries an empty hidden field of the
same name before each one; only a post that carries the name changes the value.
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

from fastapi import FastAPI

from tests.api.test_characters import create, make_table
from tests.conftest import ClientFactory


async def test_a_form_post_without_the_checkbox_keeps_a_hidden_nsc_hidden(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    npc = await create(t, "gm", name="Der Verräter", kind="npc", hidden_from_players=True)
    url = f"/campaigns/{t.campaign_id}/characters/{npc['id']}"
    r = await t["gm"].post(url, data={"version": str(npc["version"]), "name": "Der Spion"})
    assert r.status_code == 303, r.text
    sheet = (await t["gm"].get(f"{t.api}/characters/{npc['id']}")).json()
    assert sheet["name"] == "Der Spion" and sheet["hidden_from_players"] is True
    assert (await t["player"].get(f"{t.api}/characters/{npc['id']}")).status_code == 404


async def test_the_sheet_form_posts_an_empty_companion_before_each_checkbox(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    npc = await create(t, "gm", name="Der Verräter", kind="npc", hidden_from_players=True)
    url = f"/campaigns/{t.campaign_id}/characters/{npc['id']}"
    html = (await t["gm"].get(url)).text
    form = html.split('id="sheet-form"')[1].split("</form>")[0]
    for name in ("hidden_from_players", "wears_rucksack"):
        companion = form.index(f'<input type="hidden" name="{name}" value="">')
        checkbox = re.search(f'<input type="checkbox" id="[^"]+" name="{name}"', form)
        assert checkbox is not None and companion < checkbox.start()


async def test_companion_and_ticked_box_mean_yes_companion_alone_means_no(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    npc = await create(t, "gm", name="Der Verräter", kind="npc", hidden_from_players=True)
    pc = await create(t)
    api = f"{t.api}/characters"
    # The ticked box comes after its companion: still hidden.
    r = await t["gm"].post(
        f"/campaigns/{t.campaign_id}/characters/{npc['id']}",
        content=urlencode(
            [("name", "Der Verräter"), ("hidden_from_players", ""), ("hidden_from_players", "on")]
        ),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert r.status_code == 303, r.text
    assert (await t["gm"].get(f"{api}/{npc['id']}")).json()["hidden_from_players"] is True
    # Only the companion (box unticked): revealed.
    r = await t["gm"].post(
        f"/campaigns/{t.campaign_id}/characters/{npc['id']}",
        data={"name": "Der Verräter", "hidden_from_players": ""},
    )
    assert r.status_code == 303, r.text
    assert (await t["gm"].get(f"{api}/{npc['id']}")).json()["hidden_from_players"] is False
    # The same rule for a sheet's own checkbox: absent keeps it, the companion alone clears it.
    sheet_url = f"/campaigns/{t.campaign_id}/characters/{pc['id']}"
    assert pc["data"]["wears_rucksack"] is True
    r = await t["player"].post(sheet_url, data={"name": "Alrik", "be": "2"})
    assert r.status_code == 303, r.text
    assert (await t["player"].get(f"{api}/{pc['id']}")).json()["data"]["wears_rucksack"] is True
    r = await t["player"].post(sheet_url, data={"name": "Alrik", "wears_rucksack": ""})
    assert r.status_code == 303, r.text
    assert (await t["player"].get(f"{api}/{pc['id']}")).json()["data"]["wears_rucksack"] is False
