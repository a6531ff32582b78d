"""Forms that keep work: a refused form comes back as typed with the message at its field —
the password, a new item on the sheet, participants of an encounter — never a dead end."""

from __future__ import annotations

import re

from fastapi import FastAPI

from tests.api.helpers import make_table
from tests.conftest import PASSWORD, ClientFactory
from tests.encounters.test_hh import hh_fight


def _value(html: str, dom_id: str) -> str:
    found = re.search(rf'<input id="{re.escape(dom_id)}"[^>]*value="([^"]*)"', html)
    assert found, dom_id
    return found.group(1)


async def test_the_password_is_kept_on_an_error(make_client: ClientFactory) -> None:
    client = make_client()
    r = await client.post("/register", data={"username": "x", "password": PASSWORD})
    assert r.status_code == 422
    assert f'value="{PASSWORD}"' in r.text and 'id="username-error"' in r.text
    # A refused password is not shown again.
    r = await client.post("/register", data={"username": "x", "password": "kurz"})
    assert r.status_code == 422 and "kurz" not in r.text
    r = await client.post("/login", data={"username": "niemand", "password": "falsch-falsch"})
    assert r.status_code == 401
    assert 'value="falsch-falsch"' in r.text


async def test_a_refused_new_item_keeps_its_panel_open(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "hh")
    api = f"/api/v1/campaigns/{t.campaign_id}"
    alrik = (await t.player.post(f"{api}/characters", json={"name": "Alrik"})).json()
    sheet = f"/campaigns/{t.campaign_id}/characters/{alrik['id']}"
    form = {"name": "Seil", "description": "zehn Schritt", "quantity": "zwei", "price": "3"}
    for headers in ({}, {"HX-Request": "true"}):
        r = await t.player.post(f"{sheet}/items", data=form, headers=headers)
        assert r.status_code == 422, r.text
        assert '<details class="new-item" open>' in r.text
        assert _value(r.text, "item-name") == "Seil" and _value(r.text, "item-quantity") == "zwei"
        assert "zehn Schritt</textarea>" in r.text
        assert re.search(r'id="item-quantity-error" role="alert">[^<]+', r.text)
        assert 'aria-describedby="item-quantity-error"' in r.text
    # A good one closes it again.
    r = await t.player.post(f"{sheet}/items", data={**form, "quantity": "2"})
    assert r.status_code == 303
    assert '<details class="new-item" open>' not in (await t.player.get(sheet)).text


async def test_bad_counts_and_a_duplicate_participant_answer_at_the_field(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "hh")
    cid = t.campaign_id
    api = f"/api/v1/campaigns/{cid}"
    alrik = (await t.player.post(f"{api}/characters", json={"name": "Alrik"})).json()
    goblin = (await t.gm.post(f"{api}/bestiary/samples")).json()[0]
    encounter = (await t.gm.post(f"{api}/encounters", json={"name": "Pass"})).json()
    url = f"/campaigns/{cid}/encounters/{encounter['id']}"
    for count in ("viele", "0", "99"):
        form = {"entry_id": str(goblin["id"]), "count": count, "side": "neutral", "hidden": "1"}
        r = await t.gm.post(f"{url}/participants", data=form)
        assert r.status_code == 422, (count, r.text)
        assert "Etwas ist schiefgegangen" not in r.text
        assert _value(r.text, "add-count") == count
        assert re.search(r'id="add-count-error" role="alert">[^<]+', r.text), count
        assert '<option value="neutral" selected>' in r.text
    ok = {"character_id": str(alrik["id"])}
    assert (await t.gm.post(f"{url}/participants", data=ok)).status_code == 303
    r = await t.gm.post(f"{url}/participants", data=ok)
    assert r.status_code == 422
    assert re.search(r'id="add-char-error" role="alert">[^<]*nimmt schon teil', r.text)


async def test_an_error_page_leads_back_to_the_form(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, _pids = await hh_fight(make_client, app)
    url = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}"
    r = await fight.gm.post(f"{url}/start", data={}, headers={"Referer": f"http://testserver{url}"})
    assert r.status_code == 409
    assert f'<a href="{url}">' in r.text
    # Never to another site.
    r = await fight.gm.post(f"{url}/start", data={}, headers={"Referer": "http://evil.example/x"})
    assert r.status_code == 409 and "evil.example" not in r.text
