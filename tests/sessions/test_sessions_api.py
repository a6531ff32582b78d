"""Game sessions over the API: who may do what, the table rule on overrides, combat dice
with the requester's seed, the session record per member, ``tafelrunde verify``."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from app.cli import main as cli
from tests.api.helpers import make_table
from tests.conftest import ClientFactory
from tests.encounters.test_hh import hh_fight
from tests.sessions.helpers import base, event, export, fair_session, roll, verified


async def test_who_may_run_sessions_set_seeds_and_read(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    b = base(t)
    rule = {"enabled": True, "overrides": "forbidden", "reveal_secret_rolls": True}
    for client, status in ((t.anonymous, 401), (t.outsider, 404), (t.observer, 403),
                           (t.player, 403)):  # fmt: skip
        assert (await client.put(f"{b}/fairplay", json=rule)).status_code == status
        assert (await client.post(f"{b}/sessions")).status_code == status
    assert (await t.gm.put(f"{b}/fairplay", json=rule)).status_code == 200
    r = await t.gm.post(f"{b}/sessions")
    assert r.status_code == 201 and len(r.json()["commitment"]) == 64
    sid = r.json()["id"]
    assert (await t.gm.post(f"{b}/sessions")).status_code == 409  # one at a time
    # The rule is fixed while the session runs.
    assert (await t.gm.put(f"{b}/fairplay", json=rule)).status_code == 409
    for client in (t.observer, t.player, t.gm):
        r = await client.put(f"{b}/sessions/{sid}/seed", json={"client_seed": "abc"})
        assert r.status_code == 200, r.text
    for bad in ("x" * 65, "nul\x00"):
        r = await t.player.put(f"{b}/sessions/{sid}/seed", json={"client_seed": bad})
        assert r.status_code == 422 and "client_seed" in r.text
    assert (
        await t.outsider.put(f"{b}/sessions/{sid}/seed", json={"client_seed": "a"})
    ).status_code == 404
    for client, status in ((t.anonymous, 401), (t.outsider, 404), (t.observer, 200),
                           (t.player, 200), (t.gm, 200)):  # fmt: skip
        assert (await client.get(f"{b}/sessions")).status_code == status
        assert (await client.get(f"{b}/sessions/{sid}/fairplay")).status_code == status
        assert (await client.get(f"{b}/sessions/{sid}/export?format=md")).status_code == status
    for client, status in ((t.outsider, 404), (t.observer, 403), (t.player, 403)):
        assert (await client.post(f"{b}/sessions/{sid}/end")).status_code == status
    r = await t.gm.post(f"{b}/sessions/{sid}/end")
    assert r.status_code == 200 and len(r.json()["server_seed"]) == 64
    assert (await t.gm.post(f"{b}/sessions/{sid}/end")).status_code == 409
    r = await t.player.put(f"{b}/sessions/{sid}/seed", json={"client_seed": "late"})
    assert r.status_code == 409
    assert (await t.gm.get(f"{b}/sessions/999999/fairplay")).status_code == 404


@pytest.mark.parametrize("rule", ["forbidden", "marked", "silent"])
async def test_gm_overrides_follow_the_table_rule(
    make_client: ClientFactory, app: FastAPI, rule: str
) -> None:
    fight, pids = await hh_fight(make_client, app)
    b = f"/api/v1/campaigns/{fight.campaign_id}"
    r = await fight.gm.put(
        f"{b}/fairplay", json={"enabled": True, "overrides": rule, "reveal_secret_rolls": True}
    )
    assert r.status_code == 200
    r = await fight.gm.post(f"{b}/sessions")
    sid = r.json()["id"]
    adjust: dict[str, object] = {"participant": pids["Goblin 1"], "delta": -3, "reason": "Sturz"}
    if rule == "forbidden":
        r = await fight.gm.post(f"{fight.base}/actions/adjust", json=adjust)
        assert r.status_code == 409 and "verbietet" in r.text
        return
    r = await fight.gm.post(f"{fight.base}/actions/adjust", json=adjust)
    assert r.status_code == 200, r.text
    await fight.act(fight.gm, "undo")
    assert (await fight.gm.post(f"{b}/sessions/{sid}/end")).status_code == 200
    data = await export(fight.players[0], fight.campaign_id, sid)
    report = verified(data)
    assert report.ok
    overrides = [e for e in report.events if e.override]
    assert len(overrides) == (0 if rule == "silent" else 2)


@pytest.mark.parametrize("rule", ["forbidden", "marked"])
async def test_a_gm_changing_a_heros_lp_on_the_sheet_is_an_override(
    make_client: ClientFactory, app: FastAPI, rule: str
) -> None:
    """LP, Glück and conditions are what a fight changes: the GM editing them on a player's
    sheet is an override; a skill, or the player's own LP, is not."""
    t = await make_table(make_client, app)
    b = base(t)
    r = await t.player.post(f"{b}/characters", json={"name": "Arjun"})
    sheet, version = f"{b}/characters/{r.json()['id']}", r.json()["version"]
    rule_body = {"enabled": True, "overrides": rule, "reveal_secret_rolls": True}
    assert (await t.gm.put(f"{b}/fairplay", json=rule_body)).status_code == 200
    sid = (await t.gm.post(f"{b}/sessions")).json()["id"]

    async def patch(client: httpx.AsyncClient, changes: dict[str, object]) -> int:
        nonlocal version
        r = await t.gm.get(sheet)
        version = r.json()["version"]
        r = await client.patch(sheet, json={"version": version, "changes": changes})
        return int(r.status_code)

    assert await patch(t.gm, {"lp": 12}) == (409 if rule == "forbidden" else 200)
    assert await patch(t.gm, {"skills.Kampfkunst": 9}) == 200
    assert await patch(t.player, {"lp": 11}) == 200
    assert (await t.gm.post(f"{b}/sessions/{sid}/end")).status_code == 200
    report = verified(await export(t.player, t.campaign_id, sid))
    assert report.ok
    assert len([e for e in report.events if e.override]) == (0 if rule == "forbidden" else 1)


