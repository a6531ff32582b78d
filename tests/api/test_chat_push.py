"""A chat line's live push on the campaign page reads the line, not the page's chat panel.

The chat region has a ``load`` for the full page (its panel: the newest twenty messages, the
members, the speakers, the handouts). A push renders only the lines its events are about
(``app.talk.live.push_chat``), so the region is registered without ``load_on_push``
(``app.web.regions.Region``): the panel is not read again for every viewer of every line.
"""

from __future__ import annotations

from fastapi import FastAPI

from app.campaigns.live import CAMPAIGN_PAGE
from app.campaigns.views import CampaignPage
from tests.api.helpers import make_table
from tests.api.regions import element, last_seq, pushed, viewer
from tests.api.test_shared_render import statements
from tests.conftest import ClientFactory


async def test_a_chat_line_is_pushed_without_reading_the_chat_panel(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    cid = t.campaign_id
    url = f"/api/v1/campaigns/{cid}/messages"
    for i in range(3):  # a panel with lines in it, read by the page
        assert (await t.gm.post(url, json={"text": f"Zeile {i}"})).status_code == 201
    after = await last_seq(app, cid)
    r = await t.player.post(url, json={"text": "Ich öffne die Tür."})
    assert r.status_code == 201, r.text
    line_id = r.json()["id"]
    key = CampaignPage(cid)
    for name, role in (("gm", "gm"), ("player", "player"), ("observer", "observer")):
        member = viewer(t.ids[name], f"{name}_user", role)
        with statements(app, mine=True) as seen:
            (message,) = await pushed(app, CAMPAIGN_PAGE, key, member, cid, after)
        client = getattr(t, name)
        page = (await client.get(f"/campaigns/{cid}")).text
        # The pushed line is the line the viewer's page shows ...
        assert message.event == "chat"
        line = f"msg-{line_id}"
        assert element(message.data, line) == element(page, line)
        # ... read without the panel's page of messages, speakers and handouts: the
        # events (read here by `pushed`), the campaign, the line, its names and recipients.
        assert not [s for s in seen if "FROM character" in s or "FROM handout" in s], seen
        assert len([s for s in seen if s.startswith("SELECT chat_message.")]) == 1, seen
        assert len([s for s in seen if s.startswith("SELECT")]) == 5, seen
