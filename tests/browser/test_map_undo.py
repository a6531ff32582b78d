"""Issue 27, «Movement lives in the fight», in the browser: Alice drags her token on her
turn; the GM, on the combat page (its board beside the controls), undoes the move with the
undo button; the token goes back on both screens live, and Alice walks again."""

from __future__ import annotations

import pytest

from tests.browser.flows import wait_live
from tests.browser.test_map import Table, at, drag, until_turn
from tests.browser.test_map import table as table  # the fixture: the map's table
from tests.browser.world import ok

pytestmark = pytest.mark.browser


def test_the_gms_undo_puts_the_moved_token_back_on_every_screen(table: Table) -> None:
    t = table
    ids = t.tokens
    until_turn(t.gm.request, t.encounter_api, "Alrik")
    alice, gm = t.alice.new_page(), t.gm.new_page()
    alice.goto(t.scene_url)
    gm.goto(t.encounter_api.replace("/api/v1", ""))
    for page in (alice, gm):
        wait_live(page)
    drag(alice, ids["Alrik"], 3, 1)
    for page in (alice, gm):
        at(page, ids["Alrik"], 3, 1)
    # The move is the fight's last step: the GM's undo (its controls refreshed live) takes
    # it back.
    gm.locator("#undo").click()
    for page in (alice, gm):
        at(page, ids["Alrik"], 1, 1)
    assert ok(t.gm.request.get(t.encounter_api))["turn"]["name"] == "Alrik"
    # The movement is Alice's again: she walks the same way once more.
    drag(alice, ids["Alrik"], 3, 1)
    for page in (alice, gm):
        at(page, ids["Alrik"], 3, 1)
