"""The campaign's feed and a page's catch-up (``?once=1``): what tabs that share one live
connection use (docs/ui.md, "One live connection per campaign"); against a real server."""

from __future__ import annotations

from tests.conftest import LiveServer
from tests.stream.sse import account, messages, take, unique


async def test_feed_names_the_seq_and_a_catch_up_ends_where_it_read(
    live_server: LiveServer,
) -> None:
    gm = await account(live_server.url, unique("gm"))
    stranger = await account(live_server.url, unique("fremd"))
    r = await gm.post("/api/v1/campaigns", json={"name": "Ein Strom", "system": "hh"})
    cid = r.json()["id"]
    page = await gm.get(f"/campaigns/{cid}")
    last = int(page.text.split('data-last-seq="')[1].split('"')[0])
    async with gm.stream("GET", f"/campaigns/{cid}/feed?after={last}") as response:
        feed = messages(response)
        rolled = await gm.post(f"/api/v1/campaigns/{cid}/rolls", json={"expression": "1d6+40"})
        assert rolled.is_success, rolled.text
        (told,) = await take(feed, 1)
    assert told.event == "seq" and told.id == int(told.data) > last

    # The page's stream, asked to end when caught up: the roll, then how far it read.
    caught = await gm.get(f"/campaigns/{cid}/live?after={last}&once=1")
    assert caught.status_code == 200
    frames = [m async for m in messages(caught)]
    assert [m.event for m in frames] == ["roll", "caught-up"]
    assert frames[0].id == frames[1].id == told.id
    # Asked again from there: nothing new, and it still ends at once.
    again = await gm.get(f"/campaigns/{cid}/live?after={told.id}&once=1")
    assert [(m.event, m.id) for m in [m async for m in messages(again)]] == [("caught-up", told.id)]
    # Not a member: no feed.
    assert (await stranger.get(f"/campaigns/{cid}/feed")).status_code == 404
    for client in (gm, stranger):
        await client.aclose()
