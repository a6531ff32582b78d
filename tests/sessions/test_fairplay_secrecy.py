"""What a fair-play digest hides, and what the verifiers check beyond the digest (issue 25):
a secret roll cannot be guessed from its digest (salted, version 2), a payload that shows
other dice than were drawn fails, a roll naming a still hidden NSC stays secret after the
session, and sessions recorded before the salt keep verifying as version 1."""

from __future__ import annotations

import hashlib
import hmac
import html
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app import cli
from app.events.events import Roll
from app.events.fairplay import canonical
from app.events.models import CampaignEvent
from app.events.payload import EVENT_TYPES
from app.rules.dice import DieRoll
from app.sessions.verify_fairplay import render
from tests.api.helpers import Table, make_table
from tests.conftest import ClientFactory
from tests.encounters.helpers import add_character, make_fight
from tests.sessions.helpers import (
    base,
    event,
    export,
    fair_session,
    reseal,
    roll,
    tampered,
    verified,
)

PLAYER_SEED = "Glückskeks"
VALEROS = {"wahrnehmung": 6, "rk": 18, "tp": 20, "reflex": 5, "wille": 3, "zaehigkeit": 7,
           "angriffe": [{"name": "Langschwert", "bonus": 9, "schaden": "1W8+4"}]}  # fmt: skip


def _candidates(actor: str, label: str, sides: int, count: int) -> list[dict[str, Any]]:
    """Every payload a free ``{count}W{sides}`` roll with a known label can have: what an
    attacker enumerates (100 payloads for 2W10)."""
    return [
        Roll.build(
            actor_name=actor,
            expression=f"{count}W{sides}",
            label=label,
            dice=[DieRoll(sides, faces)],
            modifier=0,
            total=sum(faces),
        ).to_json()
        for faces in itertools.product(range(1, sides + 1), repeat=count)
    ]


def _stubs(body: dict[str, Any], seq: int) -> list[dict[str, Any]]:
    return [e for e in body["rolls"] if e["seq"] == seq]


