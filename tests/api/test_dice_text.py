"""Dice read as text by screen readers (issue 14): faces, dropped dice and totals carry their
meaning in the text (visually hidden where the eye does not need it), never in an
``aria-label`` on a ``span`` or ``strong`` that screen readers ignore or read instead."""

from __future__ import annotations

import re

from fastapi import FastAPI

from app.rules.dice import ScriptedRoller
from tests.api.helpers import make_table
from tests.conftest import ClientFactory

TAG = re.compile(r"<[^>]+>")


def spoken(html: str) -> str:
    """The entry's text as a screen reader gets it (tags out, whitespace collapsed)."""
    return " ".join(TAG.sub(" ", html).split())


async def test_a_roll_entry_reads_as_numbers_with_their_meaning(
    make_client: ClientFactory, app: FastAPI
) -> None:
    table = await make_table(make_client, app)
    app.state.ctx.roller = ScriptedRoller([5, 16])
    r = await table.gm.post(
        f"/api/v1/campaigns/{table.campaign_id}/rolls", json={"expression": "2d20kh1+3"}
    )
    assert r.status_code == 201, r.text
    seq = r.json()["event_id"]
    page = (await table.player.get(f"/campaigns/{table.campaign_id}")).text
    start = page.index(f'id="roll-{seq}"')
    entry = page[start : page.index("</li>", start)]
    assert "aria-label" not in entry
    assert "Würfel: [ 5 (verworfen) , 16] + 3 Summe = 19" in spoken(entry)
