"""Every game-session and fair-play route × (anonymous, non-member, observer, player, GM).

The routes of ``app/sessions`` (``COVERED_ELSEWHERE`` of the main matrix points here); a new
one without an entry fails ``test_every_sessions_route_is_in_the_matrix``. The session the
routes act on is a running fair-play session the GM started (for the routes that start one
or change the rule, none is running)."""

from __future__ import annotations

import pytest
from fastapi import FastAPI

from tests.api.helpers import api_routes, make_table
from tests.api.test_permission_matrix import (
    COVERED_ELSEWHERE,
    LOGIN,
    ROLES,
    Case,
    _members,
    _template,
)
from tests.conftest import ClientFactory

API = "/api/v1/campaigns/{cid}"
PAGE = "/campaigns/{cid}"
MEMBERS = _members(404, 200, 200, 200, 401)
MEMBERS_PAGE = _members(404, 200, 200, 200, LOGIN)
GM_ONLY = _members(404, 403, 403, 200, 401)
GM_ONLY_FORM = _members(404, 403, 403, 303, LOGIN)
RULE = {"enabled": True, "overrides": "marked", "reveal_secret_rolls": True}

CASES: dict[str, Case] = {
    "api_configure": Case("PUT", f"{API}/fairplay", GM_ONLY, json=RULE),
    "api_rule": Case("GET", f"{API}/fairplay", MEMBERS),
    "api_start": Case("POST", f"{API}/sessions", _members(404, 403, 403, 201, 401)),
    "api_sessions": Case("GET", f"{API}/sessions", MEMBERS),
    "api_end": Case("POST", f"{API}/sessions/{{sid}}/end", GM_ONLY),
    "api_seed": Case(
        "PUT",
        f"{API}/sessions/{{sid}}/seed",
        _members(404, 200, 200, 200, 401),
        json={"client_seed": "abc"},
    ),
    "api_fairplay": Case("GET", f"{API}/sessions/{{sid}}/fairplay", MEMBERS),
    "api_export": Case("GET", f"{API}/sessions/{{sid}}/export?format=md", MEMBERS),
    "sessions_page": Case("GET", f"{PAGE}/sessions", MEMBERS_PAGE),
    "start": Case("POST", f"{PAGE}/sessions", GM_ONLY_FORM),
    "end": Case("POST", f"{PAGE}/sessions/{{sid}}/end", GM_ONLY_FORM),
    "seed": Case(
        "POST",
        f"{PAGE}/sessions/{{sid}}/seed",
        _members(404, 303, 303, 303, LOGIN),
        form={"client_seed": "abc"},
    ),
    "configure": Case("POST", f"{PAGE}/fairplay", GM_ONLY_FORM, form={"enabled": "true"}),
    "verify_page": Case("GET", f"{PAGE}/sessions/{{sid}}/verify", MEMBERS_PAGE),
    "verifier": Case("GET", "/fairplay/verify_fairplay.py", _members(200, 200, 200, 200, 200)),
}
#: Cases that need no running session (they start one or change the rule).
WITHOUT_SESSION = frozenset({"api_configure", "api_start", "start", "configure"})
PREFIXES = [
    p for p, where in COVERED_ELSEWHERE.items() if where.endswith("test_sessions_matrix.py")
]


def test_every_sessions_route_is_in_the_matrix(app: FastAPI) -> None:
    covered = {
        (c.method, _template(c.path).replace("{sid}", "{session_id}")) for c in CASES.values()
    }
    missing = [
        f"{method} {route.path}"
        for route in api_routes(app)
        if any(route.path.startswith(prefix) for prefix in PREFIXES)
        for method in (route.methods or set()) - {"HEAD"}
        if (method, route.path) not in covered
    ]
    assert PREFIXES and not missing, f"session routes without a matrix entry: {missing}"


@pytest.mark.parametrize("name", sorted(CASES))
async def test_sessions_route_answers_every_role(
    make_client: ClientFactory, app: FastAPI, name: str
) -> None:
    case = CASES[name]
    table = await make_table(make_client, app)
    api = f"/api/v1/campaigns/{table.campaign_id}"
    sid = 0
    if name not in WITHOUT_SESSION:
        assert (await table.gm.put(f"{api}/fairplay", json=RULE)).status_code == 200
        r = await table.gm.post(f"{api}/sessions")
        assert r.status_code == 201, r.text
        sid = r.json()["id"]
    path = case.path.format(cid=table.campaign_id, sid=sid)
    for role in ROLES:
        expected = case.expect[role]
        client = getattr(table, role)
        response = await client.request(
            case.method, path, json=case.json, data=case.form or None, headers=case.headers
        )
        if expected == LOGIN:
            assert response.status_code == 303, (name, role, response.status_code)
            assert response.headers["location"].startswith("/login")
        else:
            assert response.status_code == expected, (
                name, role, response.status_code, response.text[:300],
            )  # fmt: skip