async def test_enumerating_payloads_no_longer_recovers_a_secret_roll(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """N1: the attack of the issue — enumerate expression × faces × label and compare with
    the digest a player receives — finds nothing: the digest is keyed with a salt the player
    does not get until the roll is revealed."""
    t = await make_table(make_client, app)
    started = await fair_session(t, reveal=True)
    secret = await roll(t.gm, t, "2W10", visibility="gm", label="Hinterhalt")
    stub = event(await export(t.player, t.campaign_id, started["id"]), secret)
    listed = _stubs((await t.player.get(f"{base(t)}/rolls")).json(), secret)
    assert stub["payload"] is None and [e["secret"] for e in listed] == [True]
    for record in (stub["fairplay"], listed[0]["fairplay"]):
        assert "salt" not in record and record["draws"] is None
    whole = event(await export(t.gm, t.campaign_id, started["id"]), secret)["payload"]
    candidates = _candidates(whole["actor_name"], "Hinterhalt", 10, 2)
    # The enumeration is complete: the true payload is one of the candidates ...
    assert whole in candidates
    # ... yet none hashes to the digest the player holds.
    digest = stub["fairplay"]["digest"]
    assert all(hashlib.sha256(canonical(c)).hexdigest() != digest for c in candidates)
    # After the reveal the salt comes with the payload, and the digest checks out.
    assert (await t.gm.post(f"{base(t)}/sessions/{started['id']}/end")).status_code == 200
    after = await export(t.player, t.campaign_id, started["id"])
    shown = event(after, secret)
    assert shown["payload"] == whole and len(bytes.fromhex(shown["fairplay"]["salt"])) >= 16
    key = bytes.fromhex(shown["fairplay"]["salt"])
    assert hmac.new(key, canonical(whole), hashlib.sha256).hexdigest() == digest
    report = verified(after)
    assert report.ok and report.versions == [2], [(e.seq, e.problems) for e in report.events]
    assert "version 2, salted" in render(report)


async def test_every_event_has_its_own_salt(make_client: ClientFactory, app: FastAPI) -> None:
    """Two equal payloads get different digests: a player cannot tell that a secret roll
    repeats one they saw."""
    t = await make_table(make_client, app)
    started = await fair_session(t)
    seqs = [await roll(t.player, t, "1W6", label="Gleich") for _ in range(2)]
    data = await export(t.player, t.campaign_id, started["id"])
    records = [event(data, s)["fairplay"] for s in seqs]
    assert records[0]["salt"] != records[1]["salt"]
    assert records[0]["digest"] != records[1]["digest"]
    assert all(r["version"] == 2 for r in records)


async def _played(t: Table) -> tuple[dict[str, Any], int, int]:
    """A session with a player's roll and a chat line with an inline roll, ended."""
    started = await fair_session(t)
    sid = started["id"]
    r = await t.player.put(f"{base(t)}/sessions/{sid}/seed", json={"client_seed": PLAYER_SEED})
    assert r.status_code == 200, r.text
    rolled = await roll(t.player, t, "3W6+2", label="Schleichen")
    r = await t.player.post(f"{base(t)}/messages", json={"text": "/r 2W6+1 Klettern"})
    assert r.status_code == 201, r.text
    assert (await t.gm.post(f"{base(t)}/sessions/{sid}/end")).status_code == 200
    data = await export(t.player, t.campaign_id, sid)
    chat = next(e for e in data["events"] if e["type"] == "chat_message")
    return data, rolled, chat["seq"]


def _show_other_face(data: dict[str, Any], seq: int) -> None:
    """The payload shows another face than was drawn (the total adjusted to match it)."""
    payload = event(data, seq)["payload"]
    group = payload["dice"][0]
    face = group["faces"][0]
    group["faces"][0] = face % group["sides"] + 1
    payload["total"] += group["faces"][0] - face


def _show_other_total(data: dict[str, Any], seq: int) -> None:
    event(data, seq)["payload"]["total"] += 1


def _show_other_inline_face(data: dict[str, Any], seq: int) -> None:
    inline = event(data, seq)["payload"]["roll"]
    inline["dice"][0]["faces"][0] = inline["dice"][0]["faces"][0] % 6 + 1


def _cli(tmp_path: Path, data: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> str:
    """``tafelrunde verify FILE``: its output (its exit status must say the same)."""
    path = tmp_path / "cli.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        cli.main(["verify", str(path)])
    out = capsys.readouterr().out
    assert (done.value.code == 0) == out.strip().splitlines()[-1].startswith("OK"), out
    return out


async def _script(client: httpx.AsyncClient, tmp_path: Path, data: dict[str, Any]) -> str:
    """The downloaded standalone verifier's output for ``data`` (its exit status must
    say the same)."""
    script = tmp_path / "verify_fairplay.py"
    script.write_text((await client.get("/fairplay/verify_fairplay.py")).text, encoding="utf-8")
    path = tmp_path / "session.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-I", str(script), str(path)], capture_output=True, text=True, check=False
    )
    last = done.stdout.strip().splitlines()[-1]
    assert (done.returncode == 0) == last.startswith("OK"), done.stdout + done.stderr
    return done.stdout


@pytest.mark.parametrize(
    ("tamper", "target", "problem"),
    [
        (_show_other_face, "roll", "the draw was"),
        (_show_other_total, "roll", "shows the total"),
        (_show_other_inline_face, "chat", "the draw was"),
    ],
)
async def test_a_payload_showing_other_dice_than_drawn_fails(
    make_client: ClientFactory,
    app: FastAPI,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    tamper: Any,
    target: str,
    problem: str,
) -> None:
    """N7: digest and chain match the changed payload, every draw matches the derivation;
    only what the payload shows differs from the draws — and that fails, in the verifier
    and in the standalone script."""
    t = await make_table(make_client, app)
    data, rolled, chat = await _played(t)
    assert verified(data).ok
    assert (await _script(t.player, tmp_path, data)).strip().splitlines()[-1].startswith("OK")
    seq = rolled if target == "roll" else chat
    changed = tampered(data)
    tamper(changed, seq)
    reseal(changed, seq)
    report = verified(changed)
    assert report.first_failure == seq, [(e.seq, e.problems) for e in report.events]
    failed = next(e for e in report.events if e.seq == seq)
    assert any(problem in p for p in failed.problems), failed.problems
    assert [e.seq for e in report.events if e.problems] == [seq]
    for out in (await _script(t.player, tmp_path, changed), _cli(tmp_path, changed, capsys)):
        assert out.strip().splitlines()[-1].startswith(f"FAILED at event {seq}")
        assert problem in out