async def test_combat_dice_are_the_requesters(make_client: ClientFactory, app: FastAPI) -> None:
    """Alrik's attack with Alrik's seed; a defence answered by Brida with Brida's seed."""
    fight, pids = await hh_fight(make_client, app)
    b = f"/api/v1/campaigns/{fight.campaign_id}"
    alrik, brida = fight.players
    await fight.gm.put(f"{b}/fairplay", json={"enabled": True})
    sid = (await fight.gm.post(f"{b}/sessions")).json()["id"]
    for who, seed in ((alrik, "alrik-seed"), (brida, "brida-seed")):
        r = await who.put(f"{b}/sessions/{sid}/seed", json={"client_seed": seed})
        assert r.status_code == 200
    view = await fight.act(alrik, "attack", target=pids["Goblin 1"])
    if view["pending"]:
        await fight.act(fight.gm, "respond", choice="defend")
    await fight.act(alrik, "next")
    answered = False
    for _attempt in range(6):
        view = await fight.view(fight.gm)
        if view["status"] != "running" or view["turn"]["name"] == "Brida":
            break
        brida_row = next(p for p in view["participants"] if p["pid"] == pids["Brida"])
        if not view["turn"]["name"].startswith("Goblin") or brida_row["status"] == "dead":
            # Alrik again (Brida down): his attack is done, and it may have killed Goblin 1
            # or fumbled and blocked his weapon; or Brida is past attacking. Dice decide.
            await fight.act(fight.gm, "next")
            continue
        view = await fight.act(fight.gm, "attack", target=pids["Brida"])
        # The defence, then (a hit on a hero with Glück) the hit step: each by whoever answers.
        while view["pending"]:
            choice = "accept" if view["pending"].get("kind") == "hit" else "defend"
            if (await fight.view(brida))["pending"]["answer"] == "owner":
                view = await fight.act(brida, "respond", choice=choice)
                answered = True
            else:
                view = await fight.act(fight.gm, "respond", choice=choice)
        await fight.act(fight.gm, "next")
    assert (await fight.gm.post(f"{b}/sessions/{sid}/end")).status_code == 200
    data = await export(fight.gm, fight.campaign_id, sid)
    assert verified(data).ok
    rolled = [e for e in data["events"] if e["fairplay"]["draws"]]
    assert rolled
    seeds = {"alrik-seed": fight.ids["p0"], "brida-seed": fight.ids["p1"], "": fight.ids["gm"]}
    for e in rolled:
        fp = e["fairplay"]
        assert seeds[fp["client_seed"]] == fp["user_id"]
    assert any(e["fairplay"]["client_seed"] == "alrik-seed" for e in rolled)
    if answered:
        assert any(e["fairplay"]["client_seed"] == "brida-seed" for e in rolled)


async def test_the_record_holds_what_each_member_may_see(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    sid = (await t.gm.post(f"{base(t)}/sessions")).json()["id"]
    await roll(t.player, t, "2W6", label="Klettern")
    await roll(t.gm, t, "1W20", visibility="gm", label="Geheimfalle")
    r = await t.player.post(f"{base(t)}/messages", json={"text": "*Vorsicht* <b>x</b>"})
    assert r.status_code == 201
    assert (await t.gm.post(f"{base(t)}/sessions/{sid}/end")).status_code == 200
    url = f"{base(t)}/sessions/{sid}/export"
    player_md = (await t.player.get(url, params={"format": "md"})).text
    gm_md = (await t.gm.get(url, params={"format": "md"})).text
    assert "Klettern" in player_md and "Geheimfalle" not in player_md
    assert "Geheimfalle" in gm_md
    assert "\\*Vorsicht\\* \\<b\\>x\\</b\\>" in player_md
    html = await t.player.get(url, params={"format": "html"})
    assert html.status_code == 200 and "&lt;b&gt;" in html.text and "Geheimfalle" not in html.text
    assert (await t.gm.get(url, params={"format": "html"})).text.count("Geheimfalle") == 1
    assert (await t.gm.get(url, params={"format": "pdf"})).status_code == 422


async def test_tafelrunde_verify(make_client: ClientFactory, app: FastAPI, tmp_path: Path) -> None:
    t = await make_table(make_client, app)
    sid = (await fair_session(t))["id"]
    seq = await roll(t.player, t, "4W6")
    await t.gm.post(f"{base(t)}/sessions/{sid}/end")
    data = await export(t.player, t.campaign_id, sid)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(SystemExit) as done:
        cli(["verify", str(good)])
    assert done.value.code == 0
    event(data, seq)["fairplay"]["draws"][1][1] = 7  # no W6 shows 7
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(SystemExit) as done:
        cli(["verify", str(bad)])
    assert done.value.code == 1
