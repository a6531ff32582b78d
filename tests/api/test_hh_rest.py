"""Kurze and Lange Rast from an H&H sheet (hh.md §10, issue 13): the engine's regeneration
on the sheet's LP/WP/GP and conditions, the per-day limits on the sheet's own clock, one
``character_rested`` event with the changes and the rule text with every face."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from app.characters.systems.hh import SYSTEM
from app.limits import REST_RECORDS_KEPT
from app.rules.dice import ScriptedRoller
from tests.api.test_characters import Table, create, make_table
from tests.conftest import ClientFactory

HURT = {
    "skills.Unbeugsamkeit": 15,
    "lp": 10,
    "wp": 3,
    "gp": 1,
    "conditions": ["angeschlagen", "zehrend (WP)"],
}


async def hurt_hero(t: Table) -> tuple[str, str]:
    c = await create(t)
    url = f"{t.api}/characters/{c['id']}"
    r = await t["player"].patch(url, json={"changes": HURT, "version": c["version"]})
    assert r.status_code == 200, r.text
    return url, f"/campaigns/{t.campaign_id}/characters/{c['id']}"


async def rest(t: Table, url: str, who: str = "player", **body: Any) -> Any:
    return await t[who].post(f"{url}/rest", json=body)


async def test_kurze_rast_twice_a_day_with_a_gap(make_client: ClientFactory, app: FastAPI) -> None:
    t = await make_table(make_client, app, "hh")
    url, page = await hurt_hero(t)
    for who, status in (("player2", 403), ("observer", 403), ("outsider", 404)):
        assert (await rest(t, url, who, rest="kurz")).status_code == status, who
    # Unbeugsamkeit 15: 3 + 4 = 7 → Erfolg; 1W10 = 6 WP (3 → 9), the two conditions go.
    app.state.ctx.roller = ScriptedRoller([3, 4, 6])
    r = await rest(t, url, rest="kurz")
    assert r.status_code == 200, r.text
    data = r.json()["data"]
    assert (data["lp"], data["wp"], data["gp"], data["conditions"]) == (10, 9, 1, {})
    [record] = data["rests"]  # the last one keeps its rule text for the sheet
    assert (record["kind"], record["start"]) == ("kurz", 480)
    assert record["detail"].startswith("Kurze Rast (Tag 1, 08:00): Unbeugsamkeit 2W10: 3 + 4")
    # Right after it (0 hours) is too soon: 2 h after the end of the last rest.
    r = await rest(t, url, rest="kurz", hours=1)
    assert r.status_code == 422 and "2 Stunden" in r.json()["errors"]["rest"], r.text
    # The second one (2 h later by default): a failed Probe gives nothing back.
    app.state.ctx.roller = ScriptedRoller([9, 9])
    r = await rest(t, url, rest="kurz")
    assert r.status_code == 200 and r.json()["data"]["wp"] == 9
    # A third the same day is refused, nothing rolled, nothing stored.
    app.state.ctx.roller = ScriptedRoller([])
    r = await rest(t, url, rest="kurz", hours=3)
    assert r.status_code == 422 and "Höchstens 2 Kurze Rasten" in r.json()["errors"]["rest"]
    assert len((await t["player"].get(url)).json()["data"]["rests"]) == 2
    # The next day it works again (Tag 2, 07:00: 20 h after 11:00).
    app.state.ctx.roller = ScriptedRoller([1, 1, 10])
    r = await rest(t, url, "gm", rest="kurz", hours=20)
    assert r.status_code == 200 and r.json()["data"]["wp"] == 10  # at most the maximum
    events = (await t["player"].get(f"{url}/history")).json()
    rested = [e for e in events if e["type"] == "character_rested"]
    assert rested[-1]["changes"]["wp"] == [3, 9], rested[-1]
    assert rested[-1]["detail"] == (
        "Kurze Rast (Tag 1, 08:00): Unbeugsamkeit 2W10: 3 + 4 = 7 ≤ 15 → Erfolg, QS "
        + rested[-1]["detail"].split("QS ")[1].split(";")[0]
        + "; 1W10 WP: 6 → +6 WP; «angeschlagen» entfernt; «zehrend (WP)» entfernt"
    )
    history = (await t["player"].get(f"{page}/history")).text
    assert "Kurze Rast (Tag 2, 07:00)" in history


async def test_lange_rast_once_a_day_needs_a_camp_site(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "hh")
    url, _page = await hurt_hero(t)
    r = await rest(t, url, rest="lang")
    assert r.status_code == 422 and "Lagerplatz" in r.json()["errors"]["rest"], r.text
    # Camp Probe (Lagermeister 12): 2 + 3 → Erfolg, its QS adds to the regeneration Probe;
    # Unbeugsamkeit 4 + 4 → Erfolg; (QS)W10 WP, 1W10 LP, +1 GP; both conditions go.
    app.state.ctx.roller = ScriptedRoller([2, 3, 4, 4, 5, 5, 5, 5, 5, 7])
    r = await rest(t, url, rest="lang", camp_site=True, camp_value=12)
    assert r.status_code == 200, r.text
    data = r.json()["data"]
    assert data["gp"] == 2 and data["wp"] == 10 and data["lp"] > 10, data
    assert data["conditions"] == {}
    events = (await t["player"].get(f"{url}/history")).json()
    detail = next(e for e in events if e["type"] == "character_rested")["detail"]
    assert detail.startswith("Lange Rast (Tag 1, 08:00): Lagerprobe 2W10: 2 + 3 = 5 ≤ 12")
    assert "+1 GP" in detail and "«angeschlagen» entfernt" in detail, detail
    # One a day: after 8 h of rest (Tag 1, 16:00) the next is refused; 16 h later it is Tag 2.
    r = await rest(t, url, rest="lang", camp_site=True)
    assert r.status_code == 422 and "Eine Lange Rast am Tag" in r.json()["errors"]["rest"]
    # A Patzer on the camp Probe: no regeneration, and a failed Unbeugsamkeit Probe in the
    # morning leaves the hero «angeschlagen».
    app.state.ctx.roller = ScriptedRoller([10, 10, 10, 9])
    r = await rest(t, url, rest="lang", camp_site=True, camp_value=12, hours=16)
    assert r.status_code == 200, r.text
    after = r.json()["data"]
    assert after["conditions"] == {"angeschlagen": "angeschlagen"}
    assert (after["lp"], after["wp"], after["gp"]) == (data["lp"], 10, 2)
    events = (await t["player"].get(f"{url}/history")).json()
    assert "kein Regenerieren (Patzer)" in events[0]["detail"], events[0]
    # Bad input at the field, nothing rolled.
    r = await rest(t, url, rest="lang", camp_site=True, hours=999)
    assert r.status_code == 422 and "Zwischen 0 und 240" in r.json()["errors"]["rest"]


async def test_the_sheet_form_rests_without_javascript(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "hh")
    url, page = await hurt_hero(t)
    sheet = (await t["player"].get(page)).text
    assert 'data-rest="kurz"' in sheet and 'data-rest="lang"' in sheet
    assert 'name="camp_site"' in sheet and 'name="hours"' in sheet
    assert 'data-rest="kurz"' not in (await t["player2"].get(page)).text
    app.state.ctx.roller = ScriptedRoller([3, 4, 6])
    r = await t["player"].post(f"{page}/rest", data={"rest": "kurz", "hours": ""})
    assert r.status_code == 303, r.text
    sheet = (await t["player"].get(page)).text
    assert "Kurze Rast, Tag 1, 08:00 – Tag 1, 08:30" in sheet
    assert "Würfe: Kurze Rast (Tag 1, 08:00): Unbeugsamkeit 2W10: 3 + 4 = 7" in sheet
    # A refusal comes back with the sheet and the message at the rest buttons (German).
    r = await t["player"].post(f"{page}/rest", data={"rest": "lang", "hours": "1"})
    assert r.status_code == 422 and 'id="rest-error"' in r.text
    assert "Lagerplatz" in r.text, r.text
    assert (await t["player"].get(url)).json()["data"]["wp"] == 9


def test_the_sheet_keeps_the_last_rests_only() -> None:
    """Old records go (``REST_RECORDS_KEPT``); the clock runs on from the last one kept."""
    data = SYSTEM.default_data("pc")
    data["rests"] = [{"kind": "lang", "start": 480 + day * 1440} for day in range(6)]
    result = SYSTEM.rest(
        ScriptedRoller([9, 9]), data, [], "lang", {"camp_site": "on", "hours": "16"}, {}
    )
    assert not isinstance(result, str), result
    records = result.changes["rests"]
    assert isinstance(records, list), records
    assert len(records) == REST_RECORDS_KEPT and records[0]["start"] == 480 + 1440
    assert (records[-1]["kind"], records[-1]["start"]) == ("lang", 480 + 6 * 1440), records
    assert all("detail" not in r for r in records[:-1])
    assert result.detail.startswith("Lange Rast (Tag 7, 08:00): Unbeugsamkeit 2W10: 9 + 9")


async def test_a_healer_tends_the_hero_during_the_kurze_rast(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Another character's Heilkunde during the rest (hh.md §10): QS × 2 LP on a Kurze Rast,
    the healer's value and conditions from the healer's own sheet, in the rule text."""
    t = await make_table(make_client, app, "hh")
    url, _page = await hurt_hero(t)
    healer = await create(t, name="Brida")
    r = await t["player"].patch(
        f"{t.api}/characters/{healer['id']}",
        json={"changes": {"skills.Heilkunde": 12}, "version": healer["version"]},
    )
    assert r.status_code == 200, r.text
    # Unbeugsamkeit 15: 9 + 9 = 18 → no regeneration; Heilkunde 12: 2 + 3 = 5 → Erfolg.
    roller = ScriptedRoller([9, 9, 2, 3])
    app.state.ctx.roller = roller
    r = await rest(t, url, rest="kurz", healer_id=healer["id"])
    assert r.status_code == 200, r.text
    assert roller.remaining == 0
    [record] = r.json()["data"]["rests"]
    assert "Heilkunde (Brida) 12; 2W10: 2 + 3 = 5 ≤ 12 → Erfolg" in record["detail"], record
    gained = int(record["detail"].rsplit("→ +", 1)[1].split(" LP")[0])
    assert gained >= 2 and r.json()["data"]["lp"] == 10 + gained
    # Nobody else's sheet: refused at the rest, nothing rolled.
    app.state.ctx.roller = ScriptedRoller([])
    r = await rest(t, url, rest="kurz", hours=3, healer_id=999_999)
    assert r.status_code == 422 and "rest" in r.json()["errors"], r.text
