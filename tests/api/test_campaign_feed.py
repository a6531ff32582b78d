"""The campaign's feed and a page's catch-up (``?once=1``): what tabs that share one live
connection use (docs/ui.md, "One live connection per campaign"); against a real server."""

from __future__ import annotations

import asyncio

from tests.conftest import LiveServer
from tests.stream.sse import account, gm_and_player, messages, take, unique


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


async def test_the_feed_carries_the_tabs_streams_as_each_would_have_sent_them(
    live_server: LiveServer,
) -> None:
    gm, player, cid = await gm_and_player(live_server.url, "Getragen")
    page = await player.get(f"/campaigns/{cid}")
    last = int(page.text.split('data-last-seq="')[1].split('"')[0])
    campaign, notices = f"/campaigns/{cid}/live", f"/campaigns/{cid}/notices/live"
    # A fight that does not exist: its route answers 404, so the feed does not carry it.
    missing = f"/campaigns/{cid}/encounters/999999/live"
    query: dict[str, int | list[str]] = {"after": last, "s": [campaign, notices, missing, campaign]}
    async with player.stream("GET", f"/campaigns/{cid}/feed", params=query) as response:
        feed = messages(response)
        (opening,) = await take(feed, 1)
        assert (opening.event, opening.json()) == ("streams", {"served": [0, 1]})
        rolled = await gm.post(f"/api/v1/campaigns/{cid}/rolls", json={"expression": "1d6+40"})
        assert rolled.is_success, rolled.text
        (told,) = await take(feed, 1)
    batch = told.json()
    assert told.event == "batch" and told.id == batch["seq"] >= batch["first"] > batch["prev"]
    assert batch["prev"] == last
    # The campaign page's parts are what its own stream sends the player for the same events
    # (SSE joins a message's lines: no line break at its end).
    caught = await player.get(f"{campaign}?after={last}&once=1")
    own = [(m.id, m.event, m.data) async for m in messages(caught) if m.event != "caught-up"]
    parts = batch["parts"]
    carried = [
        (seq, event, "\n".join(data.splitlines())) for i, seq, event, data in parts if i == 0
    ]
    assert own and carried == own
    assert {part[0] for part in batch["parts"]} <= {0, 1}
    for client in (gm, player):
        await client.aclose()


async def test_the_feed_refuses_streams_of_another_campaign_and_too_many(
    live_server: LiveServer,
) -> None:
    gm, player, cid = await gm_and_player(live_server.url, "Eigen")
    other = (await gm.post("/api/v1/campaigns", json={"name": "Fremd", "system": "hh"})).json()
    for streams in (
        [f"/campaigns/{other['id']}/live"],
        [f"/campaigns/{cid}/feed"],
        ["https://example.org/campaigns/{cid}/live"],
        [f"/campaigns/{cid}/live"] * 17,
    ):
        r = await player.get(f"/campaigns/{cid}/feed", params={"s": streams})
        assert r.status_code == 422, (streams, r.text)
        assert "s" in r.text
    # The other campaign's own feed: the player is no member there.
    other_feed = f"/campaigns/{other['id']}/feed"
    r = await player.get(other_feed, params={"s": [f"/campaigns/{other['id']}/live"]})
    assert r.status_code == 404
    for client in (gm, player):
        await client.aclose()


async def test_the_feed_asks_its_streams_again_once_the_viewers_role_changed(
    live_server: LiveServer,
) -> None:
    gm, player, cid = await gm_and_player(live_server.url, "Umbesetzt")
    members = (await gm.get(f"/api/v1/campaigns/{cid}")).json()["members"]
    player_id = next(m["user_id"] for m in members if m["role"] == "player")
    query: dict[str, int | list[str]] = {"after": 0, "s": [f"/campaigns/{cid}/live"]}
    async with player.stream("GET", f"/campaigns/{cid}/feed", params=query) as response:
        feed = messages(response)
        (_opening, setup) = await take(feed, 2)
        r = await gm.post(f"/campaigns/{cid}/members/{player_id}/role", data={"role": "observer"})
        assert r.status_code == 303, r.text
        (told,) = await take(feed, 1)
    # Nothing of the change is rendered for the role the streams were claimed for.
    assert (told.event, told.data, told.id) == ("reclaim", "", setup.id)
    for client in (gm, player):
        await client.aclose()


async def test_a_burst_of_feeds_opening_at_once_does_not_take_every_connection(
    live_server: LiveServer,
) -> None:
    """Each feed asks its streams' routes, each with a session of its own: a feed that held
    its own connection meanwhile left 48 of them waiting for the pool (40 on PostgreSQL, 15
    on SQLite) until it gave up with 500."""
    gm, player, cid = await gm_and_player(live_server.url, "Ansturm")
    streams = [f"/campaigns/{cid}/live", f"/campaigns/{cid}/notices/live"]

    async def opening() -> str:
        query: dict[str, int | list[str]] = {"after": 0, "s": streams}
        async with player.stream("GET", f"/campaigns/{cid}/feed", params=query) as response:
            assert response.status_code == 200
            (first,) = await take(messages(response), 1, timeout=25)
            return first.data

    opened = await asyncio.gather(*(opening() for _ in range(48)))
    assert set(opened) == {'{"served": [0, 1]}'}
    for client in (gm, player):
        await client.aclose()
