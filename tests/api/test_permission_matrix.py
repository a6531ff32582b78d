"""Every route × (anonymous, non-member, observer, player, GM).

The matrix must name every route of the app: a new route without an entry fails
``test_every_route_is_in_the_matrix``. Routes of other domain packages are covered by their
own matrices, listed in ``COVERED_ELSEWHERE``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.campaigns.models import Invite
from tests.api.helpers import Table, api_routes, make_table
from tests.conftest import ClientFactory

ROLES = ("anonymous", "outsider", "observer", "player", "gm")
LOGIN = "login"  # a redirect to the login page (HTML) — what an anonymous visitor gets
STREAM = "stream"  # an endless event stream: allowed; checked in tests/stream


@dataclass(frozen=True)
class Case:
    method: str
    path: str
    expect: dict[str, int | str]
    form: dict[str, str] = field(default_factory=dict)
    json: dict[str, object] | None = None
    headers: dict[str, str] = field(default_factory=dict)


def _same(status: int | str, anonymous: int | str = 401) -> dict[str, int | str]:
    return {"anonymous": anonymous, **dict.fromkeys(ROLES[1:], status)}


def _members(
    outsider: int | str, observer: int | str, player: int | str, gm: int | str, anonymous: int | str
) -> dict[str, int | str]:
    return {
        "anonymous": anonymous,
        "outsider": outsider,
        "observer": observer,
        "player": player,
        "gm": gm,
    }


CASES: dict[str, Case] = {
    "api_logout": Case("POST", "/api/v1/auth/logout", _same(204)),
    "api_logout_everywhere": Case("POST", "/api/v1/auth/logout-everywhere", _same(204)),
    "api_create_campaign": Case(
        "POST", "/api/v1/campaigns", _same(201), json={"name": "Neu", "system": "pf2e"}
    ),
    "api_list_campaigns": Case("GET", "/api/v1/campaigns", _same(200)),
    "api_join": Case("POST", "/api/v1/campaigns/join", _same(200), json={"invite_code": "{code}"}),
    "api_campaign": Case("GET", "/api/v1/campaigns/{cid}", _members(404, 200, 200, 200, 401)),
    "api_roll": Case(
        "POST",
        "/api/v1/campaigns/{cid}/rolls",
        _members(404, 403, 201, 201, 401),
        json={"expression": "1d20"},
    ),
    "api_roll_log": Case("GET", "/api/v1/campaigns/{cid}/rolls", _members(404, 200, 200, 200, 401)),
    "api_events": Case(
        "GET", "/api/v1/campaigns/{cid}/events", _members(404, STREAM, STREAM, STREAM, 401)
    ),
    "home": Case("GET", "/", _same(303, anonymous=LOGIN)),
    "register_form": Case("GET", "/register", _same(200, anonymous=200)),
    "login_form": Case("GET", "/login", _same(200, anonymous=200)),
    "favicon": Case("GET", "/favicon.ico", _same(301, anonymous=301)),
    "logout": Case("POST", "/logout", _same(LOGIN, anonymous=LOGIN)),
    "logout_everywhere": Case("POST", "/logout-everywhere", _same(LOGIN, anonymous=LOGIN)),
    "language": Case("POST", "/language", _same(303, anonymous=303), form={"locale": "en"}),
    "campaigns": Case("GET", "/campaigns", _same(200, anonymous=LOGIN)),
    "create_campaign": Case(
        "POST", "/campaigns", _same(303, anonymous=LOGIN), form={"name": "N", "system": "hh"}
    ),
    "campaign_page": Case("GET", "/campaigns/{cid}", _members(404, 200, 200, 200, LOGIN)),
    "older_entries": Case(
        "GET",
        "/campaigns/{cid}/log?before=99",
        _members(404, 200, 200, 200, 401),  # HTMX gets 401 + HX-Redirect to the login
        headers={"HX-Request": "true"},
    ),
    "live": Case("GET", "/campaigns/{cid}/live", _members(404, STREAM, STREAM, STREAM, LOGIN)),
    "notices": Case("GET", "/campaigns/{cid}/notices", _members(404, 200, 200, 200, LOGIN)),
    "notices_live": Case(
        "GET", "/campaigns/{cid}/notices/live", _members(404, STREAM, STREAM, STREAM, LOGIN)
    ),
    "roll_form": Case(
        "POST",
        "/campaigns/{cid}/rolls",
        _members(404, 403, 303, 303, LOGIN),
        form={"expression": "1W20", "visibility": "public"},
    ),
    "create_invite": Case(
        "POST",
        "/campaigns/{cid}/invites",
        _members(404, 403, 403, 303, LOGIN),
        form={"role": "player"},
    ),
    "revoke_invite": Case(
        "POST",
        "/campaigns/{cid}/invites/{invite_id}/revoke",
        _members(404, 403, 403, 303, LOGIN),
        form={"confirm": "1"},
    ),
    "remove_member": Case(
        "POST",
        "/campaigns/{cid}/members/{observer_id}/remove",
        _members(404, 403, 403, 303, LOGIN),
        form={"confirm": "1"},
    ),
    "set_role": Case(
        "POST",
        "/campaigns/{cid}/members/{observer_id}/role",
        _members(404, 403, 403, 303, LOGIN),
        form={"role": "player"},
    ),
    "transfer_gm": Case(
        "POST",
        "/campaigns/{cid}/members/{player_id}/transfer-gm",
        _members(404, 403, 403, 303, LOGIN),
        form={"confirm": "1"},
    ),
    "leave": Case(
        "POST", "/campaigns/{cid}/leave", _members(404, 303, 303, 403, LOGIN), form={"confirm": "1"}
    ),
    "settings_form": Case("GET", "/campaigns/{cid}/settings", _members(404, 403, 403, 200, LOGIN)),
    "save_settings": Case(
        "POST",
        "/campaigns/{cid}/settings",
        _members(404, 403, 403, 303, LOGIN),
        form={"version": "1", "name": "Umbenannt"},
    ),
    "join_form": Case("GET", "/join", _same(200, anonymous=LOGIN)),
    "join_page": Case("GET", "/join/{code}", _same(200, anonymous=LOGIN)),
    "join": Case("POST", "/join/{code}", _same(303, anonymous=LOGIN)),
    "api_export": Case("GET", "/api/v1/campaigns/{cid}/export", _members(404, 403, 403, 200, 401)),
    "export": Case("GET", "/campaigns/{cid}/export", _members(404, 403, 403, 200, LOGIN)),
    # Anyone signed in may import (into a new campaign of their own); an empty one is refused.
    "api_import": Case("POST", "/api/v1/campaigns/import", _same(422), json={}),
    "import": Case("POST", "/campaigns/import", _same(422, anonymous=LOGIN)),
    # Imported parts: the GMs list them and make takeover links (no part here: 404 for the
    # GM); a takeover link is for anyone signed in who has it (an invite code is none: 404).
    "api_parts": Case("GET", "/api/v1/campaigns/{cid}/parts", _members(404, 403, 403, 200, 401)),
    "parts": Case("GET", "/campaigns/{cid}/parts", _members(404, 403, 403, 200, LOGIN)),
    "api_part_link": Case(
        "POST",
        "/api/v1/campaigns/{cid}/parts/{part_id}/link",
        _members(404, 403, 403, 404, 401),
    ),
    "part_link": Case(
        "POST", "/campaigns/{cid}/parts/{part_id}/link", _members(404, 403, 403, 404, LOGIN)
    ),
    "api_takeover": Case("POST", "/api/v1/campaigns/takeover/{code}", _same(404)),
    "takeover_page": Case("GET", "/takeover/{code}", _same(404, anonymous=LOGIN)),
    "takeover": Case("POST", "/takeover/{code}", _same(404, anonymous=LOGIN)),
}

#: Routes open to everyone by design (they create or start a session, or show the API's
#: documentation, like /api/openapi.json).
PUBLIC = {
    ("GET", "/api/docs"),
    ("POST", "/api/v1/auth/register"),
    ("POST", "/api/v1/auth/login"),
    ("POST", "/register"),
    ("POST", "/login"),
}

#: Path prefixes whose routes have their own matrix test (file named).
COVERED_ELSEWHERE = {
    "/campaigns/{campaign_id}/feed": "tests/api/test_campaign_feed.py",
    "/api/v1/systems/{system}/sheet.pdf": "tests/api/test_print.py",
    "/api/v1/auth/tokens": "tests/api/test_api_tokens.py",
    "/account/tokens": "tests/api/test_api_tokens.py",
    "/api/v1/campaigns/{campaign_id}/webhooks": "tests/api/test_webhooks.py",
    "/campaigns/{campaign_id}/webhooks": "tests/api/test_webhooks.py",
    "/api/v1/campaigns/{campaign_id}/characters": "tests/api/test_characters*.py",
    "/campaigns/{campaign_id}/characters": "tests/api/test_characters*.py",
    "/characters": "tests/api/test_characters*.py",
    "/api/v1/campaigns/{campaign_id}/items": "tests/api/test_characters*.py",
    "/api/v1/campaigns/{campaign_id}/starter-items": "tests/api/test_characters*.py",
    "/campaigns/{campaign_id}/items": "tests/api/test_characters*.py",
    "/api/v1/campaigns/{campaign_id}/encounters": "tests/api/test_encounters*.py",
    "/api/v1/campaigns/{campaign_id}/bestiary": "tests/api/test_encounters*.py",
    "/campaigns/{campaign_id}/encounters": "tests/api/test_encounters*.py",
    "/campaigns/{campaign_id}/bestiary": "tests/api/test_encounters*.py",
    "/encounters": "tests/api/test_encounters*.py",
    "/api/v1/campaigns/{campaign_id}/messages": "tests/api/test_talk_matrix.py",
    "/api/v1/campaigns/{campaign_id}/handouts": "tests/api/test_talk_matrix.py",
    "/campaigns/{campaign_id}/chat": "tests/api/test_talk_matrix.py",
    "/campaigns/{campaign_id}/handouts": "tests/api/test_talk_matrix.py",
    "/api/v1/campaigns/{campaign_id}/journal": "tests/api/test_talk_matrix.py",
    "/campaigns/{campaign_id}/journal": "tests/api/test_talk_matrix.py",
    "/api/v1/campaigns/{campaign_id}/sessions": "tests/sessions/test_sessions_matrix.py",
    "/campaigns/{campaign_id}/sessions": "tests/sessions/test_sessions_matrix.py",
    "/api/v1/campaigns/{campaign_id}/fairplay": "tests/sessions/test_sessions_matrix.py",
    "/campaigns/{campaign_id}/fairplay": "tests/sessions/test_sessions_matrix.py",
    "/fairplay/": "tests/sessions/test_sessions_matrix.py",
    "/api/v1/campaigns/{campaign_id}/scenes": "tests/api/test_maps_matrix.py",
    "/campaigns/{campaign_id}/scenes": "tests/api/test_maps_matrix.py",
    "/campaigns/{campaign_id}/knowledge": "tests/api/test_talk_matrix.py",
}


def _template(path: str) -> str:
    return (
        path.replace("{cid}", "{campaign_id}")
        .replace("{observer_id}", "{user_id}")
        .replace("{player_id}", "{user_id}")
        .split("?")[0]
    )


def test_every_route_is_in_the_matrix(app: FastAPI) -> None:
    covered = {(c.method, _template(c.path)) for c in CASES.values()} | PUBLIC
    missing = []
    for route in api_routes(app):
        if any(route.path.startswith(prefix) for prefix in COVERED_ELSEWHERE):
            continue
        for method in (route.methods or set()) - {"HEAD"}:
            if (method, route.path) not in covered:
                missing.append(f"{method} {route.path}")
    assert not missing, f"routes without a permission matrix entry: {missing}"


async def _values(app: FastAPI, table: Table) -> dict[str, str]:
    async with app.state.ctx.sessionmaker() as session:
        invite_id = await session.scalar(select(Invite.id).where(Invite.code == table.invite_code))
    return {
        "cid": str(table.campaign_id),
        "code": table.invite_code,
        "invite_id": str(invite_id),
        "observer_id": str(table.ids["observer"]),
        "player_id": str(table.ids["player"]),
        "part_id": "999999",
    }


@pytest.mark.parametrize("name", sorted(CASES))
async def test_route_answers_every_role(
    make_client: ClientFactory, app: FastAPI, name: str
) -> None:
    """One table per route; roles go from least to most privileged, so the only changes
    made on the way are a member's own (leaving, logging out) or the GM's, who comes last."""
    case = CASES[name]
    table = await make_table(make_client, app)
    values = await _values(app, table)
    path = case.path.format(**values)
    json = (
        {k: (v.format(**values) if isinstance(v, str) else v) for k, v in case.json.items()}
        if case.json is not None
        else None
    )
    for role in ROLES:
        expected = case.expect[role]
        if expected == STREAM:
            continue  # an endless stream: delivery and filtering are tested in tests/stream
        client = getattr(table, role)
        r = await client.request(
            case.method, path, json=json, data=case.form or None, headers=case.headers
        )
        if expected == LOGIN:
            assert r.status_code == 303, (name, role, r.status_code, r.text[:300])
            assert r.headers["location"].startswith("/login")
        else:
            assert r.status_code == expected, (name, role, r.status_code, r.text[:300])
            if r.status_code == 303:
                assert not r.headers["location"].startswith("/login")
