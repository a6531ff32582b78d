"""A sheet's history page follows the live stream (against a real uvicorn process)."""

from __future__ import annotations

from tests.conftest import LiveServer
from tests.stream.sse import account, messages, nothing_within, take, unique


async def test_history_page_follows_the_sheets_changes_live(live_server: LiveServer) -> None:
    gm = await account(live_server.url, unique("gm"))
    player = await account(live_server.url, unique("player"))
    r = await gm.post("/api/v1/campaigns", json={"name": "Verlauf", "system": "hh"})
    cid, code = r.json()["id"], r.json()["invite_code"]
    assert (await player.post("/api/v1/campaigns/join", json={"invite_code": code})).is_success
    api = f"/api/v1/campaigns/{cid}/characters"
    alrik = (await player.post(api, json={"name": "Alrik"})).json()
    other = (await gm.post(api, json={"name": "Ork", "kind": "npc"})).json()
    page = await player.get(f"/campaigns/{cid}/characters/{alrik['id']}/history")
    assert page.status_code == 200
    # As app.js opens it: the stream's URL with ?after= the page's last seq (a second
    # ?after= in the URL itself would win over it and replay everything: a shifting page).
    live_url = page.text.split('sse-connect="')[1].split('"')[0]
    assert live_url == f"/campaigns/{cid}/characters/{alrik['id']}/history/live"
    last = page.text.split('data-last-seq="')[1].split('"')[0]
    live_url += f"?after={last}"
    async with player.stream("GET", live_url) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        stream = messages(response)
        r = await player.patch(f"{api}/{alrik['id']}", json={"changes": {"skills.Spürsinn": 9}})
        assert r.status_code == 200, r.text
        (message,) = await take(stream, 1)
        assert message.event == "history"
        assert "Spürsinn: 5 → 9" in message.data and 'class="history-entry"' in message.data
        assert "<html" not in message.data
        # Changes of another sheet do not show up here.
        r = await gm.patch(f"{api}/{other['id']}", json={"changes": {"monsterstufe": 10}})
        assert r.status_code == 200, r.text
        await nothing_within(stream, 0.5)
    for client in (gm, player):
        await client.aclose()