@pytest.mark.parametrize(
    ("system", "target", "extra"),
    [
        ("hh", "skill:Kampfkunst", {}),
        ("ds4", "kampfwert:schlagen", {}),
        ("pf2e", "perception", {"fortune": True}),
        ("pf2e", "save:will", {"misfortune": True}),
    ],
)
async def test_sheet_rolls_show_exactly_their_draws(
    make_client: ClientFactory, app: FastAPI, system: str, target: str, extra: dict[str, Any]
) -> None:
    """Every system's sheet roll shows its dice in draw order, so the check of N7 holds for
    rolls from a sheet too (and names who rolled what)."""
    t = await make_table(make_client, app, system)
    api = f"{base(t)}/characters"
    r = await t.player.post(api, json={"name": "Alrik"})
    assert r.status_code == 201, r.text
    started = await fair_session(t)
    r = await t.player.post(f"{api}/{r.json()['id']}/roll", json={"target": target, **extra})
    assert r.status_code == 201, r.text
    assert (await t.gm.post(f"{base(t)}/sessions/{started['id']}/end")).status_code == 200
    report = verified(await export(t.player, t.campaign_id, started["id"]))
    assert report.ok, [(e.seq, e.problems) for e in report.events if e.problems]
    rolled = next(e for e in report.events if e.type == "roll")
    assert rolled.dice >= 1 and rolled.roll.startswith("player_user: Alrik")


