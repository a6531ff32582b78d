"""Rounds 1 and 2 of an H&H fight played on the board only (issue 28, «The map is the
table», its «Done when»): the GM on a desktop, Alice (Alrik) on a desktop and Bob (Brida) on
a 390 × 844 touch phone, against two goblins on the scene linked to the fight.

The test follows the turn marker. A hero's player, on their own device, chooses their token,
moves it one cell by a tap on the board (every other screen shows the move live), taps a
goblin in reach, which fills the attack's target in the actions sheet, and attacks with the
sheet's button. A goblin's turn is the GM's on the desktop: the goblin from the token list,
a click on a hero in reach, the attack button. A defence the server waits for is answered on
the defender's own device (a goblin's by the GM). In round 2 the first goblin turns place a
Flächenangriff around the two heroes through the area form (of radius 1 while they stand
next to each other, else 2), and each hero defends on their own device. The dice are real:
every attack may miss, and the test takes either outcome. Every figure ends its turn on its
own device («Zug beenden»).

On the phone, with the actions sheet collapsed, the page is at most one and a half screens
high and does not scroll sideways; the tokens are told apart by side and number."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from app.rules.hh.grid import passes
from tests.browser.fight import Cell, answer_prompts, on_phone, place_area, press, send
from tests.browser.test_combat_board import Table, _open, set_table
from tests.browser.test_layout import PHONE
from tests.browser.test_map import at, token
from tests.browser.world import ok

pytestmark = pytest.mark.browser

HEROES = ("Brida", "Alrik")
GOBLINS = ("Goblin 1", "Goblin 2")
#: Where everyone stands when the fight begins (the GM places them): each hero beside a
#: goblin (diagonally), the heroes next to each other, no goblin in the area around them.
START: dict[str, Cell] = {"Brida": (2, 2), "Alrik": (2, 3), "Goblin 1": (3, 1), "Goblin 2": (3, 4)}
COLS, ROWS = 10, 6
#: Two rounds of four figures, each with up to three Initiativeschritte.
MOST_TURNS = 24


@pytest.fixture
def table(browser: Browser, base_url: str) -> Iterator[Table]:
    t = set_table(browser, base_url)
    for name, cell in START.items():
        move = {"to": list(cell), "override": True}
        ok(t.gm.request.post(f"{t.scene_api}/tokens/{t.tokens[name]}/move", data=move))
    yield t
    for context in (t.gm, t.alice, t.bob):
        context.close()


@dataclass
class Area:
    """A Flächenangriff placed around the heroes."""

    goblin: str
    #: The figures in it (the acting goblin, never hit by its own area, aside).
    targets: int
    #: The heroes on their feet when it was placed.
    standing: list[str]
    #: The heroes who answered a defence prompt on their own device.
    defended: list[str]
    #: Of ``standing``, those with a Reaktion left (real dice: one may have spent it on an
    #: earlier defence this round, or be «benommen» or «sterbend»): only they are asked to defend.
    ready: list[str]


@dataclass
class Fight:
    t: Table
    gm: Page
    players: dict[str, Page]
    pages: list[Page]
    #: Attacks made (a single one or an area), by round.
    attacks: dict[int, int] = field(default_factory=lambda: {1: 0, 2: 0})
    areas: list[Area] = field(default_factory=list)

    def view(self) -> Any:
        return ok(self.t.gm.request.get(self.t.encounter_api))

    def cells(self) -> dict[str, Cell]:
        tokens = ok(self.t.gm.request.get(self.t.scene_api))["tokens"]
        named = {str(t["participant_id"]): (int(t["x"]), int(t["y"])) for t in tokens}
        return {name: named[str(pid)] for name, pid in self.t.pids.items()}

    def answer(self) -> list[tuple[str, str]]:
        return answer_prompts(self.t.gm.request, self.t.encounter_api, self.players, self.gm)

    def is_dazed(self, name: str) -> bool:
        """Whether ``name`` cannot act this turn: «benommen» (an earlier fumble's Fehltritt,
        real dice) or «sterbend» (nobody here spends Glück to stay on their feet). Then the
        turn is ended."""
        row = next(p for p in self.view()["participants"] if p["name"] == name)
        return _cannot_act(row)

    def can_react(self, name: str) -> bool:
        """Whether ``name`` has a Reaktion left (the row's «Reaktionen n/m») and may use it."""
        row = next(p for p in self.view()["participants"] if p["name"] == name)
        left = re.search(r"Reaktionen (\d+)/", " ".join(row["extra"]))
        return left is not None and int(left.group(1)) > 0 and not _cannot_act(row)

    def frees_a_jammed_weapon(self, name: str) -> bool:
        """Whether ``name``'s weapon was jammed by an earlier fumble («Waffe blockiert», real
        dice): then its step goes to freeing it (the GM acts for the figure on turn)."""
        row = next(p for p in self.view()["participants"] if p["name"] == name)
        if "Waffe blockiert" not in row["extra"]:
            return False
        ok(self.t.gm.request.post(f"{self.t.encounter_api}/actions/free_weapon", data={}))
        return True


def _cannot_act(row: dict[str, Any]) -> bool:
    """A figure «benommen» or «sterbend» (and not kept on its feet) neither acts nor reacts
    (H&H: ``Figure.can_act``)."""
    conditions = str(row["conditions"])
    return "benommen" in conditions or "sterbend" in conditions


def _near(a: Cell, b: Cell) -> bool:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])) == 1


