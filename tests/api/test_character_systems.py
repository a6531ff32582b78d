"""What only some systems show on the sheet comes from their partials
(``CharacterCore.partials``): H&H's Rucksack buttons, PF2e's SG/RK roll fields."""

from __future__ import annotations

import pytest
from fastapi import FastAPI

from app.rules.dice import ScriptedRoller
from tests.api.test_characters import create, make_table
from tests.conftest import ClientFactory


@pytest.mark.parametrize("system", ["hh", "ds4", "pf2e"])
async def test_rucksack_buttons_only_on_an_hh_sheet(
    make_client: ClientFactory, app: FastAPI, system: str
) -> None:
    t = await make_table(make_client, app, system)
    c = await create(t)
    starters = (await t["player"].get(f"{t.api}/starter-items")).json()
    url = f"{t.api}/characters/{c['id']}/items"
    r = await t["player"].post(url, json={"starter": starters[0]["key"]})
    assert r.status_code == 201, r.text
    item = r.json()
    sheet = (await t["player"].get(f"/campaigns/{t.campaign_id}/characters/{c['id']}")).text
    stow = f'action="/campaigns/{t.campaign_id}/characters/{c["id"]}/items/{item["id"]}/stow"'
    assert (stow in sheet) == (system == "hh")
    if system == "hh":
        # A new H&H item is in the Rucksack: the button takes it out (container "").
        assert item["container"] == "rucksack"
        assert f"{stow} hx-post" in sheet
        assert '<input type="hidden" name="container" value="">' in sheet
        assert '<input type="hidden" name="container" value="rucksack">' not in sheet
    # The viewer who may not edit sees no item actions at all.
    other = (await t["player2"].get(f"/campaigns/{t.campaign_id}/characters/{c['id']}")).text
    assert stow not in other


@pytest.mark.parametrize("system", ["hh", "ds4", "pf2e"])
async def test_sg_and_attack_fields_only_in_a_pf2e_roll_dialog(
    make_client: ClientFactory, app: FastAPI, system: str
) -> None:
    t = await make_table(make_client, app, system)
    c = await create(t)
    base = f"/campaigns/{t.campaign_id}/characters/{c['id']}/roll"
    dialog = (await t["player"].get(base, params={"target": "perception", "dc": "15"})).text
    assert ('id="roll-dc"' in dialog) == (system == "pf2e")
    assert ('name="fortune"' in dialog) == (system == "pf2e")
    assert ('id="roll-luck"' in dialog) == (system == "hh")
    assert ('id="roll-difficulty"' in dialog) == (system in ("hh", "ds4"))
    if system == "pf2e":
        assert 'value="15"' in dialog
        assert 'id="roll-attack-number"' not in dialog
        items = f"{t.api}/characters/{c['id']}/items"
        dagger = (await t["player"].post(items, json={"starter": "pf2e:dolch"})).json()["id"]
        r = await t["player"].post(f"{items}/{dagger}/equip", json={"slot": "weapon"})
        assert r.status_code == 200, r.text
        attack = (await t["player"].get(base, params={"target": f"attack:{dagger}"})).text
        assert 'id="roll-attack-number"' in attack


async def test_pf2e_roll_dialog_states_the_fortune_rules_and_keeps_secret_rolls_secret(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Seed 002: one Glück and one Unglück at most, both cancel; a Verdeckter Wurf shows
    its roller only that it happened (the dialog as the dice log)."""
    t = await make_table(make_client, app, "pf2e")
    c = await create(t)
    base = f"/campaigns/{t.campaign_id}/characters/{c['id']}/roll"
    dialog = (await t["player"].get(base, params={"target": "perception", "dc": "15"})).text
    assert 'id="roll-fortune-rules"' in dialog and "heben sich auf" in dialog
    app.state.ctx.roller = ScriptedRoller([17, 4])
    form = {"target": "perception", "dc": "15", "fortune": "on", "visibility": "gm"}
    answer = (await t["player"].post(base, data=form)).text
    assert "Verdeckter Wurf: Nur die SL sieht das Ergebnis." in answer
    assert "gegen SG 15" not in answer
    app.state.ctx.roller = ScriptedRoller([17, 4])
    gm_answer = (await t["gm"].post(base, data=form)).text
    assert "gegen SG 15" in gm_answer  # the GM rolling sees everything
