"""The session lookup reads the member's role in the same statement on a campaign request.

The accounts package knows nothing of campaigns: the campaigns package adds the role column
to the session lookup (``permissions.USER_AND_ROLE_FOR_TOKEN``), the web layer runs it
(``app.web.deps``, through ``AppContext.members``), and the roll's authorization then reads
no role again.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import event

from app.web.context import AppContext
from tests.api.helpers import make_table
from tests.conftest import ClientFactory


@contextmanager
def _statements(app: FastAPI) -> Iterator[list[str]]:
    ctx: AppContext = app.state.ctx
    seen: list[str] = []

    def record(*args: Any) -> None:
        seen.append(" ".join(str(args[2]).lower().split()))

    event.listen(ctx.engine.sync_engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(ctx.engine.sync_engine, "before_cursor_execute", record)


def _session_lookups(statements: list[str]) -> list[str]:
    return [s for s in statements if "from user_account" in s and "user_session" in s]


@pytest.mark.parametrize("headers", [{}, {"Idempotency-Key": "wurf-1"}], ids=["plain", "keyed"])
async def test_a_roll_reads_the_role_with_the_session_and_never_again(
    make_client: ClientFactory, app: FastAPI, headers: dict[str, str]
) -> None:
    """Neither the role nor the campaign row is read again, also when the request carries an
    idempotency key (as every form does); its answer is stored under the key in one
    statement, which keeps the reads of the sign-in."""
    t = await make_table(make_client, app)
    with _statements(app) as seen:
        r = await t.player.post(
            f"/api/v1/campaigns/{t.campaign_id}/rolls", json={"expression": "2d6"}, headers=headers
        )
    assert r.status_code == 201, r.text
    lookups = _session_lookups(seen)
    assert len(lookups) == 1 and "select membership.role" in lookups[0], seen
    reads_again = [
        s
        for s in seen
        if s not in lookups and ("membership" in s or s.startswith("select campaign"))
    ]
    assert reads_again == [], seen
    assert len([s for s in seen if "idempotent_request" in s]) == (1 if headers else 0), seen


@pytest.mark.parametrize(
    ("path", "form", "shown"),
    [
        ("rolls", {"expression": "2d6", "label": "Wache"}, 'id="roll-form"'),
        ("chat", {"text": "Leise!", "back": "/campaigns/{cid}"}, 'id="chat-form"'),
    ],
    ids=["roll dialog", "chat form"],
)
async def test_a_form_sent_from_the_campaign_page_reads_the_campaign_once(
    make_client: ClientFactory, app: FastAPI, path: str, form: dict[str, str], shown: str
) -> None:
    """The roll dialog and the chat form answer with themselves (HTMX) after their write,
    from the campaign row and role the sign-in read: not read again after the write."""
    t = await make_table(make_client, app)
    cid = t.campaign_id
    fields = {k: v.format(cid=cid) for k, v in form.items()}
    with _statements(app) as seen:
        r = await t.player.post(
            f"/campaigns/{cid}/{path}", data=fields, headers={"HX-Request": "true"}
        )
    assert r.status_code == 200, r.text
    assert shown in r.text
    lookups = _session_lookups(seen)
    assert len(lookups) == 1 and "select membership.role" in lookups[0], seen
    assert [s for s in seen if s.startswith("select campaign")] == [], seen
    assert [s for s in seen if "from membership" in s and "user_account" not in s] == [], seen


async def test_outside_a_campaign_the_lookup_reads_no_role(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    with _statements(app) as seen:
        assert (await t.player.get("/api/v1/campaigns")).status_code == 200
    lookups = _session_lookups(seen)
    assert len(lookups) == 1 and "membership" not in lookups[0], seen
