"""The sessions page and the campaign page's sessions panel read the table rule, the
sessions and the member's own client seed in one statement, and show each member theirs."""

from __future__ import annotations

import re

from fastapi import FastAPI

from tests.api.helpers import make_table
from tests.api.test_shared_render import statements
from tests.conftest import ClientFactory
from tests.sessions.helpers import base

SEED_FIELD = re.compile(r'<input id="client-seed" name="client_seed"[^>]*value="([^"]*)"')
SESSION_ITEM = re.compile(r'<li id="session-(\d+)">')


def _session_reads(seen: list[str]) -> list[str]:
    return [
        s
        for s in seen
        if any(t in s for t in ("game_session", "fairplay_rule", "session_client_seed"))
    ]


async def test_rule_sessions_and_own_seed_in_one_statement(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    b, page = base(t), f"/campaigns/{t.campaign_id}/sessions"
    ended = (await t.gm.post(f"{b}/sessions")).json()["id"]  # before fair play: no commitment
    assert (await t.gm.post(f"{b}/sessions/{ended}/end")).status_code == 200
    rule = {"enabled": True, "overrides": "forbidden", "reveal_secret_rolls": False}
    assert (await t.gm.put(f"{b}/fairplay", json=rule)).status_code == 200
    running = (await t.gm.post(f"{b}/sessions")).json()["id"]
    r = await t.player.put(f"{b}/sessions/{running}/seed", json={"client_seed": "wuerfelglueck"})
    assert r.status_code == 200, r.text

    with statements(app, own_task=True) as seen:
        r = await t.player.get(page)
    assert r.status_code == 200
    assert len(_session_reads(seen)) == 1, seen
    assert SEED_FIELD.findall(r.text) == ["wuerfelglueck"]
    assert [int(i) for i in SESSION_ITEM.findall(r.text)] == [running, ended]  # newest first
    assert "Tischregel: Eingriffe der SL sind verboten." in r.text  # German by default
    assert "Verdeckte Würfe der SL bleiben geheim" in r.text

    r = await t.gm.get(page)  # the GM set no seed: the player's is not theirs
    assert SEED_FIELD.findall(r.text) == [""]
    r = await t.observer.get(page)
    assert "wuerfelglueck" not in r.text

    with statements(app, own_task=True) as seen:
        r = await t.player.get(f"/campaigns/{t.campaign_id}")
    assert r.status_code == 200
    assert len(_session_reads(seen)) == 1, seen
    panel = r.text[r.text.index('id="sessions-panel"') :]
    assert [int(i) for i in SESSION_ITEM.findall(panel)][:2] == [running, ended]


async def test_a_campaign_without_rule_or_sessions(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    r = await t.player.get(f"/campaigns/{t.campaign_id}/sessions")
    assert r.status_code == 200
    assert SESSION_ITEM.findall(r.text) == [] and 'class="empty"' in r.text
    assert "Fair Play ist aus." in r.text
