"""One figure, one truth (issue 13): an H&H hero in a fight IS its sheet — the values it
enters with, every change the fight makes, the modifiers of every Probe and the rules of
its turn. Each test names the defect of the issue it holds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx
from fastapi import FastAPI

from tests.api.helpers import Table, make_table
from tests.conftest import ClientFactory
from tests.encounters.helpers import script


@dataclass
class Hero:
    table: Table
    character_id: int
    encounter_id: int
    pids: dict[str, str]

    @property
    def api(self) -> str:
        return f"/api/v1/campaigns/{self.table.campaign_id}"

    @property
    def fight(self) -> str:
        return f"{self.api}/encounters/{self.encounter_id}"

    async def sheet(self) -> dict[str, Any]:
        r = await self.table.player.get(f"{self.api}/characters/{self.character_id}")
        assert r.status_code == 200, r.text
        return r.json()  # type: ignore[no-any-return]

    async def act(
        self, client: httpx.AsyncClient, action: str, status: int = 200, **body: Any
    ) -> dict[str, Any]:
        r = await client.post(f"{self.fight}/actions/{action}", json=body)
        assert r.status_code == status, r.text
        return r.json()  # type: ignore[no-any-return]

    async def row(self, name: str = "Arjun") -> dict[str, Any]:
        r = await self.table.gm.get(self.fight)
        return next(p for p in r.json()["participants"] if p["name"] == name)

    async def log(self) -> str:
        r = await self.table.gm.get(f"{self.fight}/log")
        assert r.status_code == 200, r.text
        return r.text


async def wounded_hero(
    make_client: ClientFactory, app: FastAPI, rucksack: int = 6, goblins: int = 1
) -> Hero:
    """Arjun at LP 10/21 in leather armour with a heavy Rucksack, against a goblin."""
    t = await make_table(make_client, app, "hh")
    api = f"/api/v1/campaigns/{t.campaign_id}"
    r = await t.player.post(f"{api}/characters", json={"name": "Arjun"})
    cid, version = r.json()["id"], r.json()["version"]
    changes = {"skills.Kampfkunst": 12, "skills.Spürsinn": 10, "skills.Unbeugsamkeit": 10,
               "lp_max": 21, "lp": 10}  # fmt: skip
    r = await t.player.patch(
        f"{api}/characters/{cid}", json={"version": version, "changes": changes}
    )
    assert r.status_code == 200, r.text
    armour = await t.player.post(
        f"{api}/characters/{cid}/items", json={"starter": "hh:lederruestung"}
    )
    r = await t.player.post(
        f"{api}/characters/{cid}/items/{armour.json()['id']}/equip", json={"slot": "koerper"}
    )
    assert r.status_code == 200, r.text
    for _ in range(rucksack):
        r = await t.player.post(f"{api}/characters/{cid}/items", json={"starter": "hh:seil"})
        assert r.status_code == 201, r.text
    r = await t.gm.post(f"{api}/encounters", json={"name": "Hinterhalt"})
    eid = r.json()["id"]
    r = await t.gm.post(f"{api}/encounters/{eid}/participants", json={"character_id": cid})
    assert r.status_code == 201, r.text
    r = await t.gm.post(f"{api}/bestiary/samples")
    goblin = next(e for e in r.json() if e["name"] == "Goblin")
    await t.gm.post(
        f"{api}/encounters/{eid}/participants", json={"entry_id": goblin["id"], "count": goblins}
    )
    script(app)
    r = await t.gm.post(f"{api}/encounters/{eid}/actions/start", json={})
    assert r.status_code == 200, r.text
    pids = {p["name"]: str(p["pid"]) for p in r.json()["participants"]}
    return Hero(t, cid, eid, pids)


async def test_the_sheet_shows_angeschlagen_armour_and_load_and_rolls_with_them(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Defects 3 and 5 on the sheet: «angeschlagen» at LP ≤ max ÷ 2 with its −2 in sheet
    rolls, the Rucksack's «eingeschränkt», RS from the equipped armour."""
    hero = await wounded_hero(make_client, app)
    sheet = await hero.sheet()
    assert {"angeschlagen", "eingeschränkt"} <= set(sheet["conditions"])
    rs = next(d for d in sheet["derived"] if d["key"] == "rs")
    assert rs["value"] == "1" and ["Lederrüstung", "1"] in rs["breakdown"]
    script(app, 4, 5)
    r = await hero.table.player.post(
        f"{hero.api}/characters/{hero.character_id}/roll", json={"target": "skill:Kampfkunst"}
    )
    assert r.status_code == 201, r.text
    assert r.json()["summary"].startswith("Kampfkunst 12 − angeschlagen 2 = 10; ") or r.json()[
        "summary"
    ].startswith("Kampfkunst 12 − angeschlagen 2 = 10: ")


