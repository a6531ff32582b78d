"""Issue 31: spells in a PF2e fight (shared/rules/pf2e.md §3, §4, §9). The caster names the
spell and its 1–3 actions; a spell attack rolls the Zauberangriff against the RK with the
multiple attack penalty of the turn, a save spell rolls the target's save against the SG
(basic: damage by the degree). The actions are spent; one that does not fit is refused at
``actions``. Each result is computed here again from the scripted faces."""

from __future__ import annotations

import re
from typing import Any

from fastapi import FastAPI

from tests.conftest import ClientFactory
from tests.encounters.helpers import add_character, make_fight, script
from tests.encounters.test_pf2e_actions import _budget
from tests.encounters.test_play_pf2e_ds4 import pf2e_fight

GOBLIN_RK, GOBLIN_REFLEX, GOBLIN_TP = 16, 7, 6


def _hp(view: dict[str, Any], pid: str) -> int:
    row = next(p for p in view["participants"] if p["pid"] == pid)
    return int(re.match(r"(-?\d+)/", row["points"]).group(1))  # type: ignore[union-attr]


async def test_a_spell_attack_and_a_basic_save_spend_their_actions(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, valeros, goblin = await pf2e_fight(make_client, app)
    gm, player = fight.gm, fight.players[0]
    page = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}"
    assert 'id="spell-form"' in (await player.get(page)).text
    spell: dict[str, Any] = {
        "spell": "Strahl der Kälte",
        "actions": 2,
        "target": goblin,
        "damage": "2W4",
    }
    # Valeros's stat block has no Zauberangriff: the form must give it.
    r = await player.post(f"{fight.base}/actions/cast_spell", json=spell)
    assert r.status_code == 422 and "attack_bonus" in r.json()["errors"], r.text
    refusals = (({"actions": 4}, "actions"), ({"spell": ""}, "spell"),
                ({"damage": "viel"}, "damage"), ({"kind": "save", "dc": ""}, "dc"))  # fmt: skip
    for bad, field in refusals:
        r = await player.post(
            f"{fight.base}/actions/cast_spell", json={**spell, "attack_bonus": 7, **bad}
        )
        assert r.status_code == 422 and field in r.json()["errors"], (bad, r.text)
    assert _budget((await player.get(page)).text) == "◆◆◆"  # nothing refused was spent
    # A Strike first (a miss: 2 + 9 = 11 < RK 16), then the spell attack: the second attack
    # of the turn, −5. d20 14 + 7 − 5 = 16 ≥ RK 16: a hit (not 26: no critical); 2W4: 1 + 2.
    script(app, 2)
    await fight.act(player, "attack", attacker=valeros, target=goblin, strike=0)
    script(app, 14, 1, 2)
    await fight.act(player, "cast_spell", **spell, attack_bonus=7)
    total = 14 + 7 - 5
    assert total >= GOBLIN_RK and total < GOBLIN_RK + 10
    assert _hp(await fight.view(gm), goblin) == GOBLIN_TP - (1 + 2)
    html = (await player.get(page)).text
    assert _budget(html) == "◇◇◇"
    assert re.search(r'id="spell-button" disabled', html)
    log = (await gm.get(f"{fight.base}/log")).json()
    line = log[0]["lines"][0]
    assert line["text"] == (
        "Valeros wirkt Strahl der Kälte (2 Aktion(en)) und trifft Goblin-Krieger 1: 3 Schaden."
    ), line
    assert f"1W20: 14 +{7 - 5} = {total} gegen RK {GOBLIN_RK} – Treffer" in line["details"][0]
    # No action left: a one-action spell is refused at its field, the turn goes on.
    r = await player.post(
        f"{fight.base}/actions/cast_spell", json={**spell, "actions": 1, "attack_bonus": 7}
    )
    assert r.status_code == 422, r.text
    assert "Strahl der Kälte kostet 1 Aktion(en)" in r.json()["errors"]["actions"]
    assert (await fight.view(player))["turn"]["name"] == "Valeros"
    await fight.act(player, "next")
    await fight.act(gm, "next")
    # A basic Reflex save against SG 17, one action: 2W4 3 + 4 = 7 rolled first, then the
    # goblin's d20 5 + Reflex 7 = 12: below 17, above 7 → Fehlschlag, the full 7.
    script(app, 3, 4, 5)
    save: dict[str, Any] = {
        "spell": "Elektrischer Bogen", "actions": 1, "target": goblin, "kind": "save",
        "save": "reflex", "dc": 17, "basic": True, "damage": "2W4",
    }  # fmt: skip
    await fight.act(player, "cast_spell", **save)
    assert 17 - 10 < 5 + GOBLIN_REFLEX < 17
    assert _hp(await fight.view(gm), goblin) == 0
    assert _budget((await player.get(page)).text) == "◆◆◇"
    log = (await gm.get(f"{fight.base}/log")).json()
    texts = [line["text"] for e in log[:2] for line in e["lines"]]
    assert (
        "Valeros wirkt Elektrischer Bogen (1 Aktion(en)): Goblin-Krieger 1, "
        "Reflex-Rettungswurf – Fehlschlag, 7 Schaden." in texts
    ), texts
    # A save that is not basic deals no damage here: the damage field is refused.
    r = await player.post(
        f"{fight.base}/actions/cast_spell", json={**save, "basic": False, "target": valeros}
    )
    assert r.status_code == 422 and "basic" in r.json()["errors"], r.text


