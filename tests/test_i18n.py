"""Translations: every UI string has a German translation; the language can be switched."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir

from app.i18n import catalog
from tests.conftest import register

ROOT = Path(__file__).resolve().parents[1]
KEYWORDS = {**DEFAULT_KEYWORDS, "N_": None, "ExpressionError": None}
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")


def _msgids() -> dict[str, str]:
    found: dict[str, str] = {}
    for folder, method in (("app", "python"), ("templates", "jinja2")):
        pattern = "**.py" if method == "python" else "**.html"
        options = {} if method == "python" else {"extensions": "jinja2.ext.i18n"}
        for filename, _lineno, message, _comments, _context in extract_from_dir(
            ROOT / folder,
            method_map=[(pattern, method)],
            options_map={pattern: options},
            keywords=KEYWORDS,
        ):
            # A plural entry is found by its singular msgid (its plural is part of it).
            ids = message[:1] if isinstance(message, tuple) else (message,)
            for msgid in ids:
                if msgid:
                    found.setdefault(msgid, f"{folder}/{filename}")
    return found


def test_every_ui_string_has_a_german_translation() -> None:
    german = catalog("de")
    missing = {msgid: where for msgid, where in _msgids().items() if msgid not in german}
    assert not missing, f"untranslated German strings: {missing}"


def test_translations_keep_their_placeholders() -> None:
    for message in catalog("de"):
        if not message.id or not isinstance(message.id, str):
            continue
        assert set(PLACEHOLDER.findall(message.id)) == set(
            PLACEHOLDER.findall(str(message.string))
        ), message.id


async def test_german_by_default_english_on_request(client: httpx.AsyncClient) -> None:
    r = await client.get("/login")
    assert '<html lang="de">' in r.text and "Anmelden" in r.text
    # German by default, whatever the browser's language; English when chosen in the menu.
    english = {"Accept-Language": "en-GB,en;q=0.9"}
    r = await client.get("/login", headers=english)
    assert '<html lang="de">' in r.text and "Anmelden" in r.text
    r = await client.post("/language", data={"locale": "en", "next": "/login"})
    assert r.status_code == 303
    r = await client.get("/login")
    assert '<html lang="en">' in r.text and "Log in" in r.text


async def test_users_choice_of_language_sticks(client: httpx.AsyncClient) -> None:
    await register(client, "alrik")
    assert "Meine Kampagnen" in (await client.get("/campaigns")).text
    r = await client.post("/language", data={"locale": "en", "next": "/campaigns"})
    assert r.status_code == 303 and r.headers["location"] == "/campaigns"
    page = await client.get("/campaigns")
    assert "My campaigns" in page.text and "Meine Kampagnen" not in page.text
    # Rule terms stay German in the English UI.
    r = await client.post("/api/v1/campaigns", json={"name": "N", "system": "hh"})
    settings = await client.get(f"/campaigns/{r.json()['id']}/settings")
    assert "Lange Rast" in settings.text and "Bewegung" in settings.text
    # API error messages follow the user's language too.
    r = await client.post(f"/api/v1/campaigns/{r.json()['id']}/rolls", json={"expression": "1d1"})
    assert r.json()["errors"]["expression"].startswith("A die has")