async def test_the_hero_enters_wounded_and_the_fight_writes_back(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Defects 1, 2 and 5 in the fight: LP 10/21 in, the encumbered defence, the armour's
    RS, Treffer entgehen, and the sheet shows what the fight did."""
    hero = await wounded_hero(make_client, app)
    gm, player = hero.table.gm, hero.table.player
    row = await hero.row()
    assert row["points"] == "10/21 LP"
    assert {"angeschlagen", "eingeschränkt"} <= set(row["conditions"])
    await hero.act(player, "next")
    # The goblin attacks: 2+3 = 5 ≤ 10. Arjun defends 12 − 2 − 2 = 8 with 9+8 = 17: fails.
    script(app, 2, 3)
    await hero.act(gm, "attack", target=hero.pids["Arjun"])
    # W6+1 − RS 1 (Lederrüstung) with a 6: 6 damage; Arjun halves it for 1 GP → 3.
    script(app, 9, 8, 6)
    view = await hero.act(player, "respond", choice="defend")
    assert view["pending"]["kind"] == "hit"
    assert (await hero.row())["points"] == "10/21 LP"  # not booked before the answer
    script(app)
    await hero.act(player, "respond", choice="halve")
    assert (await hero.row())["points"] == "7/21 LP"
    log = await hero.log()
    assert "Kampfkunst (Verteidigung) 12 − angeschlagen 2 − eingeschränkt 2 = 8" in log
    assert "RS 1" in log and "Treffer entgehen" in log
    sheet = await hero.sheet()
    assert sheet["data"]["lp"] == 7 and sheet["data"]["gp"] == 2
    r = await player.get(f"{hero.api}/characters/{hero.character_id}/history")
    fought = [e for e in r.json() if e["type"] == "character_fought"]
    assert fought and {"field": "gp", "before": 3, "after": 2} in fought[0]["changes"]


async def test_healing_on_the_sheet_shows_in_the_fight_and_death_on_the_sheet(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Defect 2 both ways, versions respected; defect 9: the dead lose their badges."""
    hero = await wounded_hero(make_client, app)
    gm, player = hero.table.gm, hero.table.player
    stale = (await hero.sheet())["version"]
    await hero.act(gm, "adjust", participant=hero.pids["Arjun"], delta=-5, reason="Falle")
    sheet = await hero.sheet()
    assert sheet["data"]["lp"] == 5 and sheet["version"] > stale
    url = f"{hero.api}/characters/{hero.character_id}"
    r = await player.patch(url, json={"version": stale, "changes": {"lp": 9}})
    assert r.status_code == 409, r.text
    r = await player.patch(url, json={"version": sheet["version"], "changes": {"lp": 9}})
    assert r.status_code == 200, r.text
    assert (await hero.row())["points"] == "9/21 LP"
    await hero.act(gm, "adjust", participant=hero.pids["Arjun"], delta=-30, reason="Lawine")
    row = await hero.row()
    assert row["status"] == "dead" and row["conditions"] == []
    sheet = await hero.sheet()
    assert sheet["data"]["dead"] is True and sheet["conditions"] == ["tot"]
    # Tod abwenden: Arjun's player burns a GP (and a point of Glück): 0 LP, unconscious.
    glueck = sheet["data"]["skills"]["Glück"]
    await hero.act(player, "luck", participant=hero.pids["Arjun"], option="avoid_death")
    sheet = await hero.sheet()
    assert sheet["data"]["dead"] is False and sheet["data"]["lp"] == 0
    assert sheet["data"]["unconscious"] is True and sheet["data"]["gp"] == 2
    assert sheet["data"]["skills"]["Glück"] == glueck - 1


async def test_gm_checks_in_combat_apply_the_conditions(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Defect 4: a GM check takes the same modifiers as every other Probe."""
    hero = await wounded_hero(make_client, app)
    script(app, 4, 5)
    await hero.act(hero.table.gm, "check", participant=hero.pids["Arjun"], skill="Geschick")
    assert "Geschick 5 − angeschlagen 2 = 3; 2W10: 4 + 5 = 9 > 3" in await hero.log()


async def test_one_handlung_per_step_unless_the_gm_overrides(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Defect 6: a second attack in the same Initiativeschritt is refused; the GM's
    override is explicit and logged."""
    hero = await wounded_hero(make_client, app)
    gm, player = hero.table.gm, hero.table.player
    script(app, 9, 8)  # 17 > 10: a miss
    await hero.act(player, "attack", target=hero.pids["Goblin 1"])
    view = await hero.act(player, "attack", 422, target=hero.pids["Goblin 1"])
    assert "Handlung" in view["errors"]["combat"]
    await hero.act(player, "grant_action", 403, participant=hero.pids["Arjun"])
    await hero.act(gm, "grant_action", participant=hero.pids["Arjun"])
    script(app, 9, 7)
    await hero.act(player, "attack", target=hero.pids["Goblin 1"])
    assert "SL-Eingriff" in await hero.log()  # "GM override", logged in German


async def test_sterbend_skips_the_turn_and_heilkunde_stabilises(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Defect 9: a dying figure has no turn; «zehrend» keeps the cause as typed;
    another figure's Heilkunde stabilises (hh.md §7)."""
    hero = await wounded_hero(make_client, app)
    gm = hero.table.gm
    arjun = hero.pids["Arjun"]
    await hero.act(gm, "condition", participant=arjun, condition="zehrend", cause="LP, Blutung")
    assert "zehrend (LP, Blutung)" in (await hero.row())["conditions"]
    await hero.act(gm, "adjust", participant=arjun, delta=-10, reason="Falle")
    assert "sterbend" in (await hero.row())["conditions"]
    view = await hero.act(gm, "next")
    assert view["turn"]["name"] == "Goblin 1" and view["turn"]["step"] == 9
    view = await hero.act(gm, "next")
    # Arjun's step 6 is skipped: the goblin's step 5 is next.
    assert view["turn"]["name"] == "Goblin 1" and view["turn"]["step"] == 5
    script(app, 2, 3)  # Heilkunde (Monsterstufe 6): 5 ≤ 6
    await hero.act(gm, "stabilise", target=arjun)
    row = await hero.row()
    assert "sterbend" not in row["conditions"] and row["status"] == "down"
    sheet = await hero.sheet()
    assert sheet["data"]["unconscious"] is True
    assert "sterbend" not in sheet["data"]["conditions"]
    assert "zehrend (LP, Blutung)" in sheet["data"]["conditions"]


async def test_living_cover_and_the_stray_hit(make_client: ClientFactory, app: FastAPI) -> None:
    """hh.md §6.6: an enemy of the attacker in between is cover −4; a miss that would have
    hit without it hits the covering figure on 1W10 ≤ 5 with the uncovered roll."""
    hero = await wounded_hero(make_client, app, goblins=2)
    # Kampfkunst 12 − angeschlagen 2 − Deckung 4 = 6: 3+5 = 8 misses, uncovered (10) hits;
    # 1W10 = 3 ≤ 5: Goblin 2 is hit with QS 2: 2W10 5, 6 − RS 1 each = 9.
    script(app, 3, 5, 3, 5, 6)
    await hero.act(
        hero.table.player, "attack", target=hero.pids["Goblin 1"], covering=hero.pids["Goblin 2"]
    )
    assert (await hero.row("Goblin 2"))["points"] == "3/12 LP"
    assert (await hero.row("Goblin 1"))["points"] == "12/12 LP"
    log = await hero.log()
    assert "Deckung 4 (lebend, ¾) = 6" in log and "lebende Deckung Goblin 2" in log


async def test_a_kampfmanoever_takes_its_modifiers_from_the_one_path(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """A manoeuvre's Probes show their breakdown like an attack's: the wounded hero's
    «angeschlagen» counts on Umreissen, the goblin's defence shows its own target."""
    hero = await wounded_hero(make_client, app)
    # Arjun: Kampfkunst (waffenlos) 12 − angeschlagen 2 = 10 with 2+3 = 5: success (QS 1);
    # the goblin defends with Verteidigung 8 and 9+8 = 17: fails — it is niedergeworfen.
    script(app, 2, 3, 9, 8)
    view = await hero.act(
        hero.table.player, "maneuver", target=hero.pids["Goblin 1"], maneuver="umreissen"
    )
    log = await hero.log()
    assert "Angriff: Kampfkunst (waffenlos) 12 − angeschlagen 2 = 10; " in log, log
    goblin = next(p for p in view["participants"] if p["name"] == "Goblin 1")
    assert "niedergeworfen" in goblin["conditions"]
