"""H&H combat over the API: the defender's prompt, hidden participants, GM-only rolls."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from tests.conftest import ClientFactory
from tests.encounters.helpers import Fight, add_character, make_fight, script

ALRIK = {"lp": 20, "rs": 1, "initiative": 10, "angriff": 12, "verteidigung": 11,
         "unbeugsamkeit": 10, "willenskraft": 9, "schaden_w": 10, "schaden_bonus": 1, "gp": 2,
         "glueck": 8}  # fmt: skip
BRIDA = {**ALRIK, "initiative": 8}


async def hh_fight(make_client: ClientFactory, app: FastAPI) -> tuple[Fight, dict[str, str]]:
    fight = await make_fight(make_client, app, "hh", players=2)
    gm = fight.gm
    await add_character(app, fight, "p0", "Alrik", ALRIK, "hh")
    await add_character(app, fight, "p1", "Brida", BRIDA, "hh")
    r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/bestiary/samples")
    goblin = next(e for e in r.json() if e["name"] == "Goblin")
    r = await gm.post(
        f"/api/v1/campaigns/{fight.campaign_id}/encounters", json={"name": "Hinterhalt"}
    )
    fight.encounter_id = r.json()["id"]
    for name in ("Alrik", "Brida"):
        r = await gm.post(
            f"{fight.base}/participants", json={"character_id": fight.characters[name]}
        )
        assert r.status_code == 201, r.text
    await gm.post(f"{fight.base}/participants", json={"entry_id": goblin["id"]})
    r = await gm.post(f"{fight.base}/participants", json={"entry_id": goblin["id"], "hidden": True})
    assert r.json()[0]["name"] == "Goblin 2"
    script(app)
    view = await fight.act(gm, "start")
    pids = {p["name"]: str(p["pid"]) for p in view["participants"]}
    return fight, pids


async def assert_never_seen(client: httpx.AsyncClient, fight: Fight, *secrets: str) -> None:
    for url in (
        fight.base,
        f"{fight.base}/log",
        f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}",
        f"/api/v1/campaigns/{fight.campaign_id}/rolls",
    ):
        r = await client.get(url)
        assert r.status_code == 200, (url, r.text)
        for secret in secrets:
            assert secret not in r.text, (url, secret)


async def test_hh_round_with_defence_prompt(make_client: ClientFactory, app: FastAPI) -> None:
    fight, pids = await hh_fight(make_client, app)
    gm, alrik, brida = fight.gm, fight.players[0], fight.players[1]
    view = await fight.view(alrik)
    assert view["turn"]["name"] == "Alrik" and view["turn"]["step"] == 10
    assert "Goblin 2" not in [p["name"] for p in view["participants"]]

    # Alrik attacks Goblin 1: 3+4 = 7 ≤ 12, QS 2 → the goblin may defend: the GM answers.
    script(app, 3, 4)
    view = await fight.act(alrik, "attack", target=pids["Goblin 1"])
    assert view["pending"]["target"] == "Goblin 1"
    await fight.act(brida, "respond", 422, choice="defend")
    # Verteidigung 8: 6+5 = 11 fails → 2 damage dice W6+1 − RS 1: 4+5 = 9 → LP 3.
    script(app, 6, 5, 4, 5)
    view = await fight.act(gm, "respond", choice="defend")
    g1 = next(p for p in view["participants"] if p["name"] == "Goblin 1")
    assert view["pending"] is None
    assert g1["points"] == "3/12 LP" and "angeschlagen" in g1["conditions"]
    pview = await fight.view(alrik)
    g1p = next(p for p in pview["participants"] if p["name"] == "Goblin 1")
    assert g1p["points"] is None and g1p["status_label"] == "angeschlagen"

    view = await fight.act(alrik, "next")
    assert view["turn"]["name"] == "Goblin 1"
    # Goblin 1 attacks Brida: 2+3 = 5 ≤ 10 − 2 (angeschlagen). Brida's player is asked.
    script(app, 2, 3)
    await fight.act(gm, "attack", target=pids["Brida"])
    view = await fight.view(brida)
    assert view["pending"]["answer"] == "owner"
    assert (await fight.view(alrik))["pending"]["answer"] is None
    await fight.act(alrik, "respond", 422, choice="defend")
    # Brida defends: 3+4 = 7 beats the attack roll 5 → no damage, one reaction used.
    script(app, 3, 4)
    view = await fight.act(brida, "respond", choice="defend")
    brida_row = next(p for p in view["participants"] if p["name"] == "Brida")
    assert brida_row["points"] == "20/20 LP"
    assert "Reaktionen 1/2" in brida_row["extra"]

    # Goblin 2 (hidden) acts next; its secret roll and name never reach the players.
    view = await fight.act(gm, "next")
    assert view["turn"]["name"] == "Goblin 2"
    assert (await fight.view(alrik))["turn"]["name"] is None
    script(app, 5, 5)
    await fight.act(gm, "check", participant=pids["Goblin 2"], skill="Spürsinn", secret="1")
    r = await gm.get(f"{fight.base}/log")
    assert "Goblin 2" in r.text
    for player in (alrik, brida):
        await assert_never_seen(player, fight, "Goblin 2", "Spürsinn-Probe")
    r = await alrik.get(f"{fight.base}/log")
    assert "Verdeckt" in r.text  # the stub: a secret roll happened

    # Undo of the GM-only action stays GM-only; the turn goes on.
    await fight.act(gm, "undo")
    for player in (alrik, brida):
        await assert_never_seen(player, fight, "Goblin 2", "Spürsinn-Probe")


async def test_defence_timeout_and_gm_override(make_client: ClientFactory, app: FastAPI) -> None:
    fight, pids = await hh_fight(make_client, app)
    gm, alrik, brida = fight.gm, fight.players[0], fight.players[1]
    r = await gm.patch(fight.base, json={"name": "Hinterhalt", "settings": {"defence_timeout": 10}})
    assert r.status_code == 200, r.text
    script(app, 3, 4)
    await fight.act(alrik, "attack", target=pids["Brida"])
    # Before the deadline only Brida (or the GM) may answer.
    await fight.act(alrik, "respond", 422, choice="none")
    # The GM overrides: no defence → hit with QS 2: W10+1 − RS 1 twice: 5 and 6.
    script(app, 5, 6)
    view = await fight.act(gm, "respond", choice="none")
    # The hit waits for Brida's Glück (Treffer entgehen); she takes it.
    assert view["pending"]["kind"] == "hit"
    view = await fight.act(brida, "respond", choice="accept")
    brida_row = next(p for p in view["participants"] if p["name"] == "Brida")
    assert brida_row["points"] == "9/20 LP"
    assert (await fight.view(brida))["pending"] is None


async def test_stale_version_conflicts(make_client: ClientFactory, app: FastAPI) -> None:
    fight, _pids = await hh_fight(make_client, app)
    view = await fight.view(fight.gm)
    script(app)
    await fight.act(fight.gm, "delay", version=view["version"])
    await fight.act(fight.gm, "next", 409, version=view["version"])


async def test_undo_is_offered_while_there_is_something_to_undo(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await hh_fight(make_client, app)
    gm = fight.gm
    page_url = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}"
    assert (await fight.view(gm))["can_undo"] is False
    await fight.act(gm, "adjust", participant=pids["Goblin 1"], delta=-1, reason="Probe")
    await fight.act(gm, "adjust", participant=pids["Goblin 1"], delta=-1, reason="Probe")
    assert (await fight.view(gm))["can_undo"] is True
    assert f'action="{page_url}/undo"' in (await gm.get(page_url)).text
    await fight.act(gm, "undo")
    assert (await fight.view(gm))["can_undo"] is True
    await fight.act(gm, "undo")
    assert (await fight.view(gm))["can_undo"] is False
    assert f'action="{page_url}/undo"' not in (await gm.get(page_url)).text
