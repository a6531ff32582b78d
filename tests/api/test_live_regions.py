"""Every live region looks the same on the full page, in the HTMX answer and in the live push,
for the GM and for a player; and the pages are composed from the region registry."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from markupsafe import escape
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.campaigns.live import CAMPAIGN_PAGE
from app.campaigns.views import CampaignPage
from app.characters.live import HISTORY_PAGE, SHEET_PAGE
from app.characters.views import CharacterPage
from app.core.viewer import Viewer
from app.encounters.live import COMBAT_PAGE, ENCOUNTER_LIST, CombatPage, EncounterList
from app.events.models import CampaignEvent
from app.events.service import VisibleEvent
from app.events.stream import Outgoing
from app.web.regions import PAGES, Batch, Region
from tests.api.helpers import Table, make_table
from tests.api.regions import (
    element,
    inner,
    last_seq,
    normalise,
    pushed,
    served,
    viewer,
    without,
)
from tests.conftest import ClientFactory
from tests.encounters.helpers import Fight, add_character, make_fight
from tests.encounters.test_hh import ALRIK
from tests.stream.sse import account, messages, take, unique

HTMX = {"HX-Request": "true"}
TAB_A, TAB_B = "a" * 16, "b" * 16

#: Every region registered by the app, each compared both ways by a test below. A new
#: region fails :func:`test_every_registered_region_is_compared` until it has its test.
COMPARED = {
    ("campaign", "roll"),
    # the dice log's slot on the page (app/rolls/live.py), pushed to by "roll": compared with it
    ("campaign", "log"),
    ("campaign", "members"),
    ("sheet", "sheet"),
    ("history", "history"),
    ("combat", "log"),
    ("combat", "roster"),
    ("combat", "turn"),
    ("combat", "pending"),
    ("combat", "controls"),
    ("combat", "status"),
    ("encounter_list", "list"),
    # tests/api/test_talk_live.py
    ("chat", "chat"),
    ("campaign", "chat"),
    ("combat", "chat"),
    # tests/sessions/test_sessions_live.py
    ("campaign", "sessions"),
    # tests/encounters/test_notices.py (the fragment every campaign page loads and the push)
    ("notices", "notice"),
    # tests/api/test_maps_live.py
    ("scene", "board"),
    ("scene", "moves"),
    ("scene", "pointer"),
    ("scene", "sighted"),
    ("combat", "map"),
}


def test_every_registered_region_is_compared() -> None:
    registered = {(page.name, r.name) for page in PAGES.values() for r in page.regions}
    assert registered == COMPARED


def viewers(t: Table) -> dict[str, Viewer]:
    return {
        "gm": viewer(t.ids["gm"], "gm_user", "gm"),
        "player": viewer(t.ids["player"], "player_user", "player"),
    }


def clients(t: Table) -> dict[str, httpx.AsyncClient]:
    return {"gm": t.gm, "player": t.player}


def only(messages: list[Outgoing], event: str) -> Outgoing:
    (message,) = [m for m in messages if m.event == event]
    return message


# --- campaign page ---------------------------------------------------------------------------


async def test_campaign_regions_match_the_page(make_client: ClientFactory, app: FastAPI) -> None:
    t = await make_table(make_client, app)
    cid = t.campaign_id
    before = await last_seq(app, cid)
    r = await t.player.post(f"/campaigns/{cid}/rolls", data={"expression": "2W6", "label": "Offen"})
    assert r.status_code == 303
    r = await t.gm.post(
        f"/campaigns/{cid}/rolls",
        data={"expression": "1W20", "label": "Geheimwurf", "visibility": "gm"},
    )
    assert r.status_code == 303
    rolls = [before + 1, before + 2]
    # The GM makes the observer a player: the HTMX answer is the members region.
    r = await t.gm.post(
        f"/campaigns/{cid}/members/{t.ids['observer']}/role", data={"role": "player"}, headers=HTMX
    )
    assert r.status_code == 200
    answer = normalise(r.text)
    for role, who in viewers(t).items():
        page = (await clients(t)[role].get(f"/campaigns/{cid}")).text
        out = await pushed(app, CAMPAIGN_PAGE, CampaignPage(cid), who, cid, before)
        assert [m.event for m in out] == ["roll", "roll", "members"]
        assert [m.seq for m in out] == [*rolls, before + 3]
        for message in out[:2]:
            dom_id = f"roll-{message.seq}"
            assert element(message.data, dom_id) == element(page, dom_id), role
        assert normalise(out[2].data) == inner(page, "members-region"), role
        if role == "gm":
            assert normalise(out[2].data) == answer
    # A player gets the GM's secret roll as a stub, on the page and live alike.
    player_out = await pushed(
        app, CAMPAIGN_PAGE, CampaignPage(cid), viewers(t)["player"], cid, before
    )
    assert (
        "Geheimwurf" not in player_out[1].data
        and "Geheimwurf"
        in (await pushed(app, CAMPAIGN_PAGE, CampaignPage(cid), viewers(t)["gm"], cid, before))[
            1
        ].data
    )


# --- sheet and history -----------------------------------------------------------------------


async def _sheet_table(make_client: ClientFactory, app: FastAPI) -> tuple[Table, int, str]:
    """A player's sheet, another visible character and a library item; the sheet's URL."""
    t = await make_table(make_client, app)
    api = f"/api/v1/campaigns/{t.campaign_id}"
    alrik = (await t.player.post(f"{api}/characters", json={"name": "Alrik"})).json()
    assert (await t.gm.post(f"{api}/characters", json={"name": "Bruni"})).status_code == 201
    assert (await t.gm.post(f"{api}/items", json={"name": "Zauberstab"})).status_code == 201
    return t, int(alrik["id"]), f"/campaigns/{t.campaign_id}/characters/{alrik['id']}"


async def test_sheet_push_is_the_sheet_of_the_page(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t, alrik, url = await _sheet_table(make_client, app)
    cid = t.campaign_id
    before = await last_seq(app, cid)
    r = await t.player.post(
        f"{url}/items", data={"starter": "hh:seil"}, headers={**HTMX, "X-Sheet-Tab": TAB_A}
    )
    assert r.status_code == 200
    answer = element(r.text, "sheet")
    key = CharacterPage(cid, alrik, TAB_B)
    for role, who in viewers(t).items():
        page = (await clients(t)[role].get(url)).text
        (message,) = await pushed(app, SHEET_PAGE, key, who, cid, before)
        assert message.event == "sheet" and message.seq == before + 1
        # The controls the review found missing after a push.
        assert 'name="to_character_id"' in message.data and 'id="library-select"' in message.data
        if role == "player":  # their own change, from another tab: no notice
            assert element(message.data, "sheet") == element(page, "sheet") == answer
        else:  # the GM is told that someone else changed it
            assert 'id="live-notice"' in message.data
            assert element(without(message.data, "live-notice"), "sheet") == element(page, "sheet")
    # The tab the change came from gets nothing: it has the answer already.
    own_tab = CharacterPage(cid, alrik, TAB_A)
    assert await pushed(app, SHEET_PAGE, own_tab, viewers(t)["player"], cid, before) == []


async def test_history_push_matches_the_history_page(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t, alrik, url = await _sheet_table(make_client, app)
    cid = t.campaign_id
    before = await last_seq(app, cid)
    r = await t.player.patch(
        f"/api/v1/campaigns/{cid}/characters/{alrik}", json={"changes": {"skills.Spürsinn": 9}}
    )
    assert r.status_code == 200, r.text
    for role, who in viewers(t).items():
        page = (await clients(t)[role].get(f"{url}/history")).text
        out = await pushed(app, HISTORY_PAGE, CharacterPage(cid, alrik), who, cid, before)
        (message,) = out
        assert message.event == "history" and "Spürsinn: 5 → 9" in message.data
        seq = str(before + 1)
        assert element(message.data, seq, "data-seq") == element(page, seq, "data-seq"), role


async def test_another_tab_keeps_move_and_library_controls_after_a_live_update(
    app: FastAPI,
) -> None:
    """Regression (issue 12, item 1): the live sheet had lost "give to" and "from the library"."""
    async with served(app) as url:
        gm = await account(url, unique("gm"))
        player = await account(url, unique("player"))
        r = await gm.post("/api/v1/campaigns", json={"name": "Tabs", "system": "hh"})
        cid, code = r.json()["id"], r.json()["invite_code"]
        assert (await player.post("/api/v1/campaigns/join", json={"invite_code": code})).is_success
        api = f"/api/v1/campaigns/{cid}"
        alrik = (await player.post(f"{api}/characters", json={"name": "Alrik"})).json()
        await player.post(f"{api}/characters", json={"name": "Bruni"})
        await gm.post(f"{api}/items", json={"name": "Zauberstab"})
        sheet = f"/campaigns/{cid}/characters/{alrik['id']}"
        item = await player.post(f"{api}/characters/{alrik['id']}/items", json={"name": "Seil"})
        page = (await player.get(sheet)).text
        assert 'name="to_character_id"' in page and 'id="library-select"' in page
        after = await last_seq(app, cid)
        async with player.stream("GET", f"{sheet}/live?tab={TAB_B}&after={after}") as response:
            stream = messages(response)
            r = await player.post(
                f"{sheet}/items/{item.json()['id']}/stow",
                data={"container": "rucksack"},
                headers={**HTMX, "X-Sheet-Tab": TAB_A},
            )
            assert r.status_code == 200, r.text
            (message,) = await take(stream, 1)
        assert message.event == "sheet"
        assert 'name="to_character_id"' in message.data and "Bruni" in message.data
        assert 'id="library-select"' in message.data and "Zauberstab" in message.data
        assert element(message.data, "sheet") == element((await player.get(sheet)).text, "sheet")
        for client in (gm, player):
            await client.aclose()


# --- combat page -----------------------------------------------------------------------------


async def _fight(make_client: ClientFactory, app: FastAPI) -> tuple[Fight, dict[str, str]]:
    fight = await make_fight(make_client, app, "hh", prefix="regions")
    await add_character(app, fight, "p0", "Alrik", ALRIK, "hh")
    r = await fight.gm.post(f"/api/v1/campaigns/{fight.campaign_id}/bestiary/samples")
    goblin = next(e for e in r.json() if e["name"] == "Goblin")
    r = await fight.gm.post(f"/api/v1/campaigns/{fight.campaign_id}/encounters", json={"name": "K"})
    fight.encounter_id = r.json()["id"]
    await fight.gm.post(
        f"{fight.base}/participants", json={"character_id": fight.characters["Alrik"]}
    )
    await fight.gm.post(f"{fight.base}/participants", json={"entry_id": goblin["id"], "count": 2})
    await fight.gm.post(
        f"{fight.base}/participants", json={"entry_id": goblin["id"], "hidden": True}
    )
    view = await fight.act(fight.gm, "start")
    return fight, {p["name"]: str(p["pid"]) for p in view["participants"]}


def _fighters(fight: Fight) -> dict[str, tuple[httpx.AsyncClient, Viewer]]:
    return {
        "gm": (fight.gm, viewer(fight.ids["gm"], "regionsgmhh", "gm")),
        "player": (fight.players[0], viewer(fight.ids["p0"], "regionsp0hh", "player")),
    }


def _assert_combat_regions(message: Outgoing, page: str, who: str) -> None:
    for dom_id in ("turn", "pending", "controls", "encounter-status"):
        assert element(message.data, dom_id) == element(page, dom_id), (who, dom_id)


async def test_combat_regions_match_the_page(make_client: ClientFactory, app: FastAPI) -> None:
    fight, pids = await _fight(make_client, app)
    cid, key = fight.campaign_id, CombatPage(fight.campaign_id, fight.encounter_id)
    html_base = f"/campaigns/{cid}/encounters/{fight.encounter_id}"
    # A changed figure: its roster row and the log entry.
    before = await last_seq(app, cid)
    await fight.act(fight.gm, "adjust", participant=pids["Goblin 1"], delta=-1, reason="Treffer")
    for who, (client, seen_by) in _fighters(fight).items():
        (message,) = await pushed(app, COMBAT_PAGE, key, seen_by, cid, before)
        page = (await client.get(html_base)).text
        assert message.event == "combat" and message.seq == before + 1
        row = f"p-{pids['Goblin 1']}"
        assert element(message.data, row) == element(page, row), who
        log = f"log-{before + 1}"
        assert element(message.data, log) == element(page, log), who
        _assert_combat_regions(message, page, who)
        assert ('id="roster"' in message.data) is False
    # The turn passes (HTMX, as the page does it): the whole roster, and the controls answer.
    before = await last_seq(app, cid)
    r = await fight.gm.post(
        f"{html_base}/next", data={"version": await _version(fight)}, headers=HTMX
    )
    assert r.status_code == 200, r.text
    answer = element(r.text, "controls")
    for who, (client, seen_by) in _fighters(fight).items():
        (message,) = await pushed(app, COMBAT_PAGE, key, seen_by, cid, before)
        page = (await client.get(html_base)).text
        assert element(message.data, "roster") == element(page, "roster"), who
        _assert_combat_regions(message, page, who)
        if who == "gm":
            assert element(message.data, "controls") == answer
        else:
            assert "Goblin 3" not in message.data


async def test_the_list_of_encounters_follows_a_fight_that_ends(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, _pids = await _fight(make_client, app)
    cid = fight.campaign_id
    before = await last_seq(app, cid)
    await fight.act(fight.gm, "end")
    for who, (client, seen_by) in _fighters(fight).items():
        (message,) = await pushed(app, ENCOUNTER_LIST, EncounterList(cid), seen_by, cid, before)
        page = (await client.get(f"/campaigns/{cid}/encounters")).text
        assert message.event == "list"
        assert normalise(message.data) == inner(page, "encounter-list"), who
        assert "Beendet" in message.data, who


async def test_an_undo_pushes_the_undone_entry_as_the_page_shows_it(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await _fight(make_client, app)
    cid, key = fight.campaign_id, CombatPage(fight.campaign_id, fight.encounter_id)
    await fight.act(fight.gm, "adjust", participant=pids["Goblin 1"], delta=-2, reason="Hieb")
    adjusted = await last_seq(app, cid)
    await fight.act(fight.gm, "undo")
    for who, (client, seen_by) in _fighters(fight).items():
        (message,) = await pushed(app, COMBAT_PAGE, key, seen_by, cid, adjusted)
        page = (await client.get(f"/campaigns/{cid}/encounters/{fight.encounter_id}")).text
        entry = element(message.data, f"log-{adjusted}")
        assert "undone" in entry and entry == element(page, f"log-{adjusted}"), who
        row = f"p-{pids['Goblin 1']}"
        assert element(message.data, row) == element(page, row), who


async def _version(fight: Fight) -> str:
    return str((await fight.view(fight.gm))["version"])


# --- the registry is what the pages use --------------------------------------------------------


@pytest.fixture
def restore_regions() -> Iterator[None]:
    """Regions a test registers go again after it."""
    saved = {name: page.regions for name, page in PAGES.items()}
    yield
    for name, page in PAGES.items():
        page.regions = saved[name]


async def _count_rolls(session: AsyncSession, _viewer: Viewer, key: Any) -> dict[str, Any]:
    count = await session.scalar(
        select(func.count())
        .select_from(CampaignEvent)
        .where(CampaignEvent.campaign_id == key.campaign_id, CampaignEvent.type == "roll")
    )
    return {"probe_rolls": count}


def _probe_html(context: Any) -> str:
    name, rolls = escape(context["viewer"].username), context["probe_rolls"]
    return f'<section id="probe">{name}: {rolls}</section>'


def _is_roll(_key: Any, event: VisibleEvent) -> bool:
    return event.type == "roll"


async def _push_probe(batch: Batch[Any]) -> list[Outgoing]:
    return [Outgoing(batch.last_seq, "probe", _probe_html(batch.context))]


def _probe() -> Region[Any]:
    return Region(
        "probe",
        _is_roll,
        _push_probe,
        load=_count_rolls,
        load_on_push=True,
        slot="side",
        html=_probe_html,
    )  # fmt: skip (one call, two lines)


async def test_a_registered_region_shows_on_the_campaign_page_and_in_its_stream(
    app: FastAPI, restore_regions: None
) -> None:
    CAMPAIGN_PAGE.register(_probe())
    async with served(app) as url:
        name = unique("gm")
        gm = await account(url, name)
        r = await gm.post("/api/v1/campaigns", json={"name": "Neu", "system": "hh"})
        cid = r.json()["id"]
        page = (await gm.get(f"/campaigns/{cid}")).text
        assert element(page, "probe") == f'<section id="probe">{name}: 0</section>'
        after = await last_seq(app, cid)
        async with gm.stream("GET", f"/campaigns/{cid}/live?after={after}") as response:
            stream = messages(response)
            await gm.post(f"/api/v1/campaigns/{cid}/rolls", json={"expression": "1W6"})
            got = await take(stream, 2)
        assert [m.event for m in got] == ["roll", "probe"]
        assert normalise(got[1].data) == element((await gm.get(f"/campaigns/{cid}")).text, "probe")
        assert got[1].data.endswith(": 1</section>")
        await gm.aclose()


async def test_a_registered_region_joins_the_combat_push(
    make_client: ClientFactory, app: FastAPI, restore_regions: None
) -> None:
    def on_step(_key: Any, event: VisibleEvent) -> bool:
        return event.type == "combat"

    async def push(batch: Batch[Any]) -> list[Outgoing]:
        return [Outgoing(e.seq, "probe", _probe_html(batch.context)) for e in batch.events]

    COMBAT_PAGE.register(
        Region(
            "probe",
            on_step,
            push,
            load=_count_rolls,
            load_on_push=True,
            slot="side",
            html=_probe_html,
        )
    )
    fight, pids = await _fight(make_client, app)
    cid = fight.campaign_id
    before = await last_seq(app, cid)
    await fight.act(fight.gm, "adjust", participant=pids["Goblin 1"], delta=-1, reason="X")
    gm = _fighters(fight)["gm"][1]
    key = CombatPage(cid, fight.encounter_id)
    (message,) = await pushed(app, COMBAT_PAGE, key, gm, cid, before)
    page = (await fight.gm.get(f"/campaigns/{cid}/encounters/{fight.encounter_id}")).text
    assert message.event == "combat" and element(message.data, "probe") == element(page, "probe")
    assert element(message.data, "turn") == element(page, "turn")


def test_a_page_refuses_a_second_region_of_the_same_name(restore_regions: None) -> None:
    with pytest.raises(ValueError, match="members"):
        CAMPAIGN_PAGE.register(Region("members", _is_roll, _push_probe))
    with pytest.raises(ValueError, match="slot"):
        Region("probe", _is_roll, _push_probe, slot="side")
