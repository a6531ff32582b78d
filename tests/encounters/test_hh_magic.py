"""H&H magic in combat: Fokussieren, Zauber wirken, Kontrollprobe and Kontrollverlust."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from tests.conftest import ClientFactory
from tests.encounters.helpers import Fight, add_character, make_fight, script

SPELLS = [
    {"key": "feuerball", "name": "Feuerball", "grade": "B", "focus": 1, "range": 25,
     "schaden_w": 6, "schaden_bonus": 1},
    {"key": "funke", "name": "Funke", "grade": "C", "focus": 0, "range": 10, "schaden_w": 6},
]  # fmt: skip
ALRIK = {"lp": 20, "rs": 1, "initiative": 10, "angriff": 12, "verteidigung": 11,
         "magiekunde": 12, "unbeugsamkeit": 10, "willenskraft": 9, "schaden_w": 10,
         "schaden_bonus": 1, "zauber": SPELLS}  # fmt: skip


async def magic_fight(make_client: ClientFactory, app: FastAPI) -> tuple[Fight, dict[str, str]]:
    fight = await make_fight(make_client, app, "hh", players=1, prefix="magic")
    gm = fight.gm
    await add_character(app, fight, "p0", "Alrik", ALRIK, "hh")
    r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/bestiary/samples")
    goblin = next(e for e in r.json() if e["name"] == "Goblin")
    r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/encounters", json={"name": "Zauber"})
    fight.encounter_id = r.json()["id"]
    r = await gm.post(
        f"{fight.base}/participants", json={"character_id": fight.characters["Alrik"]}
    )
    assert r.status_code == 201, r.text
    await gm.post(f"{fight.base}/participants", json={"entry_id": goblin["id"]})
    script(app)
    view = await fight.act(gm, "start")
    assert view["turn"]["name"] == "Alrik"
    return fight, {p["name"]: str(p["pid"]) for p in view["participants"]}


def row(view: dict[str, Any], name: str) -> dict[str, Any]:
    return next(p for p in view["participants"] if p["name"] == name)


async def log_text(fight: Fight) -> str:
    r = await fight.gm.get(f"{fight.base}/log")
    assert r.status_code == 200, r.text
    return r.text


async def test_focus_then_cast_gets_the_qs_bonus(make_client: ClientFactory, app: FastAPI) -> None:
    fight, pids = await magic_fight(make_client, app)
    alrik = fight.players[0]
    page = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}"
    r = await alrik.get(page)
    assert 'id="focus-button"' in r.text and 'id="cast-button"' in r.text
    script(app)
    view = await fight.act(alrik, "focus", spell="feuerball")
    assert "Fokus 1 auf Feuerball" in row(view, "Alrik")["extra"]
    r = await alrik.get(page)
    assert "Fokus 1 auf Feuerball" in r.text
    # Wirkprobe Magiekunde 12, 5 Schritt (±0): 3+4 = 7 → QS 2, +1 QS for the focus = 3;
    # damage 3W6+1 − RS 1: 1+2+3 = 6 → Goblin 1 at 6/12 LP and «angeschlagen».
    # Fokussieren was this step's Handlung (hh.md §5): casting now needs the GM's override.
    await fight.act(alrik, "cast", 422, spell="feuerball", target=pids["Goblin 1"], distance=5)
    await fight.act(fight.gm, "grant_action", participant=pids["Alrik"])
    roller = script(app, 3, 4, 1, 2, 3)
    view = await fight.act(alrik, "cast", spell="feuerball", target=pids["Goblin 1"], distance=5)
    assert roller.remaining == 0
    goblin = row(await fight.view(fight.gm), "Goblin 1")
    assert goblin["points"] == "6/12 LP" and "angeschlagen" in goblin["conditions"]
    assert not any("Fokus" in x for x in row(view, "Alrik")["extra"])
    text = await log_text(fight)
    assert "Fokus 1, +1 QS" in text and "Schaden QS 3" in text
    # The focus is spent: Feuerball needs focus again.
    await fight.act(alrik, "cast", 422, spell="feuerball", target=pids["Goblin 1"], distance=5)
    # Out of range and unknown spells are refused before anything is rolled.
    await fight.act(alrik, "cast", 422, spell="funke", target=pids["Goblin 1"], distance=20)
    await fight.act(alrik, "focus", 422, spell="blitz")


async def test_wirkprobe_patzer_rolls_kontrollverlust(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, _pids = await magic_fight(make_client, app)
    alrik = fight.players[0]
    # 7+7 = 14 > 12 with a Pasch: Patzer. Kontrollverlust 2W10 − Fokus 0: 3+4 = 7 →
    # Rückkopplung: 1W10 WP (5) and «angeschlagen».
    roller = script(app, 7, 7, 3, 4, 5)
    view = await fight.act(alrik, "cast", spell="funke")
    assert roller.remaining == 0
    assert "angeschlagen" in row(view, "Alrik")["conditions"]
    text = await log_text(fight)
    assert "Kontrollverlust" in text and "Rückkopplung" in text


async def test_attack_on_a_focusing_caster_forces_a_kontrollprobe(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await magic_fight(make_client, app)
    gm, alrik = fight.gm, fight.players[0]
    script(app)
    await fight.act(alrik, "focus", spell="feuerball")
    view = await fight.act(alrik, "next")
    for _step in range(3):
        if view["turn"]["name"] == "Goblin 1":
            break
        view = await fight.act(gm, "next")
    assert view["turn"]["name"] == "Goblin 1"
    # Goblin 1 attacks: 2+3 = 5 ≤ 10 → QS 1; Alrik does not defend: 1W6+1 − RS 1 = 4.
    script(app, 2, 3)
    await fight.act(gm, "attack", target=pids["Alrik"])
    # Kontrollprobe Willenskraft 9 − 2 × 1 = 7: 5+6 = 11 fails → Kontrollverlust
    # 2W10 − 1: 2+3 − 1 = 4 → Manabrand: «zehrend (WP, Mana)».
    roller = script(app, 4, 5, 6, 2, 3)
    view = await fight.act(alrik, "respond", choice="none")
    assert roller.remaining == 0
    me = row(view, "Alrik")
    assert me["points"] == "16/20 LP"
    assert not any("Fokus" in x for x in me["extra"])
    assert "zehrend (WP, Mana)" in me["conditions"]
    text = await log_text(fight)
    assert "Kontrollprobe" in text and "Manabrand" in text


async def test_kontrollprobe_passed_keeps_control_but_loses_focus(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await magic_fight(make_client, app)
    gm, alrik = fight.gm, fight.players[0]
    script(app)
    await fight.act(alrik, "focus", spell="feuerball")
    # The GM books damage: Kontrollprobe 7: 2+4 = 6 passes; the focus is lost anyway.
    roller = script(app, 2, 4)
    view = await fight.act(gm, "adjust", participant=pids["Alrik"], delta=-3, reason="Falle")
    assert roller.remaining == 0
    me = row(view, "Alrik")
    assert me["points"] == "17/20 LP" and not any("Fokus" in x for x in me["extra"])
    assert "Kontrollprobe" in await log_text(fight)


async def test_spells_are_validated_in_the_stat_block(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await make_fight(make_client, app, "hh", prefix="spellblock")
    url = f"/api/v1/campaigns/{fight.campaign_id}/bestiary"
    bad = {"name": "Hexe", "data": {"zauber": [{"name": "Fluch", "grade": "X", "range": 10}]}}
    r = await fight.gm.post(url, json=bad)
    assert r.status_code == 422, r.text
    r = await fight.gm.post(f"{url}/samples")
    shaman = next(e for e in r.json() if e["name"] == "Goblin-Schamane")
    assert [z["key"] for z in shaman["data"]["zauber"]] == ["feuerball", "schreckensblick"]


async def test_npc_spell_with_magiekunde_defence(make_client: ClientFactory, app: FastAPI) -> None:
    fight = await make_fight(make_client, app, "hh", players=1, prefix="shaman")
    gm, alrik = fight.gm, fight.players[0]
    await add_character(app, fight, "p0", "Alrik", ALRIK, "hh")
    r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/bestiary/samples")
    shaman = next(e for e in r.json() if e["name"] == "Goblin-Schamane")
    r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/encounters", json={"name": "Hexer"})
    fight.encounter_id = r.json()["id"]
    character = {"character_id": fight.characters["Alrik"]}
    assert (await gm.post(f"{fight.base}/participants", json=character)).status_code == 201
    await gm.post(f"{fight.base}/participants", json={"entry_id": shaman["id"]})
    script(app)
    view = await fight.act(gm, "start")
    pids = {p["name"]: str(p["pid"]) for p in view["participants"]}
    for _step in range(3):
        if view["turn"]["name"] == "Goblin-Schamane 1":
            break
        view = await fight.act(gm, "next")
    assert view["turn"]["name"] == "Goblin-Schamane 1"
    # Only the acting figure's controller (here the GM) may cast.
    await fight.act(alrik, "cast", 403, spell="funke")
    # Schreckensblick: Wirkprobe Magiekunde 12: 2+3 = 5; Alrik defends with Magiekunde 12:
    # 8+9 = 17 fails → «entmutigt», one Reaktion used.
    roller = script(app, 2, 3, 8, 9)
    view = await fight.act(gm, "cast", spell="schreckensblick", target=pids["Alrik"], distance=5)
    assert roller.remaining == 0
    me = row(view, "Alrik")
    assert "entmutigt" in me["conditions"] and "Reaktionen 1/2" in me["extra"]
    assert "Verteidigung (Magiekunde)" in await log_text(fight)