async def test_the_casters_zauberangriff_and_sg_come_from_its_stat_block(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """A caster whose stat block has a Zauberangriff casts without naming it; its SG is 10
    more (§3). Verlangsamt 1 leaves two actions: a three-action spell is refused."""
    fight = await make_fight(make_client, app, "pf2e", prefix="z")
    gm, player = fight.gm, fight.players[0]
    ezren = {"wahrnehmung": 6, "rk": 15, "tp": 16, "reflex": 5, "wille": 8, "zaehigkeit": 3,
             "zauberangriff": 9, "angriffe": []}  # fmt: skip
    await add_character(app, fight, "p0", "Ezren", ezren, "pf2e")
    r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/bestiary/samples")
    goblin_entry = next(e for e in r.json() if e["name"] == "Goblin-Krieger")
    r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/encounters", json={"name": "Hof"})
    fight.encounter_id = r.json()["id"]
    await gm.post(f"{fight.base}/participants", json={"character_id": fight.characters["Ezren"]})
    await gm.post(f"{fight.base}/participants", json={"entry_id": goblin_entry["id"]})
    await gm.post(f"{fight.base}/participants", json={"entry_id": goblin_entry["id"]})
    script(app, 15, 2, 2)
    view = await fight.act(gm, "start")
    ezren_pid = fight.pid(view, "Ezren")
    goblin = fight.pid(view, "Goblin-Krieger 1")
    assert view["turn"]["name"] == "Ezren"
    # Zauberangriff 9 from the stat block: d20 7 + 9 = 16 ≥ RK 16, 1W4: 2.
    script(app, 7, 2)
    await fight.act(player, "cast_spell", spell="Säurespritzer", actions=2,
                    target=goblin, damage="1W4")  # fmt: skip
    assert _hp(await fight.view(gm), goblin) == GOBLIN_TP - 2
    # SG 10 + 9 = 19 against Wille 3: d20 6 + 3 = 9 ≤ 19 − 10 → Kritischer Fehlschlag.
    script(app, 6)
    await fight.act(player, "cast_spell", spell="Furcht", actions=1, target=goblin,
                    kind="save", save="wille")  # fmt: skip
    log = (await gm.get(f"{fight.base}/log")).json()
    line = log[0]["lines"][0]
    assert line["text"].endswith("Willens-Rettungswurf – Kritischer Fehlschlag."), line
    assert "19" in line["details"][-1]
    await fight.act(player, "next")
    await fight.act(gm, "next")
    await fight.act(gm, "next")
    await fight.act(gm, "condition", participant=ezren_pid, condition="verlangsamt", value=1)
    await fight.act(player, "next")
    await fight.act(gm, "next")
    await fight.act(gm, "next")
    assert (await fight.view(player))["turn"]["name"] == "Ezren"
    r = await player.post(
        f"{fight.base}/actions/cast_spell",
        json={"spell": "Feuerball", "actions": 3, "target": goblin, "damage": "6W6"},
    )
    assert r.status_code == 422, r.text
    assert "in diesem Zug bleiben 2" in r.json()["errors"]["actions"]
