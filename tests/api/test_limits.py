"""Issue 20 H1, L1, M4, L7: bounded collections and documents, body size, NUL bytes and
invisible characters. Every refusal is a 422 at the field (413 for the body), nothing saved,
on SQLite and PostgreSQL alike."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Awaitable
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

import app.web.templating as templating
from app import limits
from app.characters.models import Character, Item
from tests.api.helpers import Table, make_table
from tests.conftest import ClientFactory

SPOOFS = {
    "bidi override": "Alrik\u202egnip",
    "bidi isolate": "\u2066Alrik\u2069",
    "zero-width space": "Al\u200brik",
    "zero-width joiner": "Al\u200drik",
    "byte order mark": "\ufeffAlrik",
    "control": "Al\x07rik",
    "newline": "Al\nrik",
    "NUL": "Al\x00rik",
}


def api(t: Table) -> str:
    return f"/api/v1/campaigns/{t.campaign_id}"


async def character_count(app: FastAPI, campaign_id: int) -> int:
    async with app.state.ctx.sessionmaker() as session:
        count = await session.scalar(
            select(func.count()).select_from(Character).where(Character.campaign_id == campaign_id)
        )
    return int(count or 0)


async def export_of_new_character(t: Table) -> dict[str, Any]:
    r = await t.player.post(f"{api(t)}/characters", json={"name": "Alrik"})
    assert r.status_code == 201, r.text
    r = await t.player.get(f"{api(t)}/characters/{r.json()['id']}/export")
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


# --- H1: the character file ------------------------------------------------------------------


async def test_import_of_100000_items_is_refused_quickly(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    exported = await export_of_new_character(t)
    before = await character_count(app, t.campaign_id)
    started = time.monotonic()
    r = await t.player.post(
        f"{api(t)}/characters/import", json={**exported, "items": [{}] * 100_000}
    )
    elapsed = time.monotonic() - started
    assert r.status_code == 422, r.text
    assert str(limits.ITEMS_PER_CHARACTER) in r.json()["errors"]["file"]
    assert elapsed < 5.0, elapsed  # the finding: 201 after 50 s
    assert await character_count(app, t.campaign_id) == before


async def test_import_with_50000_unknown_keys_is_refused(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    exported = await export_of_new_character(t)
    before = await character_count(app, t.campaign_id)
    data = {**exported["data"], **{f"unknown{n}": n for n in range(50_000)}}
    r = await t.player.post(f"{api(t)}/characters/import", json={**exported, "data": data})
    assert r.status_code == 422, r.text
    assert r.json()["errors"]["file"].startswith("data: ")
    assert await character_count(app, t.campaign_id) == before


async def test_import_at_the_item_limit_is_accepted_and_one_more_item_is_not(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    exported = await export_of_new_character(t)
    items = [{"name": f"Kiesel {n}", "quantity": 1} for n in range(limits.ITEMS_PER_CHARACTER)]
    document = {**exported, "data": {**exported["data"], "wears_rucksack": False}}
    r = await t.player.post(f"{api(t)}/characters/import", json={**document, "items": items})
    assert r.status_code == 201, r.text
    cid = r.json()["id"]
    assert len(r.json()["items"]) == limits.ITEMS_PER_CHARACTER
    for path in (f"{api(t)}/characters/{cid}", f"/campaigns/{t.campaign_id}/characters/{cid}"):
        r = await t.player.get(path)
        assert r.status_code == 200, r.text
        assert "Kiesel 199" in r.text
    # One more item is refused at the field, by the API and the form alike.
    r = await t.player.post(f"{api(t)}/characters/{cid}/items", json={"name": "Noch einer"})
    assert r.status_code == 422, r.text
    assert "items" in r.json()["errors"]


async def test_a_player_imports_only_as_a_member_who_may_create(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """The player of the finding is a member; observers and outsiders cannot import."""
    t = await make_table(make_client, app)
    exported = await export_of_new_character(t)
    assert (await t.observer.post(f"{api(t)}/characters/import", json=exported)).status_code == 403
    assert (await t.outsider.post(f"{api(t)}/characters/import", json=exported)).status_code == 404
    # An NSC file imported by a player becomes a PC of that player, never a hidden NSC.
    r = await t.player.post(
        f"{api(t)}/characters/import", json={**exported, "kind": "npc", "hidden_from_players": True}
    )
    assert r.status_code == 201, r.text
    assert r.json()["kind"] == "pc" and r.json()["owner_id"] == t.ids["player"]
    assert r.json()["hidden_from_players"] is False


async def test_sheet_data_with_too_many_keys_is_refused(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    data = {f"k{n}": n for n in range(limits.DATA_ENTRIES_MAX + 1)}
    r = await t.player.post(f"{api(t)}/characters", json={"name": "Alrik", "data": data})
    assert r.status_code == 422, r.text
    assert "data" in r.json()["errors"]
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(limits.DATA_DEPTH_MAX + 1):
        node["x"] = {}
        node = node["x"]
    r = await t.player.post(f"{api(t)}/characters", json={"name": "Alrik", "data": deep})
    assert r.status_code == 422, r.text
    assert await character_count(app, t.campaign_id) == 0


async def test_characters_per_campaign_are_limited(
    make_client: ClientFactory, app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "CHARACTERS_PER_CAMPAIGN", 2)
    t = await make_table(make_client, app)
    for name in ("Alrik", "Bosper"):
        r = await t.player.post(f"{api(t)}/characters", json={"name": name})
        assert r.status_code == 201, r.text
    r = await t.player.post(f"{api(t)}/characters", json={"name": "Cuano"})
    assert r.status_code == 422, r.text
    assert "2" in r.json()["errors"]["name"]
    r = await t.player.post(
        f"/campaigns/{t.campaign_id}/characters", data={"name": "Cuano", "kind": "pc"}
    )
    assert r.status_code == 422, r.text
    assert "2" in r.text
    assert await character_count(app, t.campaign_id) == 2


async def test_library_items_per_campaign_are_limited(
    make_client: ClientFactory, app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "LIBRARY_ITEMS_PER_CAMPAIGN", 1)
    t = await make_table(make_client, app)
    assert (await t.gm.post(f"{api(t)}/items", json={"name": "Seil"})).status_code == 201
    r = await t.gm.post(f"{api(t)}/items", json={"name": "Fackel"})
    assert r.status_code == 422, r.text
    async with app.state.ctx.sessionmaker() as session:
        count = await session.scalar(
            select(func.count()).select_from(Item).where(Item.in_library.is_(True))
        )
    assert count == 1


async def test_moving_an_item_respects_the_receivers_limit(
    make_client: ClientFactory, app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "ITEMS_PER_CHARACTER", 1)
    t = await make_table(make_client, app)
    ids = []
    for name in ("Alrik", "Bosper"):
        r = await t.gm.post(f"{api(t)}/characters", json={"name": name})
        assert r.status_code == 201, r.text
        ids.append(r.json()["id"])
        r = await t.gm.post(f"{api(t)}/characters/{ids[-1]}/items", json={"name": "Seil"})
        assert r.status_code == 201, r.text
    item_id = r.json()["id"]
    r = await t.gm.post(
        f"{api(t)}/characters/{ids[1]}/items/{item_id}/move", json={"to_character_id": ids[0]}
    )
    assert r.status_code == 422, r.text
    assert "items" in r.json()["errors"]


async def loop_ticks_during(request: Awaitable[httpx.Response]) -> int:
    """How often the event loop's 1 ms ticker got a turn while ``request`` ran."""
    ticks = 0
    done = asyncio.Event()

    async def tick() -> None:
        nonlocal ticks
        while not done.is_set():
            await asyncio.sleep(0.001)
            ticks += 1

    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0.005)
    before = ticks
    r = await request
    done.set()
    await ticker
    assert r.status_code == 200, r.text
    return ticks - before