def _disc(origin: Cell, radius: int) -> set[Cell]:
    """The cells of a circle of ``radius`` cells around ``origin``: those whose centre lies
    within it (radius 1: the cell and its four neighbours)."""
    x, y = origin
    span = range(-radius, radius + 1)
    return {(x + dx, y + dy) for dx in span for dy in span if dx * dx + dy * dy <= radius**2}


def _origin(heroes: list[Cell], goblins: list[Cell], radius: int = 1) -> Cell | None:
    """A cell whose area of ``radius`` holds both heroes and none of ``goblins``."""
    for x in range(COLS):
        for y in range(ROWS):
            area = _disc((x, y), radius)
            if all(h in area for h in heroes) and not any(g in area for g in goblins):
                return x, y
    return None


def _passes(path: list[Cell], center: Cell) -> bool:
    """Whether a one-cell step goes past ``center`` inside its Gefährdungsbereich (a
    Blockadeangriff): the direction from the figure turns by 90° or more."""
    return passes(path, center) is not None


def _step(f: Fight, hero: str, standing: set[str]) -> tuple[Cell, str] | None:
    """Where ``hero`` steps and whom it attacks there: a free neighbouring cell beside a
    standing goblin, passing none (no Blockadeangriff), where an area around both heroes
    without a goblin still fits if there is such a cell."""
    cells = f.cells()
    here, other = cells[hero], cells[next(h for h in HEROES if h != hero)]
    goblins = [g for g in GOBLINS if g in standing]
    taken = set(cells.values())
    steps = []
    for dx, dy in ((1, 0), (0, -1), (0, 1), (-1, 0), (1, -1), (1, 1), (-1, -1), (-1, 1)):
        to = (here[0] + dx, here[1] + dy)
        if not (0 <= to[0] < COLS and 0 <= to[1] < ROWS) or to in taken:
            continue
        beside = [g for g in goblins if _near(to, cells[g])]
        if beside and not any(_passes([here, to], cells[g]) for g in goblins):
            steps.append((to, beside[0]))
    around = [s for s in steps if _origin([s[0], other], [cells[g] for g in GOBLINS])]
    chosen = around or steps
    return chosen[0] if chosen else None


def _tap_cell(page: Page, cell: Cell) -> None:
    svg = page.locator("#map-board .map-svg")
    svg.scroll_into_view_if_needed()
    box = svg.bounding_box()
    assert box is not None
    x = box["x"] + (cell[0] + 0.5) * box["width"] / COLS
    y = box["y"] + (cell[1] + 0.5) * box["height"] / ROWS
    if on_phone(page):
        page.touchscreen.tap(x, y)
    else:
        page.mouse.click(x, y)


def _fresh(page: Page, version: int) -> None:
    """The page's actions carry the fight's current version (its push has arrived)."""
    expect(page.locator("#controls input[name=version]").first).to_have_value(str(version))


def _end_turn(f: Fight, page: Page) -> None:
    """«Zug beenden» on the acting figure's device."""
    _fresh(page, f.view()["version"])
    button = page.locator("#next-turn")
    expect(button).to_have_text("Zug beenden")
    ended = send(page, button, "/next")
    assert ended.status == 200, ended.text()


