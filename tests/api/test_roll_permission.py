"""Who may roll from a sheet: one rule for the odds, the roll dialog and the roll (issue 20, L6)."""

from __future__ import annotations

from fastapi import FastAPI

from tests.api.test_characters import create, make_table
from tests.conftest import ClientFactory

TARGET = "skill:Kampfkunst"


async def test_odds_dialog_and_roll_answer_every_role_alike(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    c = await create(t)
    api = f"{t.api}/characters/{c['id']}"
    html = f"/campaigns/{t.campaign_id}/characters/{c['id']}"
    expected = {"gm": 200, "player": 200, "player2": 403, "observer": 403, "outsider": 404}
    for role, status in expected.items():
        odds = await t[role].post(f"{api}/odds", json={"target": TARGET})
        dialog = await t[role].get(f"{html}/roll", params={"target": TARGET})
        assert (role, odds.status_code, dialog.status_code) == (role, status, status), odds.text
        rolled = await t[role].post(f"{api}/roll", json={"target": TARGET})
        assert rolled.status_code == (201 if status == 200 else status), (role, rolled.text)
        if status == 200:
            assert odds.json()["headline"] and 'id="roll-dialog"' in dialog.text
        # The sheet page offers the dialog only to those the dialog answers.
        page = await t[role].get(html, params={"roll": TARGET})
        assert ('id="sheet-roll-form"' in page.text) == (status == 200), role
