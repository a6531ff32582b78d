"""API tests of PF2e and DS4 in play (issue 13): Sterbend → Genesungswurf → Verwundet,
anhaltender Feuerschaden ending on its Einfacher Wurf, Verängstigt and Kränkelnd counting
down; a DS4 fight with an Immersieg and a Patzer, one Aktion per turn."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from tests.conftest import ClientFactory
from tests.encounters.helpers import Fight, add_character, make_fight, script

VALEROS = {
    "wahrnehmung": 6, "rk": 18, "tp": 20, "reflex": 5, "wille": 3, "zaehigkeit": 7,
    "angriffe": [{"name": "Langschwert", "bonus": 9, "schaden": "1W8+4"}],
}  # fmt: skip


async def pf2e_fight(make_client: ClientFactory, app: FastAPI) -> tuple[Fight, str, str]:
    """Valeros against one Goblin-Krieger; Valeros acts first. Returns (fight, him, goblin)."""
    fight = await make_fight(make_client, app, "pf2e")
    gm = fight.gm
    await add_character(app, fight, "p0", "Valeros", VALEROS, "pf2e")
    r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/bestiary/samples")
    goblin = next(e for e in r.json() if e["name"] == "Goblin-Krieger")
    r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/encounters", json={"name": "Hof"})
    fight.encounter_id = r.json()["id"]
    await gm.post(f"{fight.base}/participants", json={"character_id": fight.characters["Valeros"]})
    await gm.post(f"{fight.base}/participants", json={"entry_id": goblin["id"], "count": 1})
    script(app, 15, 2)  # Wahrnehmung: Valeros 15+6 = 21, the goblin 2+2 = 4
    view = await fight.act(gm, "start")
    assert view["turn"]["name"] == "Valeros"
    return fight, fight.pid(view, "Valeros"), fight.pid(view, "Goblin-Krieger 1")


def _row(view: dict[str, Any], pid: str) -> dict[str, Any]:
    return next(p for p in view["participants"] if p["pid"] == pid)


async def _texts(client: httpx.AsyncClient, fight: Fight) -> list[str]:
    r = await client.get(f"{fight.base}/log")
    return [line["text"] for e in r.json() for line in e["lines"]]


async def _details(client: httpx.AsyncClient, fight: Fight) -> list[str]:
    r = await client.get(f"{fight.base}/log")
    return [d for e in r.json() for line in e["lines"] for d in line["details"]]


async def test_pf2e_dying_recovery_check_and_wounded(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, valeros, goblin = await pf2e_fight(make_client, app)
    gm, player = fight.gm, fight.players[0]
    await fight.act(player, "next")
    # The goblin's turn: Valeros falls to 0 TP → Sterbend 1 (no critical, Verwundet 0).
    view = await fight.act(gm, "adjust", participant=valeros, delta=-20, reason="Fallgrube")
    row = _row(view, valeros)
    assert row["status"] == "down" and "sterbend 1" in row["conditions"], row
    assert "Valeros stürzt: Sterbend 1." in await _texts(player, fight)
    # Valeros' turn begins with the Genesungswurf SG 11: 15 → Erfolg → Sterbend 0,
    # Verwundet 1; he stays unconscious at 0 TP.
    roller = script(app, 15)
    view = await fight.act(gm, "next")
    assert roller.remaining == 0
    assert view["turn"]["name"] == "Valeros"
    row = _row(view, valeros)
    assert row["conditions"] == ["verwundet 1"] and row["status"] == "down", row
    assert any(d.startswith("Genesungswurf SG 11: 1W20: 15") for d in await _details(gm, fight))
    # Unconscious, he cannot strike.
    await fight.act(player, "attack", 422, target=goblin, strike=0)
    # Healed, then knocked out by a critical Strike: Sterbend 2 + Verwundet 1 = 3.
    await fight.act(gm, "adjust", participant=valeros, delta=5, reason="Heiltrank")
    script(app)
    await fight.act(gm, "next")  # the goblin's turn
    script(app, 20, 6)  # 20+8 = 28 ≥ RK 18 + 10: Kritischer Treffer, 6 × 2 = 12 damage
    view = await fight.act(gm, "attack", target=valeros, strike=0)
    assert "sterbend 3" in _row(view, valeros)["conditions"]
    # Genesungswurf SG 13 with a 2: Kritischer Fehlschlag → Sterbend 5 ≥ 4: he dies.
    script(app, 2)
    view = await fight.act(gm, "next")
    row = _row(view, valeros)
    assert row["status"] == "dead" and "tot" in row["conditions"], row
    assert "Valeros stirbt." in await _texts(player, fight)
    # Dead figures get no turn: the round goes on with the goblin only.
    script(app)
    view = await fight.act(gm, "next")
    assert view["turn"]["name"] == "Goblin-Krieger 1"


async def test_pf2e_wounded_on_the_sheet_counts_in_the_fight(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Verwundet outlasts a fight: the sheet's value enters it, and 0 TP then means
    Sterbend 1 + Verwundet 1 = 2; the sheet shows «verwundet 1»."""
    fight = await make_fight(make_client, app, "pf2e", prefix="w")
    gm, player = fight.gm, fight.players[0]
    api = f"/api/v1/campaigns/{fight.campaign_id}"
    r = await player.post(f"{api}/characters", json={"name": "Kyra", "data": {"wounded": 1}})
    assert r.status_code == 201, r.text
    kyra = r.json()
    sheet = (await player.get(f"/campaigns/{fight.campaign_id}/characters/{kyra['id']}")).text
    assert "«verwundet 1»" in sheet
    r = await gm.post(f"{api}/encounters", json={"name": "Gasse"})
    fight.encounter_id = r.json()["id"]
    await gm.post(f"{fight.base}/participants", json={"character_id": kyra["id"]})
    goblin = next(e for e in (await gm.post(f"{api}/bestiary/samples")).json())
    await gm.post(f"{fight.base}/participants", json={"entry_id": goblin["id"], "count": 1})
    script(app, 10, 10)
    view = await fight.act(gm, "start")
    pid = fight.pid(view, "Kyra")
    assert _row(view, pid)["conditions"] == ["verwundet 1"]
    view = await fight.act(gm, "adjust", participant=pid, delta=-99, reason="Sturz")
    assert sorted(_row(view, pid)["conditions"]) == ["sterbend 2", "verwundet 1"]


