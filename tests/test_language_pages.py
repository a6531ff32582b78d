"""Every page in one language (issue 31): a pseudo-locale finds every word that did not come
from the catalogue.

The flows of ``tests/test_log_language.py`` play the three systems (sheets with every
starter item, fights through their special cases, so every log line type is written). Then
every GM, player and observer of those tables walks every page reachable from "My
campaigns" (links, HTMX fragments, "Older entries", the roll dialog of every sheet target),
in English and in German, with the catalogue *marked*: every translated string comes back
between two private-use characters, its placeholders outside them. What a page shows
outside the marks must be

- what a user typed (every string value the test's clients sent, and the characters'
  names), or the names and texts of the rules' sample monsters and starter items;
- a rule term that stays German in the English UI (``docs/glossary.json``, per system);
- numbers, dice in the page's notation (``1d8`` in English, ``1W8`` in German), Babel's
  month and day names, punctuation.

Anything else is an untranslated word, an engine's German text or an internal key. A page
added later is walked because it is linked; a string added later is marked because it is in
the catalogue: the test needs no list of pages or strings.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest
from babel import Locale
from babel.support import NullTranslations
from fastapi import FastAPI
from sqlalchemy import select

from app import i18n
from app.campaigns.models import Campaign, Membership
from app.characters.models import Character
from tests import test_log_language as flows
from tests.api.test_characters import make_table
from tests.conftest import ClientFactory

ROOT = Path(__file__).resolve().parents[1]
GLOSSARY = json.loads((ROOT / "docs" / "glossary.json").read_text(encoding="utf-8"))
OPEN, CLOSE = "\ue000", "\ue001"
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%[sd]")
MARKED = re.compile(f"{OPEN}[^{CLOSE}]*{CLOSE}")
WORD = re.compile(r"[^\W\d_]+")
#: A decimal written the other language's way (2,6 on an English page, 2.6 on a German one).
FOREIGN_DECIMAL = {
    "en": ("decimal-comma", re.compile(r"(?<![\d,.])\d+,\d+(?![\d,.])")),
    "de": ("decimal-point", re.compile(r"(?<![\d.,])\d+\.\d+(?![\d.,])")),
}
URL = re.compile(r"https?://\S+")
DICE = {"en": re.compile(r"\d*d\d+"), "de": re.compile(r"\d*W\d+")}
#: Pages not walked: streams, logout, the language switch, files, the JSON API.
SKIP = re.compile(r"/live\b|/logout|/language|^/static/|^/media/|^/api/|/export\b|\.md$|/record")
#: Attributes a user reads or hears.
SHOWN_ATTRIBUTES = {"title", "placeholder", "aria-label", "alt", "data-confirm", "data-label"}
MAX_VARIANTS = 4  # of one path with different query strings (roll targets, tabs)


def mark(text: str) -> str:
    """``text`` with every literal run between placeholders wrapped in the marks."""
    out, last = [], 0
    for m in PLACEHOLDER.finditer(text):
        if m.start() > last:
            out.append(OPEN + text[last : m.start()] + CLOSE)
        out.append(m.group())
        last = m.end()
    if last < len(text):
        out.append(OPEN + text[last:] + CLOSE)
    return "".join(out)


class MarkedTranslations(NullTranslations):
    """The real catalogue, every message it knows marked; an unknown message (a raw key, an
    untranslated string) comes back unmarked."""

    def __init__(self, real: NullTranslations, known: frozenset[str]) -> None:
        super().__init__()
        self.real, self.known = real, known

    def gettext(self, message: str) -> str:
        text = self.real.gettext(message)
        return mark(text) if message in self.known else text

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        text = self.real.ngettext(singular, plural, n)
        return mark(text) if singular in self.known else text


@pytest.fixture
def marked_catalogue(monkeypatch: pytest.MonkeyPatch) -> None:
    known = frozenset(str(m.id) for m in i18n.catalog("de") if m.id and isinstance(m.id, str))
    real = {locale: i18n.translations(locale) for locale in i18n.LOCALES}
    marked = {locale: MarkedTranslations(real[locale], known) for locale in i18n.LOCALES}
    monkeypatch.setattr(i18n, "translations", lambda locale: marked[locale])


class _Text(HTMLParser):
    """Every text node and every shown attribute of a page; every link to walk."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.texts: list[str] = []
        self.links: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        values = dict(attrs)
        for name in ("href", "hx-get"):
            if values.get(name):
                self.links.append(str(values[name]))
        for name, value in attrs:
            if value and name in SHOWN_ATTRIBUTES:
                self.texts.append(value)
        if tag == "input" and values.get("type") in ("submit", "button") and values.get("value"):
            self.texts.append(str(values["value"]))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip and data.strip():
            self.texts.append(data)


