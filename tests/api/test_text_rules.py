"""Issue 20 M4 and L7: NUL bytes in any text input, and invisible or direction-changing
characters in any name, answer 422 at the field through the API and the HTML forms, on
SQLite and PostgreSQL alike; nothing of them is saved."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import String, Text, select

from app import limits
from app.i18n import set_locale
from app.models import Base
from tests.api.helpers import Table, make_table
from tests.conftest import PASSWORD, ClientFactory

NUL = "Al\x00rik"
SPOOFS = [
    "Alrik\u202egnip",  # right-to-left override
    "\u2066Alrik\u2069",  # isolate
    "Al\u200brik",  # zero-width space
    "Al\u200drik",  # zero-width joiner
    "\ufeffAlrik",  # byte order mark
    "Al\x07rik",  # bell
    "Al\nrik",  # newline
    "Al\u2028rik",  # line separator
]


@dataclass
class World:
    table: Table
    character: int
    item: int
    entry: int
    encounter: int
    participant: int
    export: dict[str, Any]

    @property
    def api(self) -> str:
        return f"/api/v1/campaigns/{self.table.campaign_id}"

    @property
    def html(self) -> str:
        return f"/campaigns/{self.table.campaign_id}"


async def ok(r: httpx.Response, status: int = 201) -> dict[str, Any]:
    assert r.status_code == status, r.text
    return r.json()  # type: ignore[no-any-return]


async def make_world(make_client: ClientFactory, app: FastAPI) -> World:
    t = await make_table(make_client, app)
    api = f"/api/v1/campaigns/{t.campaign_id}"
    character = (await ok(await t.player.post(f"{api}/characters", json={"name": "Alrik"})))["id"]
    item = (
        await ok(await t.player.post(f"{api}/characters/{character}/items", json={"name": "Seil"}))
    )["id"]
    export = await ok(await t.player.get(f"{api}/characters/{character}/export"), 200)
    entry = (await ok(await t.gm.post(f"{api}/bestiary", json={"name": "Goblin"})))["id"]
    encounter = (await ok(await t.gm.post(f"{api}/encounters", json={"name": "Überfall"})))["id"]
    added = await ok(
        await t.gm.post(
            f"{api}/encounters/{encounter}/participants", json={"entry_id": entry, "count": 1}
        )
    )
    participant = (added[0] if isinstance(added, list) else added["participants"][0])["id"]
    return World(t, character, item, entry, encounter, participant, export)


def error_fields(r: httpx.Response) -> set[str]:
    body = r.json()
    fields = set(body.get("errors", {}))
    for entry in body.get("detail", []) if isinstance(body.get("detail"), list) else []:
        fields.add(".".join(str(part) for part in entry["loc"][1:]))
    return fields


#: (who, method, path, body) for a bad string ``s``, and the field that must carry the error.
ApiCase = tuple[str, str, Callable[[World], str], Callable[[World, str], dict[str, Any]], str]

NAME_CASES: list[ApiCase] = [
    ("gm", "POST", lambda w: "/api/v1/campaigns", lambda w, s: {"name": s, "system": "hh"}, "name"),
    ("player", "POST", lambda w: f"{w.api}/characters", lambda w, s: {"name": s}, "name"),
    (
        "player",
        "PATCH",
        lambda w: f"{w.api}/characters/{w.character}",
        lambda w, s: {"changes": {"name": s}},
        "name",
    ),
    (
        "player",
        "POST",
        lambda w: f"{w.api}/characters/{w.character}/items",
        lambda w, s: {"name": s},
        "name",
    ),
    (
        "player",
        "PUT",
        lambda w: f"{w.api}/characters/{w.character}/items/{w.item}",
        lambda w, s: {"name": s},
        "name",
    ),
    ("gm", "POST", lambda w: f"{w.api}/items", lambda w, s: {"name": s}, "name"),
    (
        "player",
        "POST",
        lambda w: f"{w.api}/rolls",
        lambda w, s: {"expression": "1W20", "label": s},
        "label",
    ),
    ("gm", "POST", lambda w: f"{w.api}/bestiary", lambda w, s: {"name": s}, "name"),
    ("gm", "PUT", lambda w: f"{w.api}/bestiary/{w.entry}", lambda w, s: {"name": s}, "name"),
    ("gm", "POST", lambda w: f"{w.api}/encounters", lambda w, s: {"name": s}, "name"),
    (
        "gm",
        "PATCH",
        lambda w: f"{w.api}/encounters/{w.encounter}",
        lambda w, s: {"name": s},
        "name",
    ),
    (
        "gm",
        "PATCH",
        lambda w: f"{w.api}/encounters/{w.encounter}/participants/{w.participant}",
        lambda w, s: {"name": s},
        "name",
    ),
    (
        "player",
        "POST",
        lambda w: f"{w.api}/characters/import",
        lambda w, s: {**w.export, "name": s},
        "file",
    ),
    (
        "player",
        "POST",
        lambda w: f"{w.api}/characters/import",
        lambda w, s: {**w.export, "items": [{"name": s}]},
        "file",
    ),
]

#: Inputs with a rule of their own or free text: NUL is refused, the rest is their business.
NUL_ONLY_CASES: list[ApiCase] = [
    (
        "anonymous",
        "POST",
        lambda w: "/api/v1/auth/login",
        lambda w, s: {"username": s, "password": PASSWORD},
        "username",
    ),
    (
        "anonymous",
        "POST",
        lambda w: "/api/v1/auth/register",
        lambda w, s: {"username": s, "password": PASSWORD},
        "username",
    ),
    (
        "anonymous",
        "POST",
        lambda w: "/api/v1/auth/register",
        lambda w, s: {"username": "neuling", "password": PASSWORD, "email": f"{s}@example.org"},
        "email",
    ),
    (
        "player",
        "POST",
        lambda w: "/api/v1/campaigns/join",
        lambda w, s: {"invite_code": s},
        "invite_code",
    ),
    (
        "player",
        "POST",
        lambda w: f"{w.api}/rolls",
        lambda w, s: {"expression": f"1W20{s}"},
        "expression",
    ),
    (
        "player",
        "PATCH",
        lambda w: f"{w.api}/characters/{w.character}",
        lambda w, s: {"changes": {"talents": s}},
        "talents",
    ),
    (
        "player",
        "POST",
        lambda w: f"{w.api}/characters",
        lambda w, s: {"name": "Bosper", "data": {"talents": s}},
        "data",
    ),
    (
        "player",
        "POST",
        lambda w: f"{w.api}/characters/{w.character}/items",
        lambda w, s: {"name": "Dolch", "description": s},
        "description",
    ),
    (
        "player",
        "POST",
        lambda w: f"{w.api}/characters/{w.character}/items",
        lambda w, s: {"name": "Dolch", "fields": {"damage": s}},
        "fields.damage",
    ),
    (
        "gm",
        "POST",
        lambda w: f"{w.api}/bestiary",
        lambda w, s: {"name": "Ork", "data": {"beute": s}},
        "beute",
    ),
    (
        "gm",
        "POST",
        lambda w: f"{w.api}/encounters",
        lambda w, s: {"name": "Hinterhalt", "notes": s},
        "notes",
    ),
    (
        "gm",
        "PATCH",
        lambda w: f"{w.api}/encounters/{w.encounter}/participants/{w.participant}",
        lambda w, s: {"stats": {"beute": s}},
        "beute",
    ),
    (
        "player",
        "POST",
        lambda w: f"{w.api}/characters/import",
        lambda w, s: {**w.export, "data": {**w.export["data"], "talents": s}},
        "file",
    ),
    (
        "gm",
        "POST",
        lambda w: f"{w.api}/encounters/{w.encounter}/actions/adjust",
        lambda w, s: {"participant": str(w.participant), "delta": -1, "reason": s},
        "reason",
    ),
    (
        "gm",
        "POST",
        lambda w: f"{w.api}/encounters/{w.encounter}/actions/condition",
        lambda w, s: {"participant": str(w.participant), "condition": "x", "cause": s},
        "cause",
    ),
]


async def send(w: World, case: ApiCase, bad: str) -> httpx.Response:
    who, method, path, body, _field = case
    client: httpx.AsyncClient = getattr(w.table, who)
    return await client.request(method, path(w), json=body(w, bad))


async def assert_nothing_stored(app: FastAPI, *bad: str) -> None:
    """No text column of any table holds any of the refused strings (SQLite stores NUL)."""
    async with app.state.ctx.sessionmaker() as session:
        for table in Base.metadata.sorted_tables:
            columns = [c for c in table.columns if isinstance(c.type, String | Text)]
            if not columns:
                continue
            for row in (await session.execute(select(*columns))).all():
                for value in row:
                    assert not any(b in str(value or "") for b in bad), (table.name, value)


async def test_nul_in_every_api_text_input_is_a_422_at_the_field(
    make_client: ClientFactory, app: FastAPI
) -> None:
    w = await make_world(make_client, app)
    for case in NAME_CASES + NUL_ONLY_CASES:
        r = await send(w, case, NUL)
        assert r.status_code == 422, (case[2](w), r.text)
        assert case[4] in error_fields(r), (case[2](w), r.text)
    await assert_nothing_stored(app, "\x00")


@pytest.mark.parametrize("bad", SPOOFS, ids=[repr(s) for s in SPOOFS])
async def test_invisible_and_bidi_characters_in_every_name_are_refused(
    make_client: ClientFactory, app: FastAPI, bad: str
) -> None:
    w = await make_world(make_client, app)
    for case in NAME_CASES:
        r = await send(w, case, bad)
        assert r.status_code == 422, (case[2](w), r.text)
        assert case[4] in error_fields(r), (case[2](w), r.text)
    await assert_nothing_stored(app, bad)


async def test_names_from_other_scripts_and_emoji_free_text_are_kept(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """The rule refuses invisible characters, not languages: Hebrew, Greek, CJK names pass;
    free text keeps line breaks and emoji sequences."""
    w = await make_world(make_client, app)
    for name in ("שלום", "Ἀχιλλεύς", "李小龍", "Ærøskøbing-Ölf", "O'Brien"):
        r = await w.table.player.post(f"{w.api}/characters", json={"name": name})
        assert r.status_code == 201, r.text
        assert r.json()["name"] == name
    notes = "Erst links,\nnicht rechts. 👩\u200d👩\u200d👧"
    r = await w.table.gm.post(f"{w.api}/encounters", json={"name": "Brücke", "notes": notes})
    assert r.status_code == 201, r.text


def messages() -> tuple[str, str]:
    set_locale("de")
    name = limits.name_problem("a\u202eb")
    text = limits.text_problem("a\x00b")
    assert name and text
    return name, text


#: (who, path, form) of an HTML form for a bad string ``s``.
FormCase = tuple[str, Callable[[World], str], Callable[[World, str], dict[str, str]]]

HTML_NAME_FORMS: list[FormCase] = [
    ("gm", lambda w: "/campaigns", lambda w, s: {"name": s, "system": "hh"}),
    ("gm", lambda w: f"{w.html}/settings", lambda w, s: {"name": s, "version": "1"}),
    ("player", lambda w: f"{w.html}/characters", lambda w, s: {"name": s, "kind": "pc"}),
    (
        "player",
        lambda w: f"{w.html}/characters/{w.character}",
        lambda w, s: {"name": s, "_field": "name"},
    ),
    (
        "player",
        lambda w: f"{w.html}/characters/{w.character}/items",
        lambda w, s: {"name": s},
    ),
    ("gm", lambda w: f"{w.html}/items", lambda w, s: {"name": s}),
    ("player", lambda w: f"{w.html}/rolls", lambda w, s: {"expression": "1W20", "label": s}),
    ("gm", lambda w: f"{w.html}/bestiary", lambda w, s: {"name": s}),
    ("gm", lambda w: f"{w.html}/encounters", lambda w, s: {"name": s}),
    (
        "gm",
        lambda w: f"{w.html}/encounters/{w.encounter}",
        lambda w, s: {"name": s, "notes": ""},
    ),
]
HTML_TEXT_FORMS: list[FormCase] = [
    ("anonymous", lambda w: "/login", lambda w, s: {"username": s, "password": PASSWORD}),
    (
        "player",
        lambda w: f"{w.html}/characters/{w.character}",
        lambda w, s: {"talents": s, "_field": "talents"},
    ),
    (
        "gm",
        lambda w: f"{w.html}/encounters",
        lambda w, s: {"name": "Hinterhalt", "notes": s},
    ),
]


async def test_html_forms_answer_422_with_the_message_at_the_field(
    make_client: ClientFactory, app: FastAPI
) -> None:
    w = await make_world(make_client, app)
    name_message, text_message = messages()
    for bad, cases, expected in (
        ("Al\u202erik", HTML_NAME_FORMS, {name_message}),
        # A NUL in a name breaks either rule, depending on which check comes first.
        (NUL, HTML_NAME_FORMS, {name_message, text_message}),
        (NUL, HTML_TEXT_FORMS, {text_message}),
    ):
        for who, path, form in cases:
            client: httpx.AsyncClient = getattr(w.table, who)
            r = await client.post(path(w), data=form(w, bad))
            assert r.status_code == 422, (path(w), r.text[:300])
            alerts = re.findall(r'role="alert"[^>]*>([^<]*)<', r.text)
            assert any(m in alert for m in expected for alert in alerts), (path(w), alerts)
    r = await w.table.player.post("/register", data={"username": NUL, "password": PASSWORD})
    assert r.status_code == 422
    await assert_nothing_stored(app, "\x00", "\u202e")


async def test_an_invite_code_with_nul_is_a_422_on_the_join_page(
    make_client: ClientFactory, app: FastAPI
) -> None:
    w = await make_world(make_client, app)
    _name, text_message = messages()
    r = await w.table.outsider.get("/join/abc%00def")
    assert r.status_code == 422, r.text
    assert text_message in r.text
    r = await w.table.outsider.post("/join/abc%00def")
    assert r.status_code == 422, r.text
