"""What the heroes know (issue 16): bestiary facts hidden from players until revealed by the
GM or by a knowledge check from the sheet (H&H one fact per QS, PF2e Wissen abrufen by
degree with a false fact the GM confirms, DS4 GEI+VE), per viewer on every channel."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.campaigns.models import Campaign
from app.core.viewer import Role, Viewer
from app.events.models import CampaignEvent
from app.events.service import project
from app.rules.dice import ScriptedRoller
from tests.api.helpers import Table, make_table
from tests.conftest import ClientFactory

ROLE_OF = {"gm": Role.gm, "player": Role.player, "observer": Role.observer}


async def seen_by(app: FastAPI, t: Table, kind: str) -> dict[str, list[dict[str, Any]]]:
    """Per role, the payloads of the ``kind`` events it receives (``project``: the one
    filter of pages, pushes, the JSON stream and its replay)."""
    async with app.state.ctx.sessionmaker() as session:
        events = list(
            (await session.scalars(select(CampaignEvent).where(CampaignEvent.type == kind))).all()
        )
    out = {}
    for role, r in ROLE_OF.items():
        shown = project(events, Viewer(t.ids[role], role, r))
        out[role] = [v.event.payload for v in shown if not v.redacted]
    return out


def base(t: Table) -> str:
    return f"/api/v1/campaigns/{t.campaign_id}"


async def entry(t: Table, name: str, data: dict[str, Any]) -> int:
    r = await t.gm.post(f"{base(t)}/bestiary", json={"name": name, "data": data})
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


async def knows(client: httpx.AsyncClient, t: Table, eid: int) -> list[str]:
    """The fact texts the client may see (empty when the entry is hidden to them: 404)."""
    r = await client.get(f"{base(t)}/bestiary/{eid}/knowledge")
    if r.status_code == 404:
        return []
    assert r.status_code == 200, r.text
    return [f["text"] for f in r.json()["facts"]]


async def hero(t: Table, client: httpx.AsyncClient, name: str) -> int:
    r = await client.post(f"{base(t)}/characters", json={"name": name, "kind": "pc"})
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


async def running_fight(t: Table, eid: int, *, hidden: bool = False) -> int:
    r = await t.gm.post(f"{base(t)}/encounters", json={"name": "Höhle"})
    enc = r.json()["id"]
    r = await t.gm.post(
        f"{base(t)}/encounters/{enc}/participants",
        json={"entry_id": eid, "count": 2, "hidden": hidden},
    )
    assert r.status_code == 201, r.text
    r = await t.gm.post(f"{base(t)}/encounters/{enc}/actions/start", json={})
    assert r.status_code == 200, r.text
    return int(enc)


TROLL = {
    "monsterstufe": 14, "gefahr": "hoch", "lp": 61, "rs": 3, "verteidigung": 9,
    "unbeugsamkeit": 14, "resistenzen": {"Feuer": "vulnerable"}, "waffe": "Keule",
}  # fmt: skip


@pytest.fixture
async def hh(make_client: ClientFactory, app: FastAPI) -> tuple[Table, int]:
    t = await make_table(make_client, app, "hh")
    return t, await entry(t, "Höhlentroll", TROLL)


async def test_players_know_nothing_until_the_gm_reveals(hh: tuple[Table, int]) -> None:
    t, eid = hh
    for client in (t.player, t.observer):
        assert await knows(client, t, eid) == []
    for client in (t.outsider, t.anonymous):
        r = await client.get(f"{base(t)}/bestiary/{eid}/knowledge")
        assert r.status_code in (401, 404), r.text
    gm = (await t.gm.get(f"{base(t)}/bestiary/{eid}/knowledge")).json()
    assert [f["key"] for f in gm["facts"]][:4] == ["name", "type", "lp", "rs"]
    assert not any(f["party"] for f in gm["facts"])

    r = await t.gm.post(
        f"{base(t)}/bestiary/{eid}/reveal", json={"facts": ["res:Feuer", "lp"], "to": "party"}
    )
    assert r.status_code == 200, r.text
    assert r.json()["revealed"] == ["res:Feuer", "lp"]
    # In the system's order, in the words players read; nothing else of the entry.
    assert await knows(t.player, t, eid) == ["LP ~60", "verwundbar gegen Feuer"]
    assert await knows(t.observer, t, eid) == ["LP ~60", "verwundbar gegen Feuer"]
    body = (await t.player.get(f"{base(t)}/bestiary/{eid}/knowledge")).text
    for secret in ("Höhlentroll", "61", "Keule", "Verteidigung", "RS 3"):
        assert secret not in body
    # Again: nothing new, no event.
    r = await t.gm.post(f"{base(t)}/bestiary/{eid}/reveal", json={"facts": ["lp"]})
    assert r.json()["revealed"] == []


async def test_a_reveal_to_one_player_reaches_only_them(
    make_client: ClientFactory, app: FastAPI, hh: tuple[Table, int]
) -> None:
    t, eid = hh
    r = await t.gm.post(
        f"{base(t)}/bestiary/{eid}/reveal", json={"facts": ["name"], "to": [t.ids["player"]]}
    )
    assert r.status_code == 200, r.text
    assert await knows(t.player, t, eid) == ["Höhlentroll"]
    assert await knows(t.observer, t, eid) == []
    # The event reaches its audience only.
    seen = await seen_by(app, t, "knowledge_revealed")
    told = [{"key": "name", "text": "Höhlentroll"}]
    assert (
        seen["player"]
        == seen["gm"]
        == [{"actor_name": "gm_user", "entry_id": eid, "facts": told, "to": [t.ids["player"]]}]
    )
    assert seen["observer"] == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"facts": [], "to": "party"}, "facts"),
        ({"facts": ["nope"], "to": "party"}, "facts"),
        ({"facts": ["lp"], "to": []}, "to"),
        ({"facts": ["lp"], "to": [999_999]}, "to"),
    ],
)
async def test_reveal_refuses_bad_input_at_the_field(
    hh: tuple[Table, int], body: dict[str, Any], field: str
) -> None:
    t, eid = hh
    r = await t.gm.post(f"{base(t)}/bestiary/{eid}/reveal", json=body)
    assert r.status_code == 422, r.text
    assert field in r.text
    assert await knows(t.player, t, eid) == []


async def test_only_gms_reveal(hh: tuple[Table, int]) -> None:
    t, eid = hh
    url = f"{base(t)}/bestiary/{eid}/reveal"
    body = {"facts": ["lp"], "to": "party"}
    assert (await t.player.post(url, json=body)).status_code == 403
    assert (await t.observer.post(url, json=body)).status_code == 403
    assert (await t.outsider.post(url, json=body)).status_code == 404
    assert (await t.anonymous.post(url, json=body)).status_code == 401
    assert (await t.gm.post(f"{base(t)}/bestiary/999999/reveal", json=body)).status_code == 404
    assert await knows(t.player, t, eid) == []


async def test_hh_probe_reveals_one_fact_per_qs(app: FastAPI, hh: tuple[Table, int]) -> None:
    t, eid = hh
    alrik = await hero(t, t.player, "Alrik")
    await running_fight(t, eid)
    # 2W10 3 + 2 = 5 against a Fertigkeit: success with some QS.
    app.state.ctx.roller = ScriptedRoller([3, 2])
    r = await t.player.post(
        f"{base(t)}/characters/{alrik}/roll",
        json={"target": "skill:Spürsinn", "modifier": 10, "knowledge_of": eid},
    )
    assert r.status_code == 201, r.text
    qs = r.json()["outcome"]["qs"]
    assert qs >= 1
    learned = await knows(t.player, t, eid)
    assert len(learned) == qs
    assert learned[0] == "Höhlentroll"  # the system's order: name first
    assert await knows(t.observer, t, eid) == learned  # the party option (default)


async def test_the_gm_names_the_fertigkeit(app: FastAPI, hh: tuple[Table, int]) -> None:
    t, eid = hh
    r = await t.gm.put(
        f"{base(t)}/bestiary/{eid}",
        json={"name": "Höhlentroll", "data": {**TROLL, "wissen": "Spürsinn"}},
    )
    assert r.status_code == 200, r.text
    alrik = await hero(t, t.player, "Alrik")
    await running_fight(t, eid)
    app.state.ctx.roller = ScriptedRoller([3, 2])
    r = await t.player.post(
        f"{base(t)}/characters/{alrik}/roll",
        json={"target": "skill:Heilkunde", "knowledge_of": eid},
    )
    assert r.status_code == 422 and "Spürsinn" in r.text


async def test_a_check_needs_a_creature_the_hero_met(app: FastAPI, hh: tuple[Table, int]) -> None:
    t, eid = hh
    alrik = await hero(t, t.player, "Alrik")
    url = f"{base(t)}/characters/{alrik}/roll"
    for knowledge_of in (eid, 999_999):  # not faced yet; no such entry: the same answer
        r = await t.player.post(
            url, json={"target": "skill:Spürsinn", "knowledge_of": knowledge_of}
        )
        assert r.status_code == 422 and "knowledge_of" in r.text
    await running_fight(t, eid, hidden=True)  # a hidden figure is not met either
    r = await t.player.post(url, json={"target": "skill:Spürsinn", "knowledge_of": eid})
    assert r.status_code == 422
    r = await t.player.post(url, json={"target": "skill:Spürsinn", "knowledge_of": 0})
    assert r.status_code == 422


async def test_check_to_the_player_alone_under_the_campaign_option(
    app: FastAPI, hh: tuple[Table, int]
) -> None:
    t, eid = hh
    async with app.state.ctx.sessionmaker() as session:
        version = (await session.get(Campaign, t.campaign_id)).version
    r = await t.gm.post(
        f"/campaigns/{t.campaign_id}/settings", data={"version": version, "knowledge_to": "self"}
    )
    assert r.status_code == 303, r.text
    alrik = await hero(t, t.player, "Alrik")
    await running_fight(t, eid)
    app.state.ctx.roller = ScriptedRoller([3, 2])
    r = await t.player.post(
        f"{base(t)}/characters/{alrik}/roll",
        json={"target": "skill:Spürsinn", "modifier": 10, "knowledge_of": eid},
    )
    assert r.status_code == 201, r.text
    assert await knows(t.player, t, eid)
    assert await knows(t.observer, t, eid) == []


# --- PF2e -------------------------------------------------------------------------------------


@pytest.fixture
async def pf2e(make_client: ClientFactory, app: FastAPI) -> tuple[Table, int, int]:
    t = await make_table(make_client, app, "pf2e")
    r = await t.gm.post(f"{base(t)}/bestiary/samples")
    wolf = next(e["id"] for e in r.json() if e["name"] == "Wolf")
    await running_fight(t, wolf)
    return t, wolf, await hero(t, t.player, "Valeros")


async def recall(app: FastAPI, t: Table, character: int, wolf: int, d20: int) -> httpx.Response:
    app.state.ctx.roller = ScriptedRoller([d20])
    return await t.player.post(
        f"{base(t)}/characters/{character}/roll",
        json={"target": "skill:Naturkunde", "knowledge_of": wolf},
    )


@pytest.mark.parametrize(("d20", "facts"), [(20, 2), (15, 1), (5, 0)])
async def test_pf2e_recall_knowledge_by_degree(
    app: FastAPI, pf2e: tuple[Table, int, int], d20: int, facts: int
) -> None:
    """Wolf: Stufe 1, SG 15; an untrained +0 hero: 20 → critical success (natural 20 and
    ≥ SG), 15 → success, 5 → failure."""
    t, wolf, valeros = pf2e
    r = await recall(app, t, valeros, wolf, d20)
    assert r.status_code == 201, r.text
    # A Verdeckter Wurf (the default option): the player's answer tells nothing.
    assert r.json()["secret"] is True and r.json()["dice"] is None and r.json()["total"] is None
    assert len(await knows(t.player, t, wolf)) == facts
    gm_log = (await t.gm.get(f"{base(t)}/rolls")).text
    assert '"dc":15' in gm_log.replace(" ", "")


async def test_pf2e_critical_failure_waits_for_the_gm(
    app: FastAPI, pf2e: tuple[Table, int, int]
) -> None:
    t, wolf, valeros = pf2e
    r = await recall(app, t, valeros, wolf, 1)
    assert r.status_code == 201, r.text
    assert await knows(t.player, t, wolf) == []
    gm = (await t.gm.get(f"{base(t)}/bestiary/{wolf}/knowledge")).json()
    (false,) = gm["false_facts"]
    assert false["pending"] and false["key"] == "tp" and false["text"] != "TP ~25"
    seen = await seen_by(app, t, "knowledge_false_pending")
    assert seen["player"] == seen["observer"] == [] and len(seen["gm"]) == 1
    url = f"{base(t)}/bestiary/{wolf}/knowledge/{false['id']}/confirm"
    assert (await t.player.post(url, json={})).status_code == 403
    assert (await t.gm.post(url, json={"text": " "})).status_code == 422
    assert (await t.gm.post(url, json={"version": 99})).status_code == 409
    r = await t.gm.post(url, json={"text": "TP ~80", "version": false["version"]})
    assert r.status_code == 200, r.text
    assert await knows(t.player, t, wolf) == ["TP ~80"]
    assert (await t.gm.post(url, json={})).status_code == 404  # no longer pending
    # The truth, revealed later, wins over the false fact.
    await t.gm.post(f"{base(t)}/bestiary/{wolf}/reveal", json={"facts": ["tp"]})
    assert await knows(t.player, t, wolf) == ["TP ~25"]


async def test_revealed_values_let_the_forecast_use_them(hh: tuple[Table, int]) -> None:
    """H&H: the forecast needs Verteidigung, RS, LP, Unbeugsamkeit and the resistances;
    until all are revealed to the player it names them unknown."""
    t, troll = hh
    alrik = await hero(t, t.player, "Alrik")
    enc = await running_fight_with_hero(t, troll, alrik)
    view = (await t.player.get(f"{base(t)}/encounters/{enc}")).json()
    pids = {p["name"]: p["pid"] for p in view["participants"]}
    troll_pid = next(pid for name, pid in pids.items() if name.startswith("Höhlentroll"))
    body = {"actor_id": pids["Alrik"], "target_id": troll_pid}
    url = f"{base(t)}/encounters/{enc}/forecast"
    r = await t.player.post(url, json=body)
    assert r.status_code == 200, r.text
    assert r.json()["p_hit"] is None and "RS" in r.json()["unknown"]
    reveal = f"{base(t)}/bestiary/{troll}/reveal"
    await t.gm.post(reveal, json={"facts": ["verteidigung", "rs", "lp", "unbeugsamkeit"]})
    assert (await t.player.post(url, json=body)).json()["p_hit"] is None  # resistances unknown
    await t.gm.post(reveal, json={"facts": ["res:Feuer"]})
    out = (await t.player.post(url, json=body)).json()
    assert out["p_hit"] is not None and out["unknown"] == []
    # The combat view shows what they know, and only that.
    view = (await t.player.get(f"{base(t)}/encounters/{enc}")).json()
    row = next(p for p in view["participants"] if p["pid"] == troll_pid)
    assert row["known"] == [
        "LP ~60", "RS 3", "verwundbar gegen Feuer", "Verteidigung 9", "Unbeugsamkeit 14"
    ]  # fmt: skip
    page = (await t.player.get(f"/campaigns/{t.campaign_id}/encounters/{enc}")).text
    assert "verwundbar gegen Feuer" in page and "Keule" not in page
    assert "Keule" in (await t.gm.get(f"{base(t)}/bestiary/{troll}/knowledge")).text


async def running_fight_with_hero(t: Table, entry_id: int, character: int) -> int:
    r = await t.gm.post(f"{base(t)}/encounters", json={"name": "Wald"})
    enc = r.json()["id"]
    for body in ({"entry_id": entry_id}, {"character_id": character}):
        r = await t.gm.post(f"{base(t)}/encounters/{enc}/participants", json=body)
        assert r.status_code == 201, r.text
    r = await t.gm.post(f"{base(t)}/encounters/{enc}/actions/start", json={})
    assert r.status_code == 200, r.text
    return int(enc)


# --- DS4 --------------------------------------------------------------------------------------


async def test_ds4_gei_ve_check(make_client: ClientFactory, app: FastAPI) -> None:
    t = await make_table(make_client, app, "ds4")
    r = await t.gm.post(f"{base(t)}/bestiary/samples")
    ork = next(e["id"] for e in r.json() if e["name"] == "Ork")
    await running_fight(t, ork)
    hero_id = await hero(t, t.player, "Thorin")
    url = f"{base(t)}/characters/{hero_id}/roll"
    r = await t.player.post(url, json={"target": "kampfwert:schlagen", "knowledge_of": ork})
    assert r.status_code == 422 and "GEI" in r.text
    app.state.ctx.roller = ScriptedRoller([2])
    r = await t.player.post(url, json={"target": "probe:geist:verstand", "knowledge_of": ork})
    assert r.status_code == 201, r.text
    assert r.json()["outcome"]["success"]
    assert await knows(t.player, t, ork) == ["Ork"]