@dataclass
class Content:
    """What the test's users typed, and the rules' sample data they picked."""

    phrases: set[str] = field(default_factory=set)

    def add(self, value: Any) -> None:
        if isinstance(value, str):
            if value.strip():  # shown with its dice in the reader's notation
                self.phrases.add(value.strip())
                self.phrases.add(re.sub(r"(\d*)W(\d+)", r"\1d\2", value.strip()))
        elif isinstance(value, dict):
            for v in value.values():
                self.add(v)
        elif isinstance(value, list):
            for v in value:
                self.add(v)

    async def on_request(self, request: httpx.Request) -> None:
        body = request.content
        if not body:
            return
        kind = request.headers.get("content-type", "")
        if kind.startswith("application/json"):
            self.add(json.loads(body))
        elif kind.startswith("application/x-www-form-urlencoded"):
            self.add([v for _k, v in parse_qsl(body.decode(), keep_blank_values=True)])

    async def on_response(self, response: httpx.Response) -> None:
        """The sample monsters and starter items: the rules' data, German as written."""
        path = response.request.url.path
        if path.endswith(("/bestiary/samples", "/starter-items")) and response.is_success:
            await response.aread()
            self.add(response.json())


def glossary_terms(system: str) -> list[str]:
    terms = list(GLOSSARY["common"]["terms"]) + list(GLOSSARY[system]["terms"])
    return sorted(terms, key=len, reverse=True)


def babel_words(locale: str) -> set[str]:
    """Month and day names and the like, as Babel writes them in ``locale``."""
    data = Locale.parse(locale)
    words: set[str] = set()
    for table in (data.months, data.days, data.eras, data.day_periods):
        for width in table.get("format", table).values():
            for name in width.values():
                words.update(WORD.findall(str(name)))
    return words


def leftover(text: str, locale: str, allowed: Iterable[str]) -> list[str]:
    """The words of ``text`` that neither the catalogue nor ``allowed`` explains."""
    rest = MARKED.sub(" ", text)
    for phrase in allowed:
        if phrase in rest:
            rest = re.sub(rf"(?<!\w){re.escape(phrase)}(?!\w)", " ", rest)
    rest = DICE[locale].sub(" ", URL.sub(" ", rest))
    words = WORD.findall(rest)
    signs = [FOREIGN_DECIMAL[locale][0]] if FOREIGN_DECIMAL[locale][1].search(rest) else []
    return signs + (words if locale == "en" else [w for w in words if not _german(w)])


@cache
def _vocabulary() -> tuple[frozenset[str], frozenset[str]]:
    """(German words of the catalogue and the glossary, English words only msgids use)."""
    german: set[str] = set()
    english: set[str] = set()
    for message in i18n.catalog("de"):
        if message.id and isinstance(message.id, str) and isinstance(message.string, str):
            german.update(WORD.findall(message.string))
            english.update(w.lower() for w in WORD.findall(message.id))
    for section in GLOSSARY.values():
        if isinstance(section, dict):
            for term in section["terms"]:
                german.update(WORD.findall(term))
    lower = {w.lower() for w in german}
    return frozenset(german), frozenset(english - lower)


def _german(word: str) -> bool:
    """Whether an unmarked word reads as German on a German page: not a word only English
    msgids use, not a key written without umlauts (``aeusserst``, ``koerper``), and a
    lowercase word only if the catalogue uses it (a lowercase key is not)."""
    german, english_only = _vocabulary()
    if word.lower() in english_only:
        return False
    umlauts = word.replace("ae", "ä").replace("oe", "ö").replace("ue", "ü")
    if umlauts != word and umlauts.lower() in {w.lower() for w in german}:
        return False
    return not word.islower() or word in german


@dataclass
class Walk:
    """One user's walk in one language."""

    client: httpx.AsyncClient
    locale: str
    seen: set[str] = field(default_factory=set)
    variants: dict[str, int] = field(default_factory=dict)

    def wanted(self, link: str) -> str | None:
        parts = urlsplit(link)
        if parts.scheme or parts.netloc or not parts.path.startswith("/"):
            return None
        if SKIP.search(parts.path):
            return None
        key = re.sub(r"\d+", "N", link)
        if key in self.seen:
            return None
        shape = re.sub(r"\d+", "N", parts.path)
        if self.variants.get(shape, 0) >= MAX_VARIANTS:
            return None
        self.seen.add(key)
        self.variants[shape] = self.variants.get(shape, 0) + 1
        return link


@dataclass
class Finding:
    where: dict[tuple[str, str], str] = field(default_factory=dict)

    def add(self, locale: str, word: str, page: str, text: str) -> None:
        self.where.setdefault((locale, word), f"{page}: {text.strip()[:160]!r}")


async def _walk(walk: Walk, allowed: dict[str, list[str]], finding: Finding) -> int:
    """Every page ``walk.client`` reaches from /campaigns; returns how many were read."""
    queue, pages = ["/campaigns"], 0
    walk.seen.add("/campaigns")
    while queue:
        url = queue.pop()
        headers = {"HX-Request": "true"} if "?" in url or url.endswith("/roll") else {}
        r = await walk.client.get(url, headers=headers)
        if r.status_code != 200 or not r.headers.get("content-type", "").startswith("text/html"):
            continue
        pages += 1
        system = _system_of(url)
        parser = _Text()
        parser.feed(r.text)
        for text in parser.texts:
            for word in leftover(text, walk.locale, allowed[system]):
                finding.add(walk.locale, word, url, MARKED.sub("·", text))
        queue += [link for link in map(walk.wanted, parser.links) if link]
    return pages


