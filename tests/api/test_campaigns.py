"""Campaigns: creation, invites, roles, settings, and what a non-member sees (nothing)."""

from __future__ import annotations

from datetime import timedelta

import httpx
from fastapi import FastAPI
from sqlalchemy import select, update

from app.campaigns.models import Invite
from app.db import utcnow
from app.rules.hh import RuleOptions
from tests.api.helpers import make_table
from tests.conftest import ClientFactory, register


async def test_create_campaign_makes_the_creator_gm(client: httpx.AsyncClient) -> None:
    await register(client, "alrik")
    r = await client.post("/api/v1/campaigns", json={"name": "Nordmark", "system": "ds4"})
    assert r.status_code == 201
    body = r.json()
    assert body["system"] == "ds4" and body["invite_code"]
    detail = (await client.get(f"/api/v1/campaigns/{body['id']}")).json()
    assert detail["members"] == [{"user_id": 1, "username": "alrik", "role": "gm"}]
    listing = (await client.get("/api/v1/campaigns")).json()
    assert listing == [{"id": body["id"], "name": "Nordmark", "system": "ds4", "role": "gm"}]


async def test_create_campaign_validates_fields(client: httpx.AsyncClient) -> None:
    await register(client, "alrik")
    r = await client.post("/api/v1/campaigns", json={"name": "  ", "system": "hh"})
    assert r.status_code == 422 and "name" in r.json()["errors"]
    r = await client.post("/api/v1/campaigns", json={"name": "X", "system": "dsa"})
    assert r.status_code == 422


async def test_join_by_invite_and_roles(make_client: ClientFactory, app: FastAPI) -> None:
    table = await make_table(make_client, app)
    detail = (await table.player.get(f"/api/v1/campaigns/{table.campaign_id}")).json()
    assert [(m["username"], m["role"]) for m in detail["members"]] == [
        ("gm_user", "gm"),
        ("player_user", "player"),
        ("observer_user", "observer"),
    ]
    # Joining again keeps the role.
    again = await table.observer.post(
        "/api/v1/campaigns/join", json={"invite_code": table.invite_code}
    )
    assert again.json()["role"] == "observer"


async def test_non_member_gets_404_not_403(make_client: ClientFactory, app: FastAPI) -> None:
    table = await make_table(make_client, app)
    assert (await table.outsider.get(f"/api/v1/campaigns/{table.campaign_id}")).status_code == 404
    assert (await table.outsider.get("/api/v1/campaigns/9999")).status_code == 404
    assert (await table.outsider.get(f"/campaigns/{table.campaign_id}")).status_code == 404


async def test_revoked_and_expired_invites_do_not_work(
    make_client: ClientFactory, app: FastAPI
) -> None:
    table = await make_table(make_client, app)
    async with app.state.ctx.sessionmaker() as session:
        invite = await session.scalar(select(Invite).where(Invite.code == table.invite_code))
        assert invite is not None
        invite_id = invite.id
    r = await table.gm.post(
        f"/campaigns/{table.campaign_id}/invites/{invite_id}/revoke", data={"confirm": "1"}
    )
    assert r.status_code == 303
    newcomer = make_client()
    await register(newcomer, "newcomer")
    r = await newcomer.post("/api/v1/campaigns/join", json={"invite_code": table.invite_code})
    assert r.status_code == 404
    # An invite whose expiry passed is refused as well.
    r = await table.gm.post(
        f"/campaigns/{table.campaign_id}/invites", data={"role": "player", "expires_days": "3"}
    )
    assert r.status_code == 303
    async with app.state.ctx.sessionmaker() as session:
        code = await session.scalar(select(Invite.code).where(Invite.expires_at.is_not(None)))
        await session.execute(
            update(Invite).where(Invite.code == code).values(expires_at=utcnow() - timedelta(1))
        )
        await session.commit()
    r = await newcomer.post("/api/v1/campaigns/join", json={"invite_code": code})
    assert r.status_code == 404


