"""What two evenings of play found on the pages (issue 31, item 14): each page says what is
so — who may still join a fight, whether a member must join again, which RS counts, a slot
that fits, who is acting, what a dying hero can do, and what the system calls its hit points."""

from __future__ import annotations

import re

from fastapi import FastAPI

from tests.api.helpers import make_table
from tests.conftest import ClientFactory, register
from tests.encounters.helpers import script
from tests.encounters.test_play_pf2e_ds4 import pf2e_fight


def _options(html: str, select_id: str) -> list[str]:
    """The option labels of a select, in order."""
    found = re.search(rf'<select id="{re.escape(select_id)}"[^>]*>(.*?)</select>', html, re.S)
    assert found, select_id
    return re.findall(r"<option[^>]*>([^<]*)</option>", found.group(1))


async def test_prep_offers_only_heroes_not_in_the_fight(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "hh")
    api = f"/api/v1/campaigns/{t.campaign_id}"
    for name in ("Alrik", "Brida"):
        assert (await t.player.post(f"{api}/characters", json={"name": name})).status_code == 201
    alrik = next(c for c in (await t.gm.get(f"{api}/characters")).json() if c["name"] == "Alrik")
    encounter = (await t.gm.post(f"{api}/encounters", json={"name": "Pass"})).json()
    page = f"/campaigns/{t.campaign_id}/encounters/{encounter['id']}"
    assert _options((await t.gm.get(page)).text, "add-char") == ["Alrik", "Brida"]
    r = await t.gm.post(f"{page}/participants", data={"character_id": str(alrik["id"])})
    assert r.status_code == 303
    assert _options((await t.gm.get(page)).text, "add-char") == ["Brida"]


async def test_a_members_invite_link_leads_to_the_campaign(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "hh")
    r = await t.player.get(f"/join/{t.invite_code}")
    assert r.status_code == 200
    assert 'id="already-member"' in r.text and "Spieler" in r.text
    assert f'href="/campaigns/{t.campaign_id}"' in r.text
    assert f'action="/join/{t.invite_code}"' not in r.text and "Beitreten" not in r.text
    # Someone new is still offered to join.
    newcomer = make_client()
    await register(newcomer, "neu")
    r = await newcomer.get(f"/join/{t.invite_code}")
    assert f'action="/join/{t.invite_code}"' in r.text and 'id="already-member"' not in r.text


async def test_the_hh_sheet_says_which_rs_counts(make_client: ClientFactory, app: FastAPI) -> None:
    t = await make_table(make_client, app, "hh")
    api = f"/api/v1/campaigns/{t.campaign_id}"
    alrik = (await t.player.post(f"{api}/characters", json={"name": "Alrik"})).json()
    items = f"{api}/characters/{alrik['id']}/items"
    armour = (await t.player.post(items, json={"starter": "hh:kettenhemd"})).json()
    r = await t.player.post(f"{items}/{armour['id']}/equip", json={"slot": "koerper"})
    assert r.status_code == 200, r.text
    html = (await t.player.get(f"/campaigns/{t.campaign_id}/characters/{alrik['id']}")).text
    field = re.search(r'<div class="field field-int" data-field="rs">(.*?)</div>', html, re.S)
    assert field, "no RS field"
    assert "RS ohne Rüstung" in field.group(1)
    assert "Es zählt die abgeleitete RS" in field.group(1)
    derived = re.search(r'data-key="rs">\s*<dt>RS</dt>\s*<dd><strong class="value">(\d+)', html)
    assert derived and derived.group(1) == "2"


async def test_the_slot_select_starts_with_a_slot_that_fits(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "hh")
    api = f"/api/v1/campaigns/{t.campaign_id}"
    alrik = (await t.player.post(f"{api}/characters", json={"name": "Alrik"})).json()
    items = f"{api}/characters/{alrik['id']}/items"
    ids = {}
    for starter in ("hh:kettenhemd", "hh:heiltrank", "hh:dolch"):
        r = await t.player.post(items, json={"starter": starter})
        assert r.status_code == 201, (starter, r.text)
        ids[starter] = r.json()["id"]
    html = (await t.player.get(f"/campaigns/{t.campaign_id}/characters/{alrik['id']}")).text
    first = {s: _options(html, f"slot-{i}")[0] for s, i in ids.items()}
    assert first == {"hh:kettenhemd": "Körper", "hh:heiltrank": "Gürteltasche",
                     "hh:dolch": "Waffenhand"}  # fmt: skip
    # DS4: armour starts on "armour"; what fits no slot (a potion) starts empty.
    r = await t.gm.post("/api/v1/campaigns", json={"name": "Runde", "system": "ds4"})
    api = f"/api/v1/campaigns/{r.json()['id']}"
    hero = (await t.gm.post(f"{api}/characters", json={"name": "Brida"})).json()
    items = f"{api}/characters/{hero['id']}/items"
    starters = (await t.gm.get(f"{api}/starter-items")).json()
    ids = {}
    for kind in ("armour", "weapon"):
        key = next(s["key"] for s in starters if s["fields"].get("kind") == kind)
        ids[kind] = (await t.gm.post(items, json={"starter": key})).json()["id"]
    potion = {"name": "Heiltrank", "fields": {"kind": "other"}}
    ids["potion"] = (await t.gm.post(items, json=potion)).json()["id"]
    html = (await t.gm.get(f"/campaigns/{r.json()['id']}/characters/{hero['id']}")).text
    first = {k: _options(html, f"slot-{i}")[0] for k, i in ids.items()}
    assert first == {"armour": "Rüstung", "potion": "—", "weapon": "Nahkampfwaffe"}


async def test_an_ended_fight_shows_nobody_acting(make_client: ClientFactory, app: FastAPI) -> None:
    fight, _valeros, _goblin = await pf2e_fight(make_client, app)
    page = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}"
    assert 'class="badge turn-badge"' in (await fight.gm.get(page)).text
    await fight.act(fight.gm, "end", version=(await fight.view(fight.gm))["version"])
    for client in (fight.gm, fight.players[0]):
        html = (await client.get(page)).text
        assert 'class="badge turn-badge"' not in html and "am Zug" not in html


async def test_a_dying_pf2e_heros_turn_offers_only_ending_it(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, valeros, _goblin = await pf2e_fight(make_client, app)
    gm, player = fight.gm, fight.players[0]
    page = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}"
    assert 'class="attack-form"' in (await player.get(page)).text
    await fight.act(player, "next")
    await fight.act(gm, "adjust", participant=valeros, delta=-20, reason="Fallgrube")
    script(app, 5)  # Genesungswurf SG 11 with a 5: Fehlschlag, Sterbend 2
    view = await fight.act(gm, "next")
    assert view["turn"]["name"] == "Valeros"
    html = (await player.get(page)).text
    assert 'class="attack-form"' not in html and 'id="spell-form"' not in html
    assert re.search(r'id="helpless">Valeros ist sterbend und kann nicht handeln', html)
    assert 'id="next-turn"' in html


async def test_the_fairplay_rule_names_the_systems_hit_points(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "hh")
    for system, points in (("hh", "LP"), ("ds4", "LK"), ("pf2e", "TP")):
        r = await t.gm.post("/api/v1/campaigns", json={"name": "Runde", "system": system})
        html = (await t.gm.get(f"/campaigns/{r.json()['id']}/sessions")).text
        label = re.search(r'<label for="fairplay-overrides">([^<]*)</label>', html)
        assert label and label.group(1) == f"Eingriffe der SL ({points} ändern, rückgängig machen)"
