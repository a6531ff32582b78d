"""The sessions panel of the campaign page: page, and push after a start and an end."""

from __future__ import annotations

from fastapi import FastAPI

from app.campaigns.live import CAMPAIGN_PAGE
from app.campaigns.views import CampaignPage
from tests.api.helpers import make_table
from tests.api.regions import element, last_seq, normalise, pushed, viewer
from tests.conftest import ClientFactory


async def test_the_sessions_panel_push_matches_the_page(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    cid = t.campaign_id
    before = await last_seq(app, cid)
    r = await t.gm.post(f"/campaigns/{cid}/sessions", data={"back": f"/campaigns/{cid}"})
    assert r.status_code == 303 and r.headers["location"] == f"/campaigns/{cid}"
    for role, client in (("gm", t.gm), ("player", t.player)):
        html = (await client.get(f"/campaigns/{cid}")).text
        seen_by = viewer(t.ids[role], f"{role}_user", role)
        out = [m for m in await pushed(app, CAMPAIGN_PAGE, CampaignPage(cid), seen_by, cid, before)]
        panel = [m for m in out if m.event == "sessions"][-1]
        assert 'hx-swap-oob="true"' in panel.data
        assert normalise(element(panel.data, "sessions-panel")) == normalise(
            element(html, "sessions-panel")
        ), role
        assert ("End the session" in html or "Sitzung beenden" in html) == (role == "gm")
        assert 'sse-swap="sessions"' in html
