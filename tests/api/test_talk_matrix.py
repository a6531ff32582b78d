"""Every table-talk route × (anonymous, non-member, observer, player, GM).

The routes of ``app/talk`` (``COVERED_ELSEWHERE`` of the main matrix points here); a new
one without an entry fails ``test_every_talk_route_is_in_the_matrix``. The message and the
handout the routes act on are the GM's.
"""

from __future__ import annotations

import pytest
from fastapi import FastAPI

from tests.api.helpers import api_routes, make_table
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

API = "/api/v1/campaigns/{cid}"
PAGE = "/campaigns/{cid}"
MEMBERS = _members(404, 200, 200, 200, 401)
MEMBERS_PAGE = _members(404, 200, 200, 200, LOGIN)
GM_ONLY = _members(404, 403, 403, 200, 401)
GM_ONLY_FORM = _members(404, 403, 403, 303, LOGIN)

CASES: dict[str, Case] = {
    "api_send": Case(
        "POST", f"{API}/messages", _members(404, 403, 201, 201, 401), json={"text": "Hallo"}
    ),
    "api_messages": Case("GET", f"{API}/messages", MEMBERS),
    "api_unread": Case("GET", f"{API}/messages/unread", MEMBERS),
    "api_mark_read": Case("POST", f"{API}/messages/read", MEMBERS, json={}),
    "api_edit": Case("PATCH", f"{API}/messages/{{mid}}", GM_ONLY, json={"text": "neu"}),
    "api_delete": Case("DELETE", f"{API}/messages/{{mid}}", _members(404, 403, 403, 204, 401)),
    "api_create_handout": Case(
        "POST", f"{API}/handouts", _members(404, 403, 403, 201, 401), json={"title": "Brief"}
    ),
    "api_handouts": Case("GET", f"{API}/handouts", MEMBERS),
    "api_show_handout": Case("POST", f"{API}/handouts/{{hid}}/show", GM_ONLY, json={"to": "all"}),
    # Not shown yet: the GMs' alone (tests/api/test_print.py prints a shown one).
    "api_handout_pdf": Case(
        "GET", f"{API}/handouts/{{hid}}/handout.pdf", _members(404, 404, 404, 200, 401)
    ),
    "chat": Case("GET", f"{PAGE}/chat", MEMBERS_PAGE),
    "send": Case("POST", f"{PAGE}/chat", _members(404, 403, 303, 303, LOGIN), form={"text": "Hi"}),
    "edit": Case("POST", f"{PAGE}/chat/{{mid}}/edit", GM_ONLY_FORM, form={"text": "neu"}),
    "delete": Case("POST", f"{PAGE}/chat/{{mid}}/delete", GM_ONLY_FORM, form={"confirm": "1"}),
    "ask_delete": Case("POST", f"{PAGE}/chat/{{mid}}/delete", _members(404, 403, 403, 200, LOGIN)),
    "live": Case("GET", f"{PAGE}/chat/live", {**MEMBERS_PAGE, **dict.fromkeys(ROLES[2:], STREAM)}),
    "badge": Case("GET", f"{PAGE}/chat/badge", MEMBERS_PAGE),
    "handouts_page": Case("GET", f"{PAGE}/handouts", MEMBERS_PAGE),
    "create_handout": Case("POST", f"{PAGE}/handouts", GM_ONLY_FORM, form={"title": "Brief"}),
    "show_handout": Case("POST", f"{PAGE}/handouts/{{hid}}/show", GM_ONLY_FORM, form={"to": "all"}),
    "api_write_note": Case(
        "POST", f"{API}/journal", _members(404, 403, 201, 201, 401), json={"title": "Notiz"}
    ),
    "api_notes": Case("GET", f"{API}/journal", MEMBERS),
    "api_update_note": Case(
        "PATCH", f"{API}/journal/{{nid}}", _members(404, 403, 404, 200, 401), json={"title": "Neu"}
    ),
    # The note ({nid}) is the GM's private one: a player does not know it (404).
    "api_delete_note": Case("DELETE", f"{API}/journal/{{nid}}", _members(404, 403, 404, 204, 401)),
    "edit_note": Case(
        "POST", f"{PAGE}/journal/{{nid}}", _members(404, 403, 404, 303, LOGIN),
        form={"title": "Neu"},
    ),
    "note_quest": Case(
        "POST", f"{PAGE}/journal/{{nid}}/quest", _members(404, 403, 404, 303, LOGIN),
        form={"quest": "done"},
    ),
    "delete_note": Case(
        "POST", f"{PAGE}/journal/{{nid}}/delete", _members(404, 403, 404, 303, LOGIN),
        form={"confirm": "1"},
    ),
    "ask_delete_note": Case(
        "POST", f"{PAGE}/journal/{{nid}}/delete", _members(404, 403, 404, 200, LOGIN)
    ),
    "journal": Case("GET", f"{PAGE}/journal", MEMBERS_PAGE),
    "write_note": Case(
        "POST", f"{PAGE}/journal", _members(404, 403, 303, 303, LOGIN), form={"title": "Notiz"}
    ),
    # What the heroes know: the entry ({eid}) has its LP revealed to the group.
    "api_knowledge": Case("GET", f"{API}/bestiary/{{eid}}/knowledge", MEMBERS),
    "api_reveal": Case(
        "POST", f"{API}/bestiary/{{eid}}/reveal", GM_ONLY, json={"facts": ["rs"]}
    ),
    "api_confirm": Case(
        "POST", f"{API}/bestiary/{{eid}}/knowledge/999999/confirm",
        _members(404, 403, 403, 404, 401), json={},
    ),
    "knowledge_page": Case("GET", f"{PAGE}/knowledge", MEMBERS_PAGE),
    "knowledge_check": Case(
        "POST", f"{PAGE}/knowledge/check", _members(404, 422, 422, 422, LOGIN), form={"check": ""}
    ),
    "reveal_facts": Case(
        "POST", f"{PAGE}/knowledge/{{eid}}/reveal", GM_ONLY_FORM, form={"facts": "rs"}
    ),
    "confirm_fact": Case(
        "POST", f"{PAGE}/knowledge/{{eid}}/facts/999999/confirm",
        _members(404, 403, 403, 404, LOGIN), form={"text": "falsch"},
    ),
}  # fmt: skip
#: Routes whose every role is tested with a file upload in ``tests/api/test_handout_images.py``.
UPLOADS = {
    ("POST", "/api/v1/campaigns/{campaign_id}/handouts/{handout_id}/image"),
    ("POST", "/campaigns/{campaign_id}/handouts/{handout_id}/image"),
    ("GET", "/campaigns/{campaign_id}/handouts/{handout_id}/image"),
}
PREFIXES = [p for p, where in COVERED_ELSEWHERE.items() if where.endswith("test_talk_matrix.py")]


