"""The log speaks the user's language (issue 13): every event a user reads as lines, and
every item field, rendered in German and in English, without internal keys.

The flows below play each system as a group would (sheets with every starter item of
every kind, equipping, editing, giving away, importing, resting, sheet rolls, and fights
through the three systems' special cases). Then every event they wrote goes through the
renderer its page uses — the sheet history (``app.characters.history.describe``), the
combat log (``app.encounters.views.entry_view``), the dice log (label and summary) — once
per language. A line fails on a snake_case identifier, a Python value (``True``, ``None``,
``{'…``) or a word of the other language. The engines' rule details (``1W20: 15 +9 = 24
gegen RK 16: Treffer``) are rule notation with German rule terms by design: they are
checked for keys and Python values only.

Event types without lines of their own are listed in ``NO_LINES`` with the place that
shows them instead; a new event type must be added to one of the two sets.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any, get_args

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from app.campaigns.models import Campaign
from app.characters import history
from app.characters.systems.registry import (
    character_system,
    companions,
    inventory,
    sheet_checks,
)
from app.encounters import views
from app.encounters.state import CombatState
from app.encounters.systems.hh_figures import (
    DETAIL_WORDS,
    describe_changes,
)
from app.events.models import CampaignEvent
from app.events.payload import EVENT_TYPES
from app.i18n import set_locale
from app.rules.hh.state import Change, ChangeKind
from tests.api.test_characters import Table, create, make_table
from tests.conftest import ClientFactory
from tests.encounters.helpers import add_character, make_fight, script
from tests.encounters.test_hh import hh_fight
from tests.encounters.test_hh_one_figure import Hero, wounded_hero
from tests.encounters.test_play_pf2e_ds4 import pf2e_fight

#: Rendered as lines: the renderer of each is below.
WITH_LINES = {t for t in EVENT_TYPES if t.startswith("character_")} | {"combat", "roll"}
#: Event types no page shows as a line, and what shows them instead.
NO_LINES = {
    "campaign_created": "the campaign page itself",
    "member_joined": "the member list (names and translated roles)",
    "member_removed": "the member list",
    "member_role_changed": "the member list",
    "gm_transferred": "the member list",
    "settings_changed": "the settings form",
    "library_item_added": "the library page (item fields checked below)",
    "library_item_updated": "the library page",
    "library_item_removed": "the library page",
    "encounter": "the encounter list",
    "chat_message": "the chat: the user's own words",
    "chat_message_edited": "the chat",
    "chat_message_deleted": "the chat",
    "handout_created": "the handout list: the GM's title and image",
    "handout_shown": "the handout list",
    "journal_note_shared": "the journal: the user's own words",
    "journal_note_deleted": "the journal (the note is gone)",
    "session_started": "the sessions panel and the session record (translated start line)",
    "session_ended": "the sessions panel and the session record",
    "client_seed_set": "the sessions page: the member's own seed",
    "fairplay_configured": "the fair-play form and the verification page",
    "knowledge_revealed": "the monster cards and the combat rows: the facts in their words",
    "knowledge_false_pending": "the GM's monster card (the false fact to confirm)",
    "handout_image_set": "the handout list: the image",
    "scene_updated": "the scene page and the map region (names the user typed)",
    "token_added": "the map and its token list (labels the user typed)",
    "token_moved": "the map and its token list",
    "token_removed": "the map and its token list",
    "token_changed": "the map and its token list",
    "token_sighted": "the map and its token list (as token_added / token_removed, per player)",
    "fog_changed": "the map",
    "light_changed": "the map",
    "map_pointer": "the map (ruler and ping)",
    "area_placed": "the map (the area's cells; its log lines are the combat event's)",
    "area_resolved": "the map (the area's cells drop; its log lines are the combat event's)",
}

SNAKE = re.compile(r"\b[a-zäöüß]+(?:_[a-zäöüß0-9]+)+\b")
PYTHON = re.compile(r"\b(?:True|False|None)\b|\{'|'\}|\['|'\]")
WORD = re.compile(r"[^\W\d_]+")
#: Words only German sentences use (no rule terms, no English homographs like "die").
GERMAN = {
    "und", "der", "das", "ist", "nicht", "kein", "keine", "mit", "von", "auf", "gegen", "hat",
    "wird", "würfelt", "sinkt", "erhält", "trifft", "stürzt", "stirbt", "endet", "zugende",
    "beginnt", "entfernt", "bekommt", "bearbeitet", "hinzugefügt", "angelegt", "abgelegt",
    "erstellt", "archiviert", "gelöscht", "importiert", "verschenkt", "erhalten", "dagegen",
    "runde", "ja", "nein", "zerbricht", "fallen", "liegt", "steht", "hebt", "bewusstlos",
    "stabilisiert", "rutscht", "gewonnen", "tot", "tödlicher", "wiederbelebt", "durch",
}  # fmt: skip
#: The engines' keys of a change's reason (lower case; the rule term is capitalised).
KEYS = re.compile(r"\b(?:rast|heilkunde|non_lethal|ground_gained)\b")
#: Words only English sentences use.
ENGLISH = {
    "the", "of", "and", "to", "is", "gets", "hits", "does", "not", "damage", "round",
    "starts", "begins", "turn", "removed", "with", "against", "item", "added", "equipped",
    "rolls", "falls", "dies", "drops", "which", "yes", "no", "created", "archived",
    "restored", "deleted", "imported", "given", "received", "taken", "edited", "put", "away",
    "weapon", "jammed", "attack", "stands", "picks", "up", "breaks", "dead", "unconscious",
}  # fmt: skip
OTHER = {"de": ENGLISH, "en": GERMAN}


def check(text: str, locale: str, where: str, *, rule_text: bool = False) -> None:
    assert not SNAKE.search(text), f"internal key in {where} ({locale}): {text!r}"
    assert not PYTHON.search(text), f"Python value in {where} ({locale}): {text!r}"
    assert not KEYS.search(text), f"internal key in {where} ({locale}): {text!r}"
    if rule_text:
        return
    foreign = {w for w in WORD.findall(text) if w.lower() in OTHER[locale]}
    assert not foreign, f"{sorted(foreign)} in {where} ({locale}): {text!r}"


def _lines(event: CampaignEvent, system: str) -> list[tuple[str, bool]]:
    """(text, is the engines' rule notation) of every line a page shows for ``event``."""
    if event.type.startswith("character_"):
        entry = {"type": event.type, **event.payload}
        lines = history.describe(system, entry, {})
        detail = event.payload.get("detail")
        return [(line, line == detail) for line in lines]
    if event.type == "combat":
        out: list[tuple[str, bool]] = []
        stored = [e.get("details", []) for e in event.payload.get("entries", [])]
        for line, raw in zip(views.entry_view(event, set())["lines"], stored, strict=True):
            out.append((line["text"], False))
            # A detail stored as a msgid is words; one stored as a string is rule notation.
            out += [(d, not isinstance(r, dict)) for d, r in zip(line["details"], raw, strict=True)]
        return out
    if event.type == "roll":
        p = event.payload
        return [(str(p.get(k) or ""), True) for k in ("label", "summary")]
    return []


async def _check_events(app: FastAPI) -> set[str]:
    async with app.state.ctx.sessionmaker() as session:
        rows = (
            await session.execute(
                select(CampaignEvent, Campaign.system).join(
                    Campaign, Campaign.id == CampaignEvent.campaign_id
                )
            )
        ).all()
    for locale in ("de", "en"):
        set_locale(locale)
        for event, system in rows:
            for text, rule_text in _lines(event, system):
                check(text, locale, f"{event.type} #{event.seq}", rule_text=rule_text)
    set_locale("de")
    return {event.type for event, _system in rows}


class _ItemFields(HTMLParser):
    """The text of every ``<small class="item-fields">`` of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "small" and ("class", "item-fields") in attrs:
            self.depth = 1
            self.found.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "small":
            self.depth = 0

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.found[-1] += data


async def _language(client: httpx.AsyncClient, locale: str) -> None:
    r = await client.post("/language", data={"locale": locale, "next": "/campaigns"})
    assert r.status_code == 303


async def _sheet_flow(t: Table, system: str) -> None:
    """A sheet with every starter item (every kind), equipped, edited, given away, removed;
    a field change, a sheet roll, archive/restore, export/import, a rest, a deletion."""
    player = t["player"]
    c = await create(t)
    other = await create(t, who="player2", name="Brida")
    url = f"{t.api}/characters/{c['id']}"
    spec = character_system(system)
    stock = inventory(system)
    kinds = {f.key: f for f in stock.item_fields}.get("kind")
    starters = (await player.get(f"{t.api}/starter-items")).json()
    added = []
    for s in starters:
        r = await player.post(f"{url}/items", json={"starter": s["key"], "container": ""})
        assert r.status_code == 201, r.text
        added.append(r.json())
    if kinds is not None:  # one item of every kind the starters leave out
        for kind in {k for k, _label in kinds.choices} - {i["fields"].get("kind") for i in added}:
            r = await player.post(
                f"{url}/items", json={"name": "Ding", "fields": {"kind": kind}, "container": ""}
            )
            assert r.status_code == 201, r.text
            added.append(r.json())
    for item in added:
        for slot in stock.equip_slots:
            r = await player.post(f"{url}/items/{item['id']}/equip", json={"slot": slot})
            if r.status_code == 200:
                break
    equipped = [i for i in (await player.get(url)).json()["items"] if i["equipped"]]
    assert equipped, system
    await player.post(f"{url}/items/{equipped[0]['id']}/unequip", json={})
    item = added[0]
    flags = {f.key: True for f in stock.item_fields if f.kind == "bool"}
    r = await player.put(
        f"{url}/items/{item['id']}",
        json={"name": "Erbstück", "quantity": 2, "fields": {**item["fields"], **flags}},
    )
    assert r.status_code == 200, r.text
    await player.post(f"{url}/items/{added[1]['id']}/move", json={"to_character_id": other["id"]})
    await player.delete(f"{url}/items/{added[2]['id']}")
    targets = [f for f in spec.fields("pc") if f.kind == "int"]
    version = (await player.get(url)).json()["version"]
    await player.patch(url, json={"changes": {targets[0].key: 3}, "version": version})
    roll_target = {"hh": "skill:Kampfkunst", "ds4": "kampfwert:schlagen", "pf2e": "perception"}
    body: dict[str, Any] = {"target": roll_target[system]}
    if system == "pf2e":
        body |= {"dc": 15, "fortune": True, "visibility": "gm"}
    r = await player.post(f"{url}/roll", json=body)
    assert r.status_code == 201, r.text
    if sheet_checks(system).checks:  # H&H: Beschaffung ("Immer" at 2 Lira) and Herstellung (Güte C)
        version = (await player.get(url)).json()["version"]
        await player.patch(url, json={"changes": {"skills.Handwerk": 8}, "version": version})
        for key, _label in sheet_checks(system).checks:
            body = {"check": key, "name": "Laterne", "price": 2}
            r = await player.post(f"{url}/check", json=body)
            assert r.status_code == 200, r.text
    if companions(system).new_companion() is not None:  # H&H: a Gefährte, XP shared, one Steigerung
        r = await player.post(f"{url}/companions", json={"name": "Irrlicht"})
        assert r.status_code == 201, r.text
        companion = f"{t.api}/characters/{r.json()['id']}"
        body = {"amount": 2, "companion_id": r.json()["id"]}
        assert (await player.post(f"{url}/xp", json=body)).status_code == 200
        assert (await player.post(f"{companion}/advance", json={})).status_code == 200
    await player.post(f"{url}/archive")
    await player.post(f"{url}/restore")
    exported = (await player.get(f"{url}/export")).json()
    r = await player.post(f"{t.api}/characters/import", json=exported)
    assert r.status_code == 201, r.text
    imported = r.json()["id"]
    if system == "ds4":
        version = (await player.get(url)).json()["version"]
        await player.patch(url, json={"changes": {"lk": 4}, "version": version})
        r = await player.post(f"{url}/rest", json={"rest": "verschnaufen"})
        assert r.status_code == 200, r.text
    await player.delete(f"{t.api}/characters/{imported}?confirm=true")
    # Every item's fields on the sheet, in both languages.
    page = f"/campaigns/{t.campaign_id}/characters/{c['id']}"
    for locale in ("de", "en"):
        await _language(player, locale)
        parser = _ItemFields()
        html = (await player.get(page)).text
        parser.feed(html)
        assert parser.found, system
        for text in parser.found:
            check(text, locale, f"{system} item fields")
    await _language(player, "de")


async def _pf2e_fight_flow(make_client: ClientFactory, app: FastAPI) -> None:
    fight, valeros, goblin = await pf2e_fight(make_client, app)
    gm, player = fight.gm, fight.players[0]
    await fight.act(gm, "condition", participant=goblin, condition="anhaltender Schaden",
                    cause="1W6 Feuer")  # fmt: skip
    await fight.act(gm, "condition", participant=valeros, condition="verängstigt", value=1)
    await fight.act(gm, "condition", participant=valeros, condition="kränkelnd", cause="SG 12")
    script(app, 15)
    await fight.act(player, "shake_off", condition="kränkelnd")
    script(app, 20, 8)
    await fight.act(player, "attack", target=goblin, strike=0)
    script(app, 5)  # a save spell (not basic) and a reaction
    await fight.act(player, "cast_spell", spell="Furcht", actions=1, target=goblin, kind="save",
                    save="wille", dc=17)  # fmt: skip
    await fight.act(player, "reaction", participant=valeros, reaction="Schild blocken")
    await fight.act(player, "next")
    await fight.act(gm, "adjust", participant=valeros, delta=-25, reason="Falle")
    script(app, 3, 16)
    await fight.act(gm, "next")
    script(app, 6, 6, 1)
    await fight.act(gm, "save", targets=[valeros], save="reflex", dc=20, damage="2W6")
    await fight.act(gm, "adjust", participant=valeros, delta=4, reason="Heilung")
    await fight.act(gm, "uncondition", participant=valeros, condition="verwundet 1")


async def _ds4_fight_flow(make_client: ClientFactory, app: FastAPI) -> None:
    fight = await make_fight(make_client, app, "ds4", prefix="l")
    gm, player = fight.gm, fight.players[0]
    await add_character(
        app, fight, "p0", "Alrik",
        {"lk": 20, "koerper": 8, "abwehr": 8, "initiative": 8, "schlagen": 12, "ga": 0}, "ds4",
    )  # fmt: skip
    r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/bestiary/samples")
    ork = next(e for e in r.json() if e["name"] == "Ork")
    r = await gm.post(
        f"/api/v1/campaigns/{fight.campaign_id}/encounters",
        json={"name": "Tal", "settings": {"surprise": "abenteurer"}},
    )
    fight.encounter_id = r.json()["id"]
    await gm.post(f"{fight.base}/participants", json={"character_id": fight.characters["Alrik"]})
    await gm.post(f"{fight.base}/participants", json={"entry_id": ork["id"], "count": 1})
    script(app)
    view = await fight.act(gm, "start")
    ork_pid, alrik = fight.pid(view, "Ork 1"), fight.pid(view, "Alrik")
    script(app, 1)
    await fight.act(player, "attack", target=ork_pid)
    await fight.act(player, "next")
    script(app, 5, 20)  # the Ork hits, Alrik's Abwehr is a Patzer: he falls prone
    await fight.act(gm, "attack", target=alrik)
    script(app)
    await fight.act(gm, "next")
    await fight.act(player, "shake_off", condition="liegend")
    await fight.act(player, "next")
    script(app, 20)
    await fight.act(gm, "attack", target=alrik)
    await fight.act(gm, "condition", participant=alrik, condition="liegend")
    await fight.act(gm, "uncondition", participant=alrik, condition="liegend")
    await fight.act(gm, "adjust", participant=ork_pid, delta=-30, reason="Absturz")


async def _hh_fight_flow(make_client: ClientFactory, app: FastAPI) -> None:
    fight, pids = await hh_fight(make_client, app)
    gm, alrik = fight.gm, fight.players[0]
    script(app, 1, 1)  # a double 1: Volltreffer; the table, the damage and more follow
    await fight.act(alrik, "attack", target=pids["Goblin 1"])
    if (await fight.view(gm))["pending"]:
        script(app, *([3] * 40))
        await fight.act(gm, "respond", choice="defend")
    await fight.act(gm, "condition", participant=pids["Brida"], condition="benommen")
    script(app, 2, 2, 3, 4)  # Helfen: Alrik helps Brida's check (a Patzer-free help)
    await fight.act(gm, "check", participant=pids["Brida"], skill="Willenskraft",
                    helpers=[pids["Alrik"]])  # fmt: skip
    await fight.act(alrik, "next")


async def _hh_sheet_fight_flow(make_client: ClientFactory, app: FastAPI) -> None:
    """A hero with a real sheet in a fight: what the fight changes goes onto the sheet."""
    hero = await wounded_hero(make_client, app)
    await hero.act(
        hero.table.gm, "adjust", participant=hero.pids["Arjun"], delta=-3, reason="Falle"
    )
    arjun, gm = hero.pids["Arjun"], hero.table.gm
    script(app, 9, 9, 9, 9, 5, 5)  # Sprünge and Stürze: made, short, unharmed, damage
    await hero.act(gm, "jump", participant=arjun, distance=2)
    await hero.act(gm, "jump", participant=arjun, distance=6, modifier=-4)
    await hero.act(gm, "fall", participant=arjun, distance=1)
    await hero.act(gm, "fall", participant=arjun, distance=6)


class _Badges(HTMLParser):
    """The text of every condition badge of a sheet page."""

    def __init__(self) -> None:
        super().__init__()
        self.inside = False
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.inside = tag == "span" and ("class", "badge condition") in attrs
        if self.inside:
            self.found.append("")

    def handle_endtag(self, tag: str) -> None:
        self.inside = False

    def handle_data(self, data: str) -> None:
        if self.inside:
            self.found[-1] += data


async def _badges(hero: Hero, locale: str) -> list[str]:
    await _language(hero.table.player, locale)
    page = f"/campaigns/{hero.table.campaign_id}/characters/{hero.character_id}"
    parser = _Badges()
    parser.feed((await hero.table.player.get(page)).text)
    await _language(hero.table.player, "de")
    return parser.found


async def test_dying_stabilised_dead_and_back_in_both_languages(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Sterbend, stabilised by the goblin's Heilkunde, unconscious; then dead, and back by
    Tod abwenden: the log's lines and the sheet's badges in both languages."""
    hero = await wounded_hero(make_client, app)
    gm, arjun = hero.table.gm, hero.pids["Arjun"]
    await hero.act(gm, "adjust", participant=arjun, delta=-10, reason="Falle")
    await hero.act(gm, "next")
    await hero.act(gm, "next")
    script(app, 2, 3)  # Heilkunde (Monsterstufe 6): 5 ≤ 6
    await hero.act(gm, "stabilise", target=arjun)
    assert (await _badges(hero, "en"))[-1] == "«unconscious»"
    assert (await _badges(hero, "de"))[-1] == "«bewusstlos»"
    await hero.act(gm, "adjust", participant=arjun, delta=-30, reason="Lawine")
    assert await _badges(hero, "en") == ["«dead»"]
    assert await _badges(hero, "de") == ["«tot»"]
    await hero.act(hero.table.player, "luck", participant=arjun, option="avoid_death")
    english, german = await _combat_details(app, "en"), await _combat_details(app, "de")
    for en, de in (
        ("Arjun: stabilised (by Goblin 1)", "Arjun: stabilisiert (durch Goblin 1)"),
        ("Arjun: «sterbend» ends (by Goblin 1)", "Arjun: «sterbend» endet (durch Goblin 1)"),
        ("Arjun: dead (LP -30 ≤ −Unbeugsamkeit)", "Arjun: tot (LP -30 ≤ −Unbeugsamkeit)"),
        ("Arjun: «sterbend» ends (death averted)", "Arjun: «sterbend» endet (Tod abgewendet)"),
        ("Arjun: revived (Glück burnt)", "Arjun: wiederbelebt (Glück verbrannt)"),
    ):
        assert en in english and de in german, "\n".join(english)
    await _check_events(app)


async def _combat_details(app: FastAPI, locale: str) -> list[str]:
    """Every detail of every combat log line, in ``locale``."""
    async with app.state.ctx.sessionmaker() as session:
        events = (
            await session.scalars(select(CampaignEvent).where(CampaignEvent.type == "combat"))
        ).all()
    set_locale(locale)
    try:
        return [d for e in events for line in views.entry_view(e, set())["lines"]
                for d in line["details"]]  # fmt: skip
    finally:
        set_locale("de")


async def test_every_line_and_item_field_speaks_the_users_language(
    make_client: ClientFactory, app: FastAPI
) -> None:
    assert WITH_LINES.isdisjoint(NO_LINES)
    assert WITH_LINES | set(NO_LINES) == set(EVENT_TYPES), "decide how a new event type reads"
    for system in ("hh", "ds4", "pf2e"):
        await _sheet_flow(await make_table(make_client, app, system), system)
    await _pf2e_fight_flow(make_client, app)
    await _ds4_fight_flow(make_client, app)
    await _hh_fight_flow(make_client, app)
    await _hh_sheet_fight_flow(make_client, app)
    produced = await _check_events(app)
    assert produced >= WITH_LINES, f"not rendered by the flows: {WITH_LINES - produced}"


def test_every_hh_change_reads_in_the_users_language() -> None:
    """Every kind of change the H&H engine reports, with every reason it gives as a key, as
    the combat log writes it (stored as msgids, worded by the reader's language)."""
    state: CombatState = {
        "system": "hh", "round": 1, "turn": 0, "order": [],
        "figures": {"a": {"name": "Alrik"}, "b": {"name": "Brida"}},
    }  # fmt: skip
    expected = [
        (Change("a", "unconscious", detail="non_lethal"),
         "Alrik: unconscious (non-lethal damage)", "Alrik: bewusstlos (nicht-tödlicher Schaden)"),
        (Change("a", "stabilised", detail="b"),
         "Alrik: stabilised (by Brida)", "Alrik: stabilisiert (durch Brida)"),
        (Change("a", "on_feet"), "Alrik: stands up", "Alrik: steht auf"),
        (Change("a", "slide", 1, detail="Fehltritt"),
         "Alrik: slides away 1 Schritt (Fehltritt)", "Alrik: rutscht 1 Schritt weg (Fehltritt)"),
        (Change("a", "condition_removed", condition="benommen"),
         "Alrik: «benommen» ends", "Alrik: «benommen» endet"),
        (Change("a", "free_move", 3, detail="ground_gained"),
         "Alrik: free move of 3 Schritt (ground gained)",
         "Alrik: freie Bewegung 3 Schritt (Raum gewonnen)"),
        (Change("a", "lp", 4, detail="rast"), "Alrik: LP +4 (rest)", "Alrik: LP +4 (Rast)"),
        (Change("a", "lp", 2, detail="heilkunde"),
         "Alrik: LP +2 (Heilkunde)", "Alrik: LP +2 (Heilkunde)"),
        (Change("a", "dead"), "Alrik: dead", "Alrik: tot"),
    ]  # fmt: skip
    every = [Change("a", kind, -2, condition="benommen") for kind in get_args(ChangeKind)]
    every += [Change("b", "lp", 1, detail=reason) for reason in DETAIL_WORDS]
    changes = [c for c, _en, _de in expected] + every
    stored = [d.as_dict() for d in describe_changes(state, changes)]
    for locale, column in (("en", 1), ("de", 2)):
        set_locale(locale)
        try:
            lines = [views.detail_text(d) for d in stored]
        finally:
            set_locale("de")
        for line in lines:
            check(line, locale, "H&H change")
        assert lines[: len(expected)] == [row[column] for row in expected]


def test_the_checker_finds_keys_python_values_and_the_other_language() -> None:
    for text, locale in (
        ("verteidigung_volltreffer: 2W10", "de"),
        ("2h: False", "en"),
        ("Alrik: jammed weapon", "de"),
        ("Alrik trifft Goblin: 5 Schaden.", "en"),
    ):
        try:
            check(text, locale, "sample")
        except AssertionError:
            continue
        raise AssertionError(f"not found: {text!r}")
    check("Alrik trifft Goblin: 5 Schaden.", "de", "sample")
    check("Alrik hits Goblin: 5 damage.", "en", "sample")
    check("Immersieg: Ork 1 rolls no Abwehr against it.", "en", "sample")