async def test_pf2e_persistent_fire_ends_on_a_flat_check(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, _valeros, goblin = await pf2e_fight(make_client, app)
    gm, player = fight.gm, fight.players[0]
    await fight.act(gm, "condition", participant=goblin, condition="anhaltender Schaden",
                    cause="1W4 Feuer")  # fmt: skip
    view = await fight.act(gm, "condition", participant=goblin, condition="anhaltender Schaden",
                           cause="1W6 Feuer")  # fmt: skip
    # The same type replaces the first.
    assert _row(view, goblin)["conditions"] == ["anhaltender Schaden 1W6 Feuer"]
    await fight.act(player, "next")
    # End of the goblin's turn: 1W6 = 2, Einfacher Wurf SG 15 with 9 → it goes on.
    roller = script(app, 2, 9)
    view = await fight.act(gm, "next")
    assert roller.remaining == 0
    assert _row(view, goblin)["conditions"] == ["anhaltender Schaden 1W6 Feuer"]
    assert _row(await fight.view(gm), goblin)["points"] == "4/6 TP"
    script(app)
    await fight.act(player, "next")
    # Next time: 1W6 = 1, then 15 ≥ SG 15 ends it.
    script(app, 1, 15)
    view = await fight.act(gm, "next")
    assert _row(view, goblin)["conditions"] == []
    assert _row(await fight.view(gm), goblin)["points"] == "3/6 TP"
    texts = await _texts(player, fight)
    assert "Zugende von Goblin-Krieger 1: 1 anhaltender Schaden, der endet." in texts, texts
    details = await _details(gm, fight)
    assert "Einfacher Wurf gegen SG 15: 1W20: 15 = 15 – Erfolg – endet" in details, details


async def test_pf2e_frightened_counts_down_and_sickened_ends_by_retching(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, valeros, goblin = await pf2e_fight(make_client, app)
    gm, player = fight.gm, fight.players[0]
    await fight.act(gm, "condition", participant=valeros, condition="verängstigt", value=2)
    await fight.act(
        gm, "condition", participant=valeros, condition="kränkelnd", value=2, cause="SG 15"
    )
    # Würgen: Zähigkeit 7 − Kränkelnd 2 − Verängstigt 2 = +3; 12 + 3 = 15 ≥ 15 → Kränkelnd 1.
    script(app, 12)
    view = await fight.act(player, "shake_off", condition="kränkelnd")
    assert sorted(_row(view, valeros)["conditions"]) == ["kränkelnd 1", "verängstigt 2"]
    assert "Valeros würgt: Kränkelnd 2 → 1." in await _texts(player, fight)
    # Not Kränkelnd: nothing to retch against. The goblin may not act in Valeros' turn.
    await fight.act(player, "shake_off", 422, condition="verängstigt")
    view = await fight.act(player, "next")
    assert sorted(_row(view, valeros)["conditions"]) == ["kränkelnd 1", "verängstigt 1"]
    assert "Zugende von Valeros: Verängstigt sinkt auf 1." in await _texts(player, fight)
    # Kränkelnd without a known SG cannot be retched against.
    await fight.act(gm, "condition", participant=goblin, condition="kränkelnd", value=1)
    r = await gm.post(f"{fight.base}/actions/shake_off", json={"condition": "kränkelnd"})
    assert r.status_code == 422 and "SG" in r.text


async def test_ds4_immersieg_patzer_and_one_aktion(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await make_fight(make_client, app, "ds4")
    gm, player = fight.gm, fight.players[0]
    await add_character(
        app, fight, "p0", "Alrik",
        {"lk": 20, "koerper": 8, "abwehr": 8, "initiative": 8, "schlagen": 12, "ga": 0}, "ds4",
    )  # fmt: skip
    r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/bestiary/samples")
    ork = next(e for e in r.json() if e["name"] == "Ork")
    r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/encounters", json={"name": "Wald"})
    fight.encounter_id = r.json()["id"]
    await gm.post(f"{fight.base}/participants", json={"character_id": fight.characters["Alrik"]})
    await gm.post(f"{fight.base}/participants", json={"entry_id": ork["id"], "count": 1})
    script(app)
    view = await fight.act(gm, "start")
    ork_pid, alrik = fight.pid(view, "Ork 1"), fight.pid(view, "Alrik")
    assert view["turn"]["name"] == "Alrik", view["turn"]
    lk_before = int(_row(await fight.view(gm), ork_pid)["points"].split("/")[0])
    # Immersieg (a 1): the full PW 12 as damage, the Ork rolls no Abwehr (one die only).
    roller = script(app, 1)
    await fight.act(player, "attack", target=ork_pid)
    assert roller.remaining == 0
    lk_after = int(_row(await fight.view(gm), ork_pid)["points"].split("/")[0])
    assert lk_before - lk_after == 12
    assert "Immersieg: Ork 1 würfelt keine Abwehr dagegen." in await _texts(player, fight)
    # One Aktion per turn: a second attack is refused.
    await fight.act(player, "attack", 422, target=ork_pid)
    await fight.act(player, "next")
    script(app)
    await fight.act(gm, "next")
    # A Patzer (20): Alrik drops the weapon; until he picks it up he cannot strike.
    script(app, 20)
    view = await fight.act(player, "attack", target=ork_pid)
    assert "Waffe fallen gelassen" in _row(view, alrik)["conditions"]
    assert "Patzer: Alrik lässt die Waffe fallen." in await _texts(player, fight)
    await fight.act(player, "next")
    script(app)
    await fight.act(gm, "next")
    await fight.act(player, "attack", 422, target=ork_pid)
    view = await fight.act(player, "shake_off", condition="Waffe fallen gelassen")
    assert "Waffe fallen gelassen" not in _row(view, alrik)["conditions"]
    await fight.act(player, "attack", 422, target=ork_pid)  # picking it up was the Aktion


async def test_pf2e_secret_save_with_fortune(make_client: ClientFactory, app: FastAPI) -> None:
    """Seed 002: the GM rolls a Verdeckter Wurf; Glück keeps the higher of two W20; the
    players see only that it was rolled; Glück and Unglück together cancel (one die)."""
    fight, valeros, _goblin = await pf2e_fight(make_client, app)
    gm, player = fight.gm, fight.players[0]
    roller = script(app, 3, 17)  # Glück: 3 and 17, the 17 counts: 17 + 7 = 24 ≥ 20
    await fight.act(gm, "save", targets=[valeros], save="zaehigkeit", dc=20, fortune=True,
                    secret=True)  # fmt: skip
    assert roller.remaining == 0
    gm_details = await _details(gm, fight)
    assert "Zähigkeit: 2W20: (3) + 17 +7 = 24 gegen Zähigkeit-SG 20 – Erfolg" in gm_details
    texts = await _texts(player, fight)
    assert "Die Spielleitung hat einen Verdeckten Wurf gewürfelt." in texts, texts
    assert not any("Zähigkeit" in t for t in texts + await _details(player, fight))
    roller = script(app, 4)  # both cancel: one die
    await fight.act(gm, "save", targets=[valeros], save="zaehigkeit", dc=20, fortune=True,
                    misfortune=True)  # fmt: skip
    assert roller.remaining == 0
