"""Per-player line of sight in the browser: two players, a goblin behind a wall. Anna
walks round the corner by keyboard — the goblin appears on her screen and never on
Bert's (it is not in his DOM); back behind the wall it is gone from hers again."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.flows import wait_live
from tests.browser.world import account, ok

pytestmark = pytest.mark.browser


@dataclass
class Hall:
    gm: BrowserContext
    anna: BrowserContext
    bert: BrowserContext
    url: str
    tokens: dict[str, int]


@pytest.fixture
def hall(browser: Browser, base_url: str) -> Iterator[Hall]:
    gm, anna, bert = (account(browser, base_url, n) for n in ("sichtsl", "anna", "bert"))
    created = ok(gm.request.post("/api/v1/campaigns", data={"name": "Sicht", "system": "hh"}))
    base = f"/api/v1/campaigns/{created['id']}"
    scene = ok(
        gm.request.post(
            f"{base}/scenes", data={"name": "Halle", "cols": 10, "rows": 5, "shown": True}
        )
    )
    api = f"{base}/scenes/{scene['id']}"
    ok(gm.request.put(f"{api}/walls", data={"segments": [[5, 0, 5, 4]]}))
    ok(gm.request.patch(api, data={"line_of_sight": True}))
    tokens = {}
    for player, name, cell in ((anna, "Anna", (1, 1)), (bert, "Bert", (1, 3))):
        ok(player.request.post("/api/v1/campaigns/join",
                               data={"invite_code": created["invite_code"]}))  # fmt: skip
        char = ok(player.request.post(f"{base}/characters", data={"name": name}))["id"]
        body = {"x": cell[0], "y": cell[1], "character_id": char}
        tokens[name] = ok(gm.request.post(f"{api}/tokens", data=body))["id"]
    # The goblin and two more behind the wall; a barrel and a chest in Anna's corner.
    for label, cell in (("Goblin", (8, 1)), ("Ork", (8, 3)), ("Wolf", (9, 4)),
                        ("Fass", (0, 0)), ("Kiste", (2, 0))):  # fmt: skip
        body = {"x": cell[0], "y": cell[1], "label": label}
        tokens[label] = ok(gm.request.post(f"{api}/tokens", data=body))["id"]
    yield Hall(gm, anna, bert, f"/campaigns/{created['id']}/scenes/{scene['id']}", tokens)
    for context in (gm, anna, bert):
        context.close()


def test_the_goblin_appears_only_to_the_player_who_sees_it(hall: Hall) -> None:
    h = hall
    gm, anna, bert = (c.new_page() for c in (h.gm, h.anna, h.bert))
    for page in (gm, anna, bert):
        page.goto(h.url)
        wait_live(page)
    goblin = h.tokens["Goblin"]
    for page in (anna, bert):
        expect(
            page.locator(f'#map-board .map-token[data-token="{h.tokens["Bert"]}"]')
        ).to_be_visible()
        assert "Goblin" not in page.content()
    expect(gm.locator(f'#map-board .map-token[data-token="{goblin}"]')).to_have_count(1)
    # Anna walks round the end of the wall by keyboard: down three rows, right five cells.
    anna.locator(f'#map-list .map-pick[data-token="{h.tokens["Anna"]}"]').click()
    for key in ["ArrowDown"] * 3 + ["ArrowRight"] * 5 + ["Enter"]:
        anna.keyboard.press(key)
    anna_token = f'#map-board .map-token[data-token="{h.tokens["Anna"]}"]'
    for page in (anna, bert, gm):
        expect(page.locator(anna_token)).to_have_attribute("data-x", "6")
    expect(anna.locator(f'#map-board .map-token[data-token="{goblin}"]')).to_have_count(1)
    expect(anna.locator("#map-list")).to_contain_text("Goblin")
    expect(bert.locator(f'#map-board .map-token[data-token="{goblin}"]')).to_have_count(0)
    assert "Goblin" not in bert.content()
    # Back behind the wall (the no-script form would do the same): gone from her screen.
    anna.locator(f'#map-list .map-pick[data-token="{h.tokens["Anna"]}"]').click()
    for key in ["ArrowUp"] * 3 + ["ArrowLeft"] * 5 + ["Enter"]:
        anna.keyboard.press(key)
    expect(anna.locator(f'#map-board .map-token[data-token="{goblin}"]')).to_have_count(0)
    assert "Goblin" not in anna.content()
    expect(gm.locator(f'#map-board .map-token[data-token="{goblin}"]')).to_have_count(1)


def _sight(page: Page) -> tuple[list[str], list[str], list[str], list[str]]:
    """What the board shows of the viewer's sight: the explored (dimmed) and fogged cells,
    the tokens on the board and in the list."""
    shown = page.evaluate(
        """() => {
          const all = (q, f) => Array.from(document.querySelectorAll(q), f).sort();
          const cell = r => r.getAttribute('x') + ',' + r.getAttribute('y');
          const at = t => t.dataset.token + '@' + t.dataset.x + ',' + t.dataset.y;
          return [
            all('#map-board rect.map-explored', cell),
            all('#map-board rect.map-fog', cell),
            all('#map-board .map-token', at),
            all('#map-list li', li => li.id || li.className),
          ];
        }"""
    )
    return shown[0], shown[1], shown[2], shown[3]


def test_her_fog_of_sight_moves_with_her_without_a_new_board(hall: Hall) -> None:
    """Issue 29: Anna's own move changes her fog of sight live — the cells, the three tokens
    that come into her sight and the two that leave it, from the move's events alone, in
    two messages (the move, then every token at once), her board not drawn anew (a mark on
    it survives) — to exactly what a reload shows."""
    h = hall
    anna, bert = h.anna.new_page(), h.bert.new_page()
    for page in (anna, bert):
        page.goto(h.url)
        wait_live(page)
    goblin = f'#map-board .map-token[data-token="{h.tokens["Goblin"]}"]'
    anna_token = f'#map-board .map-token[data-token="{h.tokens["Anna"]}"]'
    expect(anna.locator('#map-board rect.map-explored[x="8"][y="1"]')).to_have_count(1)
    anna.evaluate("() => { document.getElementById('map-board').dataset.mark = 'kept'; }")
    anna.evaluate(
        """() => { window.mapMessages = 0; document.addEventListener('htmx:sseMessage',
             e => { if (e.detail.type === 'map') window.mapMessages++; }); }"""
    )
    bert_before = _sight(bert)
    behind = [h.tokens[n] for n in ("Goblin", "Ork", "Wolf")]
    corner = [h.tokens[n] for n in ("Fass", "Kiste")]
    for cell, seen in (((6, 4), 1), ((1, 1), 0)):
        r = h.anna.request.post(
            f"/api/v1/{h.url.removeprefix('/')}/tokens/{h.tokens['Anna']}/move",
            data={"to": list(cell)},
        )
        assert r.ok, r.text()
        expect(anna.locator(anna_token)).to_have_attribute("data-x", str(cell[0]))
        expect(anna.locator(goblin)).to_have_count(seen)
        for token_id in behind + corner:
            there = seen if token_id in behind else 1 - seen
            expect(anna.locator(f'#map-board .map-token[data-token="{token_id}"]')).to_have_count(
                there
            )
            expect(anna.locator(f"#map-list #map-item-{token_id}")).to_have_count(there)
        expect(anna.locator('#map-board rect.map-explored[x="8"][y="1"]')).to_have_count(1 - seen)
        assert anna.evaluate("() => window.mapMessages") == 2
        anna.evaluate("() => { window.mapMessages = 0; }")
        assert anna.evaluate("() => document.getElementById('map-board').dataset.mark") == "kept"
        live = _sight(anna)
        fresh = h.anna.new_page()
        fresh.goto(h.url)
        assert _sight(fresh) == live
        fresh.close()
        # Bert's sight did not change: nothing of it reached his page.
        expect(bert.locator(f'#map-board .map-token[data-token="{h.tokens["Anna"]}"]')
               ).to_have_attribute("data-x", str(cell[0]))  # fmt: skip
        assert _sight(bert)[:2] == bert_before[:2] and "Goblin" not in bert.content()
