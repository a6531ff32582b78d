"""Three people play two full H&H rounds in the live combat view (GM and two players).

Dice are the live server's (random), so the test follows whatever happens: on every turn
the actor's person acts, the defender's person answers the prompt, and after every step all
three pages must show the same log entries, turn and LP — pushed live, without reloads. A
GM-only roll and a hidden goblin never appear in a player's page source.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, Response, expect
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.characters.models import Character
from tests.blocking import blocking_url
from tests.browser.flows import create_campaign, invite_link, join, register, wait_live

PHONE = {"width": 390, "height": 844}
STATS = {"lp": 20, "rs": 1, "initiative": 10, "angriff": 12, "verteidigung": 11,
         "unbeugsamkeit": 10, "willenskraft": 9, "schaden_w": 6, "schaden_bonus": 0}  # fmt: skip


def _add_character(database_url: str, campaign_id: int, username: str, name: str, ini: int) -> None:
    engine = create_engine(blocking_url(database_url))
    with Session(engine) as session:
        owner = session.scalar(select(User.id).where(User.username == username))
        session.add(
            Character(
                campaign_id=campaign_id, owner_id=owner, system="hh", name=name, kind="pc",
                hidden_from_players=False, data={"statblock": {**STATS, "initiative": ini}},
            )
        )  # fmt: skip
        session.commit()
    engine.dispose()


def _answer_to(path: str) -> Callable[[Response], bool]:
    return lambda r: r.request.method == "POST" and urlsplit(r.url).path == path


def _click(page: Page, selector: str) -> int:
    """Submit an HTMX action form and return the status of *its* response (not that of a
    forecast the swapped controls load meanwhile); a 409 (someone acted meanwhile) is
    retried with the fresh controls it brings back."""
    status = 0
    for _attempt in range(3):
        action = page.locator(selector).locator("xpath=ancestor::form").get_attribute("hx-post")
        assert action, f"{selector} is not in an HTMX form"
        with page.expect_response(_answer_to(action)) as info:
            page.locator(selector).click()
        status = info.value.status
        if status != 409:
            return status
    return status


def _turn_text(page: Page) -> str:
    """Round, acting figure and step as the turn marker shows them."""
    return page.locator("#turn").inner_text()


def _consistent(gm: Page, players: list[Page]) -> None:
    """Every page shows the same public log, turn and visible roster state."""
    public = gm.locator("#combat-log > li:not(.restricted)")
    n = public.count()
    actor = gm.locator("#turn").get_attribute("data-actor") or ""
    rnd = gm.locator("#turn").get_attribute("data-round") or ""
    for page in players:
        expect(page.locator("#combat-log > li")).to_have_count(n)
        expect(page.locator("#turn")).to_have_attribute("data-round", rnd)
        if actor and page.locator(f"#p-{actor}").count():
            expect(page.locator("#turn")).to_have_attribute("data-actor", actor)
        for row in gm.locator("#roster > li").all():
            pid = row.get_attribute("id")
            if page.locator(f"#{pid}").count() == 0:
                continue
            expect(page.locator(f"#{pid} .status")).to_have_text(
                row.locator(".status").inner_text()
            )
            if "Abenteurer" in (row.locator(".side").inner_text()):
                expect(page.locator(f"#{pid} .points")).to_have_text(
                    row.locator(".points").inner_text()
                )


@pytest.mark.browser
def test_two_hh_rounds_live(open_page: Callable[..., Page], database_url: str) -> None:
    gm = open_page()
    p1 = open_page()
    p2 = open_page(viewport=PHONE)
    register(gm, "sl")
    alrik_user = register(p1, "alrik")
    brida_user = register(p2, "brida")
    path = create_campaign(gm, "Hinterhalt am Pass", "hh")
    campaign_id = int(path.rsplit("/", 1)[1])
    link = invite_link(gm)
    join(p1, link)
    join(p2, link)
    _add_character(database_url, campaign_id, alrik_user, "Alrik", 10)
    _add_character(database_url, campaign_id, brida_user, "Brida", 8)

    gm.goto(f"/campaigns/{campaign_id}/bestiary")
    gm.locator("form[action$='/bestiary/samples'] button").click()
    expect(gm.locator("main")).to_contain_text("Goblin")
    gm.goto(f"/campaigns/{campaign_id}/encounters")
    gm.locator("#new-enc-name").fill("Am Pass")
    gm.locator("#encounter-form button[type=submit]").click()
    expect(gm).to_have_url(re.compile(r"/encounters/\d+$"))
    url = gm.url
    for name in ("Alrik", "Brida"):
        gm.locator("#add-char").select_option(label=name)
        gm.locator("#add-char").locator("xpath=ancestor::form").locator("button").click()
        expect(gm.locator(".prepare")).to_contain_text(name)
    entry = gm.locator("#add-entry")
    entry.select_option(label="Goblin")
    entry.locator("xpath=ancestor::form").locator("button").click()
    expect(gm.locator(".prepare")).to_contain_text("Goblin 1")
    gm.locator("#add-entry").select_option(label="Goblin")
    form = gm.locator("#add-entry").locator("xpath=ancestor::form")
    form.locator("input[name=hidden]").check()
    form.locator("button").click()
    expect(gm.locator(".prepare")).to_contain_text("Goblin 2")
    gm.locator("#start-combat").click()
    expect(gm.locator("#turn")).to_have_attribute("data-round", "1")

    pages = {"Alrik": p1, "Brida": p2}
    for page in (gm, p1, p2):
        page.goto(url)
        wait_live(page)
    expect(p1.locator("#roster")).not_to_contain_text("Goblin 2")

    def answer_prompt() -> None:
        if not (gm.locator("#turn").get_attribute("data-pending")):
            return
        target = gm.locator("#pending").inner_text()
        owner = next((p for n, p in pages.items() if f"greift {n} an" in target
                      or f"attacks {n}" in target), gm)  # fmt: skip
        form = owner.locator("#pending form")
        expect(form).to_be_visible()
        _click(owner, "#pending form button[value=defend]")
        for page in (gm, p1, p2):
            expect(page.locator("#turn")).to_have_attribute("data-pending", "")

    steps = 0
    while gm.locator("#turn").get_attribute("data-round") in ("1", "2"):
        steps += 1
        assert steps < 40, "two rounds should not take this many turns"
        actor_name = gm.locator("#turn .current-actor").inner_text()
        who = next((n for n in pages if n in actor_name), None)
        before = gm.locator("#combat-log > li").count()
        if who is not None:
            page = pages[who]
            expect(page.locator("#attack-button")).to_be_visible()
            options = page.locator("#attack-target option")
            labels = [o.inner_text() for o in options.all()]
            assert "Goblin 2" not in labels
            target = "Goblin 1" if "Goblin 1" in labels else labels[-1]
            page.locator("#attack-target").select_option(label=target)
            if _click(page, "#attack-button") == 200:  # 422: cannot act (down)
                expect(gm.locator("#combat-log > li")).not_to_have_count(before)
                answer_prompt()
            _consistent(gm, [p1, p2])
            turn_before = _turn_text(gm)
            assert _click(page, "#next-turn") == 200
        elif "Goblin 2" in actor_name:
            expect(p1.locator("#turn .current-actor")).not_to_contain_text("Goblin")
            gm.locator(".secret-check").locator("xpath=ancestor::details").locator(
                "summary"
            ).click()
            secret = gm.locator("#combat-log > li.restricted")
            checks = secret.count()
            assert _click(gm, "#secret-check") == 200
            expect(secret).to_have_count(checks + 1)  # round 1's check must not count
            expect(secret.first).to_contain_text("Spürsinn")
            turn_before = _turn_text(gm)
            assert _click(gm, "#next-turn") == 200
        else:  # Goblin 1, played by the GM
            gm.locator("#attack-target").select_option(label="Alrik")
            if _click(gm, "#attack-button") == 200:
                expect(gm.locator("#combat-log > li")).not_to_have_count(before)
                answer_prompt()
            _consistent(gm, [p1, p2])
            turn_before = _turn_text(gm)
            assert _click(gm, "#next-turn") == 200
        # Round and step too: the same figure may act first in the next round (the heroes down).
        expect(gm.locator("#turn")).not_to_have_text(turn_before)
        _consistent(gm, [p1, p2])

    # The GM's forms for a row arrive when the row is opened, and post like any form there.
    alrik_row = gm.locator("#roster li", has_text="Alrik")
    assert alrik_row.locator("input[name=delta]").count() == 0
    alrik_row.locator("details.gm-row summary").click()
    expect(alrik_row.locator("input[name=delta]")).to_be_visible()
    alrik_row.locator("input[name=delta]").fill("-1")
    alrik_row.locator("input[name=reason]").fill("Steinschlag")
    alrik_row.locator("input[name=reason]").locator("xpath=ancestor::form").locator(
        "button"
    ).click()
    for page in (gm, p1, p2):
        expect(page.locator("#combat-log")).to_contain_text("Steinschlag")

    for page in (p1, p2):
        html = page.content()
        assert "Goblin 2" not in html
        assert "Spürsinn-Probe" not in html
