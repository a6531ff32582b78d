"""A roll's live push renders its dice-log entry once per form: the viewers who get the roll
in the same form share the render (``app.rolls.live``), and each still gets the entry their
own page shows."""

from __future__ import annotations

import asyncio

import pytest
from fastapi import FastAPI

import app.rolls.live as rolls_live
from app.campaigns.live import CAMPAIGN_PAGE
from app.campaigns.views import CampaignPage
from app.events.service import project
from tests.api.helpers import make_table
from tests.api.regions import counted_renders, element, events_after, last_seq, viewer
from tests.conftest import ClientFactory


@pytest.mark.parametrize(("visibility", "renders"), [("public", 1), ("gm", 2)])
async def test_one_render_per_form_of_a_roll(
    make_client: ClientFactory,
    app: FastAPI,
    monkeypatch: pytest.MonkeyPatch,
    visibility: str,
    renders: int,
) -> None:
    t = await make_table(make_client, app)
    cid = t.campaign_id
    after = await last_seq(app, cid)
    body = {"expression": "2W20+3", "visibility": visibility}
    r = await t.player.post(f"/api/v1/campaigns/{cid}/rolls", json=body)
    assert r.status_code == 201, r.text
    events = await events_after(app, cid, after)
    names = ("gm", "player", "observer")
    people = [viewer(t.ids[n], f"{n}_user", n) for n in names]
    made = counted_renders(monkeypatch, rolls_live, "render_macro")
    render = CAMPAIGN_PAGE.stream(CampaignPage(cid))
    sessions = app.state.ctx.read_sessions
    # As streams woken by one notification: the same event objects, at once.
    out = await asyncio.gather(*(render(sessions, v, project(events, v)) for v in people))
    # A public roll: one form for all three; for the GMs only: the whole roll (the GM, and
    # the player who rolled it) and a secret stub (the observer).
    assert len(made) == renders
    seq = events[-1].seq
    for name, messages in zip(names, out, strict=True):
        (message,) = messages
        page = (await getattr(t, name).get(f"/campaigns/{cid}")).text
        assert element(message.data, f"roll-{seq}") == element(page, f"roll-{seq}"), name


async def test_the_page_renders_each_entry_once_per_form_and_shows_each_viewer_theirs(
    make_client: ClientFactory, app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = await make_table(make_client, app)
    cid = t.campaign_id
    for visibility, label in (("public", "Offen"), ("self", "Verdeckt")):
        body = {"expression": "1W20", "label": label, "visibility": visibility}
        r = await t.player.post(f"/api/v1/campaigns/{cid}/rolls", json=body)
        assert r.status_code == 201, r.text
    made = counted_renders(monkeypatch, rolls_live, "render_macro")
    gm_page = (await t.gm.get(f"/campaigns/{cid}")).text
    assert len(made) == 2  # the two rolls, whole for the GM
    again = (await t.gm.get(f"/campaigns/{cid}")).text
    assert element(again, "dice-log") == element(gm_page, "dice-log")
    assert len(made) == 2  # the same page again: nothing rendered anew
    observer_page = (await t.observer.get(f"/campaigns/{cid}")).text
    # The public roll in the form the GM got it; the secret one as the observer's stub.
    assert len(made) == 3
    seq = await last_seq(app, cid)
    public, secret = (
        element(observer_page, f"roll-{seq - 1}"),
        element(observer_page, f"roll-{seq}"),
    )
    assert public == element(gm_page, f"roll-{seq - 1}") and "Offen" in public
    assert "Verdeckt" not in secret and "Verdeckt" in element(gm_page, f"roll-{seq}")
    # The player who rolled it sees it whole, as the GM does.
    player_page = (await t.player.get(f"/campaigns/{cid}")).text
    assert element(player_page, f"roll-{seq}") == element(gm_page, f"roll-{seq}")
    assert len(made) == 3, made