async def test_invite_validation_at_the_field(make_client: ClientFactory, app: FastAPI) -> None:
    table = await make_table(make_client, app)
    r = await table.gm.post(
        f"/campaigns/{table.campaign_id}/invites",
        data={"role": "gm", "expires_days": "999"},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 422
    assert 'id="expires_days-error"' in r.text and 'id="role-error"' in r.text


async def test_gm_removes_a_member(make_client: ClientFactory, app: FastAPI) -> None:
    table = await make_table(make_client, app)
    cid, player_id = table.campaign_id, table.ids["player"]
    r = await table.gm.post(f"/campaigns/{cid}/members/{player_id}/remove", data={"confirm": "1"})
    assert r.status_code == 303
    assert (await table.player.get(f"/api/v1/campaigns/{cid}")).status_code == 404


async def test_player_cannot_manage_members(make_client: ClientFactory, app: FastAPI) -> None:
    table = await make_table(make_client, app)
    cid = table.campaign_id
    r = await table.player.post(
        f"/campaigns/{cid}/members/{table.ids['observer']}/remove", data={"confirm": "1"}
    )
    assert r.status_code == 403


async def test_co_gm_and_gm_handover(make_client: ClientFactory, app: FastAPI) -> None:
    table = await make_table(make_client, app)
    cid, player_id = table.campaign_id, table.ids["player"]
    r = await table.gm.post(f"/campaigns/{cid}/members/{player_id}/role", data={"role": "co_gm"})
    assert r.status_code == 303
    roles = {
        m["username"]: m["role"]
        for m in (await table.gm.get(f"/api/v1/campaigns/{cid}")).json()["members"]
    }
    assert roles["player_user"] == "co_gm"
    # A co-GM may manage players but not appoint co-GMs or hand over the GM role.
    r = await table.player.post(
        f"/campaigns/{cid}/members/{table.ids['observer']}/role", data={"role": "co_gm"}
    )
    assert r.status_code == 403
    r = await table.player.post(
        f"/campaigns/{cid}/members/{table.ids['observer']}/role", data={"role": "player"}
    )
    assert r.status_code == 303
    r = await table.player.post(
        f"/campaigns/{cid}/members/{table.ids['gm']}/remove", data={"confirm": "1"}
    )
    assert r.status_code == 403
    # The GM hands over the role and stays on as co-GM.
    r = await table.gm.post(
        f"/campaigns/{cid}/members/{player_id}/transfer-gm", data={"confirm": "1"}
    )
    assert r.status_code == 303
    roles = {
        m["username"]: m["role"]
        for m in (await table.gm.get(f"/api/v1/campaigns/{cid}")).json()["members"]
    }
    assert roles == {"player_user": "gm", "gm_user": "co_gm", "observer_user": "player"}


async def test_settings_store_rule_options_and_refuse_stale_writes(
    make_client: ClientFactory, app: FastAPI
) -> None:
    table = await make_table(make_client, app)
    cid = table.campaign_id
    page = await table.gm.get(f"/campaigns/{cid}/settings")
    assert page.status_code == 200 and 'name="movement"' in page.text
    form = {
        "version": "1",
        "name": "Die Nordmark",
        "movement": "half",
        "condition_escalation": "full",
        "long_rest_lp": "summary",
        "focus_qs": "per_focus",
        "npc_drop_at_zero": "drop",
    }
    r = await table.gm.post(f"/campaigns/{cid}/settings", data=form)
    assert r.status_code == 303
    async with app.state.ctx.sessionmaker() as session:
        from app.campaigns.models import Campaign

        campaign = await session.get(Campaign, cid)
        assert campaign is not None
        assert campaign.settings["movement"] == "half"
        assert campaign.settings["focus_qs"] == "per_focus"
        assert campaign.version == 2
        assert RuleOptions.from_mapping(campaign.settings).movement == "half"
    # The same form again carries the old version: 409 with the fresh values and a notice.
    r = await table.gm.post(f"/campaigns/{cid}/settings", data=form, headers={"HX-Request": "true"})
    assert r.status_code == 409
    assert 'value="2"' in r.text and 'role="alert"' in r.text
    # Bad values are answered at the field and nothing is saved.
    r = await table.gm.post(
        f"/campaigns/{cid}/settings",
        data={**form, "version": "2", "movement": "teleport", "name": "Neu"},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 422 and 'id="movement-error"' in r.text
    detail = (await table.gm.get(f"/api/v1/campaigns/{cid}")).json()
    assert detail["name"] == "Die Nordmark"
    # Players may not open the settings.
    assert (await table.player.get(f"/campaigns/{cid}/settings")).status_code == 403
