"""Imports from other tools as a group switching to us would use them: Pathbuilder 2e and
Foundry characters onto sheets, Foundry creatures into the bestiary, with a report of what
was taken, converted and left out; bad, oversized and hostile files change nothing."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.characters.models import Character
from app.encounters.models import BestiaryEntry
from tests.api.helpers import Table, make_table
from tests.conftest import ClientFactory

FIXTURES = Path(__file__).parent / "fixtures"


def fixture(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return loaded


async def count(app: FastAPI, model: type[Character] | type[BestiaryEntry]) -> int:
    async with app.state.ctx.sessionmaker() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


async def import_character(client: httpx.AsyncClient, t: Table, document: Any) -> httpx.Response:
    return await client.post(f"/api/v1/campaigns/{t.campaign_id}/characters/import", json=document)


def derived(sheet: dict[str, Any], key: str) -> str:
    return str(next(d["value"] for d in sheet["derived"] if d["key"] == key))


def report_fields(sheet: dict[str, Any], part: str) -> dict[str, dict[str, str]]:
    return {n["field"]: n for n in sheet["import_report"][part]}


async def test_a_pathbuilder_hero_becomes_a_sheet_with_its_numbers(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "pf2e")
    r = await import_character(t.player, t, fixture("pathbuilder_valeros.json"))
    assert r.status_code == 201, r.text
    sheet = r.json()
    data = sheet["data"]
    assert (sheet["name"], sheet["owner_id"], data["level"]) == ("Valeros", t.ids["player"], 3)
    assert data["attributes"] == {"strength": 4, "dexterity": 2, "constitution": 2,
                                  "intelligence": 0, "wisdom": 1, "charisma": 0}  # fmt: skip
    assert data["ranks"]["martial"] == "expert" and data["ranks"]["will"] == "trained"
    assert data["skills"]["Athletik"] == "expert" and data["skills"]["Akrobatik"] == "trained"
    # 8 (ancestry) + (10 (class) + 2 (Konstitution)) × 3 — as Pathbuilder computes it.
    assert data["hp"] == data["hp_max"] == 44
    # The file's own AC: trained medium armour, Dex capped at 1 by chain mail, +4 item.
    build = fixture("pathbuilder_valeros.json")["build"]
    assert derived(sheet, "ac") == str(build["acTotal"]["acTotal"]) == "20"
    weapons = {i["name"]: i for i in sheet["items"] if i["fields"]["kind"] == "weapon"}
    longsword = weapons["+1 Striking Longsword"]
    assert longsword["fields"]["damage"] == "2W8" and longsword["fields"]["item_bonus"] == 1
    assert "Vielseitig P" in longsword["fields"]["traits"] and longsword["equipped"]
    assert weapons["Shortbow"]["fields"]["ranged"] is True
    assert weapons["Shortbow"]["fields"]["range_increment"] == 18
    # The Strike bonus Pathbuilder shows: Stufe 3 + expert 4 + Stärke 4 + potency 1.
    strike = derived(sheet, f"attack:{longsword['id']}")
    assert strike == f"+{longsword_attack(build)}" == "+12"
    converted = report_fields(sheet, "converted")
    assert converted["abilities.str"]["from"] == "18" and converted["abilities.str"]["to"] == "+4"
    skipped = report_fields(sheet, "skipped")
    assert {"feats", "specials", "lores", "money", "weapons.2.traits"} <= set(skipped)
    assert skipped["feats"]["label"] == "Talente"
    assert skipped["feats"]["reason"] == "Der Bogen hat kein Feld dafür."


def longsword_attack(build: dict[str, Any]) -> int:
    weapon = next(w for w in build["weapons"] if w["name"] == "Longsword")
    return int(weapon["attack"])


async def test_the_report_speaks_the_callers_language(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "pf2e")
    r = await t.player.post("/api/v1/auth/language", json={"locale": "en"})
    if r.status_code == 404:  # the language is switched by the form
        r = await t.player.post("/language", data={"locale": "en", "next": "/"})
    sheet = (await import_character(t.player, t, fixture("pathbuilder_valeros.json"))).json()
    skipped = report_fields(sheet, "skipped")
    assert skipped["feats"]["label"] == "Feats"
    assert skipped["feats"]["reason"] == "The sheet has no field for it."


async def test_a_gm_imports_for_a_player_and_a_player_only_for_themselves(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "pf2e")
    url = f"/api/v1/campaigns/{t.campaign_id}/characters/import"
    document = fixture("pathbuilder_valeros.json")
    r = await t.gm.post(f"{url}?owner_id={t.ids['player']}", json=document)
    assert r.status_code == 201 and r.json()["owner_id"] == t.ids["player"]
    r = await t.player.post(f"{url}?owner_id={t.ids['gm']}", json=document)
    assert r.status_code == 403
    assert (await t.observer.post(url, json=document)).status_code == 403
    assert (await t.outsider.post(url, json=document)).status_code == 404
    assert await count(app, Character) == 1


async def test_a_foundry_pf2e_character_keeps_what_foundry_stores(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "pf2e")
    r = await import_character(t.player, t, fixture("foundry_pf2e_character_ezren.json"))
    assert r.status_code == 201, r.text
    sheet = r.json()
    assert sheet["data"]["level"] == 2 and sheet["data"]["hp"] == 17
    assert sheet["data"]["skills"]["Arkane Künste"] == "expert"
    assert sheet["data"]["skills"]["Gesellschaftskunde"] == "trained"
    items = {i["name"]: i for i in sheet["items"]}
    assert items["Crossbow"]["fields"]["damage"] == "2W8"
    assert items["Crossbow"]["fields"]["range_increment"] == 36
    assert items["Staff"]["fields"]["traits"] == "Zweihändig W8, monk"
    assert items["Explorer's Clothing"]["equipped"] is True
    skipped = report_fields(sheet, "skipped")
    assert {"system.abilities", "system.attributes.hp.max", "items.0", "items.6"} <= set(skipped)


async def test_a_foundry_ds4_character_with_its_bonuses_apart(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "ds4")
    r = await import_character(t.player, t, fixture("foundry_ds4_character_lia.json"))
    assert r.status_code == 201, r.text
    data = r.json()["data"]
    assert (data["volk"], data["klasse"], data["ep"], data["lk"]) == ("elf", "spaeher", 140, 15)
    assert data["attributes"] == {"koerper": 6, "agilitaet": 8, "geist": 6}
    # Foundry keeps the Volk's and Klasse's +1 inside the Eigenschaften; the sheet apart.
    assert data["volk_bonus"] in ("bewegung", "geschick", "aura")
    assert data["klasse_bonus"] in ("bewegung", "geschick")
    file_traits = fixture("foundry_ds4_character_lia.json")["system"]["traits"]
    assert sum(data["traits"].values()) == sum(v["base"] for v in file_traits.values()) - 2
    sheet = r.json()
    # Schießen = AGI + GE (with its bonus) + WB of the Elfenbogen, as DS4 computes it.
    assert derived(sheet, "schiessen") == str(8 + 4 + 2)


async def test_a_foundry_npc_joins_the_bestiary_with_its_strikes(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "pf2e")
    url = f"/api/v1/campaigns/{t.campaign_id}/bestiary/import"
    npc = fixture("foundry_pf2e_npc_bandit.json")
    assert (await t.player.post(url, json=npc)).status_code == 403
    r = await t.gm.post(url, json=npc)
    assert r.status_code == 201, r.text
    entry = r.json()
    block = entry["data"]
    assert (entry["name"], block["stufe"], block["rk"], block["tp"]) == (
        "Bandit Lookout",
        1,
        17,
        22,
    )
    assert (block["wahrnehmung"], block["zaehigkeit"], block["reflex"], block["wille"]) == (
        8,
        5,
        9,
        6,
    )
    sword, bow = block["angriffe"]
    assert (sword["bonus"], sword["schaden"], sword["agil"], sword["fernkampf"]) == (
        9,
        "1W6+1",
        True,
        False,
    )
    assert (bow["schaden"], bow["fernkampf"], bow["entfernung"]) == ("1W6+1W4", True, 18)
    assert "Tödlich W10" in bow["merkmale"]
    assert {"items.2", "items.3", "system.skills"} <= set(report_fields(entry, "skipped"))
    got = await t.gm.get(f"/api/v1/campaigns/{t.campaign_id}/bestiary/{entry['id']}")
    assert got.json()["data"] == block


async def test_a_ds4_creature_gets_its_kampfwerte_as_the_rules_compute_them(
    make_client: ClientFactory, app: FastAPI
) -> None:
    d = await make_table(make_client, app, "ds4")
    r = await d.gm.post(
        f"/api/v1/campaigns/{d.campaign_id}/bestiary/import",
        json=fixture("foundry_ds4_creature_ork.json"),
    )
    assert r.status_code == 201, r.text
    ork = r.json()["data"]
    body, mobility, mind, st, ha, be, ge = 11, 6, 2, 3, 3, 0, 1
    assert ork["lk"] == body + ha + 10 == 24  # the file's current LK
    assert ork["abwehr"] == body + ha + 1 + 1  # leather and shield
    assert ork["initiative"] == mobility + be
    assert ork["laufen"] == mobility / 2 + 1
    assert (ork["schlagen"], ork["waffe"]) == (body + st + 2, "Krummsäbel")
    assert (ork["schiessen"], ork["fernwaffe"]) == (mobility + ge + 1, "Wurfspeer")
    assert ork["zielzauber"] == mind + ge
    assert ork["beute"] == "Krummsäbel, 3W20 Kupfer"


@pytest.mark.parametrize(
    ("system", "name", "wrong"),
    [
        ("ds4", "pathbuilder_valeros.json", "gehört zu pf2e"),
        ("pf2e", "foundry_ds4_character_lia.json", "gehört zu ds4"),
        ("pf2e", "foundry_pf2e_npc_bandit.json", "Bestiarium"),
    ],
)
async def test_a_file_for_another_system_or_place_is_refused_at_file(
    make_client: ClientFactory, app: FastAPI, system: str, name: str, wrong: str
) -> None:
    t = await make_table(make_client, app, system)
    r = await import_character(t.player, t, fixture(name))
    assert r.status_code == 422, r.text
    assert "file" in r.json()["detail"][0]["loc"] or "file" in r.text
    assert wrong in r.text
    assert await count(app, Character) == 0


def _nested(depth: int) -> Any:
    value: Any = "tief"
    for _ in range(depth):
        value = {"a": value}
    return value


async def test_malformed_oversized_and_hostile_files_change_nothing(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "pf2e")
    broken = fixture("pathbuilder_valeros.json")
    broken["build"]["weapons"][0]["die"] = "d8; DROP TABLE"
    deep = fixture("pathbuilder_valeros.json")
    deep["build"]["mods"] = _nested(60)
    wide = fixture("pathbuilder_valeros.json")
    wide["build"]["equipment"] = [["Kiesel", 1]] * 60_000
    hostile_name = copy.deepcopy(fixture("pathbuilder_valeros.json"))
    hostile_name["build"]["name"] = "Val\u202eeros\x00"
    npc_as_hero = fixture("foundry_pf2e_npc_bandit.json")
    for document in (
        {"success": True},
        {"type": "npc", "name": "x", "system": "kaputt"},
        broken,
        deep,
        wide,
        hostile_name,
        npc_as_hero,
        [1, 2, 3],
    ):
        r = await import_character(t.player, t, document)
        assert r.status_code == 422, r.text[:300]
    bestiary = f"/api/v1/campaigns/{t.campaign_id}/bestiary/import"
    for document in (fixture("pathbuilder_valeros.json"), deep, {"type": "npc"}):
        assert (await t.gm.post(bestiary, json=document)).status_code == 422
    assert await count(app, Character) == 0
    assert await count(app, BestiaryEntry) == 0
