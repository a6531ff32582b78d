"""Any number of tabs of one campaign work over plain HTTP/1.1 (six connections per server):
one tab holds the campaign's feed, the others follow through it (docs/ui.md, "One live
connection per campaign")."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Request, expect

from tests.browser.world import _campaign, _character, _running_fight, account, ok

pytestmark = pytest.mark.browser


def _held_streams(requests: list[Request]) -> list[Request]:
    """The requests that stay open: the feed, and any page stream not asked to end."""
    return [
        r for r in requests if re.search(r"/feed\?|/live(\?|$)", r.url) and "once=1" not in r.url
    ]


class Held:
    """The streams a browser context holds open now: asked for, neither finished nor failed
    (a feed the leader replaces is aborted), in a page still open."""

    def __init__(self, context: BrowserContext) -> None:
        self.requests: list[Request] = []
        context.on("request", lambda request: self.requests.append(request))
        context.on("requestfinished", self._ended)
        context.on("requestfailed", self._ended)

    def _ended(self, request: Request) -> None:
        if request in self.requests:
            self.requests.remove(request)

    def now(self) -> list[Request]:
        return [r for r in _held_streams(self.requests) if not r.frame.page.is_closed()]

    def carrying(self, page: Page, streams: set[str]) -> Request:
        """The one held stream, once it is a feed carrying ``streams`` (each tab tells the
        leader its streams; the leader opens its feed again): up to 10 s."""
        for _attempt in range(100):
            now = self.now()
            if len(now) == 1 and _carried(now[0]) == streams:
                return now[0]
            page.wait_for_timeout(100)
        raise AssertionError([(r.url, _carried(r)) for r in self.now()])


def _carried(feed: Request) -> set[str]:
    """The page streams a feed request asked to carry, by path."""
    return {urlsplit(url).path for url in parse_qs(urlsplit(feed.url).query).get("s", [])}


def test_ten_tabs_of_one_campaign_all_follow_live(browser: Browser, base_url: str) -> None:
    gm, player = account(browser, base_url, "sl"), account(browser, base_url, "held")
    campaign_id = _campaign(gm.request, player.request, "hh")
    character_id = _character(player.request, campaign_id, "Alrik")
    base = f"/api/v1/campaigns/{campaign_id}"
    goblin = next(
        e for e in ok(gm.request.post(f"{base}/bestiary/samples")) if e["name"] == "Goblin"
    )
    encounter = ok(gm.request.post(f"{base}/encounters", data={"name": "Am Pass"}))
    fight_api = f"{base}/encounters/{encounter['id']}"
    ok(gm.request.post(f"{fight_api}/participants", data={"character_id": character_id}))
    ok(gm.request.post(f"{fight_api}/participants", data={"entry_id": goblin["id"]}))
    ok(gm.request.post(f"{fight_api}/actions/start", data={}))
    if ok(gm.request.get(fight_api))["turn"]["name"] == "Alrik":
        ok(gm.request.post(f"{fight_api}/actions/next", data={}))

    held = Held(player)
    campaign = f"/campaigns/{campaign_id}"
    sheet = f"{campaign}/characters/{character_id}"
    fight = f"{campaign}/encounters/{encounter['id']}"
    urls = [campaign] * 4 + [sheet] * 3 + [fight] * 3
    tabs: list[Page] = []
    for url in urls:
        tab = player.new_page()
        tab.goto(url)
        expect(tab.locator("#live-status")).to_have_attribute("data-state", "online")
        tabs.append(tab)
    # The leader's feed comes to carry the streams of every tab, each once.
    streams = {f"{p}/live" for p in (campaign, sheet, fight)} | {f"{campaign}/notices/live"}
    held.carrying(tabs[0], streams)
    asked: list[Request] = []
    player.on("request", lambda request: asked.append(request))

    # A public roll: every campaign page shows it.
    ok(gm.request.post(f"{base}/rolls", data={"expression": "1d6+40", "label": "Zehn Tabs"}))
    for tab in tabs[:4]:
        expect(tab.locator("#dice-log > li.roll").filter(has_text="Zehn Tabs")).to_have_count(1)
    # Alrik's turn comes: every tab says so, every fight page shows whose turn it is.
    turn_before = tabs[7].locator("#turn").get_attribute("data-actor")
    for _step in range(4):
        ok(gm.request.post(f"{fight_api}/actions/next", data={}))
        if ok(gm.request.get(fight_api))["turn"]["name"] == "Alrik":
            break
    for tab in tabs:
        expect(tab).to_have_title("● Dein Zug — Tafelrunde")
    for tab in tabs[7:]:
        expect(tab.locator("#turn")).not_to_have_attribute("data-actor", turn_before or "")
    # The sheet changes elsewhere: every sheet shows it.
    ok(
        player.request.patch(
            f"{base}/characters/{character_id}", data={"changes": {"name": "Alrik der Kühne"}}
        )
    )
    for tab in tabs[4:7]:
        expect(tab.locator("#sheet-region")).to_contain_text("Alrik der Kühne")

    # Ten tabs, one connection held open: the first tab's feed. It brought every change to
    # every tab: no tab asked for anything itself.
    assert [r.frame.page for r in held.now()] == [tabs[0]]
    assert [r.url for r in asked if "once=1" in r.url or "/feed?" in r.url] == []

    # The leading tab closes, three times over: each time exactly one other tab takes over
    # from where the feed was, carrying the streams of the tabs left, every tab says it is
    # live, nothing is missed or shown twice.
    for handover in range(1, 4):
        (feed,) = held.now()
        leader = feed.frame.page
        tabs.remove(leader)
        leader.close()
        label = f"Nach dem Wechsel {handover}"
        ok(gm.request.post(f"{base}/rolls", data={"expression": "1d6+1", "label": label}))
        for tab in tabs:
            expect(tab.locator("#live-status")).to_have_attribute("data-state", "online")
            if tab.url.endswith(campaign):
                expect(tab.locator("#dice-log > li.roll").filter(has_text=label)).to_have_count(1)
                roll = tab.locator("#dice-log > li.roll").filter(has_text="Zehn Tabs")
                expect(roll).to_have_count(1)
        left = {f"{urlsplit(t.url).path}/live" for t in tabs} | {f"{campaign}/notices/live"}
        feed = held.carrying(tabs[0], left)
        assert int(parse_qs(urlsplit(feed.url).query)["after"][0]) > 0
        assert feed.frame.page in tabs
    gm.close()
    player.close()


#: Puts the page's notices region back as it is before the page opens (a placeholder that
#: loads it) and returns once its new stream has had the turn in which it says whether it
#: is open.
_LOAD_AGAIN = """async (url) => {
  const old = document.getElementById('notices');
  const placeholder = `<div id="notices" hx-get="${url}" hx-trigger="load" hx-swap="outerHTML">`;
  htmx.swap(old, placeholder + '</div>', {swapStyle: 'outerHTML'});
  const started = () => {
    const region = document.getElementById('notices');
    return region !== old && region['htmx-internal-data']?.sseEventSource;
  };
  for (let wait = 0; !started(); wait += 10) {
    if (wait > 10000) throw new Error('the notices did not load again');
    await new Promise((done) => setTimeout(done, 10));
  }
  await new Promise((done) => setTimeout(done, 10));
}"""


def test_a_tab_that_gives_up_its_lead_shows_the_status_it_knew(
    browser: Browser, base_url: str
) -> None:
    """Two tabs can lead for a moment (one did not hear the other in time, under load); the
    one that steps down must not keep showing «Verbinde…» from its short lead. Here the
    second tab takes over from the first, its feed held back, and then hears a leader with a
    lower id (a third tab's channel): it follows that one and shows «Live» again at once.
    While it connects, a region that brings a stream of its own (the notices, which a page
    loads after it opens) does not make it say «Live».
    (Which of the two first tabs leads is the one that holds the feed: under load a follower
    may not hear the leader in time, every few seconds, and win the lead with the lower of
    their random ids. So every feed opened from here on never answers, in either tab, before
    the one that holds the open feed is known: a lead that changes hands afterwards cannot
    leave the tab that stays with a feed of its own.)"""
    gm, player = account(browser, base_url, "sl"), account(browser, base_url, "zwei")
    held = Held(player)
    campaign_id = _campaign(gm.request, player.request, "hh")
    url = f"/campaigns/{campaign_id}"
    tabs = [player.new_page(), player.new_page()]
    for tab in tabs:
        tab.goto(url)
        expect(tab.locator("#live-status")).to_have_attribute("data-state", "online")
    for tab in tabs:
        tab.route(re.compile(r"/feed\?"), lambda route: None)
    feed = held.carrying(tabs[0], {f"{url}/live", f"{url}/notices/live"})
    first = feed.frame.page
    (second,) = [tab for tab in tabs if tab is not first]
    first.close()  # «bye», naming the second tab, which leads and connects
    status = second.locator("#live-status")
    expect(status).to_have_attribute("data-state", "connecting")
    second.evaluate(_LOAD_AGAIN, f"{url}/notices")
    expect(status).to_have_attribute("data-state", "connecting")
    helper = player.new_page()
    helper.goto("/")
    helper.evaluate(
        """(campaign) => new BroadcastChannel('tafelrunde-' + campaign)
             .postMessage({type: 'lead', id: -1, online: true, seq: 0})""",
        str(campaign_id),
    )
    expect(status).to_have_attribute("data-state", "online", timeout=2000)


def test_a_tab_follows_on_when_its_viewer_becomes_an_observer(
    browser: Browser, base_url: str
) -> None:
    """The GM makes the player an observer while their campaign page is open: the feed says
    its streams must be asked for again, the tab opens it anew, and the page goes on."""
    gm, player = account(browser, base_url, "sl"), account(browser, base_url, "zuschauer")
    campaign_id = _campaign(gm.request, player.request, "hh")
    held = Held(player)
    tab = player.new_page()
    tab.goto(f"/campaigns/{campaign_id}")
    expect(tab.locator("#live-status")).to_have_attribute("data-state", "online")
    feed = held.carrying(
        tab, {f"/campaigns/{campaign_id}/live", f"/campaigns/{campaign_id}/notices/live"}
    )
    members = ok(gm.request.get(f"/api/v1/campaigns/{campaign_id}"))["members"]
    player_id = next(m["user_id"] for m in members if m["role"] == "player")
    role = gm.request.post(
        f"/campaigns/{campaign_id}/members/{player_id}/role",
        form={"role": "observer"},
        max_redirects=0,
    )
    assert role.status == 303, role.text()
    ok(
        gm.request.post(
            f"/api/v1/campaigns/{campaign_id}/rolls",
            data={"expression": "1d6+9", "label": "Für Zuschauer"},
        )
    )
    expect(tab.locator("#dice-log > li.roll").filter(has_text="Für Zuschauer")).to_have_count(1)
    again = held.carrying(tab, _carried(feed))
    assert again is not feed
    gm.close()
    player.close()


def test_a_click_made_while_a_push_lands_is_not_lost(browser: Browser, base_url: str) -> None:
    """The player presses «Zug beenden»; the GM's change re-renders the actions before the
    button is released: the same button is still there, so the click counts."""
    gm, player = account(browser, base_url, "sl"), account(browser, base_url, "held")
    campaign_id = _campaign(gm.request, player.request, "hh")
    character_id = _character(player.request, campaign_id, "Alrik")
    fight_api = _running_fight(gm.request, campaign_id, character_id)
    for _step in range(4):
        if ok(gm.request.get(fight_api))["turn"]["name"] == "Alrik":
            break
        ok(gm.request.post(f"{fight_api}/actions/next", data={}))
    fight = ok(gm.request.get(fight_api))
    goblin = next(p for p in fight["participants"] if p["name"] != "Alrik")
    tab = player.new_page()
    tab.goto(fight_api.removeprefix("/api/v1"))
    expect(tab.locator("#live-status")).to_have_attribute("data-state", "online")
    version = tab.locator("#next-turn").locator("xpath=..").locator("input[name=version]")
    before = version.input_value()

    end_turn = tab.get_by_role("button", name="Zug beenden")
    end_turn.hover()
    tab.mouse.down()
    change = {"participant": goblin["pid"], "delta": -1, "reason": "Stolpert"}
    ok(gm.request.post(f"{fight_api}/actions/adjust", data=change))
    expect(version).not_to_have_value(before)  # the push has landed
    tab.mouse.up()
    expect(tab.locator("#turn .current-actor")).not_to_contain_text("Alrik")
    assert ok(gm.request.get(fight_api))["turn"]["name"] != "Alrik"
    gm.close()
    player.close()


def test_the_header_and_the_list_follow_the_fight(browser: Browser, base_url: str) -> None:
    gm, player = account(browser, base_url, "sl"), account(browser, base_url, "held")
    campaign_id = _campaign(gm.request, player.request, "hh")
    character_id = _character(player.request, campaign_id, "Alrik")
    listing = player.new_page()
    listing.goto(f"/campaigns/{campaign_id}/encounters")
    expect(listing.locator("#live-status")).to_have_attribute("data-state", "online")
    expect(listing.locator("#encounter-list")).to_have_text("Noch keine Begegnungen.")
    fight_api = _running_fight(gm.request, campaign_id, character_id)
    expect(listing.locator("#encounter-list")).to_contain_text("Am Pass Läuft")
    tab = player.new_page()
    tab.goto(fight_api.removeprefix("/api/v1"))
    expect(tab.locator("#live-status")).to_have_attribute("data-state", "online")
    expect(tab.locator("#encounter-status")).to_have_text("Helden & Halunken · Läuft")
    ok(gm.request.post(f"{fight_api}/actions/end", data={}))
    expect(tab.locator("#encounter-status")).to_have_text("Helden & Halunken · Beendet")
    expect(listing.locator("#encounter-list")).to_contain_text("Am Pass Beendet")
    gm.close()
    player.close()
