"""Notices on every page of a campaign: who is told that a fight began, that it is their turn,
that they must defend — as the notice fragment every page loads and as the live push."""

from __future__ import annotations

import re

from fastapi import FastAPI

from app.encounters.live import NOTICES, NoticePage
from tests.api.regions import inner, last_seq, pushed, viewer
from tests.conftest import ClientFactory, register
from tests.encounters.helpers import Fight, script
from tests.encounters.test_hh import hh_fight

HTMX = {"HX-Request": "true"}


def _key(html: str) -> str:
    found = re.search(r'data-notice="([^"]*)"', html)
    return found.group(1) if found else ""


async def _pushed_key(app: FastAPI, fight: Fight, who: str, role: str, after: int) -> str | None:
    """The notice key the stream sends ``who`` for the events after ``after`` (None: no
    message at all, "": a message that clears the notice)."""
    cid = fight.campaign_id
    seen_by = viewer(fight.ids[who], who, role)
    messages = await pushed(app, NOTICES, NoticePage(cid), seen_by, cid, after)
    if not messages:
        return None
    (message,) = messages
    assert message.event == "notice"
    return _key(message.data)


async def _fragment(fight: Fight, client_index: int | None) -> str:
    client = fight.gm if client_index is None else fight.players[client_index]
    r = await client.get(f"/campaigns/{fight.campaign_id}/notices", headers=HTMX)
    assert r.status_code == 200, r.text
    return r.text


async def test_start_turn_and_defence_are_told_to_the_right_people(
    make_client: ClientFactory, app: FastAPI
) -> None:
    before_start = 0
    fight, pids = await hh_fight(make_client, app)
    cid = fight.campaign_id
    # The fight began (started by the GM): Alrik's player has the first turn, Brida's player
    # is told the fight began, the GM who started it nothing.
    alrik_key = await _pushed_key(app, fight, "p0", "player", before_start)
    assert alrik_key is not None and alrik_key.startswith("turn:")
    brida_key = await _pushed_key(app, fight, "p1", "player", before_start)
    assert brida_key is not None and brida_key.startswith("started:")
    assert await _pushed_key(app, fight, "gm", "gm", before_start) == ""
    # The fragment any page loads says the same about a notice that holds.
    alrik_page = await _fragment(fight, 0)
    assert _key(alrik_page) == alrik_key and "Du bist am Zug mit Alrik" in alrik_page
    assert f'data-last-seq="{await last_seq(app, cid)}"' in alrik_page
    assert _key(await _fragment(fight, 1)) == "" and _key(await _fragment(fight, None)) == ""

    # A step that changes nobody's turn sends nothing.
    before = await last_seq(app, cid)
    await fight.act(fight.gm, "adjust", participant=pids["Goblin 1"], delta=-1, reason="Kratzer")
    assert await _pushed_key(app, fight, "p0", "player", before) is None

    # Alrik passes; Goblin 1 attacks Brida: her player must defend, Alrik's is told nothing.
    before = await last_seq(app, cid)
    await fight.act(fight.players[0], "next")
    assert await _pushed_key(app, fight, "p0", "player", before) == ""
    script(app, 2, 3)
    await fight.act(fight.gm, "attack", target=pids["Brida"])
    brida_key = await _pushed_key(app, fight, "p1", "player", before)
    assert brida_key is not None and brida_key.startswith("defend:")
    brida_page = await _fragment(fight, 1)
    assert _key(brida_page) == brida_key
    assert "Goblin 1 greift Brida an" in inner(brida_page, "notice-sink")
    assert await _pushed_key(app, fight, "p0", "player", before) == ""

    # She answers: nothing holds any more.
    before = await last_seq(app, cid)
    script(app, 3, 4)
    await fight.act(fight.players[1], "respond", choice="defend")
    assert await _pushed_key(app, fight, "p1", "player", before) == ""


async def test_notices_are_for_members_only(make_client: ClientFactory, app: FastAPI) -> None:
    fight, _pids = await hh_fight(make_client, app)
    stranger = make_client()
    await register(stranger, "fremd")
    for url in ("notices", "notices/live"):
        r = await stranger.get(f"/campaigns/{fight.campaign_id}/{url}")
        assert r.status_code == 404, (url, r.text)
