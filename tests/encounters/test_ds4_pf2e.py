"""API tests: a DS4 and a PF2e encounter from the start to a defeated monster."""

from __future__ import annotations

from fastapi import FastAPI

from tests.conftest import ClientFactory
from tests.encounters.helpers import add_character, make_fight, script


async def test_ds4_fight_to_a_defeated_goblin(make_client: ClientFactory, app: FastAPI) -> None:
    fight = await make_fight(make_client, app, "ds4")
    gm, player = fight.gm, fight.players[0]
    cid = fight.campaign_id
    await add_character(
        app, fight, "p0", "Alrik",
        {"lk": 20, "koerper": 8, "abwehr": 8, "initiative": 8, "schlagen": 12, "ga": 0}, "ds4",
    )  # fmt: skip
    r = await gm.post(f"/api/v1/campaigns/{cid}/bestiary/samples")
    assert r.status_code == 201
    goblin = next(e for e in r.json() if e["name"] == "Goblin")
    assert goblin["sample"] is True
    r = await gm.post(f"/api/v1/campaigns/{cid}/encounters", json={"name": "Goblinhöhle"})
    assert r.status_code == 201, r.text
    fight.encounter_id = r.json()["id"]
    r = await gm.post(
        f"{fight.base}/participants", json={"character_id": fight.characters["Alrik"]}
    )
    assert r.status_code == 201, r.text
    r = await gm.post(f"{fight.base}/participants", json={"entry_id": goblin["id"], "count": 1})
    assert [p["name"] for p in r.json()] == ["Goblin 1"]
    # A player cannot see a prepared encounter.
    assert (await player.get(fight.base)).status_code == 404

    script(app)  # Initiative 8 vs 7: no Stechen, no dice.
    view = await fight.act(gm, "start")
    assert view["status"] == "running"
    assert view["turn"]["name"] == "Alrik"
    goblin_pid = fight.pid(view, "Goblin 1")

    # Alrik (Schlagen 12) rolls 9 → 9 damage; the goblin's Abwehr 4 fails with 15.
    script(app, 9, 15)
    pview = await fight.act(player, "attack", target=goblin_pid)
    goblin_row = next(p for p in pview["participants"] if p["pid"] == goblin_pid)
    assert goblin_row["status"] == "down"
    assert goblin_row["points"] is None  # exact LK of an NSC are GM-only
    gview = await fight.view(gm)
    assert next(p for p in gview["participants"] if p["pid"] == goblin_pid)["points"] == "-2/7 LK"

    r = await player.get(f"{fight.base}/log")
    texts = [line["text"] for e in r.json() for line in e["lines"]]
    assert any("9" in t and "Goblin 1" in t for t in texts), texts
    # The unconscious goblin's turn is skipped: round 2 starts with Alrik again.
    view = await fight.act(player, "next")
    assert (view["round"], view["turn"]["name"]) == (2, "Alrik")
    # Only the GM may change LK by hand, with a reason.
    await fight.act(player, "adjust", 403, participant=goblin_pid, delta=-3, reason="Fall")
    await fight.act(gm, "adjust", 422, participant=goblin_pid, delta=-3, reason="")
    await fight.act(gm, "adjust", participant=goblin_pid, delta=-3, reason="Fall")
    gview = await fight.view(gm)
    assert next(p for p in gview["participants"] if p["pid"] == goblin_pid)["status"] == "dead"