async def test_the_largest_sheet_renders_off_the_event_loop(
    make_client: ClientFactory, app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Most of a big page's time is its template: that part runs in a worker thread, so the
    loop keeps ticking (on-loop it stalled for the whole render, ~90 % of the request).
    Checked by where the render runs, not by a timing ratio (which a loaded machine skews)."""
    t = await make_table(make_client, app)
    exported = await export_of_new_character(t)
    items = [
        {"name": f"Kiesel {n}", "description": "Rund und grau. " * 30}
        for n in range(limits.ITEMS_PER_CHARACTER)
    ]
    document = {**exported, "data": {**exported["data"], "wears_rucksack": False}}
    r = await t.player.post(f"{api(t)}/characters/import", json={**document, "items": items})
    assert r.status_code == 201, r.text
    sheet = f"/campaigns/{t.campaign_id}/characters/{r.json()['id']}"
    await t.player.get(sheet)  # templates compiled
    threads: list[int] = []
    real_render = templating.render

    def spy(template: str, block: str | None = None, **context: Any) -> str:
        threads.append(threading.get_ident())
        return real_render(template, block, **context)

    monkeypatch.setattr(templating, "render", spy)
    ticks = await loop_ticks_during(t.player.get(sheet))
    assert threads and threading.get_ident() not in threads, "the sheet rendered on the loop"
    assert ticks >= 1, "the loop got no turn while the sheet rendered"


# --- L1: the body ----------------------------------------------------------------------------


async def asgi_post(
    app: FastAPI, path: str, chunks: list[bytes], headers: list[tuple[bytes, bytes]]
) -> tuple[int, int]:
    """POST through the bare ASGI interface; returns (status, body bytes the app pulled)."""
    pulled = 0
    pending = list(chunks)
    status = 0

    async def receive() -> dict[str, Any]:
        nonlocal pulled
        if not pending:
            return {"type": "http.disconnect"}
        chunk = pending.pop(0)
        pulled += len(chunk)
        return {"type": "http.request", "body": chunk, "more_body": bool(pending)}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver"), (b"content-type", b"application/json"), *headers],
        "client": ("127.0.0.1", 1234),
        "server": ("testserver", 80),
    }
    await app(scope, receive, send)  # type: ignore[arg-type]
    return status, pulled


async def test_a_body_over_the_limit_is_refused_before_it_is_read(app: FastAPI) -> None:
    limit = app.state.ctx.settings.max_body_bytes
    big = b"x" * (limit + 1)
    status, pulled = await asgi_post(
        app, "/api/v1/auth/login", [big], [(b"content-length", str(len(big)).encode())]
    )
    assert (status, pulled) == (413, 0)


async def test_a_chunked_body_is_cut_off_at_the_limit(app: FastAPI) -> None:
    limit = app.state.ctx.settings.max_body_bytes
    chunk = b" " * 65536
    chunks = [chunk] * (limit // len(chunk) + 4)
    status, pulled = await asgi_post(app, "/api/v1/auth/login", chunks, [])
    assert status == 413
    assert pulled <= limit + len(chunk)


async def test_forms_have_the_same_body_limit(client: httpx.AsyncClient, app: FastAPI) -> None:
    limit = app.state.ctx.settings.max_body_bytes
    r = await client.post("/login", data={"username": "x" * limit, "password": "y"})
    assert r.status_code == 413


async def test_a_body_at_the_limit_is_read(client: httpx.AsyncClient, app: FastAPI) -> None:
    limit = app.state.ctx.settings.max_body_bytes
    body = json.dumps({"username": "nobody", "password": "x" * 10}).encode()
    padded = body[:-1] + b" " * (limit - len(body)) + b"}"
    assert len(padded) == limit
    r = await client.post(
        "/api/v1/auth/login", content=padded, headers={"content-type": "application/json"}
    )
    assert r.status_code == 401, r.text


# --- H1: the other collections ---------------------------------------------------------------


async def test_bestiary_encounters_and_participants_are_limited(
    make_client: ClientFactory, app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "BESTIARY_ENTRIES_PER_CAMPAIGN", 2)
    monkeypatch.setattr(limits, "ENCOUNTERS_PER_CAMPAIGN", 1)
    monkeypatch.setattr(limits, "PARTICIPANTS_PER_ENCOUNTER", 3)
    t = await make_table(make_client, app)
    r = await t.gm.post(f"{api(t)}/bestiary", json={"name": "Goblin"})
    assert r.status_code == 201, r.text
    entry = r.json()["id"]
    # The samples do not fit beside it: none of them is added.
    r = await t.gm.post(f"{api(t)}/bestiary/samples")
    assert r.status_code == 422, r.text
    assert len((await t.gm.get(f"{api(t)}/bestiary")).json()) == 1
    r = await t.gm.post(f"{api(t)}/encounters", json={"name": "Überfall"})
    assert r.status_code == 201, r.text
    encounter = r.json()["id"]
    for path in (f"{api(t)}/encounters", f"{api(t)}/encounters/{encounter}/duplicate"):
        r = await t.gm.post(path, json={"name": "Noch einer"})
        assert r.status_code == 422, (path, r.text)
    participants = f"{api(t)}/encounters/{encounter}/participants"
    r = await t.gm.post(participants, json={"entry_id": entry, "count": 4})
    assert r.status_code == 422 and "count" in r.json()["errors"], r.text
    r = await t.gm.post(participants, json={"entry_id": entry, "count": 3})
    assert r.status_code == 201, r.text
    r = await t.gm.post(participants, json={"entry_id": entry, "count": 1})
    assert r.status_code == 422, r.text
    # The HTML form answers on the encounter page, the message with the controls.
    r = await t.gm.post(
        f"/campaigns/{t.campaign_id}/encounters/{encounter}/participants",
        data={"entry_id": str(entry), "count": "1"},
    )
    assert r.status_code == 422 and 'role="alert"' in r.text
    assert len((await t.gm.get(f"{api(t)}/encounters/{encounter}")).json()["participants"]) == 3


async def test_campaigns_invites_and_members_are_limited(
    make_client: ClientFactory, app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "CAMPAIGNS_PER_GM", 1)
    monkeypatch.setattr(limits, "INVITES_PER_CAMPAIGN", 2)
    monkeypatch.setattr(limits, "MEMBERS_PER_CAMPAIGN", 3)
    t = await make_table(make_client, app)  # the GM runs one campaign with 3 members
    r = await t.gm.post("/api/v1/campaigns", json={"name": "Zweite", "system": "hh"})
    assert r.status_code == 422 and "name" in r.json()["errors"], r.text
    # The campaign has the player invite and the observer invite: no third one.
    r = await t.gm.post(
        f"/campaigns/{t.campaign_id}/invites", data={"role": "player", "expires_days": ""}
    )
    assert r.status_code == 422 and 'role="alert"' in r.text
    r = await t.outsider.post("/api/v1/campaigns/join", json={"invite_code": t.invite_code})
    assert r.status_code == 422 and "invite_code" in r.json()["errors"], r.text
    r = await t.outsider.get(f"{api(t)}/characters")
    assert r.status_code == 404
