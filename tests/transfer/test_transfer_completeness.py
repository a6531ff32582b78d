"""The campaign document carries every table of a campaign or says why not; game sessions
travel with their fair-play proofs and still verify; the table rule travels; documents
nested too deep are refused at the field. SQLite and PostgreSQL
(``TAFELRUNDE_TEST_DATABASE_URL``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from app import models
from app.cli import main as cli
from app.transfer.service import EXPORTED_TABLES, NOT_EXPORTED
from tests.conftest import ClientFactory
from tests.sessions.helpers import base, export, fair_session, roll, verified
from tests.sessions.test_fairplay import _played
from tests.transfer.test_campaign_transfer import _export, _rich_campaign, import_as


def _at(document: dict[str, Any], path: str) -> Any:
    node: Any = document
    for key in path.split("."):
        node = node[key]
    return node


async def test_every_campaign_table_is_exported_or_named_as_left_out(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """A table with a ``campaign_id`` the export neither carries nor lists (with a reason)
    fails here: a new table must choose."""
    tables = {t.name for t in models.Base.metadata.sorted_tables if "campaign_id" in t.c}
    assert not set(EXPORTED_TABLES) & set(NOT_EXPORTED)
    assert tables - set(EXPORTED_TABLES) - set(NOT_EXPORTED) == set()
    assert set(EXPORTED_TABLES) <= tables
    fight = await _rich_campaign(make_client, app)
    document = await _export(fight.gm, fight.campaign_id)
    for table, path in EXPORTED_TABLES.items():
        assert _at(document, path) is not None or table == "fairplay_rule", (table, path)
    # The document names what it leaves out, with a reason in the exporter's language.
    left_out = {entry["table"]: entry["reason"] for entry in document["not_exported"]}
    assert set(left_out) == set(NOT_EXPORTED)
    assert all(reason for reason in left_out.values())
    assert "privaten Journalnotizen" not in left_out["membership"]
    assert "Private Journalnotizen" in left_out["journal_note (private)"]


async def test_a_fair_play_session_travels_and_still_verifies(
    make_client: ClientFactory, app: FastAPI, tmp_path: Path
) -> None:
    t, started, _seqs = await _played(make_client, app)
    original = await export(t.gm, t.campaign_id, started["id"])
    assert verified(original).ok
    document = await _export(t.gm, t.campaign_id)
    assert document["fairplay_rule"]["enabled"] is True
    # Someone else imports it: the copy's session verifies with the same ids and payloads.
    new_id = await import_as(t.outsider, document)
    (copied,) = (await t.outsider.get(f"/api/v1/campaigns/{new_id}/sessions")).json()
    assert copied["ended_at"] is not None
    r = await t.outsider.get(f"/campaigns/{new_id}/sessions/{copied['id']}/verify")
    assert r.status_code == 200, r.text[:300]
    # The copy plays with the original's table rule (it said «Fair Play ist aus»).
    r = await t.outsider.get(f"/campaigns/{new_id}/sessions")
    assert "Fair Play ist an." in r.text and "Fair Play ist aus" not in r.text
    data = await export(t.outsider, new_id, copied["id"])
    assert (data["campaign_id"], data["session_id"]) == (t.campaign_id, started["id"])
    assert data == original
    report = verified(data)
    assert report.ok, [(e.seq, e.problems) for e in report.events]
    saved = tmp_path / "session.json"
    saved.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(SystemExit) as done:
        cli(["verify", str(saved)])
    assert done.value.code == 0
    # The copy of the copy keeps the origin, and the table rule travels with it.
    again = await import_as(t.outsider, await _export(t.outsider, new_id))
    (twice,) = (await t.outsider.get(f"/api/v1/campaigns/{again}/sessions")).json()
    assert verified(await export(t.outsider, again, twice["id"])).ok
    rule = (await t.outsider.get(f"/api/v1/campaigns/{again}/fairplay")).json()
    assert (rule["enabled"], rule["overrides"], rule["reveal_secret_rolls"]) == (
        True,
        "marked",
        True,
    )


async def test_a_running_session_travels_finished_without_its_seed(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """The seed of a running session is never exported (it would let the exporter predict
    the dice); the copy has the session as finished, its dice unverifiable at the end."""
    t, _started, _seqs = await _played(make_client, app)
    running = await fair_session(t)
    await roll(t.player, t, "1W6")
    document = await _export(t.gm, t.campaign_id)
    assert document["game_sessions"][-1]["server_seed"] is None
    assert document["game_sessions"][-1]["commitment"] == running["commitment"]
    new_id = await import_as(t.gm, document)
    sessions = (await t.gm.get(f"/api/v1/campaigns/{new_id}/sessions")).json()
    assert len(sessions) == 2 and all(s["ended_at"] for s in sessions)
    r = await t.gm.post(f"/api/v1/campaigns/{new_id}/sessions")
    assert r.status_code == 201, r.text  # nothing is left open in the copy
    assert (await t.gm.get(f"{base(t)}/sessions")).status_code == 200


@pytest.mark.parametrize("depth", [33, 1000, 100_000])
async def test_a_deeply_nested_document_is_refused_at_the_field(
    make_client: ClientFactory, app: FastAPI, depth: int
) -> None:
    fight = await _rich_campaign(make_client, app)
    document = await _export(fight.gm, fight.campaign_id)
    body = json.dumps(document)[:-1] + ',"deep":' + "[" * depth + "]" * depth + "}"
    before = (await fight.gm.get("/api/v1/campaigns")).json()
    r = await fight.gm.post(
        "/api/v1/campaigns/import", content=body, headers={"content-type": "application/json"}
    )
    assert r.status_code == 422 and "32" in r.json()["errors"]["document"], r.text
    r = await fight.gm.post(
        "/campaigns/import", files={"document": ("deep.json", body.encode(), "application/json")}
    )
    assert r.status_code == 422 and "32 Ebenen" in r.text
    assert (await fight.gm.get("/api/v1/campaigns")).json() == before
    # An export of ours stays well within the limit.
    assert (await fight.gm.post("/api/v1/campaigns/import", json=document)).status_code == 201


async def test_session_rows_are_checked_column_by_column(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Sessions and the table rule travel as whole rows: a column the document lacks (written
    before it existed) gets its default, a column this server lacks is refused at its field."""
    t, _started, _seqs = await _played(make_client, app)
    document = await _export(t.gm, t.campaign_id)
    older = json.loads(json.dumps(document))
    del older["game_sessions"][0]["reveal_secret_rolls"], older["fairplay_rule"]["overrides"]
    new_id = await import_as(t.gm, older)
    rule = (await t.gm.get(f"/api/v1/campaigns/{new_id}/fairplay")).json()
    assert (rule["enabled"], rule["overrides"]) == (True, "marked")
    cases: list[tuple[dict[str, Any], str]] = [
        ({"game_sessions": [{**document["game_sessions"][0], "nonsense": 1}]}, "nonsense"),
        ({"game_sessions": [{**document["game_sessions"][0], "start_seq": "x"}]}, "start_seq"),
        ({"game_sessions": [{**document["game_sessions"][0], "origin": [1]}]}, "origin"),
        ({"fairplay_rule": {**document["fairplay_rule"], "enabled": "vielleicht"}}, "enabled"),
    ]
    for change, field in cases:
        r = await t.gm.post("/api/v1/campaigns/import", json={**document, **change})
        assert r.status_code == 422, r.text
        assert any(key.endswith(field) for key in r.json()["errors"]), r.text
