"""Two GMs at one token or scene at the same moment: the request that reads it first and
writes it second gets 409 with a message, and keeps nothing — not a 500 (architecture
rule 6). Where a service expects the race it names the row (a token); elsewhere the
answer to any version-guarded row written over is the app's own (``app.web.errors``).

The other request is made to land exactly between the first one's read and its write: a
``before_flush`` hook runs it while the first waits to write. Only PostgreSQL lets two
transactions overlap so: SQLite takes its write lock at ``BEGIN`` (``app.db``), so the
second request could not start before the first ended, and the race cannot happen there.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import event, select
from sqlalchemy.orm import Session
from sqlalchemy.util import await_

from app.events.models import CampaignEvent
from app.maps.models import Scene, Token
from tests.api.helpers import make_table
from tests.conftest import ClientFactory

Meanwhile = Callable[[], Awaitable[httpx.Response]]


@contextmanager
def landing_first(
    meanwhile: Meanwhile, written: type[object] = Token
) -> Iterator[list[httpx.Response]]:
    """While in the block, the first flush that writes a ``written`` row runs ``meanwhile``
    (another client's request, to its end) before it writes; its answer is in the list
    yielded."""
    answers: list[httpx.Response] = []

    def before_flush(session: Session, _context: Any, _instances: Any) -> None:
        touched = [*session.dirty, *session.deleted]
        if answers or not any(isinstance(o, written) for o in touched):
            return
        answers.append(httpx.Response(0))  # taken: the other request's own flush passes
        answers[0] = await_(meanwhile())

    event.listen(Session, "before_flush", before_flush)
    try:
        yield answers
    finally:
        event.remove(Session, "before_flush", before_flush)


async def _table(
    app: FastAPI, make_client: ClientFactory
) -> tuple[httpx.AsyncClient, httpx.AsyncClient, str, int]:
    """A GM and a co-GM of one campaign, a scene and a token on it: the scene's API path
    and the token's id."""
    if app.state.ctx.engine.dialect.name != "postgresql":
        pytest.skip("SQLite runs one write transaction at a time: no two can overlap")
    t = await make_table(make_client, app)
    gm, co, cid = t.gm, t.player, t.campaign_id
    r = await gm.post(f"/campaigns/{cid}/members/{t.ids['player']}/role", data={"role": "co_gm"})
    assert r.status_code == 303, r.text
    r = await gm.post(f"/api/v1/campaigns/{cid}/scenes", json={"name": "S", "cols": 8, "rows": 8})
    url = f"/api/v1/campaigns/{cid}/scenes/{r.json()['id']}"
    r = await gm.post(f"{url}/tokens", json={"x": 1, "y": 1, "label": "Fass"})
    assert r.status_code == 201, r.text
    return gm, co, url, int(r.json()["id"])


async def _token_types(app: FastAPI, url: str) -> list[str]:
    """The types of the token events in the campaign's log, oldest first."""
    cid = int(url.split("/")[4])
    async with app.state.ctx.sessionmaker() as session:
        types = await session.scalars(
            select(CampaignEvent.type)
            .where(CampaignEvent.campaign_id == cid, CampaignEvent.type.startswith("token_"))
            .order_by(CampaignEvent.seq)
        )
        return list(types)


def _overtaken(answer: httpx.Response, other: httpx.Response) -> None:
    """The other request went through; this one, overtaken by it, is the token's 409."""
    assert other.status_code == 200, other.text
    assert answer.status_code == 409, answer.text
    assert "Die Spielfigur wurde inzwischen geändert; lade die Szene neu." in answer.text


async def test_an_edit_that_a_move_overtook_is_a_409_and_the_move_stays(
    app: FastAPI, make_client: ClientFactory
) -> None:
    gm, co, url, tid = await _table(app, make_client)
    with landing_first(lambda: co.post(f"{url}/tokens/{tid}/move", json={"to": [4, 4]})) as other:
        r = await gm.patch(f"{url}/tokens/{tid}", json={"label": "Kiste"})
    _overtaken(r, other[0])
    token = (await gm.get(url)).json()["tokens"][0]
    assert (token["x"], token["y"], token["label"]) == (4, 4, "Fass")
    assert await _token_types(app, url) == ["token_added", "token_moved"]


async def test_a_move_that_an_edit_overtook_is_a_409_and_the_edit_stays(
    app: FastAPI, make_client: ClientFactory
) -> None:
    gm, co, url, tid = await _table(app, make_client)
    with landing_first(lambda: co.patch(f"{url}/tokens/{tid}", json={"label": "Kiste"})) as other:
        r = await gm.post(f"{url}/tokens/{tid}/move", json={"to": [4, 4]})
    _overtaken(r, other[0])
    token = (await gm.get(url)).json()["tokens"][0]
    assert (token["x"], token["y"], token["label"]) == (1, 1, "Kiste")
    assert await _token_types(app, url) == ["token_added", "token_changed"]


async def test_a_removal_that_a_move_overtook_is_a_409_and_the_token_stays(
    app: FastAPI, make_client: ClientFactory
) -> None:
    gm, co, url, tid = await _table(app, make_client)
    with landing_first(lambda: co.post(f"{url}/tokens/{tid}/move", json={"to": [4, 4]})) as other:
        r = await gm.delete(f"{url}/tokens/{tid}")
    _overtaken(r, other[0])
    assert [(t["x"], t["y"]) for t in (await gm.get(url)).json()["tokens"]] == [(4, 4)]
    assert await _token_types(app, url) == ["token_added", "token_moved"]


async def test_a_scene_edit_that_another_overtook_is_a_409_and_the_other_stays(
    app: FastAPI, make_client: ClientFactory
) -> None:
    """No version sent, so the service cannot refuse it before writing: the write itself is
    refused, and the answer is the app's for any such race."""
    gm, co, url, _tid = await _table(app, make_client)
    with landing_first(lambda: co.patch(url, json={"name": "Krypta"}), Scene) as other:
        r = await gm.patch(url, json={"name": "Gewölbe"})
    assert other[0].status_code == 200, other[0].text
    assert r.status_code == 409, r.text
    assert "Jemand anderes hat im selben Moment dasselbe geändert." in r.text
    assert (await gm.get(url)).json()["name"] == "Krypta"
