"""The dice log: server rolls, validation, visibility per viewer, paging."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from app.rules.dice import ScriptedRoller
from tests.api.helpers import make_table
from tests.conftest import ClientFactory


@pytest.fixture
def scripted(app: FastAPI) -> ScriptedRoller:
    roller = ScriptedRoller([5, 6, 20, 3, 6, 1, 3, 2] * 50)
    app.state.ctx.roller = roller
    return roller


async def test_roll_returns_faces_and_total(
    make_client: ClientFactory, app: FastAPI, scripted: ScriptedRoller
) -> None:
    table = await make_table(make_client, app)
    r = await table.player.post(
        f"/api/v1/campaigns/{table.campaign_id}/rolls",
        json={"expression": "2W10+3", "label": "Klettern", "visibility": "public"},
    )
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["dice"] == [{"sides": 10, "faces": [5, 6], "kept": [True, True]}]
    assert body["total"] == 14 and body["expression"] == "2W10+3"
    assert body["label"] == "Klettern" and body["event_id"] >= 1


async def test_keep_highest_and_lowest(make_client: ClientFactory, app: FastAPI) -> None:
    table = await make_table(make_client, app)
    app.state.ctx.roller = ScriptedRoller([5, 16, 6, 1, 3, 2])
    url = f"/api/v1/campaigns/{table.campaign_id}/rolls"
    r = await table.gm.post(url, json={"expression": "2d20kh1"})
    assert r.json()["dice"] == [{"sides": 20, "faces": [5, 16], "kept": [False, True]}]
    assert r.json()["total"] == 16
    r = await table.gm.post(url, json={"expression": "4d6kl3"})
    assert r.json()["dice"] == [
        {"sides": 6, "faces": [6, 1, 3, 2], "kept": [False, True, True, True]}
    ]
    assert r.json()["total"] == 6


@pytest.mark.parametrize(
    "expression",
    ["", "10000d10000", "101d6", "2d1", "1d1001", "3d6kh4", "abc", "2W10+", "1d6" + "+1" * 30],
)
async def test_invalid_expressions_are_refused_at_the_field(
    make_client: ClientFactory, app: FastAPI, expression: str
) -> None:
    table = await make_table(make_client, app)
    r = await table.gm.post(
        f"/api/v1/campaigns/{table.campaign_id}/rolls", json={"expression": expression}
    )
    assert r.status_code == 422
    assert r.json()["errors"]["expression"]


async def test_observer_cannot_roll(make_client: ClientFactory, app: FastAPI) -> None:
    table = await make_table(make_client, app)
    r = await table.observer.post(
        f"/api/v1/campaigns/{table.campaign_id}/rolls", json={"expression": "1d20"}
    )
    assert r.status_code == 403


async def _log(client: httpx.AsyncClient, campaign_id: int) -> list[dict[str, object]]:
    r = await client.get(f"/api/v1/campaigns/{campaign_id}/rolls")
    assert r.status_code == 200
    return r.json()["rolls"]  # type: ignore[no-any-return]


async def test_gm_only_roll_never_reaches_a_player(
    make_client: ClientFactory, app: FastAPI
) -> None:
    table = await make_table(make_client, app)
    cid = table.campaign_id
    canary = "KANARIENVOGEL-7f3a"
    r = await table.gm.post(
        f"/api/v1/campaigns/{cid}/rolls",
        json={"expression": "1d20+7", "label": canary, "visibility": "gm"},
    )
    assert r.status_code == 201
    for viewer in (table.player, table.observer):
        entries = await _log(viewer, cid)
        assert len(entries) == 1 and entries[0]["secret"] is True
        assert "total" not in entries[0] and "dice" not in entries[0]
        page = await viewer.get(f"/campaigns/{cid}")
        assert canary not in page.text and "1W20+7" not in page.text
        assert canary not in (await viewer.get(f"/api/v1/campaigns/{cid}/rolls")).text
    gm_entries = await _log(table.gm, cid)
    assert gm_entries[0]["label"] == canary and gm_entries[0]["secret"] is False
    assert canary in (await table.gm.get(f"/campaigns/{cid}")).text


async def test_self_roll_is_seen_by_roller_and_gm_only(
    make_client: ClientFactory, app: FastAPI
) -> None:
    table = await make_table(make_client, app)
    cid = table.campaign_id
    r = await table.player.post(
        f"/api/v1/campaigns/{cid}/rolls",
        json={"expression": "3W6", "label": "Heimlich", "visibility": "self"},
    )
    assert r.status_code == 201
    assert (await _log(table.player, cid))[0]["label"] == "Heimlich"
    assert (await _log(table.gm, cid))[0]["label"] == "Heimlich"
    observed = (await _log(table.observer, cid))[0]
    assert observed["secret"] is True and "label" not in observed


async def test_log_pages_backwards(make_client: ClientFactory, app: FastAPI) -> None:
    table = await make_table(make_client, app)
    cid = table.campaign_id
    for i in range(55):
        r = await table.gm.post(
            f"/api/v1/campaigns/{cid}/rolls", json={"expression": "1d6", "label": f"Wurf {i}"}
        )
        assert r.status_code == 201
    first = (await table.player.get(f"/api/v1/campaigns/{cid}/rolls")).json()
    assert len(first["rolls"]) == 50
    assert first["rolls"][0]["label"] == "Wurf 54"
    second = (
        await table.player.get(f"/api/v1/campaigns/{cid}/rolls?before={first['next_before']}")
    ).json()
    assert [e["label"] for e in second["rolls"]] == [f"Wurf {i}" for i in range(4, -1, -1)]
    assert second["next_before"] is None
    # The HTML page offers the same paging, without and with HTMX.
    page = await table.player.get(f"/campaigns/{cid}")
    assert "Wurf 54" in page.text and "Wurf 4<" not in page.text
    more = await table.player.get(
        f"/campaigns/{cid}/log?before={first['next_before']}", headers={"HX-Request": "true"}
    )
    assert "Wurf 4<" in more.text and "<html" not in more.text


async def test_roll_form_without_and_with_htmx(make_client: ClientFactory, app: FastAPI) -> None:
    table = await make_table(make_client, app)
    cid = table.campaign_id
    r = await table.player.post(
        f"/campaigns/{cid}/rolls",
        data={"expression": "1W20", "label": "Form", "visibility": "public"},
    )
    assert r.status_code == 303 and r.headers["location"] == f"/campaigns/{cid}"
    r = await table.player.post(
        f"/campaigns/{cid}/rolls",
        data={"expression": "10000d10000", "label": "", "visibility": "public"},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 422
    assert 'id="expression-error"' in r.text and 'aria-invalid="true"' in r.text
    assert "<html" not in r.text
    assert len(await _log(table.gm, cid)) == 1


async def test_the_answer_to_a_roll_is_what_the_dice_log_shows_the_roller(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """A player's roll for the GMs only: the direct answer, like the log, tells them only
    that it happened; a roll for the GMs and themselves they see whole."""
    table = await make_table(make_client, app)
    cid = table.campaign_id
    url = f"/api/v1/campaigns/{cid}/rolls"
    r = await table.player.post(
        url, json={"expression": "1d20", "label": "Blind", "visibility": "gm"}
    )
    assert r.status_code == 201, r.text
    answer = r.json()
    assert answer["secret"] is True and answer["total"] is None and answer["dice"] is None
    (logged,) = await _log(table.player, cid)
    assert logged["secret"] is True and "total" not in logged
    r = await table.player.post(url, json={"expression": "1d20", "visibility": "self"})
    assert r.status_code == 201, r.text
    assert r.json()["secret"] is False and 1 <= r.json()["total"] <= 20


async def test_the_page_log_shows_each_viewer_their_form_rendered_before_or_not(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """The page's entries rendered for one viewer are reused only for viewers who get the
    same form; a new entry among them is read whole and takes its place, newest first."""
    table = await make_table(make_client, app)
    cid = table.campaign_id
    url = f"/api/v1/campaigns/{cid}/rolls"
    rolls = [
        (table.gm, "Geheim-KANARIE", "gm"),
        (table.player, "Eigen-Wurf", "self"),
        (table.gm, "Offen-Eins", "public"),
    ]
    for client, label, visibility in rolls:
        r = await client.post(
            url, json={"expression": "1d20", "label": label, "visibility": visibility}
        )
        assert r.status_code == 201, r.text
    gm_page = (await table.gm.get(f"/campaigns/{cid}")).text
    assert all(label in gm_page for _c, label, _v in rolls)

    player_page = (await table.player.get(f"/campaigns/{cid}")).text
    assert "Eigen-Wurf" in player_page and "Offen-Eins" in player_page
    assert "Geheim-KANARIE" not in player_page
    observer_page = (await table.observer.get(f"/campaigns/{cid}")).text
    assert "Offen-Eins" in observer_page
    assert "Eigen-Wurf" not in observer_page and "Geheim-KANARIE" not in observer_page
    stubs = observer_page.count('class="roll secret')
    assert stubs == 2, stubs

    r = await table.gm.post(url, json={"expression": "1d20", "label": "Offen-Zwei"})
    assert r.status_code == 201, r.text
    player_page = (await table.player.get(f"/campaigns/{cid}")).text
    shown = [player_page.index(label) for label in ("Offen-Zwei", "Offen-Eins", "Eigen-Wurf")]
    assert shown == sorted(shown)
    assert "Geheim-KANARIE" not in player_page
