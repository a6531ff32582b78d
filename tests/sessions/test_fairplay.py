"""Fair play end to end on the API: commitment, derived dice, hash chain, verification."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.accounts.models import User
from app.campaigns.models import Campaign
from app.campaigns.permissions import remember_role
from app.encounters import service as encounters
from app.events.events import Roll
from app.events.models import CampaignEvent
from app.events.service import FairPlayOpened, append_event
from app.rolls import service as rolls
from app.rules.dice import DieRoll
from app.sessions import service as game_sessions
from app.sessions.verify_fairplay import derive_face
from app.talk.models import ChatMessage
from app.web.context import AppContext
from tests.api.helpers import make_table
from tests.conftest import ClientFactory
from tests.sessions.helpers import base, event, export, fair_session, roll, tampered, verified


def _faces(payload: dict[str, Any]) -> list[int]:
    return [f for d in payload["dice"] for f in d["faces"]]


async def _played(
    make_client: ClientFactory, app: FastAPI
) -> tuple[Any, dict[str, Any], dict[str, int]]:
    """A session: the player sets a seed and rolls, the GM rolls openly and secretly, a chat
    line; then the GM ends it. Returns the table, the session and the rolls' seqs."""
    t = await make_table(make_client, app)
    started = await fair_session(t)
    sid = started["id"]
    r = await t.player.put(f"{base(t)}/sessions/{sid}/seed", json={"client_seed": "Glückskeks ✓"})
    assert r.status_code == 200, r.text
    seqs = {
        "player": await roll(t.player, t, "3W6+2", label="Schleichen"),
        "gm": await roll(t.gm, t, "1W20"),
        "secret": await roll(t.gm, t, "2W10", visibility="gm", label="Hinterhalt"),
    }
    r = await t.player.post(f"{base(t)}/messages", json={"text": "Wir gehen weiter."})
    assert r.status_code == 201, r.text
    r = await t.gm.post(f"{base(t)}/sessions/{sid}/end")
    assert r.status_code == 200, r.text
    assert (
        hashlib.sha256(bytes.fromhex(r.json()["server_seed"])).hexdigest() == started["commitment"]
    )
    return t, started, seqs


