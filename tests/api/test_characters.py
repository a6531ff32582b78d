"""Character sheets over the JSON API and the HTML routes: derived values against the
engines, stale writes, validation, hidden NSCs, inventory rules, rolls, import/export."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.campaigns.models import Invite
from app.core.viewer import Role, Viewer
from app.events.models import CampaignEvent
from app.events.service import project
from app.rules import ds4, pf2e
from app.rules.dice import ScriptedRoller
from app.rules.hh import inventory as hh_inventory
from app.rules.hh.initiative import initiative, reactions
from tests.conftest import ClientFactory, register


@dataclass
class Table:
    campaign_id: int
    clients: dict[str, httpx.AsyncClient]
    ids: dict[str, int]

    def __getitem__(self, role: str) -> httpx.AsyncClient:
        return self.clients[role]

    @property
    def api(self) -> str:
        return f"/api/v1/campaigns/{self.campaign_id}"


async def make_table(make_client: ClientFactory, app: FastAPI, system: str = "hh") -> Table:
    names = ("gm", "player", "player2", "observer", "outsider")
    clients = {n: make_client() for n in names}
    ids: dict[str, int] = {}
    for name in names:
        body = await register(clients[name], f"{name}_{system}")
        ids[name] = int(body["user"]["id"])  # type: ignore[index]
    r = await clients["gm"].post("/api/v1/campaigns", json={"name": "Runde", "system": system})
    assert r.status_code == 201, r.text
    campaign_id, code = r.json()["id"], r.json()["invite_code"]
    for name in ("player", "player2"):
        r = await clients[name].post("/api/v1/campaigns/join", json={"invite_code": code})
        assert r.status_code == 200, r.text
    r = await clients["gm"].post(
        f"/campaigns/{campaign_id}/invites", data={"role": "observer", "expires_days": ""}
    )
    assert r.status_code == 303, r.text
    async with app.state.ctx.sessionmaker() as session:
        observer_code = await session.scalar(
            select(Invite.code).where(Invite.campaign_id == campaign_id, Invite.role == "observer")
        )
    r = await clients["observer"].post(
        "/api/v1/campaigns/join", json={"invite_code": observer_code}
    )
    assert r.status_code == 200, r.text
    clients["anonymous"] = make_client()
    return Table(campaign_id, clients, ids)


async def create(t: Table, who: str = "player", **body: Any) -> dict[str, Any]:
    r = await t[who].post(f"{t.api}/characters", json={"name": "Alrik", **body})
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def derived(sheet: dict[str, Any], key: str) -> str:
    value: str = next(d["value"] for d in sheet["derived"] if d["key"] == key)
    return value


async def patch(
    t: Table, who: str, cid: int, changes: dict[str, Any], version: int | None = None
) -> httpx.Response:
    return await t[who].patch(
        f"{t.api}/characters/{cid}", json={"version": version, "changes": changes}
    )


# --- derived values per system ---------------------------------------------------------------


async def test_hh_derived_values_come_from_the_engine(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "hh")
    c = await create(t)
    r = await patch(t, "player", c["id"], {"skills.Spürsinn": 14}, c["version"])
    assert r.status_code == 200, r.text
    r = await patch(t, "player", c["id"], {"be": 3}, r.json()["version"])
    sheet = r.json()
    assert derived(sheet, "initiative") == str(initiative(14, 3)) == "11"
    assert derived(sheet, "reactions") == str(reactions(11)) == "2"
    assert derived(sheet, "rucksack") == f"0 / {hh_inventory.rucksack_capacity(5)}"
    r = await patch(t, "player", c["id"], {"be": 20}, sheet["version"])
    assert derived(r.json(), "initiative") == "1"  # minimum 1


async def test_ds4_kampfwerte_and_warnings(make_client: ClientFactory, app: FastAPI) -> None:
    t = await make_table(make_client, app, "ds4")
    c = await create(t)
    r = await t["player"].post(
        f"{t.api}/characters/{c['id']}/items", json={"starter": "ds4:langschwert"}
    )
    assert r.status_code == 201, r.text
    sword = r.json()["id"]
    r = await t["player"].post(
        f"{t.api}/characters/{c['id']}/items/{sword}/equip", json={"slot": "melee"}
    )
    assert r.status_code == 200, r.text
    r = await t["player"].post(
        f"{t.api}/characters/{c['id']}/items", json={"starter": "ds4:plattenpanzer"}
    )
    plate = r.json()["id"]
    r = await t["player"].post(
        f"{t.api}/characters/{c['id']}/items/{plate}/equip", json={"slot": "armour"}
    )
    assert r.status_code == 200, r.text
    sheet = (await t["player"].get(f"{t.api}/characters/{c['id']}")).json()
    engine = ds4.combat_values(
        ds4.Character(
            attributes=ds4.Attributes(8, 6, 6),
            traits=ds4.Traits(2, 2, 1, 1, 1, 1),
            volk=ds4.Volk.MENSCH,
            volk_bonus=ds4.Eigenschaft.STAERKE,
            klasse=ds4.Klasse.KRIEGER,
            klasse_bonus=ds4.Eigenschaft.STAERKE,
            equipment=ds4.Equipment(
                melee_weapon=ds4.weapon("langschwert"), armour=(ds4.armour("plattenpanzer"),)
            ),
        )
    )
    assert derived(sheet, "schlagen") == str(engine.schlagen.value) == "14"
    assert derived(sheet, "abwehr") == str(engine.abwehr.value)
    assert derived(sheet, "laufen") == "3 m"
    schlagen = next(d for d in sheet["derived"] if d["key"] == "schlagen")
    assert ["Langschwert", "2"] in schlagen["breakdown"]
    # A Zauberer in plate: Klassenfremde Rüstung is a warning, not a refusal.
    r = await patch(t, "player", c["id"], {"klasse": "zauberer"}, sheet["version"])
    assert r.status_code == 200, r.text
    warnings = [w for w in r.json()["warnings"] if w["severity"] == "warning"]
    assert any("Klassenfremde" in w["message"] for w in warnings)
    assert r.json()["data"]["klasse_bonus"] in ("verstand", "aura")
    # Creation limits: at 0 EP an Attribut is at most 8.
    r = await patch(t, "player", c["id"], {"attributes.koerper": 9}, r.json()["version"])
    assert r.status_code == 422
    assert "attributes.koerper" in r.json()["errors"]


async def test_pf2e_modifiers_and_dcs(make_client: ClientFactory, app: FastAPI) -> None:
    t = await make_table(make_client, app, "pf2e")
    c = await create(t)
    r = await patch(
        t,
        "player",
        c["id"],
        {"level": 3, "attributes.dexterity": 4, "ranks.reflex": "expert", "ranks.light": "trained"},
        c["version"],
    )
    assert r.status_code == 200, r.text
    r = await t["player"].post(
        f"{t.api}/characters/{c['id']}/items", json={"starter": "pf2e:lederruestung"}
    )
    armour = r.json()["id"]
    await t["player"].post(
        f"{t.api}/characters/{c['id']}/items/{armour}/equip", json={"slot": "armour"}
    )
    sheet = (await t["player"].get(f"{t.api}/characters/{c['id']}")).json()
    reflex = pf2e.saving_throw("reflex", level=3, rank="expert", attribute_modifier=4)
    assert derived(sheet, "save:reflex") == f"+{reflex.modifier}" == "+11"
    entry = next(d for d in sheet["derived"] if d["key"] == "save:reflex")
    assert entry["dc"] == f"Reflex-SG {reflex.dc}"
    ac = pf2e.armor_class(level=3, rank="trained", dexterity_modifier=4, dex_cap=4, armor_bonus=1)
    assert derived(sheet, "ac") == str(ac.dc) == "20"


# --- stale writes and validation ---------------------------------------------------------------


async def test_stale_write_gets_409_and_changes_nothing(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    c = await create(t)
    r = await patch(t, "gm", c["id"], {"be": 2}, c["version"])
    assert r.status_code == 200
    r = await patch(t, "player", c["id"], {"be": 5}, c["version"])
    assert r.status_code == 409
    sheet = (await t["player"].get(f"{t.api}/characters/{c['id']}")).json()
    assert sheet["data"]["be"] == 2
    # The HTML sheet answers a stale save with the fresh values and a notice.
    r = await t["player"].post(
        f"/campaigns/{t.campaign_id}/characters/{c['id']}",
        data={"version": str(c["version"]), "be": "7"},
        headers={"HX-Request": "true", "HX-Trigger-Name": "be"},
    )
    assert r.status_code == 409
    assert 'id="conflict-notice"' in r.text
    assert r.headers["HX-Retarget"] == "#sheet"


async def test_out_of_range_values_are_answered_at_the_field(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    c = await create(t)
    r = await patch(t, "player", c["id"], {"be": 99, "skills.Spürsinn": "viel"}, c["version"])
    assert r.status_code == 422
    assert set(r.json()["errors"]) == {"be", "skills.Spürsinn"}
    r = await patch(t, "player", c["id"], {"lp": 30}, c["version"])
    assert r.status_code == 422 and "lp" in r.json()["errors"]
    r = await t["player"].post(
        f"/campaigns/{t.campaign_id}/characters/{c['id']}",
        data={"version": str(c["version"]), "be": "-3"},
        headers={"HX-Request": "true", "HX-Trigger-Name": "be"},
    )
    assert r.status_code == 422
    assert 'aria-invalid="true"' in r.text and 'role="alert"' in r.text
    sheet = (await t["player"].get(f"{t.api}/characters/{c['id']}")).json()
    assert sheet["version"] == c["version"]


async def test_html_field_save_rerenders_derived_block(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    c = await create(t)
    r = await t["player"].post(
        f"/campaigns/{t.campaign_id}/characters/{c['id']}",
        data={
            "version": str(c["version"]),
            "skills.Spürsinn": "13",
            "be": "0",
            "_field": "skills.Spürsinn",
        },
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 200, r.text
    assert r.text.lstrip().startswith('<section id="derived"')
    assert 'hx-swap-oob="true"' in r.text
    # Without JavaScript: the whole form, then a redirect.
    r = await t["player"].post(
        f"/campaigns/{t.campaign_id}/characters/{c['id']}",
        data={"version": str(c["version"] + 1), "name": "Alrik", "be": "4", "wears_rucksack": "on"},
    )
    assert r.status_code == 303, r.text
    sheet = (await t["player"].get(f"{t.api}/characters/{c['id']}")).json()
    assert sheet["data"]["be"] == 4 and sheet["data"]["skills"]["Spürsinn"] == 13


# --- permissions --------------------------------------------------------------------------------

ROLES = ("anonymous", "outsider", "observer", "player2", "player", "gm")


def _routes(t: Table, cid: int, item: int) -> list[tuple[str, str, dict[str, Any] | None, str]]:
    """(method, url, json, kind): kind 'read' = every member, 'edit' = owner and GM."""
    base = f"{t.api}/characters/{cid}"
    html = f"/campaigns/{t.campaign_id}/characters/{cid}"
    return [
        ("GET", base, None, "read"),
        ("GET", f"{base}/export", None, "read"),
        ("GET", f"{base}/history", None, "read"),
        ("POST", f"{base}/odds", {"target": "skill:Kampfkunst"}, "edit"),
        ("GET", html, None, "read"),
        ("GET", f"{html}/history", None, "read"),
        ("GET", f"{html}/export", None, "read"),
        ("PATCH", base, {"changes": {"xp": 1}}, "edit"),
        ("POST", f"{base}/items", {"starter": "hh:seil"}, "edit"),
        ("PUT", f"{base}/items/{item}", {"name": "Decke", "fields": {"size": "medium"}}, "edit"),
        ("POST", f"{base}/items/{item}/equip", {"slot": "ruecken"}, "edit"),
        ("POST", f"{base}/items/{item}/unequip", {}, "edit"),
        ("POST", f"{base}/roll", {"target": "skill:Kampfkunst"}, "edit"),
        ("POST", f"{base}/archive", None, "edit"),
        ("POST", f"{base}/restore", None, "edit"),
        ("GET", f"{html}/roll?target=skill:Kampfkunst", None, "edit"),
    ]


async def test_permission_matrix(make_client: ClientFactory, app: FastAPI) -> None:
    t = await make_table(make_client, app)
    c = await create(t)
    item = (
        await t["player"].post(f"{t.api}/characters/{c['id']}/items", json={"starter": "hh:decke"})
    ).json()["id"]
    expected_read = {"anonymous": 401, "outsider": 404}
    for method, url, body, kind in _routes(t, c["id"], item):
        for role in ROLES:
            kw: dict[str, Any] = {}
            if body is not None:
                kw["json"] = body
            r = await t[role].request(method, url, **kw)
            status = r.status_code
            is_html = not url.startswith("/api/")
            if role == "anonymous":
                assert status in ((303,) if is_html else (401,)), (method, url, role, status)
            elif role == "outsider":
                assert status == 404, (method, url, role, status, r.text)
            elif kind == "read" or role in ("player", "gm"):
                assert status < 400, (method, url, role, status, r.text)
            else:
                assert status == 403, (method, url, role, status, r.text)
    del expected_read
    # Delete needs confirmation; other members may not delete.
    r = await t["player2"].delete(f"{t.api}/characters/{c['id']}?confirm=true")
    assert r.status_code == 403
    r = await t["player"].delete(f"{t.api}/characters/{c['id']}")
    assert r.status_code == 422
    r = await t["player"].delete(f"{t.api}/characters/{c['id']}?confirm=true")
    assert r.status_code == 204
    r = await t["gm"].get(f"{t.api}/characters/{c['id']}")
    assert r.status_code == 404


async def test_who_may_create_what(make_client: ClientFactory, app: FastAPI) -> None:
    t = await make_table(make_client, app)
    r = await t["observer"].post(f"{t.api}/characters", json={"name": "Zuschauer"})
    assert r.status_code == 403
    r = await t["player"].post(f"{t.api}/characters", json={"name": "Nsc", "kind": "npc"})
    assert r.status_code == 403
    r = await t["player"].post(
        f"{t.api}/characters", json={"name": "Fremd", "owner_id": t.ids["player2"]}
    )
    assert r.status_code == 403
    r = await t["gm"].post(
        f"{t.api}/characters", json={"name": "Für Spieler2", "owner_id": t.ids["player2"]}
    )
    assert r.status_code == 201 and r.json()["owner_id"] == t.ids["player2"]
    r = await t["gm"].post(f"{t.api}/characters", json={"name": "Vorlage", "kind": "npc"})
    assert r.status_code == 201 and r.json()["owner_id"] is None
    # The GM's sheet for player2 is player2's to edit, not player's.
    listing = (await t["gm"].get(f"{t.api}/characters")).json()
    cid = next(c["id"] for c in listing if c["name"] == "Für Spieler2")
    assert (await patch(t, "player2", cid, {"xp": 3})).status_code == 200
    assert (await patch(t, "player", cid, {"xp": 4})).status_code == 403


async def test_hidden_nsc_is_never_sent_to_players(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    app.state.ctx.roller = ScriptedRoller([3, 4])
    r = await t["gm"].post(
        f"{t.api}/characters",
        json={"name": "Der Verräter", "kind": "npc", "hidden_from_players": True},
    )
    assert r.status_code == 201, r.text
    npc = r.json()
    await patch(t, "gm", npc["id"], {"be": 1}, npc["version"])
    r = await t["gm"].post(
        f"{t.api}/characters/{npc['id']}/roll", json={"target": "skill:Kampfkunst"}
    )
    assert r.status_code == 201 and r.json()["visibility"] == "gm"
    for role in ("player", "player2", "observer"):
        c = t[role]
        listing = await c.get(f"{t.api}/characters")
        assert "Verräter" not in listing.text
        assert (await c.get(f"{t.api}/characters/{npc['id']}")).status_code == 404
        assert (
            await c.get(f"/campaigns/{t.campaign_id}/characters/{npc['id']}")
        ).status_code == 404
        assert "Verräter" not in (await c.get(f"/campaigns/{t.campaign_id}/characters")).text
        assert "Verräter" not in (await c.get(f"/campaigns/{t.campaign_id}")).text
        assert "Verräter" not in (await c.get(f"{t.api}/rolls")).text
    assert "Verräter" in (await t["gm"].get(f"{t.api}/characters")).text
    # What the live stream would send a player: nothing about the NSC.
    async with app.state.ctx.sessionmaker() as session:
        events = (
            await session.scalars(
                select(CampaignEvent).where(CampaignEvent.campaign_id == t.campaign_id)
            )
        ).all()
    player = Viewer(t.ids["player"], "player_hh", Role.player)
    sent = json.dumps([e.data() for e in project(events, player)], ensure_ascii=False)
    assert "Verräter" not in sent and "character_created" not in sent
    gm = Viewer(t.ids["gm"], "gm_hh", Role.gm)
    assert "Verräter" in json.dumps([e.data() for e in project(events, gm)], ensure_ascii=False)


# --- inventory ----------------------------------------------------------------------------------


async def test_rucksack_fills_to_eingeschraenkt_then_full(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    c = await create(t)  # Reisekunde 5 → 10 places, the last 5 encumber
    url = f"{t.api}/characters/{c['id']}/items"
    for n in range(5):
        r = await t["player"].post(url, json={"name": f"Stein {n}", "fields": {"size": "medium"}})
        assert r.status_code == 201
    sheet = (await t["player"].get(f"{t.api}/characters/{c['id']}")).json()
    assert sheet["conditions"] == []
    await t["player"].post(url, json={"name": "Stein 5", "fields": {"size": "medium"}})
    sheet = (await t["player"].get(f"{t.api}/characters/{c['id']}")).json()
    assert sheet["conditions"] == ["eingeschränkt"]
    assert sheet["load"]["encumbered"] is True
    html = (await t["player"].get(f"/campaigns/{t.campaign_id}/characters/{c['id']}")).text
    assert "«eingeschränkt»" in html
    for n in range(6, 10):
        assert (await t["player"].post(url, json={"name": f"Stein {n}"})).status_code == 201
    r = await t["player"].post(url, json={"name": "Amboss", "fields": {"size": "medium"}})
    assert r.status_code == 422
    message = r.json()["errors"]["container"]
    assert "Rucksack" in message and "10" in message
    # Small items share places: five potions need one place, so they do not fit either.
    r = await t["player"].post(url, json={"starter": "hh:heiltrank"})
    assert r.status_code == 422


async def test_slots_and_moving_items(make_client: ClientFactory, app: FastAPI) -> None:
    t = await make_table(make_client, app)
    a = await create(t)
    b = await create(t, "player2", name="Bruni")
    url = f"{t.api}/characters/{a['id']}/items"
    sword = (await t["player"].post(url, json={"starter": "hh:schwert"})).json()["id"]
    dagger = (await t["player"].post(url, json={"starter": "hh:dolch"})).json()["id"]
    r = await t["player"].post(f"{url}/{sword}/equip", json={"slot": "waffenhand"})
    assert r.status_code == 200 and r.json()["equipped"]
    r = await t["player"].post(f"{url}/{dagger}/equip", json={"slot": "waffenhand"})
    assert r.status_code == 422 and "Waffenhand" in r.json()["errors"]["slot"]
    r = await t["player"].post(f"{url}/{dagger}/equip", json={"slot": "finger"})
    assert r.status_code == 422
    r = await t["player"].post(f"{url}/{dagger}/move", json={"to_character_id": b["id"]})
    assert r.status_code == 200, r.text
    items_a = (await t["player"].get(f"{t.api}/characters/{a['id']}")).json()["items"]
    items_b = (await t["player2"].get(f"{t.api}/characters/{b['id']}")).json()["items"]
    assert [i["name"] for i in items_a] == ["Schwert"]
    assert [i["name"] for i in items_b] == ["Dolch"] and items_b[0]["container"] == "rucksack"
    # Part of a stack.
    arrows = (await t["player"].post(url, json={"starter": "hh:pfeile"})).json()["id"]
    r = await t["player"].post(
        f"{url}/{arrows}/move", json={"to_character_id": b["id"], "quantity": 5}
    )
    assert r.status_code == 200 and r.json()["quantity"] == 5
    items_a = (await t["player"].get(f"{t.api}/characters/{a['id']}")).json()["items"]
    assert next(i for i in items_a if i["name"] == "Pfeile")["quantity"] == 15


async def test_edit_an_item_on_the_html_sheet(make_client: ClientFactory, app: FastAPI) -> None:
    t = await make_table(make_client, app)
    c = await create(t)
    url = f"{t.api}/characters/{c['id']}/items"
    sheet_url = f"/campaigns/{t.campaign_id}/characters/{c['id']}"
    item = (await t["player"].post(url, json={"starter": "hh:schwert"})).json()
    edit = f"{sheet_url}/items/{item['id']}/edit"
    html = (await t["player"].get(sheet_url)).text
    assert f'action="{edit}"' in html and f'id="ie-{item["id"]}-name"' in html
    assert f'action="{edit}"' not in (await t["player2"].get(sheet_url)).text
    form = {
        "version": str(item["version"]),
        "name": "Langschwert",
        "description": "Vom Großvater",
        "quantity": "1",
        "price": "40",
        "fields.size": "medium",
        "fields.slots": "waffenhand",
        "fields.damage": "1W10",
        "fields.damage_bonus": "",
        "fields.rs": "",
        "fields.be": "",
    }
    # Without JavaScript: saved, then back to the sheet.
    r = await t["player"].post(edit, data=form)
    assert r.status_code == 303, r.text
    saved = next(
        i
        for i in (await t["player"].get(f"{t.api}/characters/{c['id']}")).json()["items"]
        if i["id"] == item["id"]
    )
    assert (saved["name"], saved["description"], saved["price"]) == (
        "Langschwert",
        "Vom Großvater",
        40,
    )
    assert saved["fields"]["damage"] == "1W10" and "damage_bonus" not in saved["fields"]
    assert saved["version"] == item["version"] + 1
    # Bad input is answered at the field, the form stays open with the input; nothing saved.
    bad = {**form, "version": str(saved["version"]), "name": "X", "fields.rs": "99"}
    r = await t["player"].post(edit, data=bad, headers={"HX-Request": "true"})
    assert r.status_code == 422
    assert f'id="ie-{item["id"]}-fields-rs-error"' not in r.text  # ids use the field key
    assert f'id="ie-{item["id"]}-rs-error"' in r.text and "open" in r.text
    assert 'value="X"' in r.text
    r = await t["player"].post(edit, data={**bad, "fields.rs": "", "quantity": "viele"})
    assert r.status_code == 422 and f'id="ie-{item["id"]}-quantity-error"' in r.text
    # The Rucksack still limits: eleven swords do not fit; nothing is half-saved.
    r = await t["player"].post(
        edit, data={**form, "version": str(saved["version"]), "quantity": "11"}
    )
    assert r.status_code == 422 and "Rucksack" in r.text
    again = next(
        i
        for i in (await t["player"].get(f"{t.api}/characters/{c['id']}")).json()["items"]
        if i["id"] == item["id"]
    )
    assert again == saved
    # A stale version: 409, the fresh values and a notice in the item's form.
    r = await t["player"].post(edit, data={**form, "name": "Alt"}, headers={"HX-Request": "true"})
    assert r.status_code == 409
    assert "Jemand hat diesen Gegenstand" in r.text or "meanwhile" in r.text
    assert 'value="Langschwert"' in r.text
    # Another player may not edit it; the history tells what changed.
    r = await t["player2"].post(edit, data={**form, "version": str(saved["version"])})
    assert r.status_code == 403
    history = (await t["gm"].get(f"{sheet_url}/history")).text
    assert "Name: Schwert → Langschwert" in history and "Preis:" in history


async def test_item_library_is_curated_by_the_gm(make_client: ClientFactory, app: FastAPI) -> None:
    t = await make_table(make_client, app, "ds4")
    r = await t["player"].post(f"{t.api}/items", json={"name": "Schatz"})
    assert r.status_code == 403
    r = await t["gm"].post(f"{t.api}/items", json={"name": "Zauberstab", "price": 50})
    assert r.status_code == 201
    lib_id = r.json()["id"]
    assert [i["name"] for i in (await t["player"].get(f"{t.api}/items")).json()] == ["Zauberstab"]
    c = await create(t)
    r = await t["player"].post(
        f"{t.api}/characters/{c['id']}/items", json={"library_item_id": lib_id}
    )
    assert r.status_code == 201 and r.json()["name"] == "Zauberstab"
    starters = (await t["player"].get(f"{t.api}/starter-items")).json()
    bihaender = next(s for s in starters if s["key"] == "ds4:bihaender")
    assert bihaender["fields"]["wb"] == 3 and bihaender["fields"]["ga"] == -4
    assert not bihaender["sample"]


async def test_gm_edits_library_entries(make_client: ClientFactory, app: FastAPI) -> None:
    t = await make_table(make_client, app, "ds4")
    r = await t["gm"].post(f"{t.api}/items", json={"name": "Zauberstab", "price": 50})
    entry = r.json()
    body = {**entry, "name": "Eichenstab", "fields": {"kind": "weapon", "wb": 1}}
    r = await t["player"].put(f"{t.api}/items/{entry['id']}", json=body)
    assert r.status_code == 403
    r = await t["gm"].put(f"{t.api}/items/{entry['id']}", json=body)
    assert r.status_code == 200, r.text
    assert r.json()["name"] == "Eichenstab" and r.json()["fields"]["wb"] == 1
    r = await t["gm"].put(f"{t.api}/items/{entry['id']}", json=body)  # stale version
    assert r.status_code == 409
    r = await t["gm"].put(
        f"{t.api}/items/{entry['id']}",
        json={**body, "version": entry["version"] + 1, "fields": {"wb": 99}},
    )
    assert r.status_code == 422 and "fields.wb" in r.json()["errors"]
    # The HTML library: a form per entry, errors at the field, a plain post redirects.
    url = f"/campaigns/{t.campaign_id}/items"
    page = (await t["gm"].get(url)).text
    assert f'action="{url}/{entry["id"]}/edit"' in page
    assert f'action="{url}/{entry["id"]}/edit"' not in (await t["player"].get(url)).text
    form = {
        "version": str(entry["version"] + 1),
        "name": "Eichenstab",
        "description": "",
        "quantity": "1",
        "price": "",
        "fields.kind": "weapon",
        "fields.wb": "2",
        "fields.two_handed": "on",
    }
    r = await t["gm"].post(f"{url}/{entry['id']}/edit", data={**form, "fields.ga": "-99"})
    assert r.status_code == 422 and f'id="ie-{entry["id"]}-ga-error"' in r.text
    r = await t["gm"].post(f"{url}/{entry['id']}/edit", data=form)
    assert r.status_code == 303, r.text
    saved = (await t["gm"].get(f"{t.api}/items")).json()[0]
    assert saved["price"] is None and saved["fields"]["wb"] == 2
    assert saved["fields"]["two_handed"] is True
    r = await t["gm"].post(f"{url}/{entry['id']}/edit", data=form)
    assert r.status_code == 409 and "Jemand hat diesen Gegenstand" in r.text


# --- rolls --------------------------------------------------------------------------------------


async def test_roll_from_sheet_lands_in_the_dice_log(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    c = await create(t)
    await patch(t, "player", c["id"], {"skills.Kampfkunst": 12})
    r = await t["player"].post(
        f"{t.api}/characters/{c['id']}/odds", json={"target": "skill:Kampfkunst", "modifier": 2}
    )
    assert r.status_code == 200
    assert "%" in r.json()["headline"]
    app.state.ctx.roller = ScriptedRoller([5, 6])
    r = await t["player"].post(
        f"{t.api}/characters/{c['id']}/roll",
        json={"target": "skill:Kampfkunst", "modifier": 2},
    )
    assert r.status_code == 201, r.text
    body = r.json()
    assert (
        body["summary"]
        == "Kampfkunst 12 + Modifikator 2 = 14: 2W10: 5 + 6 = 11 ≤ 14 → Erfolg, QS 3"
    )
    log = (await t["gm"].get(f"{t.api}/rolls")).json()["rolls"]
    entry = log[0]
    assert entry["dice"] == [{"sides": 10, "faces": [5, 6], "kept": [True, True]}]
    assert entry["total"] == 11 and entry["system"] == "hh"
    assert entry["outcome"]["qs"] == 3 and entry["label"] == "Alrik: Kampfkunst"
    page = (await t["gm"].get(f"/campaigns/{t.campaign_id}")).text
    assert "→ Erfolg, QS 3" in page
    # Glück: +4 before the roll spends a GP, recorded on the sheet.
    app.state.ctx.roller = ScriptedRoller([4, 4])
    r = await t["player"].post(
        f"{t.api}/characters/{c['id']}/roll",
        json={"target": "attack:Kampfkunst", "luck": "bonus"},
    )
    assert r.status_code == 201, r.text
    assert r.json()["outcome"]["outcome"] == "Volltreffer"
    sheet = (await t["player"].get(f"{t.api}/characters/{c['id']}")).json()
    assert sheet["data"]["gp"] == 2


async def test_hh_nsc_sheet_monsterstufe_gefahr_beute_resistances(
    make_client: ClientFactory, app: FastAPI
) -> None:
    from app.rules.hh import probe as hh_probe

    t = await make_table(make_client, app)
    r = await t["gm"].post(f"{t.api}/characters", json={"name": "Ork", "kind": "npc"})
    assert r.status_code == 201, r.text
    npc = r.json()
    assert npc["data"]["monsterstufe"] == 8 and npc["data"]["skills"] == {}
    changes = {
        "monsterstufe": 11,
        "gefahr": "hoch",
        "beute": "Goldzahn\nRostiger Dolch",
        "resistances": "Feuer: immun\nGift: resistent\nKälte: anfällig",
    }
    r = await patch(t, "gm", npc["id"], changes)
    assert r.status_code == 200, r.text
    data = r.json()["data"]
    assert data["monsterstufe"] == 11 and data["gefahr"] == "hoch"
    assert data["beute"] == ["Goldzahn", "Rostiger Dolch"]
    assert data["resistances"] == {"Feuer": "immune", "Gift": "resistant", "Kälte": "vulnerable"}
    # Validation at the field; nothing half-saved.
    for field, value in (
        ("monsterstufe", 41),
        ("resistances", "Feuer: sehr"),
        ("resistances", "immun"),
        ("gefahr", "x" * 101),
        ("skills.Spürsinn", 31),
    ):
        r = await patch(t, "gm", npc["id"], {field: value, "xp": 12})
        assert r.status_code == 422, (field, r.text)
        assert field in r.json()["errors"]
    assert (await t["gm"].get(f"{t.api}/characters/{npc['id']}")).json()["data"] == data
    # A Fertigkeit the NSC does not list is rolled with the Monsterstufe.
    r = await t["gm"].post(
        f"{t.api}/characters/{npc['id']}/odds", json={"target": "skill:Spürsinn"}
    )
    assert r.status_code == 200, r.text
    odds = hh_probe.probe_odds(11, 0)
    assert r.json()["headline"].endswith(
        f"{float(odds.success) * 100:.0f}\xa0%"
    )  # Babel: a no-break space
    app.state.ctx.roller = ScriptedRoller([5, 6])
    r = await t["gm"].post(
        f"{t.api}/characters/{npc['id']}/roll", json={"target": "skill:Spürsinn"}
    )
    assert r.status_code == 201, r.text
    assert "≤ 11" in r.json()["summary"]
    assert r.json()["label"] == "Ork: Spürsinn (Monsterstufe)"
    app.state.ctx.roller = ScriptedRoller([5, 6])
    r = await t["gm"].post(
        f"{t.api}/characters/{npc['id']}/roll", json={"target": "skill:Monsterstufe"}
    )
    assert r.status_code == 201 and "≤ 11" in r.json()["summary"]
    # A listed Fertigkeit has its own value; emptied, the Monsterstufe applies again.
    await patch(t, "gm", npc["id"], {"skills.Spürsinn": 15})
    app.state.ctx.roller = ScriptedRoller([5, 6])
    r = await t["gm"].post(
        f"{t.api}/characters/{npc['id']}/roll", json={"target": "skill:Spürsinn"}
    )
    assert "≤ 15" in r.json()["summary"] and r.json()["label"] == "Ork: Spürsinn"
    sheet = (await patch(t, "gm", npc["id"], {"skills.Spürsinn": ""})).json()
    assert sheet["data"]["skills"]["Spürsinn"] is None
    assert derived(sheet, "initiative") == str(initiative(11, 0))
    # The HTML sheet shows the NSC fields; a PC sheet has none of them.
    html = (await t["gm"].get(f"/campaigns/{t.campaign_id}/characters/{npc['id']}")).text
    assert 'name="monsterstufe"' in html and 'name="gefahr"' in html and "Feuer: immun" in html
    pc = await create(t)
    assert (
        'name="monsterstufe"'
        not in (await t["player"].get(f"/campaigns/{t.campaign_id}/characters/{pc['id']}")).text
    )
    r = await patch(t, "player", pc["id"], {"monsterstufe": 5})
    assert r.status_code == 422
    # Export and import keep the NSC values; the history says what changed.
    exported = (await t["gm"].get(f"{t.api}/characters/{npc['id']}/export")).json()
    r = await t["gm"].post(f"{t.api}/characters/import", json=exported)
    assert r.status_code == 201, r.text
    assert r.json()["data"]["resistances"] == data["resistances"]
    assert r.json()["data"]["monsterstufe"] == 11
    history = (await t["gm"].get(f"/campaigns/{t.campaign_id}/characters/{npc['id']}/history")).text
    assert "Monsterstufe: 8 → 11" in history and "Gefahr: — → hoch" in history
    assert "Resistenzen: — → Feuer: immun, Gift: resistent, Kälte: anfällig" in history


async def test_hh_extra_fertigkeiten_per_sheet(make_client: ClientFactory, app: FastAPI) -> None:
    t = await make_table(make_client, app)
    c = await create(t)
    for bad in ("Spürsinn: 5", "Reiten: 31", "Reiten", "Reiten: viel"):
        r = await patch(t, "player", c["id"], {"extra_skills": bad})
        assert r.status_code == 422 and "extra_skills" in r.json()["errors"], bad
    r = await patch(t, "player", c["id"], {"extra_skills": "Reiten: 8\nSchwimmen: 3"})
    assert r.status_code == 200, r.text
    assert r.json()["data"]["extra_skills"] == {"Reiten": 8, "Schwimmen": 3}
    app.state.ctx.roller = ScriptedRoller([5, 6])
    r = await t["player"].post(
        f"{t.api}/characters/{c['id']}/roll", json={"target": "skill:Reiten", "modifier": 1}
    )
    assert r.status_code == 201, r.text
    assert "> 9 → Misserfolg" in r.json()["summary"] and r.json()["label"] == "Alrik: Reiten"
    r = await t["player"].post(
        f"{t.api}/characters/{c['id']}/roll", json={"target": "skill:Fliegen"}
    )
    assert r.status_code == 422
    sheet_url = f"/campaigns/{t.campaign_id}/characters/{c['id']}"
    html = (await t["player"].get(f"{sheet_url}?roll=skill:Reiten")).text
    assert 'name="extra_skills"' in html and "Reiten: 8" in html
    assert '<option value="skill:Reiten" selected>' in html
    history = (await t["player"].get(f"{sheet_url}/history")).text
    assert "Weitere Fertigkeiten: — → Reiten: 8, Schwimmen: 3" in history


async def test_ds4_and_pf2e_rolls(make_client: ClientFactory, app: FastAPI) -> None:
    t = await make_table(make_client, app, "ds4")
    c = await create(t)
    app.state.ctx.roller = ScriptedRoller([7])
    r = await t["player"].post(
        f"{t.api}/characters/{c['id']}/roll", json={"target": "kampfwert:schlagen"}
    )
    assert r.status_code == 201, r.text
    assert r.json()["total"] == 7 and "Erfolg, Ergebnis 7" in r.json()["summary"]
    t2 = await make_table(make_client, app, "pf2e")
    c2 = await create(t2)
    r = await t2["player"].post(
        f"{t2.api}/characters/{c2['id']}/odds", json={"target": "save:will", "dc": 13}
    )
    assert r.json()["headline"].endswith("55\xa0%")  # Wille +3 vs SG 13: faces 10-20
    app.state.ctx.roller = ScriptedRoller([15])
    r = await t2["player"].post(
        f"{t2.api}/characters/{c2['id']}/roll",
        json={"target": "save:will", "dc": 13, "visibility": "gm"},
    )
    assert r.status_code == 201, r.text
    # A Verdeckter Wurf: the roller learns only that it happened (seed 002); the GM all.
    assert r.json()["visibility"] == "gm" and r.json()["secret"] is True
    assert r.json()["total"] is None and r.json()["summary"] is None
    log = (await t2["player"].get(f"{t2.api}/rolls")).json()["rolls"]
    assert log[0]["secret"] is True and "total" not in log[0]
    log = (await t2["gm"].get(f"{t2.api}/rolls")).json()["rolls"]
    assert log[0]["total"] == 18


# --- export / import ----------------------------------------------------------------------------


async def test_export_import_round_trip_and_bad_files(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    c = await create(t)
    await patch(t, "player", c["id"], {"skills.Spürsinn": 11, "talents": "Zäh\nFlink"})
    await t["player"].post(f"{t.api}/characters/{c['id']}/items", json={"starter": "hh:seil"})
    exported = (await t["player"].get(f"{t.api}/characters/{c['id']}/export")).json()
    r = await t["player2"].post(f"{t.api}/characters/import", json=exported)
    assert r.status_code == 201, r.text
    copy = r.json()
    assert copy["data"] == exported["data"] and copy["owner_id"] == t.ids["player2"]
    assert [i["name"] for i in copy["items"]] == ["Seil"]
    before = len((await t["gm"].get(f"{t.api}/characters")).json())
    bad_files: list[Any] = [
        {"hello": "world"},
        {**exported, "system": "ds4"},
        {**exported, "data": {**exported["data"], "be": 500}},
        {**exported, "items": [{"name": ""}]},
        {**exported, "format_version": 99},
    ]
    for bad in bad_files:
        r = await t["player"].post(f"{t.api}/characters/import", json=bad)
        assert r.status_code == 422, bad
        assert r.json()["errors"]["file"]
    assert len((await t["gm"].get(f"{t.api}/characters")).json()) == before
    # The HTML upload says what is wrong at the field.
    r = await t["player"].post(
        f"/campaigns/{t.campaign_id}/characters/import",
        files={"file": ("x.json", b"{not json", "application/json")},
    )
    assert r.status_code == 422 and "JSON" in r.text
    r = await t["player"].post(
        f"/campaigns/{t.campaign_id}/characters/import",
        files={"file": ("x.json", json.dumps(exported).encode(), "application/json")},
    )
    assert r.status_code == 303


async def test_an_hh_sheet_with_a_condition_imports_again_unchanged(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Every export imports again: a sheet's conditions travel as the sheet stores them
    (labels), and the import reads them back (it refused «angeschlagen» with 422)."""
    t = await make_table(make_client, app)
    c = await create(t)
    r = await patch(t, "player", c["id"], {"conditions": "angeschlagen\nzehrend (LP, Blutung)"})
    assert r.status_code == 200, r.text
    exported = (await t["player"].get(f"{t.api}/characters/{c['id']}/export")).json()
    assert set(exported["data"]["conditions"]) == {"angeschlagen", "zehrend (LP, Blutung)"}
    r = await t["player"].post(f"{t.api}/characters/import", json=exported)
    assert r.status_code == 201, r.text
    assert r.json()["data"] == exported["data"]
    again = (await t["player"].get(f"{t.api}/characters/{r.json()['id']}/export")).json()
    assert again["data"] == exported["data"]


