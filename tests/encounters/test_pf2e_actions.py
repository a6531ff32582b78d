"""Issue 31, item 4: a PF2e turn has three actions and a reaction (shared/rules/pf2e.md §9).
A Strike costs one action: a fourth Strike is refused with a message and the turn goes on;
the controls show the actions left (◆◆◆) and disable the Strike when none is left; Betäubt
and Verlangsamt take actions at the start of the turn."""

from __future__ import annotations

import re

from fastapi import FastAPI

from tests.conftest import ClientFactory
from tests.encounters.helpers import script
from tests.encounters.test_play_pf2e_ds4 import pf2e_fight

HTMX = {"HX-Request": "true"}


def _budget(html: str) -> str:
    found = re.search(r'id="action-budget">.*?<span aria-hidden="true">([◆◇]*)</span>', html)
    assert found, html[:2000]
    return found.group(1)


async def test_a_fourth_strike_is_refused_and_the_controls_show_the_actions_left(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, valeros, goblin = await pf2e_fight(make_client, app)
    player = fight.players[0]
    page = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}"
    assert _budget((await player.get(page)).text) == "◆◆◆"
    for left in ("◆◆◇", "◆◇◇", "◇◇◇"):
        script(app, 2, 1)  # misses: the goblin stays up
        await fight.act(player, "attack", attacker=valeros, target=goblin, strike=0)
        html = (await player.get(page)).text
        assert _budget(html) == left
    assert re.search(r'<button type="submit" id="attack-button" disabled', html)
    assert "Dafür bleibt keine Aktion" in html
    script(app, 20, 6)
    r = await player.post(
        f"{fight.base}/actions/attack",
        json={"attacker": valeros, "target": goblin, "strike": 0},
    )
    assert r.status_code == 422, r.text
    assert "Strike kostet 1 Aktion(en); in diesem Zug bleiben 0." in r.text
    view = await fight.view(player)
    assert view["turn"]["name"] == "Valeros"  # the turn does not end by itself
    # The next turn of Valeros has three actions again.
    await fight.act(player, "next")
    await fight.act(fight.gm, "next")
    assert (await fight.view(player))["turn"]["name"] == "Valeros"
    assert _budget((await player.get(page)).text) == "◆◆◆"


async def test_betaeubt_and_verlangsamt_take_actions_at_the_start_of_the_turn(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, valeros, goblin = await pf2e_fight(make_client, app)
    gm, player = fight.gm, fight.players[0]
    page = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}"
    await fight.act(gm, "condition", participant=valeros, condition="betäubt", value=1)
    # Verlangsamt 2 from the GM's form, whose «Value / cause» field holds the value.
    html = (await gm.get(page)).text
    version = re.search(r'name="version" value="(\d+)"', html)
    assert version
    form = {"participant": valeros, "condition": "verlangsamt", "cause": "2",
            "version": version.group(1)}  # fmt: skip
    r = await gm.post(f"{page}/condition", data=form)
    assert r.status_code == 303, r.text
    await fight.act(player, "next")
    await fight.act(gm, "next")  # the goblin's turn ends; Valeros: Betäubt 1 + Verlangsamt 2
    assert _budget((await player.get(page)).text) == "◆◇◇"
    row = next(p for p in (await fight.view(gm))["participants"] if p["pid"] == valeros)
    assert "verlangsamt 2" in row["conditions"]
    assert not any(c.startswith("betäubt") for c in row["conditions"])  # it took its action
    log = (await gm.get(f"{fight.base}/log")).text
    assert "verliert 2 Aktion(en) (Betäubt 1, Verlangsamt 1): 1 bleiben" in log
    script(app, 2, 1)
    await fight.act(player, "attack", attacker=valeros, target=goblin, strike=0)
    await fight.act(player, "attack", 422, attacker=valeros, target=goblin, strike=0)
    # Verlangsamt lasts: the next turn again one action less (Betäubt is gone).
    await fight.act(player, "next")
    await fight.act(gm, "next")
    assert _budget((await player.get(page)).text) == "◆◇◇"


def _reaction(html: str) -> str:
    found = re.search(r'id="reaction-budget" data-reaction="(\w+)">', html)
    assert found, html[:2000]
    return found.group(1)


async def test_a_reaction_is_spent_until_the_start_of_the_figures_next_turn(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """§9: one reaction, also outside the figure's turn; a second one is refused with a
    message; it comes back when the figure's next turn begins, and the budget shows it."""
    fight, valeros, goblin = await pf2e_fight(make_client, app)
    gm, player = fight.gm, fight.players[0]
    page = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}"
    html = (await player.get(page)).text
    assert _reaction(html) == "left" and 'id="reaction-form"' in html
    await fight.act(player, "next")
    # The goblin's turn: Valeros blocks with his shield (his player, outside his turn).
    view = await fight.act(player, "reaction", participant=valeros, reaction="Schild blocken")
    row = next(p for p in view["participants"] if p["pid"] == valeros)
    assert "Reaktionen 0/1" in row["extra"], row
    r = await player.post(
        f"{fight.base}/actions/reaction",
        json={"participant": valeros, "reaction": "Gelegenheitsangriff"},
    )
    assert r.status_code == 422, r.text
    assert "Valeros hat die Reaktion schon genutzt" in r.text
    # Another player's figure is not this player's to react with; an empty name is refused.
    r = await player.post(
        f"{fight.base}/actions/reaction", json={"participant": goblin, "reaction": "Biss"}
    )
    assert r.status_code == 403, r.text
    r = await gm.post(f"{fight.base}/actions/reaction", json={"participant": goblin})
    assert r.status_code == 422 and "reaction" in r.json()["errors"], r.text
    # The goblin's own reaction is its own: the GM takes it in its turn, the budget shows it.
    assert _reaction((await gm.get(page)).text) == "left"
    await fight.act(gm, "reaction", participant=goblin, reaction="Gelegenheitsangriff")
    assert _reaction((await gm.get(page)).text) == "spent"
    log = (await gm.get(f"{fight.base}/log")).text
    assert "Valeros nutzt die Reaktion: Schild blocken." in log
    await fight.act(gm, "next")
    # Valeros's turn: his reaction is back (the goblin's stays spent until its turn).
    assert _reaction((await player.get(page)).text) == "left"
    await fight.act(player, "reaction", participant=valeros, reaction="Schild blocken")
    assert _reaction((await player.get(page)).text) == "spent"
    assert _budget((await player.get(page)).text) == "◆◆◆"  # a reaction is no action
    row = next(p for p in (await fight.view(gm))["participants"] if p["pid"] == goblin)
    assert "Reaktionen 0/1" in row["extra"], row


async def test_a_figure_at_0_tp_has_no_reaction(make_client: ClientFactory, app: FastAPI) -> None:
    fight, _valeros, goblin = await pf2e_fight(make_client, app)
    gm = fight.gm
    await fight.act(gm, "adjust", participant=goblin, delta=-99, reason="Lawine")
    r = await gm.post(
        f"{fight.base}/actions/reaction", json={"participant": goblin, "reaction": "Biss"}
    )
    assert r.status_code == 422 and "kann jetzt nicht handeln" in r.text, r.text
