"""Every battle map route × (anonymous, non-member, observer, player, GM).

The routes of ``app/maps`` (``COVERED_ELSEWHERE`` of the main matrix points here); a new
one without an entry fails ``test_every_map_route_is_in_the_matrix``. The scene and the
token the routes act on are the GM's.
"""

from __future__ import annotations

import pytest
from fastapi import FastAPI

from tests.api.helpers import api_routes, make_table
from tests.api.test_maps import png
from tests.api.test_permission_matrix import (
    COVERED_ELSEWHERE,
    LOGIN,
    ROLES,
    STREAM,
    Case,
    _members,
    _template,
)
from tests.conftest import ClientFactory

API = "/api/v1/campaigns/{cid}/scenes"
PAGE = "/campaigns/{cid}/scenes"
MEMBERS = _members(404, 200, 200, 200, 401)
MEMBERS_PAGE = _members(404, 200, 200, 200, LOGIN)
GM_ONLY = _members(404, 403, 403, 200, 401)
GM_ONLY_FORM = _members(404, 403, 403, 303, LOGIN)

CASES: dict[str, Case] = {
    "api_create": Case(
        "POST", API, _members(404, 403, 403, 201, 401), json={"name": "K", "cols": 4, "rows": 4}
    ),
    "api_list": Case("GET", API, MEMBERS),
    "api_show": Case("GET", f"{API}/{{sid}}", MEMBERS),
    "api_view_as": Case("GET", f"{API}/{{sid}}/view?as=999999", _members(404, 403, 403, 422, 401)),
    "api_update": Case("PATCH", f"{API}/{{sid}}", GM_ONLY, json={"name": "Neu"}),
    "api_delete": Case("DELETE", f"{API}/{{sid}}", _members(404, 403, 403, 204, 401)),
    "api_background": Case("PUT", f"{API}/{{sid}}/background", GM_ONLY),
    "api_get_background": Case("GET", f"{API}/{{sid}}/background", MEMBERS),
    "api_walls": Case("PUT", f"{API}/{{sid}}/walls", GM_ONLY, json={"segments": [[0, 0, 0, 1]]}),
    "api_fog": Case("POST", f"{API}/{{sid}}/fog", GM_ONLY, json={"reveal": [[0, 0]]}),
    "api_add_token": Case(
        "POST", f"{API}/{{sid}}/tokens", _members(404, 403, 403, 201, 401), json={"x": 1, "y": 1}
    ),
    "api_change_token": Case(
        "PATCH", f"{API}/{{sid}}/tokens/{{tid}}", GM_ONLY, json={"label": "Kiste"}
    ),
    "api_remove_token": Case(
        "DELETE", f"{API}/{{sid}}/tokens/{{tid}}", _members(404, 403, 403, 204, 401)
    ),
    "api_move": Case(
        "POST",
        f"{API}/{{sid}}/tokens/{{tid}}/move",
        _members(404, 403, 422, 200, 401),
        json={"to": [2, 2]},
    ),
    "api_portrait": Case("PUT", f"{API}/{{sid}}/tokens/{{tid}}/portrait", GM_ONLY),
    "api_get_portrait": Case("GET", f"{API}/{{sid}}/tokens/{{tid}}/portrait", MEMBERS),
    "api_delete_portrait": Case("DELETE", f"{API}/{{sid}}/tokens/{{tid}}/portrait", GM_ONLY),
    "api_pointer": Case(
        "POST",
        f"{API}/{{sid}}/pointer",
        _members(404, 403, 200, 200, 401),
        json={"kind": "ruler", "cells": [[0, 0], [3, 1]]},
    ),
    "api_place": Case("POST", f"{API}/{{sid}}/place", _members(404, 403, 403, 422, 401), json={}),
    "api_attack": Case(
        "GET", f"{API}/{{sid}}/attack?attacker=1&target=2", _members(404, 422, 422, 422, 401)
    ),
    "api_add_light": Case(
        "POST",
        f"{API}/{{sid}}/lights",
        _members(404, 403, 403, 201, 401),
        json={"x": 1, "y": 1, "radius": 2},
    ),
    "api_remove_light": Case(
        "DELETE", f"{API}/{{sid}}/lights/{{x}}/{{y}}", _members(404, 403, 403, 422, 401)
    ),
    "api_zones": Case("GET", f"{API}/{{sid}}/zones", MEMBERS),
    "api_reach": Case(
        "GET", f"{API}/{{sid}}/tokens/{{tid}}/reach", _members(404, 403, 422, 200, 401)
    ),
    "api_distance": Case("GET", f"{API}/{{sid}}/distance?from=0,0&to=3,1", MEMBERS),
    "index": Case("GET", PAGE, MEMBERS_PAGE),
    "create": Case("POST", PAGE, GM_ONLY_FORM, form={"name": "Neu", "cols": "4", "rows": "4"}),
    "scene": Case("GET", f"{PAGE}/{{sid}}", MEMBERS_PAGE),
    "live": Case(
        "GET", f"{PAGE}/{{sid}}/live", {**MEMBERS_PAGE, **dict.fromkeys(ROLES[2:], STREAM)}
    ),
    "move": Case(
        "POST",
        f"{PAGE}/{{sid}}/move",
        _members(404, 403, 422, 303, LOGIN),
        form={"token_id": "{tid}", "x": "2", "y": "2"},
    ),
    "background": Case("POST", f"{PAGE}/{{sid}}/background", GM_ONLY_FORM),
    "portrait": Case("POST", f"{PAGE}/{{sid}}/portrait", GM_ONLY_FORM, form={"token_id": "{tid}"}),
    "place_token": Case(
        "POST", f"{PAGE}/{{sid}}/tokens", GM_ONLY_FORM, form={"label": "Kiste", "x": "1", "y": "1"}
    ),
    "link": Case("POST", f"{PAGE}/{{sid}}/link", GM_ONLY_FORM, form={"encounter_id": "0"}),
    "place": Case("POST", f"{PAGE}/{{sid}}/place", _members(404, 403, 403, 422, LOGIN)),
    "fog": Case("POST", f"{PAGE}/{{sid}}/fog", GM_ONLY_FORM, form={"action": "reveal"}),
    "walls": Case("POST", f"{PAGE}/{{sid}}/walls", GM_ONLY_FORM, form={"segments": "0,0,0,1"}),
    "grid": Case("POST", f"{PAGE}/{{sid}}/grid", GM_ONLY_FORM, form={"cell_px": "40"}),
    "add_light": Case(
        "POST", f"{PAGE}/{{sid}}/lights", GM_ONLY_FORM, form={"x": "1", "y": "1", "radius": "2"}
    ),
    "remove_light": Case(
        "POST",
        f"{PAGE}/{{sid}}/lights/remove",
        _members(404, 403, 403, 422, LOGIN),
        form={"cell": "1,1"},
    ),
    "token_light": Case(
        "POST",
        f"{PAGE}/{{sid}}/token-light",
        GM_ONLY_FORM,
        form={"token_id": "{tid}", "radius": "3"},
    ),
}
PREFIXES = [p for p, where in COVERED_ELSEWHERE.items() if where.endswith("test_maps_matrix.py")]