async def test_every_change_is_an_event_with_before_and_after(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    c = await create(t)
    await patch(t, "player", c["id"], {"be": 2})
    await t["player"].post(f"{t.api}/characters/{c['id']}/archive")
    await t["player"].post(f"{t.api}/characters/{c['id']}/restore")
    history = (await t["observer"].get(f"{t.api}/characters/{c['id']}/history")).json()
    types = [e["type"] for e in history]
    assert types == [
        "character_restored",
        "character_archived",
        "character_updated",
        "character_created",
    ]
    update = history[2]
    assert (update["field"], update["before"], update["after"]) == ("be", 0, 2)
    assert update["actor"]["username"] == "player_hh"
    page = (
        await t["observer"].get(f"/campaigns/{t.campaign_id}/characters/{c['id']}/history")
    ).text
    assert ">character_updated<" not in page
    assert "BE ohne Rüstung: 0 → 2" in page and "archiviert" in page and "wiederhergestellt" in page
    assert ">player_hh<" in page


async def test_history_page_reads_as_sentences_and_pages_back(
    make_client: ClientFactory, app: FastAPI
) -> None:
    from app.characters import service as character_service

    t = await make_table(make_client, app)
    c = await create(t)
    url = f"/campaigns/{t.campaign_id}/characters/{c['id']}/history"
    await patch(t, "player", c["id"], {"skills.Spürsinn": 12})
    await patch(t, "player", c["id"], {"skills.Spürsinn": 15})
    r = await t["player"].post(f"{t.api}/characters/{c['id']}/items", json={"name": "Seil"})
    item = r.json()
    r = await t["player"].put(
        f"{t.api}/characters/{c['id']}/items/{item['id']}",
        json={**item, "name": "Langes Seil", "quantity": 2, "version": item["version"]},
    )
    assert r.status_code == 200, r.text
    await t["player"].post(f"{t.api}/characters/{c['id']}/archive")
    page = (await t["gm"].get(url)).text
    assert "Spürsinn: 12 → 15" in page and "Spürsinn: 5 → 12" in page
    assert "Gegenstand «Seil» (1) in den Rucksack gelegt" in page
    assert "Gegenstand «Langes Seil» bearbeitet" in page
    assert "Name: Seil → Langes Seil" in page and "Anzahl: 1 → 2" in page
    assert "archiviert" in page and "als NSC" not in page
    # Newest first.
    assert page.index("archiviert") < page.index("Spürsinn: 12 → 15") < page.index("angelegt")
    await t["observer"].post("/language", data={"locale": "en", "next": url})
    english = (await t["observer"].get(url)).text
    assert "Item «Seil» (1) put into the Rucksack" in english
    # Paging: a page size of 2 gives an "older entries" link that leads to the rest.
    original = character_service.HISTORY_PAGE
    character_service.HISTORY_PAGE = 2
    try:
        first = (await t["gm"].get(url)).text
        assert first.count('class="history-entry"') == 2 and 'id="history-more"' in first
        cursor = first.split(f"{url}?before=")[1].split('"')[0]
        second = await t["gm"].get(f"{url}?before={cursor}", headers={"HX-Request": "true"})
        assert second.status_code == 200
        assert "<html" not in second.text and second.text.count('class="history-entry"') == 2
        assert "Spürsinn: 12 → 15" in second.text
        api = await t["gm"].get(f"{t.api}/characters/{c['id']}/history?before={cursor}")
        assert [e["seq"] for e in api.json()] == sorted(
            (e["seq"] for e in api.json()), reverse=True
        )
        assert all(e["seq"] < int(cursor) for e in api.json())
    finally:
        character_service.HISTORY_PAGE = original


@pytest.mark.parametrize("system", ["hh", "ds4", "pf2e"])
async def test_sheet_pages_render(make_client: ClientFactory, app: FastAPI, system: str) -> None:
    t = await make_table(make_client, app, system)
    c = await create(t)
    for role in ("player", "player2", "gm"):
        r = await t[role].get(f"/campaigns/{t.campaign_id}/characters/{c['id']}")
        assert r.status_code == 200, r.text
        assert ('id="read-only"' in r.text) == (role == "player2")
    r = await t["player"].get(f"/campaigns/{t.campaign_id}/characters/{c['id']}?roll=x")
    assert r.status_code == 200
    assert (await t["gm"].get(f"/campaigns/{t.campaign_id}/items")).status_code == 200
    r = await t["player"].get(f"/campaigns/{t.campaign_id}")
    assert f"/campaigns/{t.campaign_id}/characters" in r.text


async def test_removing_a_library_entry_asks_first(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """The library's "Remove" asks on a page of its own (a dialog with JavaScript); a player
    is not asked, and an item a sheet took from the library stays on the sheet."""
    t = await make_table(make_client, app, "ds4")
    entry = (await t["gm"].post(f"{t.api}/items", json={"name": "Zauberstab"})).json()
    c = await create(t)
    r = await t["player"].post(
        f"{t.api}/characters/{c['id']}/items", json={"library_item_id": entry["id"]}
    )
    assert r.status_code == 201
    remove = f"/campaigns/{t.campaign_id}/items/{entry['id']}/remove"
    r = await t["player"].post(remove)
    assert r.status_code == 403 and 'name="confirm"' not in r.text
    r = await t["gm"].post(remove)
    assert r.status_code == 200 and 'name="confirm"' in r.text and "Zauberstab" in r.text
    assert [i["name"] for i in (await t["gm"].get(f"{t.api}/items")).json()] == ["Zauberstab"]
    assert (await t["gm"].post(remove, data={"confirm": "1"})).status_code == 303
    assert (await t["gm"].get(f"{t.api}/items")).json() == []
    sheet = (await t["player"].get(f"{t.api}/characters/{c['id']}")).json()
    assert [i["name"] for i in sheet["items"]] == ["Zauberstab"]