def _attack(f: Fight, page: Page, target: str) -> list[tuple[str, str]]:
    """The actor, already chosen, aims at ``target`` by a tap (a click) on its token and
    attacks from the sheet; the defender answers on their device."""
    view = f.view()
    _fresh(page, view["version"])
    press(page, token(page, f.t.tokens[target]))
    expect(page.locator("#action-sheet")).to_have_attribute("open", "")
    expect(page.locator("#attack-target")).to_have_value(str(f.t.pids[target]))
    # What the board measured and the odds are shown before the button is pressed (the note
    # above it moves it down when it comes).
    expect(page.locator("#map-aim")).to_contain_text("Entfernung 1 Schritt")
    expect(page.locator("#forecast dl.odds")).to_be_visible()
    attacked = send(page, page.locator("#attack-button"), "/attack")
    assert attacked.status == 200, attacked.text()
    f.attacks[int(view["round"])] += 1
    return f.answer()


def _hero_turn(f: Fight, hero: str, standing: set[str]) -> None:
    page = f.players[hero]
    step = _step(f, hero, standing)
    if step is None or f.is_dazed(hero):  # no goblin left to step to, or no action: end
        _end_turn(f, page)
        return
    if f.frees_a_jammed_weapon(hero):
        _end_turn(f, page)
        return
    to, goblin = step
    mine = f.t.tokens[hero]
    _fresh(page, f.view()["version"])
    press(page, token(page, mine))  # a click on a desktop: no drag, it chooses
    expect(token(page, mine)).to_have_class(re.compile(r"\bmap-selected\b"))
    with page.expect_response(lambda r: r.url.endswith(f"/tokens/{mine}/move")) as moved:
        _tap_cell(page, to)
    assert moved.value.status == 200, moved.value.text()
    for other in f.pages:
        at(other, mine, *to)
    _attack(f, page, goblin)
    _end_turn(f, page)


def _area(f: Fight, goblin: str, standing: set[str]) -> bool:
    """In round 2 the goblin's Flächenangriff around the two heroes (on their feet or not),
    until one hits; a goblin in it is the acting one at most. Of radius 1 where it fits,
    else 2 (real dice: a Wegstossen may have pushed the heroes apart). Whether it was
    placed."""
    cells = f.cells()
    heroes = [cells[h] for h in HEROES]
    others = [cells[g] for g in GOBLINS if g != goblin]
    found = next(
        (
            (origin, radius)
            for radius in (1, 2)
            for without in ([cells[g] for g in GOBLINS], others)
            if (origin := _origin(heroes, without, radius)) is not None
        ),
        None,
    )
    if found is None or any(a.defended for a in f.areas):
        return False
    origin, radius = found
    view = f.view()
    heroes_up = sorted(h for h in HEROES if h in standing)
    ready = [h for h in heroes_up if f.can_react(h)]
    _fresh(f.gm, view["version"])
    place_area(f.gm, origin, radius)
    f.attacks[int(view["round"])] += 1
    answered = f.answer()
    defended = sorted(h for h, kind in answered if kind == "defence")
    in_it = 2 + (cells[goblin] in _disc(origin, radius))
    f.areas.append(Area(goblin, in_it, heroes_up, defended, ready))
    return True


def _goblin_turn(f: Fight, goblin: str, round_: int, standing: set[str]) -> None:
    gm, cells = f.gm, f.cells()
    if round_ == 2 and _area(f, goblin, standing):
        _end_turn(f, gm)
        return
    heroes = [h for h in HEROES if h in standing]
    reach = [h for h in heroes if _near(cells[h], cells[goblin])]
    if reach and not f.frees_a_jammed_weapon(goblin):
        _fresh(gm, f.view()["version"])
        gm.locator(f'#map-list .map-pick[data-token="{f.t.tokens[goblin]}"]').click()
        expect(token(gm, f.t.tokens[goblin])).to_have_class(re.compile(r"\bmap-selected\b"))
        _attack(f, gm, reach[0])
    _end_turn(f, gm)


def _phone_fits(bob: Page) -> None:
    """With the actions sheet collapsed the phone's page is at most 1.5 screens high and has
    no sideways scroll."""
    sheet = bob.locator("#action-sheet")
    if sheet.get_attribute("open") is not None:
        bob.locator("#action-sheet > summary").tap()
    expect(sheet).not_to_have_attribute("open", "")
    height = bob.evaluate("document.documentElement.scrollHeight")
    assert height <= 1.5 * PHONE["height"], height
    width = bob.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width