def test_every_map_route_is_in_the_matrix(app: FastAPI) -> None:
    covered = {
        (
            c.method,
            _template(c.path.split("?")[0])
            .replace("{sid}", "{scene_id}")
            .replace("{tid}", "{token_id}"),
        )
        for c in CASES.values()
    }
    missing = [
        f"{method} {route.path}"
        for route in api_routes(app)
        if any(route.path.startswith(prefix) for prefix in PREFIXES)
        for method in (route.methods or set()) - {"HEAD"}
        if (method, route.path) not in covered
    ]
    assert not missing, f"map routes without a matrix entry: {missing}"


@pytest.mark.parametrize("name", sorted(CASES))
async def test_map_route_answers_every_role(
    make_client: ClientFactory, app: FastAPI, name: str
) -> None:
    case = CASES[name]
    table = await make_table(make_client, app)
    api = f"/api/v1/campaigns/{table.campaign_id}/scenes"
    r = await table.gm.post(api, json={"name": "Gewölbe", "cols": 5, "rows": 5, "shown": True})
    assert r.status_code == 201, r.text
    sid = r.json()["id"]
    r2 = await table.gm.post(f"{api}/{sid}/tokens", json={"x": 0, "y": 0, "label": "Fass"})
    assert r2.status_code == 201, r2.text
    r3 = await table.gm.put(
        f"{api}/{sid}/background", files={"file": ("a.png", png(), "image/png")}
    )
    assert r3.status_code == 200, r3.text
    r4 = await table.gm.put(
        f"{api}/{sid}/tokens/{r2.json()['id']}/portrait",
        files={"file": ("a.png", png(), "image/png")},
    )
    assert r4.status_code == 200, r4.text
    values = {"cid": table.campaign_id, "sid": sid, "tid": r2.json()["id"], "x": 1, "y": 1}
    path = case.path.format(**values)
    form = {k: v.format(**values) for k, v in case.form.items()}
    for role in ROLES:
        expected = case.expect[role]
        if expected == STREAM:
            continue
        client = getattr(table, role)
        upload = name in ("api_background", "background", "api_portrait", "portrait")
        files = {"file": ("a.png", png(), "image/png")} if upload else None
        response = await client.request(
            case.method, path, json=case.json, data=form or None, headers=case.headers,
            files=files,
        )  # fmt: skip
        if expected == LOGIN:
            assert response.status_code == 303, (name, role, response.status_code)
            assert response.headers["location"].startswith("/login")
        else:
            assert response.status_code == expected, (
                name, role, response.status_code, response.text[:300],
            )  # fmt: skip