async def test_a_roll_naming_a_hidden_nsc_stays_secret_after_the_session(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """N8: «reveal secret rolls» reveals the GM's secret roll, but not the roll of an NSC
    the players have not met: its name, id and label stay with the GMs; the verifiers count
    it as secret. Once the NSC is shown, its roll is revealed like any other."""
    t = await make_table(make_client, app)
    api = f"{base(t)}/characters"
    body = {"name": "Der Verräter", "kind": "npc", "hidden_from_players": True}
    r = await t.gm.post(api, json=body)
    assert r.status_code == 201, r.text
    npc = r.json()
    started = await fair_session(t, reveal=True)
    r = await t.gm.post(f"{api}/{npc['id']}/roll", json={"target": "skill:Kampfkunst"})
    assert r.status_code == 201 and r.json()["visibility"] == "gm", r.text
    npc_roll = int(r.json()["event_id"])
    secret = await roll(t.gm, t, "1W20", visibility="gm", label="Falle")
    assert (await t.gm.post(f"{base(t)}/sessions/{started['id']}/end")).status_code == 200
    r = await t.player.get(f"{base(t)}/sessions/{started['id']}/fairplay")
    assert r.status_code == 200
    assert "Verräter" not in r.text and f'"character_id":{npc["id"]}' not in r.text.replace(" ", "")
    data = r.json()
    assert event(data, npc_roll)["payload"] is None
    assert "salt" not in event(data, npc_roll)["fairplay"]
    assert event(data, secret)["payload"]["label"] == "Falle"
    report = verified(data)
    assert report.ok
    checked = {e.seq: e for e in report.events}
    assert checked[npc_roll].secret and not checked[secret].secret
    # Shown to the players later, the NSC's roll is revealed too.
    r = await t.gm.patch(
        f"{api}/{npc['id']}",
        json={"changes": {"hidden_from_players": False}, "version": npc["version"]},
    )
    assert r.status_code == 200, r.text
    data = await export(t.player, t.campaign_id, started["id"])
    assert event(data, npc_roll)["payload"]["character_name"] == "Der Verräter"
    assert verified(data).ok


async def test_a_session_recorded_before_salts_verifies_as_version_1(
    make_client: ClientFactory, app: FastAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A session from before the salt (its records as they were stored then: unsalted
    SHA-256 digests, no version) keeps verifying, and both verifiers say it is version 1."""
    t = await make_table(make_client, app)
    data, rolled, _chat = await _played(t)
    async with app.state.ctx.sessionmaker() as session:
        events = (
            await session.scalars(
                select(CampaignEvent)
                .where(CampaignEvent.seq >= data["events"][0]["seq"])
                .where(CampaignEvent.campaign_id == t.campaign_id)
                .order_by(CampaignEvent.seq)
            )
        ).all()
        chain = data["commitment"]
        for e in events:
            assert e.fairplay is not None
            record = {k: v for k, v in e.fairplay.items() if k not in ("salt", "version")}
            record["digest"] = hashlib.sha256(canonical(e.payload)).hexdigest()
            record["chain"] = chain = hashlib.sha256(
                (chain + record["digest"]).encode()
            ).hexdigest()
            e.fairplay = record
        await session.commit()
    old = await export(t.player, t.campaign_id, data["session_id"])
    assert "salt" not in event(old, rolled)["fairplay"]
    report = verified(old)
    assert report.ok and report.versions == [1], [(e.seq, e.problems) for e in report.events]
    assert "version 1, unsalted" in render(report)
    for out in (await _script(t.player, tmp_path, old), _cli(tmp_path, old, capsys)):
        assert "version 1, unsalted" in out and out.strip().splitlines()[-1].startswith("OK")


async def test_gm_only_combat_lines_stay_secret_after_the_session(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """N8 in combat: a hidden monster's initiative roll (PF2e: Wahrnehmung, a d20) is a
    GM-only combat line naming it; «reveal secret rolls» does not unmask it at the session's
    end (the lines do not record whom they name, so the server keeps them all); the
    verifier counts it as secret."""
    fight = await make_fight(make_client, app, "pf2e")
    api = f"/api/v1/campaigns/{fight.campaign_id}"
    await add_character(app, fight, "p0", "Valeros", VALEROS, "pf2e")
    r = await fight.gm.post(f"{api}/bestiary/samples")
    goblin = next(e for e in r.json() if e["name"] == "Goblin-Krieger")
    r = await fight.gm.post(f"{api}/encounters", json={"name": "Hinterhalt"})
    fight.encounter_id = r.json()["id"]
    for body in ({"character_id": fight.characters["Valeros"]}, {"entry_id": goblin["id"]}):
        r = await fight.gm.post(
            f"{fight.base}/participants", json={**body, "hidden": "entry_id" in body}
        )
        assert r.status_code == 201, r.text
    rule = {"enabled": True, "overrides": "marked", "reveal_secret_rolls": True}
    assert (await fight.gm.put(f"{api}/fairplay", json=rule)).status_code == 200
    r = await fight.gm.post(f"{api}/sessions")
    assert r.status_code == 201, r.text
    sid = r.json()["id"]
    await fight.act(fight.gm, "start")
    assert (await fight.gm.post(f"{api}/sessions/{sid}/end")).status_code == 200
    gm_view = await export(fight.gm, fight.campaign_id, sid)
    hidden_lines = [
        e["seq"]
        for e in gm_view["events"]
        if e["type"] == "combat" and "Goblin" in json.dumps(e["payload"]) and e["fairplay"]["draws"]
    ]
    assert hidden_lines
    r = await fight.players[0].get(f"{api}/sessions/{sid}/fairplay")
    assert r.status_code == 200 and "Goblin" not in r.text
    report = verified(r.json())
    assert report.ok
    assert all(e.secret for e in report.events if e.seq in hidden_lines)


async def test_the_verification_page_names_every_event_type(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Issue 31: the page lists events by name in the reader's language, not by key; every
    type of the log has its name (a new type without one fails here)."""
    t = await make_table(make_client, app)
    started = await fair_session(t)
    r = await t.player.get(f"/campaigns/{t.campaign_id}/sessions/{started['id']}/verify")
    assert r.status_code == 200
    found = re.search(r"data-labels='([^']*)'", r.text)
    assert found is not None
    labels = json.loads(html.unescape(found.group(1)))
    assert set(labels) == set(EVENT_TYPES)
    assert labels["session_started"] == "Sitzung begonnen" and labels["roll"] == "Wurf"
    assert all(label != type_ for type_, label in labels.items())
