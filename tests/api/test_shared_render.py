"""Viewers who see the same combat page share one live render (``app.web.regions``
``audience``): observers get one render between them, each player and the GM their own; the
database is read once per step for all of them (``shared_load``), not once per viewer; and
what each gets is still exactly what their own page shows."""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import event

from app.encounters import views
from app.encounters.live import COMBAT_PAGE, NOTICES, CombatPage, NoticePage
from app.encounters.state import FigureData
from app.encounters.systems import system
from app.encounters.systems.protocol import FigureView
from app.events.models import CampaignEvent
from app.events.service import project
from app.events.stream import Outgoing
from tests.api.helpers import observer_code
from tests.api.regions import element, events_after, last_seq, viewer
from tests.api.test_live_regions import _fight
from tests.conftest import ClientFactory, register
from tests.encounters.test_hh_one_figure import wounded_hero


def _task() -> asyncio.Task[Any] | None:
    try:
        return asyncio.current_task()
    except RuntimeError:  # no event loop: a synchronous caller
        return None


#: Set while statements are counted with ``mine``: tasks started meanwhile inherit it (a
#: gather's renders and the shared loads they start), a background task started before
#: (a relay waking on a commit, a timer) does not.
COUNTING: ContextVar[bool] = ContextVar("counting", default=False)