def _told_apart(f: Fight, page: Page) -> None:
    for number, goblin in enumerate(GOBLINS, start=1):
        found = token(page, f.t.tokens[goblin])
        expect(found).to_have_attribute("data-number", str(number))
        expect(found).to_have_class(re.compile(r"\bmap-side-gegner\b"))
    for hero in HEROES:
        expect(token(page, f.t.tokens[hero])).to_have_class(re.compile(r"\bmap-side-abenteurer\b"))


def test_rounds_one_and_two_are_played_on_the_board(table: Table) -> None:
    t = table
    gm, alice, bob = (_open(c, t.url) for c in (t.gm, t.alice, t.bob))
    f = Fight(t, gm, {"Brida": bob, "Alrik": alice}, [gm, alice, bob])
    _phone_fits(bob)
    for page in f.pages:
        _told_apart(f, page)

    turns: list[tuple[int, str]] = []
    for _turn in range(MOST_TURNS):
        view = f.view()
        round_, actor, pid = int(view["round"]), view["turn"]["name"], view["turn"]["pid"]
        if round_ > 2:
            break
        for page in f.pages:  # the turn marker shows who acts, on every screen
            marker = page.locator("#turn")
            expect(marker).to_have_attribute("data-round", str(round_))
            expect(marker).to_have_attribute("data-actor", str(pid))
            expect(marker).to_contain_text(f"Runde {round_}")
            expect(marker.locator(".current-actor")).to_have_text(f"{actor} ist am Zug")
        standing = {p["name"] for p in view["participants"] if not p.get("out")}
        turns.append((round_, actor))
        if actor in HEROES:
            _hero_turn(f, actor, standing)
        else:
            _goblin_turn(f, actor, round_, standing)
    else:
        pytest.fail(f"Round 3 did not begin after {MOST_TURNS} turns: {turns}")
    assert {r for r, _actor in turns} == {1, 2}, turns

    # Round 2 is over, round 3 has begun: every page's round counter says so.
    for page in f.pages:
        expect(page.locator("#turn > strong")).to_have_text("Runde 3")
    # An area with the two heroes in it was placed in round 2 (with a goblin still up);
    # when it hit, each hero on their feet defended on their own device.
    log = alice.locator("#combat-log > li")
    goblins_in_2 = any(r == 2 and a in GOBLINS for r, a in turns)
    assert f.areas or not goblins_in_2, turns
    placed = log.filter(has_text=re.compile(r"Ein Kreis als Fläche wird gelegt: \d+ Figuren"))
    expect(placed).to_have_count(len(f.areas))
    for area in f.areas:
        expect(placed.filter(has_text=f"{area.targets} Figuren darin.").first).to_be_attached()
        if area.defended:
            assert area.defended == area.ready, f.areas
            for hero in area.defended:
                line = log.filter(has_text="Verteidigung (Unbeugsamkeit)").filter(has_text=hero)
                expect(line.first).to_be_attached()
        elif area.ready:  # nobody asked who could answer: the Probe failed, the area missed
            # (a hero who is down may be dead, and the dead are not hit)
            for hero in area.standing:
                missed = log.filter(has_text=f"{area.goblin} trifft {hero} nicht.")
                expect(missed.first).to_be_attached()
    # Alice's log has every attack of both rounds: before and after «Runde 2 beginnt.».
    second = log.filter(has_text="Runde 2 beginnt.")
    expect(second).to_have_count(1)
    boundary = int(second.get_attribute("data-seq") or 0)
    attacks = log.filter(has_text=re.compile(r"greift .+ an\.|führt einen Flächenangriff aus"))
    expect(attacks).to_have_count(f.attacks[1] + f.attacks[2])
    seqs = [int(s) for s in attacks.evaluate_all("els => els.map(e => e.dataset.seq)")]
    by_round = {1: sum(s < boundary for s in seqs), 2: sum(s > boundary for s in seqs)}
    assert by_round == f.attacks, (by_round, f.attacks)
    assert f.attacks[1] > 0 and (f.attacks[2] > 0 or not goblins_in_2), f.attacks
    _phone_fits(bob)
    for page in f.pages:
        _told_apart(f, page)
