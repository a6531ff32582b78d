"""The PF2e campaign setting «Verdeckte Würfe» (``secret_checks``): Suchen, Gespür für
Motive and Wissen abrufen from the sheet are a Verdeckter Wurf (seed 002) — the player who
rolls sees that it was rolled, the GM sees the result; with «open» the player chooses."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from app.rules.dice import ScriptedRoller
from tests.api.test_characters import Table, create, make_table
from tests.conftest import ClientFactory


async def _roll(t: Table, who: str, character: int, **body: Any) -> dict[str, Any]:
    r = await t[who].post(f"{t.api}/characters/{character}/roll", json=body)
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


async def test_secret_checks_are_rolled_for_the_gm_only(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "pf2e")
    c = await create(t)
    # The roll dialog offers the secret actions with their statistic.
    dialog = (await t["player"].get(f"/campaigns/{t.campaign_id}/characters/{c['id']}/roll")).text
    assert "Wissen abrufen (Arkane Künste)" in dialog and "Suchen (Wahrnehmung)" in dialog
    app.state.ctx.roller = ScriptedRoller([15])
    # The player asks for an open roll; the rules make Wissen abrufen secret.
    out = await _roll(t, "player", c["id"], target="secret:recall:Arkane Künste", dc=15)
    assert out["visibility"] == "gm" and out["secret"] is True
    assert out["total"] is None and out["summary"] is None
    mine = (await t["player"].get(f"{t.api}/rolls")).json()["rolls"][0]
    assert mine["secret"] is True and "total" not in mine
    gm = (await t["gm"].get(f"{t.api}/rolls")).json()["rolls"][0]
    assert gm["total"] == 15 and "Wissen abrufen (Arkane Künste)" in gm["label"]
    assert "Erfolg" in gm["summary"]
    # An ordinary Wahrnehmung roll stays as the player chose it.
    app.state.ctx.roller = ScriptedRoller([12])
    assert (await _roll(t, "player", c["id"], target="perception", dc=15))["total"] == 15
    # Gespür für Motive is secret too; the GM rolling it sees the number.
    app.state.ctx.roller = ScriptedRoller([9])
    gm_roll = await _roll(t, "gm", c["id"], target="secret:sense_motive")
    assert gm_roll["visibility"] == "gm" and gm_roll["total"] == 12
    # Not a knowledge skill: refused at the field.
    r = await t["player"].post(
        f"{t.api}/characters/{c['id']}/roll", json={"target": "secret:recall:Athletik"}
    )
    assert r.status_code == 422 and "target" in r.json()["errors"]


async def test_open_secret_checks_let_the_player_roll_openly(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "pf2e")
    c = await create(t)
    form = {"version": "1", "name": "Abomination Vaults", "secret_checks": "open"}
    r = await t["gm"].post(f"/campaigns/{t.campaign_id}/settings", data=form)
    assert r.status_code == 303, r.text
    app.state.ctx.roller = ScriptedRoller([15])
    out = await _roll(t, "player", c["id"], target="secret:search", dc=15)
    assert out["visibility"] == "public" and out["total"] == 18
    log = (await t["player"].get(f"{t.api}/rolls")).json()["rolls"][0]
    assert log["total"] == 18 and "Suchen (Wahrnehmung)" in log["label"]
    # The player may still hide it.
    app.state.ctx.roller = ScriptedRoller([15])
    hidden = await _roll(t, "player", c["id"], target="secret:search", visibility="gm")
    assert hidden["secret"] is True and hidden["total"] is None
