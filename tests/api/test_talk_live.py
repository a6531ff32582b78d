"""The chat's live regions: the push is the page's line, for the GM, the speaker and a
bystander; a whisper never reaches the bystander's push (the chat page and the campaign
page's chat panel alike)."""

from __future__ import annotations

import pytest
from fastapi import FastAPI

from app.campaigns.live import CAMPAIGN_PAGE
from app.campaigns.views import CampaignPage
from app.encounters.live import COMBAT_PAGE, CombatPage
from app.talk.live import CHAT_PAGE, ChatPage
from tests.api.helpers import make_table
from tests.api.regions import element, last_seq, normalise, pushed, viewer
from tests.conftest import ClientFactory
from tests.encounters.helpers import make_fight

SECRET = "FLUESTERN-0815"


@pytest.mark.parametrize("page_name", ["chat", "campaign"])
async def test_chat_pushes_match_the_page_and_keep_whispers(
    make_client: ClientFactory, app: FastAPI, page_name: str
) -> None:
    t = await make_table(make_client, app)
    cid = t.campaign_id
    api = f"/api/v1/campaigns/{cid}"
    before = await last_seq(app, cid)
    said = (await t.player.post(f"{api}/messages", json={"text": "Hallo **alle**"})).json()
    whisper = (await t.player.post(f"{api}/messages", json={"text": SECRET, "to": "gm"})).json()
    r = await t.player.patch(f"{api}/messages/{said['id']}", json={"text": "Hallo *alle*"})
    assert r.status_code == 200
    handout = (await t.gm.post(f"{api}/handouts", json={"title": "Brief", "body": "Text"})).json()
    r = await t.gm.post(f"{api}/handouts/{handout['id']}/show", json={"to": [t.ids["player"]]})
    assert r.status_code == 200
    if page_name == "chat":
        page_obj, key, url = CHAT_PAGE, ChatPage(cid), f"/campaigns/{cid}/chat"
    else:
        page_obj, key, url = CAMPAIGN_PAGE, CampaignPage(cid), f"/campaigns/{cid}"  # type: ignore[assignment]
    who = {
        "gm": (viewer(t.ids["gm"], "gm_user", "gm"), t.gm),
        "player": (viewer(t.ids["player"], "player_user", "player"), t.player),
        "observer": (viewer(t.ids["observer"], "observer_user", "observer"), t.observer),
    }
    for role, (seen_by, client) in who.items():
        html = (await client.get(url)).text
        out = [
            m for m in await pushed(app, page_obj, key, seen_by, cid, before) if m.event == "chat"
        ]
        first = element(out[0].data, f"msg-{said['id']}")
        assert first == element(html, f"msg-{said['id']}"), role
        assert 'hx-swap-oob="beforeend:#chat-log"' in out[0].data
        edited = [m for m in out if f'id="msg-{said["id"]}"' in m.data][-1]
        assert element(edited.data, f"msg-{said['id']}") == element(html, f"msg-{said['id']}")
        assert "<em>alle</em>" in edited.data
        joined = "\n".join(m.data for m in out)
        if role == "observer":
            assert SECRET not in joined and SECRET not in html
            assert f"msg-{whisper['id']}" not in joined
            assert "Brief" not in joined and "Brief" not in html
        else:
            assert element(joined, f"msg-{whisper['id']}") == element(html, f"msg-{whisper['id']}")
            shelf = [m for m in out if 'id="handouts"' in m.data][-1]
            assert normalise(element(shelf.data, "handouts")) == element(html, "handouts")
            assert "Brief" in shelf.data


async def test_chat_on_the_combat_page_joins_its_bundled_push(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await make_fight(make_client, app, "hh", players=2, prefix="talk")
    cid = fight.campaign_id
    r = await fight.gm.post(f"/api/v1/campaigns/{cid}/bestiary/samples")
    goblin = next(e for e in r.json() if e["name"] == "Goblin")
    r = await fight.gm.post(f"/api/v1/campaigns/{cid}/encounters", json={"name": "Überfall"})
    fight.encounter_id = r.json()["id"]
    await fight.gm.post(f"{fight.base}/participants", json={"entry_id": goblin["id"], "count": 2})
    await fight.act(fight.gm, "start")
    key = CombatPage(cid, fight.encounter_id)
    url = f"/campaigns/{cid}/encounters/{fight.encounter_id}"
    before = await last_seq(app, cid)
    api = f"/api/v1/campaigns/{cid}/messages"
    said = (await fight.players[0].post(api, json={"text": "Deckung!"})).json()
    r = await fight.players[0].post(api, json={"text": SECRET, "to": [fight.ids["gm"]]})
    whisper = r.json()
    who = {
        "gm": (viewer(fight.ids["gm"], "talkgmhh", "gm"), fight.gm),
        "bystander": (viewer(fight.ids["p1"], "talkp1hh", "player"), fight.players[1]),
    }
    for role, (seen_by, client) in who.items():
        html = (await client.get(url)).text
        assert 'id="talk-panel"' in html
        out = await pushed(app, COMBAT_PAGE, key, seen_by, cid, before)
        assert {m.event for m in out} == {"combat"}
        line = f"msg-{said['id']}"
        assert element(out[0].data, line) == element(html, line), role
        joined = "\n".join(m.data for m in out)
        if role == "gm":
            assert [m.seq for m in out] == [said["seq"], whisper["seq"]]
            assert SECRET in joined and SECRET in html
        else:
            assert [m.seq for m in out] == [said["seq"]]
            assert SECRET not in joined and SECRET not in html
    # Its form returns to the combat page.
    r = await fight.players[0].post(f"/campaigns/{cid}/chat", data={"text": "Los!", "back": url})
    assert r.status_code == 303 and r.headers["location"] == url