async def test_pf2e_fight_with_map_and_basic_save(make_client: ClientFactory, app: FastAPI) -> None:
    fight = await make_fight(make_client, app, "pf2e")
    gm, player = fight.gm, fight.players[0]
    cid = fight.campaign_id
    await add_character(
        app, fight, "p0", "Valeros",
        {"wahrnehmung": 6, "rk": 18, "tp": 20, "reflex": 5, "wille": 3, "zaehigkeit": 7,
         "angriffe": [{"name": "Langschwert", "bonus": 9, "schaden": "1W8+4"}]},
        "pf2e",
    )  # fmt: skip
    r = await gm.post(f"/api/v1/campaigns/{cid}/bestiary/samples")
    goblin = next(e for e in r.json() if e["name"] == "Goblin-Krieger")
    r = await gm.post(f"/api/v1/campaigns/{cid}/encounters", json={"name": "Überfall"})
    fight.encounter_id = r.json()["id"]
    await gm.post(f"{fight.base}/participants", json={"character_id": fight.characters["Valeros"]})
    await gm.post(f"{fight.base}/participants", json={"entry_id": goblin["id"], "count": 2})

    # Wahrnehmung: Valeros 10+6=16, Goblin 1 14+2=16 (adversary wins the tie), Goblin 2 1+2.
    script(app, 10, 14, 1)
    view = await fight.act(gm, "start")
    order = [p["name"] for p in view["participants"]]
    assert order[:2] == ["Goblin-Krieger 1", "Valeros"], order
    g1, g2 = fight.pid(view, "Goblin-Krieger 1"), fight.pid(view, "Goblin-Krieger 2")
    valeros = fight.pid(view, "Valeros")

    # Goblin 1 strikes Valeros with the agile Hundeschlitzer: 5+8 = 13 < RK 18, a miss.
    script(app, 5)
    await fight.act(gm, "attack", target=valeros, strike=0)
    script(app)
    await fight.act(gm, "next")

    # Valeros: 1st Strike 15+9=24 vs RK 16 → crit (≥26? no: hit), damage 1W8+4 = 3+4 = 7
    # → Goblin 1 (6 TP) is down. 2nd Strike at −5: 8+9−5 = 12 < 16 misses Goblin 2.
    script(app, 15, 3)
    view = await fight.act(player, "attack", target=g1, strike=0)
    assert next(p for p in view["participants"] if p["pid"] == g1)["status"] == "dead"
    script(app, 8)
    await fight.act(player, "attack", target=g2, strike=0)
    r = await gm.get(f"{fight.base}/log")
    details = [d for e in r.json() for line in e["lines"] for d in line["details"]]
    assert any("1W20: 8 +4 = 12" in d for d in details), details  # +9 with MAP −5

    # The GM calls a Reflex save DC 20 with 2W6 basic damage: 6+6 = 12; Goblin 2 rolls
    # 1 → 1+7 = 8, a critical failure (≤ 10) → double damage 24 → defeated.
    script(app, 6, 6, 1)
    view = await fight.act(gm, "save", targets=[g2], save="reflex", dc=20, damage="2W6")
    assert next(p for p in view["participants"] if p["pid"] == g2)["status"] == "dead"
    # Undo restores Goblin 2; the log keeps the entry, marked.
    view = await fight.act(gm, "undo")
    assert next(p for p in view["participants"] if p["pid"] == g2)["status"] == "fine"
    r = await player.get(f"{fight.base}/log")
    assert any(e["undone"] for e in r.json())


async def test_ds4_attack_immersieg_rolls_no_abwehr(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """ds4.md §2: Alrik's Immersieg (a 1) deals its full PW; the goblin rolls no Abwehr."""
    fight = await make_fight(make_client, app, "ds4")
    gm, player = fight.gm, fight.players[0]
    cid = fight.campaign_id
    await add_character(
        app, fight, "p0", "Alrik",
        {"lk": 20, "koerper": 8, "abwehr": 8, "initiative": 8, "schlagen": 12, "ga": 0}, "ds4",
    )  # fmt: skip
    r = await gm.post(f"/api/v1/campaigns/{cid}/bestiary/samples")
    goblin = next(e for e in r.json() if e["name"] == "Goblin")
    r = await gm.post(f"/api/v1/campaigns/{cid}/encounters", json={"name": "Höhle"})
    fight.encounter_id = r.json()["id"]
    await gm.post(f"{fight.base}/participants", json={"character_id": fight.characters["Alrik"]})
    await gm.post(f"{fight.base}/participants", json={"entry_id": goblin["id"], "count": 1})
    script(app)
    view = await fight.act(gm, "start")
    goblin_pid = fight.pid(view, "Goblin 1")

    roller = script(app, 1)  # only the attack die: a second face would be left over
    await fight.act(player, "attack", target=goblin_pid)
    assert roller.remaining == 0
    gview = await fight.view(gm)
    row = next(p for p in gview["participants"] if p["pid"] == goblin_pid)
    assert row["points"] == "-5/7 LK"  # 7 LK − 12 (the full PW of Schlagen 12)
    r = await gm.get(f"{fight.base}/log")
    texts = [line["text"] for e in r.json() for line in e["lines"]]
    assert any("12" in t and "Goblin 1" in t for t in texts), texts
    assert "Immersieg: Goblin 1 würfelt keine Abwehr dagegen." in texts, texts
