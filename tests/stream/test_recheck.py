"""A stream's recheck (app.web.streams.recheck_for): who the viewer is now, on the database.

The stream calls it after membership events and on every quiet poll; it is built from the
campaigns package (membership, current role) and the accounts package (the session), which
the event stream itself no longer imports.
"""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from app.accounts.service import token_hash
from app.core.viewer import Role, Viewer
from app.web.context import AppContext
from app.web.deps import COOKIE_NAME
from app.web.streams import recheck_for
from tests.api.helpers import make_table
from tests.conftest import ClientFactory


def _token(client: httpx.AsyncClient) -> str:
    token = client.cookies.get(COOKIE_NAME)
    assert token
    return token


async def _now(
    app: FastAPI, campaign_id: int, session_hash: str | None, seen: Viewer
) -> Viewer | None:
    ctx: AppContext = app.state.ctx
    recheck = recheck_for(ctx.members.current_viewer, campaign_id, session_hash)
    async with ctx.sessionmaker() as session:
        return await recheck(session, seen)


async def test_recheck_follows_the_role_the_membership_and_the_session(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    player_id, hashed = t.ids["player"], token_hash(_token(t.player))
    seen = Viewer(player_id, "player_user", Role.player)

    assert await _now(app, t.campaign_id, hashed, seen) == seen

    r = await t.gm.post(
        f"/campaigns/{t.campaign_id}/members/{player_id}/role", data={"role": "co_gm"}
    )
    assert r.status_code == 303, r.text
    assert await _now(app, t.campaign_id, hashed, seen) == Viewer(
        player_id, "player_user", Role.co_gm
    )

    assert (await t.player.post("/api/v1/auth/logout")).status_code == 204
    assert await _now(app, t.campaign_id, hashed, seen) is None
    # A stream opened without a session token (none to recheck) only follows the membership.
    assert await _now(app, t.campaign_id, None, seen) == Viewer(
        player_id, "player_user", Role.co_gm
    )


async def test_recheck_ends_a_removed_member_and_knows_no_outsider(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    observer_id, hashed = t.ids["observer"], token_hash(_token(t.observer))
    seen = Viewer(observer_id, "observer_user", Role.observer)
    assert await _now(app, t.campaign_id, hashed, seen) == seen

    r = await t.gm.post(
        f"/campaigns/{t.campaign_id}/members/{observer_id}/remove", data={"confirm": "1"}
    )
    assert r.status_code == 303, r.text
    assert await _now(app, t.campaign_id, hashed, seen) is None

    outsider = Viewer(t.ids["outsider"], "outsider_user", Role.player)
    assert await _now(app, t.campaign_id, token_hash(_token(t.outsider)), outsider) is None