SYSTEM_OF: dict[int, str] = {}


def _system_of(url: str) -> str:
    m = re.match(r"/campaigns/(\d+)", url)
    return SYSTEM_OF.get(int(m.group(1)), "common") if m else "common"


async def _play(make_client: ClientFactory, app: FastAPI) -> None:
    for system in ("hh", "ds4", "pf2e"):
        table = await make_table(make_client, app, system)
        await flows._sheet_flow(table, system)
        await _prepared_encounter(table["gm"], table.api)
    await flows._pf2e_fight_flow(make_client, app)
    await flows._ds4_fight_flow(make_client, app)
    await flows._hh_fight_flow(make_client, app)
    await flows._hh_sheet_fight_flow(make_client, app)


async def _prepared_encounter(gm: httpx.AsyncClient, api: str) -> None:
    """An encounter being prepared (its page shows the preparation forms), with a sample
    monster on the other side."""
    samples = (await gm.post(f"{api}/bestiary/samples")).json()
    r = await gm.post(f"{api}/encounters", json={"name": "Hinterhalt"})
    assert r.status_code == 201, r.text
    body = {"entry_id": samples[0]["id"], "count": 2}
    r = await gm.post(f"{api}/encounters/{r.json()['id']}/participants", json=body)
    assert r.status_code in (200, 201), r.text


async def _users_and_systems(app: FastAPI, content: Content) -> set[str]:
    """The systems of the campaigns (filled into ``SYSTEM_OF``); the characters' names join
    the user content (some tables put them straight into the database)."""
    async with app.state.ctx.sessionmaker() as session:
        for campaign_id, system in await session.execute(select(Campaign.id, Campaign.system)):
            SYSTEM_OF[campaign_id] = system
        content.add(list((await session.scalars(select(Character.name))).all()))
        roles = set((await session.scalars(select(Membership.role))).all())
    return set(SYSTEM_OF.values()) | {f"role:{r}" for r in roles}


async def test_every_page_shows_only_the_catalogue_user_content_and_glossary(
    make_client: ClientFactory, app: FastAPI, marked_catalogue: None
) -> None:
    content = Content()
    clients: list[httpx.AsyncClient] = []

    def recording_client() -> httpx.AsyncClient:
        client = make_client()
        client.event_hooks["request"].append(content.on_request)
        client.event_hooks["response"].append(content.on_response)
        clients.append(client)
        return client

    await _play(recording_client, app)
    covered = await _users_and_systems(app, content)
    assert {"hh", "ds4", "pf2e", "role:gm", "role:player"} <= covered, covered
    user = sorted(content.phrases, key=len, reverse=True)
    finding, pages = Finding(), 0
    for locale in ("en", "de"):
        allowed = {  # longest first: a user's "4" must not cut "Dungeonslayers 4"
            s: sorted([*user, *glossary_terms(s), *babel_words(locale)], key=len, reverse=True)
            for s in ("hh", "ds4", "pf2e", "common")
        }
        for client in clients:
            r = await client.post("/language", data={"locale": locale, "next": "/campaigns"})
            if r.status_code != 303 or (await client.get("/campaigns")).status_code != 200:
                continue  # never logged in
            pages += await _walk(Walk(client, locale), allowed, finding)
    assert pages > 200, pages
    report = "\n".join(f"{k[0]}:{k[1]} — {v}" for k, v in sorted(finding.where.items()))
    assert not finding.where, f"untranslated words:\n{report}"


def test_the_marks_find_a_raw_key_an_untranslated_word_and_wrong_dice() -> None:
    marked = mark("Kind: %(kind)s") % {"kind": "weapon"}
    assert leftover(marked, "en", []) == ["weapon"]
    assert leftover(marked, "en", ["weapon"]) == []
    assert leftover(f"{mark('Damage')} 1W8", "en", []) == ["W"]
    assert leftover(f"{mark('Schaden')} 1W8", "de", []) == []
    assert leftover("Einfacher Wurf gegen SG 15", "en", glossary_terms("pf2e")) == ["gegen"]
    assert leftover("Einfacher Wurf gegen SG 15", "de", glossary_terms("pf2e")) == []
    assert leftover("aeusserst schwer (-8), koerper", "de", []) == ["aeusserst", "koerper"]
    assert leftover(f"{mark('Slot')}: body", "de", []) == ["body"]
    assert leftover(f"{mark('Expected damage')} 9,3", "en", []) == ["decimal-comma"]
    assert leftover(f"{mark('Erwarteter Schaden')} 9.3", "de", []) == ["decimal-point"]
    assert leftover(f"{mark('Am')} 03.12.2026, 7:12 9,3", "de", []) == []
