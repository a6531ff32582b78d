"""The member routes answer a caller who may not manage members the same way whoever the
target is: a member, someone outside the campaign, or no one at all (issue 20, M2)."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from tests.api.helpers import make_table
from tests.conftest import ClientFactory

ROUTES = (
    ("role", {"role": "player"}),
    ("role", {"role": "bogus"}),
    ("remove", None),
    ("transfer-gm", None),
)


async def _answer(
    client: httpx.AsyncClient, url: str, data: dict[str, str] | None
) -> tuple[int, str]:
    """Status and the page's main content (the head carries a fresh CSP nonce each time)."""
    r = await client.post(url, data=data)
    return r.status_code, r.text.split("<main", 1)[-1]


@pytest.mark.parametrize(("verb", "data"), ROUTES)
async def test_member_routes_are_no_membership_oracle(
    make_client: ClientFactory, app: FastAPI, verb: str, data: dict[str, str] | None
) -> None:
    table = await make_table(make_client, app)
    cid = table.campaign_id
    targets = {
        "a member": table.ids["observer"],
        "the GM": table.ids["gm"],
        "a stranger": table.ids["outsider"],
        "nobody": 999_999,
    }
    for caller, status in ((table.outsider, 404), (table.observer, 403)):
        answers = {
            who: await _answer(caller, f"/campaigns/{cid}/members/{uid}/{verb}", data)
            for who, uid in targets.items()
        }
        assert {a[0] for a in answers.values()} == {status}, answers
        assert len({a[1] for a in answers.values()}) == 1, answers