@contextmanager
def statements(app: FastAPI, own_task: bool = False, mine: bool = False) -> Iterator[list[str]]:
    """The SQL statements the app's engine runs meanwhile; ``own_task``: only those of the
    task that counts (a test's requests run in its task over the ASGI transport), not a
    background task's (a relay waking on a commit, a timer), which are not the page's;
    ``mine``: those of this task and the tasks it starts meanwhile."""
    seen: list[str] = []
    engine = app.state.ctx.engine.sync_engine
    counting = _task()
    token = COUNTING.set(True)

    def count(_conn: Any, _cursor: Any, sql: str, *_args: Any) -> None:
        if own_task and _task() is not counting:
            return
        if mine and not COUNTING.get():
            return
        seen.append(sql)

    event.listen(engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", count)
        COUNTING.reset(token)


async def _observers(
    make_client: ClientFactory, app: FastAPI, cid: int, gm: httpx.AsyncClient, n: int
) -> list[tuple[httpx.AsyncClient, int]]:
    code = await observer_code(app, cid, gm)
    out = []
    for i in range(n):
        client = make_client()
        body = await register(client, f"zuschauer{i}")
        r = await client.post("/api/v1/campaigns/join", json={"invite_code": code})
        assert r.json()["role"] == "observer", r.text
        out.append((client, int(body["user"]["id"])))  # type: ignore[index]
    return out


async def _push_to_all(
    app: FastAPI, key: CombatPage, cid: int, after: int, people: list[Any]
) -> tuple[list[list[Outgoing]], int]:
    """Every viewer's push for the events after ``after``, rendered at once like streams
    woken by one notification (sharing the same event objects, as the broker's tail does);
    and how many SQL statements that took."""
    events = await events_after(app, cid, after)
    render = COMBAT_PAGE.stream(key)
    sessions = app.state.ctx.read_sessions
    await asyncio.sleep(2.5)  # no render of an earlier call is kept any more
    with statements(app, mine=True) as seen:
        out = await asyncio.gather(*(render(sessions, v, project(events, v)) for v in people))
    return list(out), len(seen)


async def test_observers_share_one_render_and_one_read(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await _fight(make_client, app)
    cid, key = fight.campaign_id, CombatPage(fight.campaign_id, fight.encounter_id)
    watchers = await _observers(make_client, app, cid, fight.gm, 3)
    gm = viewer(fight.ids["gm"], "regionsgmhh", "gm")
    player = viewer(fight.ids["p0"], "regionsp0hh", "player")
    observers = [viewer(uid, f"zuschauer{i}", "observer") for i, (_c, uid) in enumerate(watchers)]
    before = await last_seq(app, cid)
    await fight.act(fight.gm, "adjust", participant=pids["Goblin 3"], delta=-1, reason="Heimlich")
    await fight.act(fight.gm, "adjust", participant=pids["Goblin 1"], delta=-1, reason="Treffer")
    _alone, one_viewer = await _push_to_all(app, key, cid, before, [observers[0]])
    # GM, player and three observers: three renders, and the rows read once for all.
    out, five_viewers = await _push_to_all(app, key, cid, before, [gm, player, *observers])
    assert five_viewers == one_viewer > 0
    gm_out, player_out, *observer_outs = out
    assert all(o is observer_outs[0] for o in observer_outs), "observers share one render"
    assert player_out is not observer_outs[0] and gm_out is not player_out
    # Still each their own page: the hidden goblin for the GM only, and every observer's
    # push is what that observer's own page shows.
    assert "Goblin 3" in gm_out[-1].data
    assert all("Goblin 3" not in m.data for m in player_out + observer_outs[0])
    (message,) = observer_outs[0]
    row = f"p-{pids['Goblin 1']}"
    for client, _uid in watchers:
        page = (await client.get(f"/campaigns/{cid}/encounters/{fight.encounter_id}")).text
        assert element(message.data, row) == element(page, row)
        assert element(message.data, "controls") == element(page, "controls")


async def test_a_push_computes_each_figure_view_once_for_all_audiences(
    make_client: ClientFactory, app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The system's ``view`` of a figure and the step's log entry are the same for every
    viewer: a push computes them once for the GM, the player and the observers
    (``Loaded.shared``), and each viewer's rows are still cut from the views (the hidden
    goblin never reaches the others)."""
    fight, pids = await _fight(make_client, app)
    cid, key = fight.campaign_id, CombatPage(fight.campaign_id, fight.encounter_id)
    watchers = await _observers(make_client, app, cid, fight.gm, 2)
    gm = viewer(fight.ids["gm"], "regionsgmhh", "gm")
    player = viewer(fight.ids["p0"], "regionsp0hh", "player")
    observers = [viewer(uid, f"zuschauer{i}", "observer") for i, (_c, uid) in enumerate(watchers)]
    before = await last_seq(app, cid)
    await fight.act(fight.gm, "adjust", participant=pids["Goblin 1"], delta=-1, reason="Treffer")
    await fight.act(fight.gm, "next")  # the whole roster, every row rendered
    rules = system("hh")
    calls: Counter[str] = Counter()
    real = rules.view

    def counted(data: FigureData) -> FigureView:
        calls[str(data["id"])] += 1
        return real(data)

    monkeypatch.setattr(rules, "view", counted)
    entries: Counter[int] = Counter()
    real_entry = views.entry_view

    def counted_entry(event: CampaignEvent, undone: set[int], *, redacted: bool = False) -> Any:
        entries[event.seq] += 1
        return real_entry(event, undone, redacted=redacted)

    monkeypatch.setattr(views, "entry_view", counted_entry)
    gm_out, player_out, *observer_outs = (
        await _push_to_all(app, key, cid, before, [gm, player, *observers])
    )[0]
    assert calls and set(calls.values()) == {1}, calls
    assert set(calls) == set(pids.values()), "the GM's rows show every figure"
    assert set(entries.values()) == {1}, "each step's log entry is rendered once for all"
    log = f'id="log-{before + 1}"'
    assert all(log in out[0].data for out in (gm_out, player_out, *observer_outs))
    hidden = f"p-{pids['Goblin 3']}"
    assert hidden in gm_out[-1].data and entries.keys() >= {before + 1, before + 2}
    assert all(hidden not in m.data and "Goblin 3" not in m.data for m in player_out)
    assert all(hidden not in m.data for out in observer_outs for m in out)


async def test_a_wound_on_the_map_redraws_its_token_on_each_board_reading_it_once_for_all(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """A fight on a linked map: a goblin's wound redraws its token (on the board and in the
    list) in every viewer's push — the GM's, the player's, the observers' — as their own
    page then shows it, and no other token; the board is read once for all of them, as for
    one."""
    fight, pids = await _fight(make_client, app)
    cid, key = fight.campaign_id, CombatPage(fight.campaign_id, fight.encounter_id)
    goblin = (await _on_a_map(fight.gm, cid, fight.encounter_id))["Goblin 1"]
    watchers = await _observers(make_client, app, cid, fight.gm, 3)
    people = {
        "gm": (fight.gm, viewer(fight.ids["gm"], "regionsgmhh", "gm")),
        "player": (fight.players[0], viewer(fight.ids["p0"], "regionsp0hh", "player")),
        **{
            f"observer {i}": (client, viewer(uid, f"zuschauer{i}", "observer"))
            for i, (client, uid) in enumerate(watchers)
        },
    }
    before = await last_seq(app, cid)
    await fight.act(fight.gm, "adjust", participant=pids["Goblin 1"], delta=-3, reason="Treffer")
    _alone, one_viewer = await _push_to_all(app, key, cid, before, [people["observer 0"][1]])
    out, all_viewers = await _push_to_all(app, key, cid, before, [v for _c, v in people.values()])
    assert all_viewers == one_viewer > 0
    page_url = f"/campaigns/{cid}/encounters/{fight.encounter_id}"
    for (who, (client, _v)), pushed in zip(people.items(), out, strict=True):
        (message,) = pushed
        page = (await client.get(page_url)).text
        marks = element(message.data, "map-marks")
        assert "map-board" not in message.data, who
        assert re.findall(r'<g class="map-token[^>]*>', marks) == [_mark(page, goblin)], who
        assert element(marks, f"map-item-{goblin}") == element(page, f"map-item-{goblin}"), who


async def _on_a_map(gm: httpx.AsyncClient, cid: int, encounter_id: int) -> dict[str, int]:
    """The fight on a linked 8 × 6 scene, every figure placed: its tokens' ids by label."""
    linked = {"name": "Furt", "cols": 8, "rows": 6, "encounter_id": encounter_id}
    r = await gm.post(
        f"/api/v1/campaigns/{cid}/scenes", json={**linked, "shown": True, "place": True}
    )
    assert r.status_code == 201, r.text
    scene = (await gm.get(f"/api/v1/campaigns/{cid}/scenes/{r.json()['id']}")).json()
    return {t["label"]: int(t["id"]) for t in scene["tokens"]}


def _mark(page: str, token_id: int) -> str:
    """The opening tag of token ``token_id``'s mark on the page's board."""
    found = re.search(rf'<g class="map-token[^>]*data-token="{token_id}"[^>]*>', page)
    assert found is not None
    return found.group(0)


async def test_a_hidden_goblins_wound_redraws_its_token_for_the_gms_alone(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """The hidden goblin on the linked map: its wound redraws its token in the GM's push;
    the player's and the observer's pushes carry no token of it, nor its name."""
    fight, pids = await _fight(make_client, app)
    cid, key = fight.campaign_id, CombatPage(fight.campaign_id, fight.encounter_id)
    hidden = (await _on_a_map(fight.gm, cid, fight.encounter_id))["Goblin 3"]
    (_client, uid), *_ = await _observers(make_client, app, cid, fight.gm, 1)
    gm = viewer(fight.ids["gm"], "regionsgmhh", "gm")
    player = viewer(fight.ids["p0"], "regionsp0hh", "player")
    before = await last_seq(app, cid)
    await fight.act(fight.gm, "adjust", participant=pids["Goblin 3"], delta=-3, reason="Falle")
    out, _count = await _push_to_all(
        app, key, cid, before, [gm, player, viewer(uid, "zuschauer0", "observer")]
    )
    gm_out, *others = out
    assert f'data-token="{hidden}"' in element(gm_out[-1].data, "map-marks")
    for pushed in others:
        assert all(f'data-token="{hidden}"' not in m.data for m in pushed)
        assert all("Goblin 3" not in m.data for m in pushed)


async def test_healing_on_the_sheet_redraws_the_heros_token_on_the_fights_map(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Sheet → fight → map: Arjun (10/21 LP) fights on a linked map, his player heals him on
    the sheet; the combat page's push redraws Arjun's token with the points the sheet now
    has, as the page then shows them, and no other token."""
    hero = await wounded_hero(make_client, app)
    cid, player = hero.table.campaign_id, hero.table.player
    arjun = (await _on_a_map(hero.table.gm, cid, hero.encounter_id))["Arjun"]
    sheet = await hero.sheet()
    before = await last_seq(app, cid)
    url = f"{hero.api}/characters/{hero.character_id}"
    r = await player.patch(url, json={"version": sheet["version"], "changes": {"lp": 14}})
    assert r.status_code == 200, r.text
    seen_by = viewer(hero.table.ids["player"], "player_user", "player")
    key = CombatPage(cid, hero.encounter_id)
    ((message, *_rest),), _count = await _push_to_all(app, key, cid, before, [seen_by])
    marks = element(message.data, "map-marks")
    page = (await player.get(f"/campaigns/{cid}/encounters/{hero.encounter_id}")).text
    assert re.findall(r'<g class="map-token[^>]*>', marks) == [_mark(page, arjun)]
    item = element(marks, f"map-item-{arjun}")
    assert item == element(page, f"map-item-{arjun}") and "14/21" in item


async def test_the_notices_of_every_viewer_of_a_step_read_the_fight_once(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Every page's notices ask, for each step that changes the turn, whether it is now this
    viewer's turn: the fight's rows are read once for all the viewers it wakes."""
    fight, _pids = await _fight(make_client, app)
    cid = fight.campaign_id
    watchers = await _observers(make_client, app, cid, fight.gm, 3)
    gm = viewer(fight.ids["gm"], "regionsgmhh", "gm")
    player = viewer(fight.ids["p0"], "regionsp0hh", "player")
    observers = [viewer(uid, f"zuschauer{i}", "observer") for i, (_c, uid) in enumerate(watchers)]
    before = await last_seq(app, cid)
    await fight.act(fight.gm, "next")
    events = await events_after(app, cid, before)
    render = NOTICES.stream(NoticePage(cid))
    sessions = app.state.ctx.read_sessions
    people = [gm, player, *observers]
    with statements(app, mine=True) as seen:
        out = await asyncio.gather(*(render(sessions, v, project(events, v)) for v in people))
    assert all(m.event == "notice" for messages in out for m in messages) and all(out)
    fights = [s for s in seen if re.search(r"\bFROM encounter_participant\b", s)]
    assert len(fights) == 1, seen