def test_every_talk_route_is_in_the_matrix(app: FastAPI) -> None:
    covered = {
        (
            c.method,
            _template(c.path)
            .replace("{mid}", "{message_id}")
            .replace("{hid}", "{handout_id}")
            .replace("{nid}", "{note_id}")
            .replace("{eid}", "{entry_id}")
            .replace("/999999/", "/{fact_id}/"),
        )
        for c in CASES.values()
    } | UPLOADS
    missing = [
        f"{method} {route.path}"
        for route in api_routes(app)
        if any(route.path.startswith(prefix) for prefix in PREFIXES)
        for method in (route.methods or set()) - {"HEAD"}
        if (method, route.path) not in covered
    ]
    assert not missing, f"talk routes without a matrix entry: {missing}"


@pytest.mark.parametrize("name", sorted(CASES))
async def test_talk_route_answers_every_role(
    make_client: ClientFactory, app: FastAPI, name: str
) -> None:
    case = CASES[name]
    table = await make_table(make_client, app)
    api = f"/api/v1/campaigns/{table.campaign_id}"
    r = await table.gm.post(f"{api}/messages", json={"text": "Die SL spricht"})
    assert r.status_code == 201, r.text
    r2 = await table.gm.post(f"{api}/handouts", json={"title": "Karte"})
    assert r2.status_code == 201, r2.text
    r3 = await table.gm.post(f"{api}/journal", json={"title": "SL-Notiz"})
    assert r3.status_code == 201, r3.text
    r4 = await table.gm.post(f"{api}/bestiary", json={"name": "Troll", "data": {}})
    assert r4.status_code == 201, r4.text
    r5 = await table.gm.post(f"{api}/bestiary/{r4.json()['id']}/reveal", json={"facts": ["lp"]})
    assert r5.status_code == 200, r5.text
    values = {
        "eid": r4.json()["id"],
        "cid": table.campaign_id,
        "mid": r.json()["id"],
        "hid": r2.json()["id"],
        "nid": r3.json()["id"],
    }
    path = case.path.format(**values)
    for role in ROLES:
        expected = case.expect[role]
        if expected == STREAM:
            continue  # an endless stream: tested in tests/stream/test_talk_stream.py
        client = getattr(table, role)
        response = await client.request(
            case.method, path, json=case.json, data=case.form or None, headers=case.headers
        )
        if expected == LOGIN:
            assert response.status_code == 303, (name, role, response.status_code)
            assert response.headers["location"].startswith("/login")
        else:
            assert response.status_code == expected, (
                name,
                role,
                response.status_code,
                response.text[:300],
            )