async def test_an_ended_session_verifies_with_the_standalone_script(
    make_client: ClientFactory, app: FastAPI, tmp_path: Path
) -> None:
    t, started, seqs = await _played(make_client, app)
    data = await export(t.player, t.campaign_id, started["id"])
    assert data["commitment"] == started["commitment"] and data["server_seed"]
    assert data["events"][0]["type"] == "session_started"
    assert data["events"][-1]["type"] == "session_ended"
    # Every die of the player's roll is derived with the player's seed, in draw order.
    rolled = event(data, seqs["player"])
    assert rolled["fairplay"]["client_seed"] == "Glückskeks ✓"
    assert rolled["fairplay"]["user_id"] == t.ids["player"]
    assert [face for _sides, face in rolled["fairplay"]["draws"]] == _faces(rolled["payload"])
    seed = bytes.fromhex(data["server_seed"])
    for k, (sides, face) in enumerate(rolled["fairplay"]["draws"]):
        assert face == derive_face(
            seed, t.campaign_id, seqs["player"], t.ids["player"], "Glückskeks ✓", k, sides
        )
    report = verified(data)
    assert report.ok, [(e.seq, e.problems) for e in report.events]
    path = tmp_path / "session.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    # The script as a player gets it: downloaded from the page, run on its own.
    r = await t.player.get("/fairplay/verify_fairplay.py")
    assert r.status_code == 200
    script = tmp_path / "verify_fairplay.py"
    script.write_text(r.text, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-I", str(script), str(path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1].startswith("OK:")


def _change_face(data: dict[str, Any], seq: int) -> None:
    draws = event(data, seq)["fairplay"]["draws"]
    sides, face = draws[0]
    draws[0] = [sides, face % sides + 1]


def _change_payload(data: dict[str, Any], seq: int) -> None:
    event(data, seq)["payload"]["total"] += 1


def _change_digest(data: dict[str, Any], seq: int) -> None:
    fp = event(data, seq)["fairplay"]
    fp["digest"] = hashlib.sha256(b"other").hexdigest()


def _swap(data: dict[str, Any], seq: int) -> None:
    events = data["events"]
    i = next(n for n, e in enumerate(events) if e["seq"] == seq)
    events[i - 1], events[i] = events[i], events[i - 1]


def _delete_before(data: dict[str, Any], seq: int) -> None:
    events = data["events"]
    i = next(n for n, e in enumerate(events) if e["seq"] == seq)
    del events[i - 1]


@pytest.mark.parametrize(
    "tamper", [_change_face, _change_payload, _change_digest, _swap, _delete_before]
)
async def test_any_change_fails_at_that_event(
    make_client: ClientFactory, app: FastAPI, tamper: Any
) -> None:
    t, started, seqs = await _played(make_client, app)
    data = tampered(await export(t.player, t.campaign_id, started["id"]))
    target = seqs["gm"]
    tamper(data, target)
    report = verified(data)
    assert not report.ok
    assert report.first_failure == target, [(e.seq, e.problems) for e in report.events]


async def test_a_roll_cannot_come_before_the_commitment(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    before = await roll(t.player, t, "1W6")
    started = await fair_session(t)
    first = await roll(t.player, t, "1W6")
    r = await t.gm.post(f"{base(t)}/sessions/{started['id']}/end")
    assert r.status_code == 200
    data = await export(t.player, t.campaign_id, started["id"])
    # The roll before the start is not part of the session; the commitment comes first.
    assert data["events"][0]["seq"] > before
    assert data["events"][0]["type"] == "session_started"
    assert data["events"][0]["payload"]["commitment"] == started["commitment"]
    assert first > data["events"][0]["seq"]
    # A roll moved in front of the commitment fails the verification.
    moved = tampered(data)
    roll_event = event(moved, first)
    moved["events"].remove(roll_event)
    moved["events"].insert(0, roll_event)
    report = verified(moved)
    assert not report.ok
    assert any("commitment" in p for p in report.problems)


async def test_a_secret_gm_roll_is_digest_only_until_revealed(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    started = await fair_session(t, reveal=True)
    sid = started["id"]
    secret = await roll(t.gm, t, "1W20", visibility="gm", label="Falle")
    during = event(await export(t.player, t.campaign_id, sid), secret)
    assert during["payload"] is None and during["fairplay"]["draws"] is None
    assert len(during["fairplay"]["digest"]) == 64 and len(during["fairplay"]["chain"]) == 64
    report = verified(await export(t.player, t.campaign_id, sid))
    assert report.ok and not report.seed_published
    assert next(e for e in report.events if e.seq == secret).secret
    assert (await t.gm.post(f"{base(t)}/sessions/{sid}/end")).status_code == 200
    after = await export(t.player, t.campaign_id, sid)
    revealed = event(after, secret)
    assert revealed["payload"]["label"] == "Falle" and revealed["fairplay"]["draws"]
    report = verified(after)
    assert report.ok and not next(e for e in report.events if e.seq == secret).secret


async def test_a_kept_secret_stays_committed_after_the_end(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    started = await fair_session(t, reveal=False)
    secret = await roll(t.gm, t, "1W20", visibility="gm")
    assert (await t.gm.post(f"{base(t)}/sessions/{started['id']}/end")).status_code == 200
    data = await export(t.player, t.campaign_id, started["id"])
    assert event(data, secret)["payload"] is None
    report = verified(data)
    assert report.ok and next(e for e in report.events if e.seq == secret).secret
    gm_view = event(await export(t.gm, t.campaign_id, started["id"]), secret)
    assert gm_view["payload"] is not None and gm_view["fairplay"]["draws"]


async def test_rolls_outside_fair_play_carry_no_record(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    r = await t.gm.post(f"{base(t)}/sessions")
    assert r.status_code == 201 and r.json()["commitment"] is None
    await roll(t.player, t, "1W6")
    r = await t.player.get(f"{base(t)}/sessions/{r.json()['id']}/fairplay")
    assert r.status_code == 409


async def test_a_sheet_roll_with_gluck_lists_its_dice_on_the_roll(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Glück changes the sheet after the roll: the roll event carries the faces."""
    t = await make_table(make_client, app)
    r = await t.player.post(f"{base(t)}/characters", json={"name": "Alrik"})
    assert r.status_code == 201, r.text
    cid = r.json()["id"]
    sid = (await fair_session(t))["id"]
    r = await t.player.post(
        f"{base(t)}/characters/{cid}/roll", json={"target": "attack:Kampfkunst", "luck": "bonus"}
    )
    assert r.status_code == 201, r.text
    assert (await t.gm.post(f"{base(t)}/sessions/{sid}/end")).status_code == 200
    data = await export(t.player, t.campaign_id, sid)
    assert verified(data).ok
    (rolled,) = [e for e in data["events"] if e["type"] == "roll"]
    assert [f for _s, f in rolled["fairplay"]["draws"]] == _faces(rolled["payload"])
    changed = next(e for e in data["events"] if e["type"] == "character_updated")
    assert changed["seq"] > rolled["seq"] and changed["fairplay"]["draws"] == []


async def test_the_stream_stub_of_a_secret_roll_keeps_digest_and_chain(
    make_client: ClientFactory, app: FastAPI
) -> None:
    from sqlalchemy import select

    from app.core.viewer import Role, Viewer
    from app.events.models import CampaignEvent
    from app.events.service import project

    t = await make_table(make_client, app)
    await fair_session(t)
    secret = await roll(t.gm, t, "1W20", visibility="gm")
    async with app.state.ctx.sessionmaker() as session:
        row = await session.scalar(
            select(CampaignEvent).where(
                CampaignEvent.campaign_id == t.campaign_id, CampaignEvent.seq == secret
            )
        )
    assert row is not None and row.fairplay is not None
    player = Viewer(t.ids["player"], "player_user", Role.player)
    (stub,) = project([row], player)
    data = stub.data()
    assert data["secret"] is True and "total" not in data
    assert data["fairplay"]["draws"] is None
    assert data["fairplay"]["chain"] == row.fairplay["chain"]
    (whole,) = project([row], Viewer(t.ids["gm"], "gm_user", Role.gm))
    assert whole.data()["fairplay"]["draws"] == row.fairplay["draws"]


async def test_a_roll_racing_the_start_of_a_session_is_rolled_with_its_dice(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """The roll looks at the campaign row read with the sign-in to skip the log lock outside
    fair play. A session that opens between that read and the roll's event must not get an
    event whose dice did not come from its seed: the roll is rolled again, fairly."""
    t = await make_table(make_client, app)
    ctx: AppContext = app.state.ctx
    async with ctx.sessionmaker() as before:
        stale = await before.get_one(Campaign, t.campaign_id)  # no session open yet
    started = await fair_session(t)
    async with ctx.sessionmaker() as session:
        user = await session.get_one(User, t.ids["player"])
        remember_role(session, t.campaign_id, user.id, "player", stale)
        assert stale.fairplay_session_id is None
        logged = await rolls.roll(session, ctx.roller, user, t.campaign_id, "3W6", None, "public")
        await ctx.commit(session)
    r = await t.gm.post(f"{base(t)}/sessions/{started['id']}/end")
    assert r.status_code == 200, r.text
    data = await export(t.player, t.campaign_id, started["id"])
    report = verified(data)
    assert report.ok, [(e.seq, e.problems) for e in report.events]
    rolled = event(data, logged.seq)
    assert rolled["fairplay"]["user_id"] == t.ids["player"]
    assert [face for _sides, face in rolled["fairplay"]["draws"]] == _faces(rolled["payload"])


async def test_a_combat_step_racing_the_start_of_a_session_is_refused_unwritten(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """A combat step, too, skips the log lock outside fair play as the campaign row read
    with the sign-in says (``roller_for_read_campaign``). A session that opens between that
    read and the step's first event: the step is refused with a 409 and nothing of it is
    written; done again, its event is the session's."""
    t = await make_table(make_client, app)
    camp = base(t)
    r = await t.gm.post(f"{camp}/bestiary/samples")
    goblin = next(e["id"] for e in r.json() if e["name"] == "Goblin")
    enc = (await t.gm.post(f"{camp}/encounters", json={"name": "Höhle"})).json()["id"]
    r = await t.gm.post(
        f"{camp}/encounters/{enc}/participants", json={"entry_id": goblin, "count": 2}
    )
    assert r.status_code == 201, r.text
    assert (await t.gm.post(f"{camp}/encounters/{enc}/actions/start", json={})).status_code == 200
    ctx: AppContext = app.state.ctx
    async with ctx.sessionmaker() as before:
        stale = await before.get_one(Campaign, t.campaign_id)  # no session open yet
    started = await fair_session(t)
    fight_before = (await t.gm.get(f"{camp}/encounters/{enc}")).json()
    async with ctx.sessionmaker() as session:
        last_seq = (await session.get_one(Campaign, t.campaign_id)).last_seq
    async with ctx.sessionmaker() as session:
        gm = await session.get_one(User, t.ids["gm"])
        remember_role(session, t.campaign_id, gm.id, "gm", stale)
        with pytest.raises(FairPlayOpened) as refused:
            await encounters.operate(
                session, gm, t.campaign_id, enc, None, encounters.op_next,
                roller=ctx.roller, gm_only=True,
            )  # fmt: skip
        assert refused.value.status_code == 409
        await session.rollback()
    async with ctx.sessionmaker() as session:
        assert (await session.get_one(Campaign, t.campaign_id)).last_seq == last_seq
    assert (await t.gm.get(f"{camp}/encounters/{enc}")).json() == fight_before
    r = await t.gm.post(f"{camp}/encounters/{enc}/actions/next", json={})
    assert r.status_code == 200, r.text
    assert (await t.gm.post(f"{camp}/sessions/{started['id']}/end")).status_code == 200
    data = await export(t.gm, t.campaign_id, started["id"])
    assert verified(data).ok
    assert [e["seq"] for e in data["events"] if e["seq"] > last_seq]


async def test_a_gm_override_racing_the_start_of_a_session_is_not_let_pass(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """A GM override reads no table rule when the campaign row read with the sign-in shows
    no fair-play session; should a session (here one that forbids overrides) have opened
    since, the override's first event is refused and nothing is written."""
    t = await make_table(make_client, app)
    ctx: AppContext = app.state.ctx
    async with ctx.sessionmaker() as before:
        stale = await before.get_one(Campaign, t.campaign_id)
    await fair_session(t, overrides="forbidden")
    async with ctx.sessionmaker() as session:
        await game_sessions.guard_override(session, stale)  # the row showed no session
        override = Roll.build(
            actor_name="gm_user", expression="1W6", label="", dice=[DieRoll(6, (3,))], signs=[1],
            modifier=0, total=3,
        )  # fmt: skip
        with pytest.raises(FairPlayOpened):
            await append_event(session, t.campaign_id, override, actor_id=t.ids["gm"])
        await session.rollback()
    async with ctx.sessionmaker() as session:
        assert not await session.scalar(
            select(CampaignEvent.id).where(
                CampaignEvent.campaign_id == t.campaign_id, CampaignEvent.type == Roll.TYPE
            )
        )


async def test_chat_lines_in_a_fair_play_session_take_their_events_seq(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """A chat line's place in the chat is its event's ``seq``: in a fair-play session its
    event takes the chained path, and the line is given its ``seq`` there too."""
    t = await make_table(make_client, app)
    await fair_session(t)
    for text in ("Erstens", "Zweitens"):
        r = await t.player.post(f"{base(t)}/messages", json={"text": text})
        assert r.status_code == 201, r.text
        await roll(t.gm, t, "1W20")
    async with app.state.ctx.sessionmaker() as session:
        rows = (await session.execute(select(ChatMessage.id, ChatMessage.seq))).all()
        logged = list(
            await session.scalars(select(CampaignEvent).where(CampaignEvent.type == "chat_message"))
        )
    assert all(e.fairplay is not None for e in logged)
    assert {m: seq for m, seq in rows} == {e.payload["message_id"]: e.seq for e in logged}
    r = await t.gm.get(f"{base(t)}/messages")
    assert [m["text"] for m in r.json()["messages"]] == ["Erstens", "Zweitens"]
