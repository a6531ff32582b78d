"""Fair play in the browser (issue 17): the GM turns it on and runs a session, a player on a
phone sets a seed and rolls, and after the end verifies every roll on the page (Web
Crypto), finding their own roll by its name and faces; a tampered export, chosen as a file,
shows the failing event — also one whose payload shows other dice than were drawn."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.browser.conftest import OpenPage
from tests.browser.flows import create_campaign, invite_link, join, register, roll
from tests.browser.test_accessibility import violations
from tests.sessions.helpers import reseal, unsalted

pytestmark = pytest.mark.browser

PHONE: ViewportSize = {"width": 390, "height": 844}


def _sessions(page: Page, path: str) -> None:
    page.goto(f"{path}/sessions")
    expect(page.locator("h1")).to_contain_text("Spielsitzungen")


def test_a_player_verifies_an_ended_session(open_page: OpenPage, tmp_path: Path) -> None:
    gm = open_page()
    register(gm, "sl")
    path = create_campaign(gm, "Nordmark")
    link = invite_link(gm)
    player = open_page(PHONE)
    register(player, "spieler")
    join(player, link)

    _sessions(gm, path)
    gm.locator("#fairplay-enabled").check()
    gm.locator("#fairplay-overrides").select_option("marked")
    gm.get_by_role("button", name="Tischregel speichern").click()
    expect(gm.locator("#fairplay-heading + p")).to_contain_text("Fair Play ist an.")
    gm.goto(path)
    gm.locator("#sessions-panel").get_by_role("button", name="Sitzung beginnen").click()
    expect(gm.locator("#sessions-panel")).to_contain_text("Eine Sitzung läuft")

    _sessions(player, path)
    seed = player.locator("#client-seed")
    expect(seed).not_to_have_value("")  # a random default, made in the browser
    seed.fill("Glückskeks")
    player.get_by_role("button", name="Meinen Seed setzen").click()
    expect(player.locator("#client-seed")).to_have_value("Glückskeks")
    player.goto(path)
    roll(player, "3W6+1", "Klettern")
    roll(player, "1W20", "Wahrnehmung")
    gm.goto(path)
    roll(gm, "2W10", "Hinterhalt", "gm")
    gm.locator("#sessions-panel").get_by_role("button", name="Sitzung beenden").click()
    expect(gm.locator("#sessions-panel")).not_to_contain_text("Eine Sitzung läuft")

    _sessions(player, path)
    player.get_by_role("link", name="Würfel prüfen").first.click()
    expect(player).to_have_url(re.compile(r"/sessions/\d+/verify$"))
    player.get_by_role("button", name="Diese Sitzung prüfen").click()
    summary = player.locator("#fairplay-summary")
    expect(summary).to_contain_text("Jeder Wurf geprüft")
    events = player.locator("#fairplay-events li")
    assert events.count() >= 6
    expect(player.locator("#fairplay-events li.fairplay-bad")).to_have_count(0)
    for text in events.all_inner_texts():
        assert "✓" in text, text
    # Events by their names, translated; each roll by who rolled what and its faces.
    expect(events.first).to_contain_text("Sitzung begonnen")
    expect(player.locator("#fairplay-events")).not_to_contain_text("session_started")
    mine = events.filter(has_text="Wahrnehmung")
    expect(mine).to_contain_text(
        re.compile(r"Wurf ✓ \(1 Würfel\) — spieler\w*: Wahrnehmung 1W20 \[\d+\] = \d+")
    )
    expect(player.locator("#fairplay-format")).to_contain_text("Version 2, gesalzene Prüfsummen")
    width = player.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, width
    assert violations(player) == []

    # A tampered export (one face of the player's first roll changed) fails at that event.
    url = player.url.replace("/campaigns/", "/api/v1/campaigns/").replace("/verify", "/fairplay")
    data = player.request.get(url).json()
    rolled = next(e for e in data["events"] if e["type"] == "roll" and e["payload"])
    sides, face = rolled["fairplay"]["draws"][0]
    rolled["fairplay"]["draws"][0] = [sides, face % sides + 1]
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    player.locator("#fairplay-file").set_input_files(str(tampered))
    expect(summary).to_contain_text(f"Prüfung fehlgeschlagen bei Ereignis {rolled['seq']}")
    bad = player.locator(f"#fairplay-event-{rolled['seq']}")
    expect(bad).to_have_class(re.compile("fairplay-bad"))
    expect(bad).to_contain_text("ein Würfel passt nicht zur Ableitung")
    expect(player.locator("#fairplay-events li.fairplay-bad")).to_have_count(1)

    # A payload that shows another face, or another total, than the dice drawn fails too,
    # though its digest and chain were made to match it.
    for change, message in (
        (_other_face, "ein gezeigter Würfel ist nicht der gezogene"),
        (_other_total, "die gezeigte Summe passt nicht zu den Würfeln"),
    ):
        data = player.request.get(url).json()
        rolled = next(e for e in data["events"] if e["type"] == "roll" and e["payload"])
        change(rolled["payload"])
        reseal(data, rolled["seq"])
        shown = tmp_path / f"{change.__name__}.json"
        shown.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        player.locator("#fairplay-file").set_input_files(str(shown))
        bad = player.locator(f"#fairplay-event-{rolled['seq']}")
        expect(bad).to_contain_text(message)
        expect(summary).to_contain_text(f"Prüfung fehlgeschlagen bei Ereignis {rolled['seq']}")
        expect(bad).not_to_contain_text("Ableitung")
        expect(player.locator("#fairplay-events li.fairplay-bad")).to_have_count(1)

    # An export in the format from before the salt (version 1) verifies, and says so.
    data = player.request.get(url).json()
    assert all(e["payload"] is not None for e in data["events"])  # the secret roll revealed
    unsalted(data)
    old = tmp_path / "version1.json"
    old.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    player.locator("#fairplay-file").set_input_files(str(old))
    expect(player.locator("#fairplay-format")).to_contain_text("Version 1, ungesalzene")
    expect(summary).to_contain_text("Jeder Wurf geprüft")
    expect(player.locator("#fairplay-events li.fairplay-bad")).to_have_count(0)


def _other_face(payload: dict[str, Any]) -> None:
    group = payload["dice"][0]
    face = group["faces"][0]
    group["faces"][0] = face % group["sides"] + 1
    payload["total"] += group["faces"][0] - face


def _other_total(payload: dict[str, Any]) -> None:
    payload["total"] += 1
