"""Issue 31, item 16: notes and quests are changed in the browser — the author edits and
deletes their own notes, the GM shared notes and the group's quests (open → erledigt or
gescheitert); a player's private note stays theirs alone."""

from __future__ import annotations

import re

from fastapi import FastAPI
from sqlalchemy import select

from app.events.models import CampaignEvent
from tests.api.helpers import Table, make_table
from tests.conftest import ClientFactory


async def _group_quest(t: Table) -> dict[str, object]:
    api = f"/api/v1/campaigns/{t.campaign_id}/journal"
    body = {"title": "Der verschwundene Müller", "body": "Im Moor?", "sharing": "group",
            "quest": "open"}  # fmt: skip
    r = await t.player.post(api, json=body)
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


async def test_the_gm_marks_a_players_group_quest_done_edits_and_deletes_it(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    quest = await _group_quest(t)
    journal = f"/campaigns/{t.campaign_id}/journal"
    note = f"{journal}/{quest['id']}"
    html = (await t.gm.get(journal)).text
    assert f'action="{note}/quest"' in html and f'id="note-{quest["id"]}-quest-done"' in html
    r = await t.gm.post(f"{note}/quest", data={"quest": "done", "version": "1"})
    assert r.status_code == 303, r.text
    assert "Queste: erledigt" in (await t.player.get(journal)).text
    form = {"title": "Der Müller ist zurück", "body": "Er war im Moor.", "sharing": "group",
            "quest": "failed", "version": "2"}  # fmt: skip
    r = await t.gm.post(note, data=form)
    assert r.status_code == 303, r.text
    shown = (await t.player.get(f"/api/v1{journal}")).json()["notes"][0]
    assert (shown["title"], shown["quest"]) == ("Der Müller ist zurück", "failed")
    # A stale form: 409, nothing changed.
    r = await t.gm.post(note, data={**form, "title": "Alt", "version": "2"})
    assert r.status_code == 409
    # Without JavaScript the delete asks first; then the note is gone for its readers.
    r = await t.gm.post(f"{note}/delete", data={"version": "3"})
    assert r.status_code == 200 and "Diese Notiz löschen?" in r.text
    r = await t.gm.post(f"{note}/delete", data={"version": "3", "confirm": "1"})
    assert r.status_code == 303, r.text
    assert (await t.player.get(f"/api/v1{journal}")).json()["notes"] == []
    async with app.state.ctx.sessionmaker() as session:
        types = (await session.scalars(select(CampaignEvent.type))).all()
    assert "journal_note_deleted" in types


async def test_a_players_private_note_is_theirs_alone_and_others_get_no_controls(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    api = f"/api/v1/campaigns/{t.campaign_id}/journal"
    journal = f"/campaigns/{t.campaign_id}/journal"
    r = await t.player.post(api, json={"title": "Rache", "quest": "open"})
    private = r.json()
    body = {"title": "Vergeben", "sharing": "group", "quest": "done"}
    assert (await t.gm.patch(f"{api}/{private['id']}", json=body)).status_code == 404
    assert (await t.gm.delete(f"{api}/{private['id']}")).status_code == 404
    r = await t.gm.post(f"{journal}/{private['id']}/quest", data={"quest": "done"})
    assert r.status_code == 404
    # The author: edit form, status buttons and delete on their own note.
    html = (await t.player.get(journal)).text
    assert f'id="note-{private["id"]}-edit"' in html
    r = await t.player.post(f"{journal}/{private['id']}/quest", data={"quest": "failed"})
    assert r.status_code == 303
    assert (await t.player.get(api)).json()["notes"][0]["quest"] == "failed"
    # A group quest: the observer reads it, but neither changes nor sees a control.
    quest = await _group_quest(t)
    html = (await t.observer.get(journal)).text
    assert "Der verschwundene Müller" in html
    assert not re.search(rf'id="note-{quest["id"]}-(edit|delete|quest-done)"', html)
    r = await t.observer.patch(f"{api}/{quest['id']}", json=body)
    assert r.status_code == 403
    # The GM may not turn a player's shared note into a private one (of the player's).
    r = await t.gm.patch(f"{api}/{quest['id']}", json={**body, "sharing": "private"})
    assert r.status_code == 422 and "sharing" in r.json()["errors"]
    # A refused edit form comes back open with the typed values and the message.
    r = await t.gm.post(
        f"{journal}/{quest['id']}", data={"title": "", "sharing": "group", "quest": "open"}
    )
    assert r.status_code == 422
    assert re.search(r'<details class="note-edit" open', r.text) and 'id="title-error"' in r.text
    r = await t.player.delete(f"{api}/{quest['id']}")
    assert r.status_code == 204
    assert [n["title"] for n in (await t.gm.get(api)).json()["notes"]] == []
