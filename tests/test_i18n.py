"""Translations: every UI string has a German translation; the language can be switched."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import httpx
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.pofile import read_po

from app.i18n import catalog
from tests.conftest import register

ROOT = Path(__file__).resolve().parents[1]
KEYWORDS = {**DEFAULT_KEYWORDS, "N_": None, "ExpressionError": None}
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")


@cache
def _uses() -> dict[str, frozenset[str]]:
    """Every msgid of the source, with the files (``app/…``, ``templates/…``) that use it."""
    found: dict[str, set[str]] = {}
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
                    found.setdefault(msgid, set()).add(f"{folder}/{filename}")
    return {msgid: frozenset(files) for msgid, files in found.items()}


def _msgids() -> dict[str, str]:
    return {msgid: min(files) for msgid, files in _uses().items()}


def _domain(path: str) -> str:
    """The catalog a file's msgids belong in: its package's (``app/maps/…`` and
    ``templates/maps/…`` → ``maps``), ``messages`` for the core modules and shared templates."""
    parts = path.split("/")
    if len(parts) > 2 and (ROOT / "app" / parts[1] / "__init__.py").exists():
        return parts[1]
    return "messages"


def test_catalogs_are_named_by_domain_and_hold_their_domains_msgids() -> None:
    """One catalog per domain package: a msgid one package uses is in that package's
    catalog, one several packages use in ``messages.po`` (issue 26)."""
    folder = ROOT / "app" / "locale" / "de" / "LC_MESSAGES"
    home: dict[str, str] = {}
    for po in sorted(folder.glob("*.po")):
        assert po.stem == "messages" or (ROOT / "app" / po.stem / "__init__.py").exists(), po
        with po.open("rb") as fh:
            for message in read_po(fh, locale="de"):
                if message.id:
                    key = message.id if isinstance(message.id, str) else str(message.id[0])
                    assert key not in home, f"{key!r} in {home[key]}.po and {po.stem}.po"
                    home[key] = po.stem
    misplaced = {}
    for msgid, files in _uses().items():
        domains = {_domain(f) for f in files}
        expected = domains.pop() if len(domains) == 1 else "messages"
        if msgid in home and home[msgid] != expected:
            misplaced[msgid] = f"{home[msgid]}.po, belongs in {expected}.po"
    assert not misplaced, misplaced


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
