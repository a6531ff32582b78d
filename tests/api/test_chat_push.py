"""A chat line's live push on the campaign page reads the line, not the page's chat panel.

The chat region has a ``load`` for the full page (its panel: the newest twenty messages, the
members, the speakers, the handouts). A push renders only the lines its events are about
(``app.talk.live.push_chat``), so the region is registered without ``load_on_push``
(``app.web.regions.Region``): the panel is not read again for every viewer of every line.
A new line is rendered from its event, a changed one from its row; viewers woken by one line
read what they need once together and share its render where their controls (edit, delete)
are the same.
"""

from __future__ import annotations

import asyncio

import pytest
from fastapi import FastAPI

import app.talk.live as talk_live
from app.campaigns.live import CAMPAIGN_PAGE
from app.campaigns.views import CampaignPage
from app.events.service import project
from tests.api.helpers import make_table
from tests.api.regions import counted_renders, element, events_after, last_seq, pushed, viewer
from tests.api.test_shared_render import statements
from tests.conftest import ClientFactory

HTMX = {"HX-Request": "true"}


async def test_a_chat_line_is_pushed_without_reading_the_chat_panel(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    cid = t.campaign_id
    url = f"/api/v1/campaigns/{cid}/messages"
    for i in range(3):  # a panel with lines in it, read by the page
        assert (await t.gm.post(url, json={"text": f"Zeile {i}"})).status_code == 201
    after = await last_seq(app, cid)
    r = await t.player.post(url, json={"text": "Ich öffne die Tür."})
    assert r.status_code == 201, r.text
    line_id = r.json()["id"]
    key = CampaignPage(cid)
    for name, role in (("gm", "gm"), ("player", "player"), ("observer", "observer")):
        member = viewer(t.ids[name], f"{name}_user", role)
        with statements(app, mine=True) as seen:
            (message,) = await pushed(app, CAMPAIGN_PAGE, key, member, cid, after)
        client = getattr(t, name)
        page = (await client.get(f"/campaigns/{cid}")).text
        # The pushed line is the line the viewer's page shows ...
        assert message.event == "chat"
        line = f"msg-{line_id}"
        assert element(message.data, line) == element(page, line)
        # ... told by its event: nothing is read but the events (read here by `pushed`), not
        # even the campaign's row (no region of this push renders from the page's context).
        assert [s for s in seen if s.startswith("SELECT")] == [
            s for s in seen if s.startswith("SELECT campaign_event.")
        ], seen
    # A changed line is read as its row is now: once.
    r = await t.player.patch(f"{url}/{line_id}", json={"text": "Ich öffne die Tür leise."})
    assert r.status_code == 200, r.text
    after = await last_seq(app, cid) - 1
    with statements(app, mine=True) as seen:
        (message,) = await pushed(app, CAMPAIGN_PAGE, key, viewer(t.ids["gm"], "gm_user", "gm"),
                                  cid, after)  # fmt: skip
    page = (await t.gm.get(f"/campaigns/{cid}")).text
    assert element(message.data, f"msg-{line_id}") == element(page, f"msg-{line_id}")
    assert "leise" in message.data
    assert len([s for s in seen if s.startswith("SELECT chat_message.")]) == 1, seen


@pytest.mark.parametrize(("author", "renders"), [("player", 3), ("gm", 2)])
async def test_viewers_woken_by_one_line_read_it_once_and_share_its_render(
    make_client: ClientFactory, app: FastAPI, monkeypatch: pytest.MonkeyPatch, author: str,
    renders: int,
) -> None:  # fmt: skip
    t = await make_table(make_client, app)
    cid = t.campaign_id
    after = await last_seq(app, cid)
    client = getattr(t, author)
    r = await client.post(f"/api/v1/campaigns/{cid}/messages", json={"text": "Wer kommt mit?"})
    assert r.status_code == 201, r.text
    line = f"msg-{r.json()['id']}"
    events = await events_after(app, cid, after)
    names = ("gm", "player", "observer")
    people = [viewer(t.ids[name], f"{name}_user", name) for name in names]
    made = counted_renders(monkeypatch, talk_live, "render_macro")
    render = CAMPAIGN_PAGE.stream(CampaignPage(cid))
    sessions = app.state.ctx.read_sessions
    with statements(app, mine=True) as seen:
        # As streams woken by one notification: the same event objects, at once.
        out = await asyncio.gather(*(render(sessions, v, project(events, v)) for v in people))
    selects = [s for s in seen if s.startswith("SELECT")]
    # However many watch, nothing is read: the line is its event.
    assert selects == []
    # One render per set of controls: the author edits and deletes, a GM deletes, the
    # others only read (a GM's own line: the GM, and one render for player and observer).
    assert len(made) == renders, made
    for name, messages in zip(names, out, strict=True):
        (message,) = messages
        page = (await getattr(t, name).get(f"/campaigns/{cid}")).text
        assert element(message.data, line) == element(page, line), name


async def test_a_whisper_is_pushed_to_its_readers_with_their_names_read_once(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    cid = t.campaign_id
    after = await last_seq(app, cid)
    body = {"text": "Hinter dir!", "to": [t.ids["player"]]}
    r = await t.gm.post(f"/api/v1/campaigns/{cid}/messages", json=body)
    assert r.status_code == 201, r.text
    line = f"msg-{r.json()['id']}"
    events = await events_after(app, cid, after)
    names = ("gm", "player", "observer")
    people = [viewer(t.ids[name], f"{name}_user", name) for name in names]
    render = CAMPAIGN_PAGE.stream(CampaignPage(cid))
    sessions = app.state.ctx.read_sessions
    with statements(app, mine=True) as seen:
        out = await asyncio.gather(*(render(sessions, v, project(events, v)) for v in people))
    selects = [s for s in seen if s.startswith("SELECT")]
    # The recipients' names, once for both readers; the observer's stream gets nothing.
    assert len([s for s in selects if "FROM membership" in s]) == 1, selects
    assert not [s for s in selects if "FROM chat_" in s], selects
    assert out[2] == []
    for name, messages in zip(names[:2], out[:2], strict=True):
        (message,) = messages
        page = (await getattr(t, name).get(f"/campaigns/{cid}")).text
        assert element(message.data, line) == element(page, line), name
        assert "player_user" in element(message.data, line), "the whisper names its reader"
    assert line not in (await t.observer.get(f"/campaigns/{cid}")).text


async def test_the_page_reads_recipients_only_for_the_whispers_it_shows(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    cid = t.campaign_id
    r = await t.player.post(f"/api/v1/campaigns/{cid}/messages", json={"text": "Hallo"})
    assert r.status_code == 201, r.text

    async def page_reads(client_name: str) -> tuple[str, list[str]]:
        with statements(app, own_task=True) as seen:
            page = (await getattr(t, client_name).get(f"/campaigns/{cid}")).text
        return page, [s for s in seen if "FROM chat_recipient" in s]

    assert (await page_reads("player"))[1] == []  # no whisper: no recipients read
    body = {"text": "Hinter dir!", "to": [t.ids["player"]]}
    r = await t.gm.post(f"/api/v1/campaigns/{cid}/messages", json=body)
    assert r.status_code == 201, r.text
    line = f"msg-{r.json()['id']}"
    page, reads = await page_reads("player")
    assert len(reads) == 1 and "player_user" in element(page, line)
    page, reads = await page_reads("observer")  # the whisper is not on its page
    assert reads == [] and line not in page


async def test_pages_and_pushes_share_a_lines_render_per_set_of_controls(
    make_client: ClientFactory, app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = await make_table(make_client, app)
    cid = t.campaign_id
    after = await last_seq(app, cid)
    r = await t.player.post(f"/api/v1/campaigns/{cid}/messages", json={"text": "Wer da?"})
    assert r.status_code == 201, r.text
    line = f"msg-{r.json()['id']}"
    events = await events_after(app, cid, after)
    made = counted_renders(monkeypatch, talk_live, "render_macro")
    # The GM's stream renders the new line (the GM may delete it), the GM's page and the
    # chat page reuse it; the observer (who may do neither) gets a render of their own.
    gm = viewer(t.ids["gm"], "gm_user", "gm")
    render = CAMPAIGN_PAGE.stream(CampaignPage(cid))
    (pushed_line,) = await render(app.state.ctx.read_sessions, gm, project(events, gm))
    campaign_page = (await t.gm.get(f"/campaigns/{cid}")).text
    chat_page = (await t.gm.get(f"/campaigns/{cid}/chat")).text
    assert len(made) == 1, made
    assert element(pushed_line.data, line) == element(campaign_page, line)
    assert element(chat_page, line) == element(campaign_page, line)
    observer_page = (await t.observer.get(f"/campaigns/{cid}")).text
    assert len(made) == 2 and "Löschen" not in element(observer_page, line)
    # An edit is a new version: rendered anew, and every page shows it.
    r = await t.player.patch(
        f"/api/v1/campaigns/{cid}/messages/{line[4:]}", json={"text": "Wer ist da?", "version": 1}
    )
    assert r.status_code == 200, r.text
    assert "Wer ist da?" in element((await t.observer.get(f"/campaigns/{cid}")).text, line)
    assert len(made) == 3


async def test_the_chat_form_answers_itself_without_the_chat_panel(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """Sent from the campaign page (HTMX), the chat form comes back alone with its choices
    (whom to speak as, whom to whisper to) and the kind kept; the line itself arrives live,
    so the chat's lines and the handouts around the form are not read for it."""
    t = await make_table(make_client, app)
    cid = t.campaign_id
    r = await t.player.post(f"/api/v1/campaigns/{cid}/characters", json={"name": "Alrik"})
    assert r.status_code == 201, r.text
    alrik = str(r.json()["id"])
    for i in range(3):  # a chat with lines the page would show
        r = await t.gm.post(f"/api/v1/campaigns/{cid}/messages", json={"text": f"Zeile {i}"})
        assert r.status_code == 201, r.text
    form = {"text": "Ich öffne die Tür.", "kind": "ic", "as_character_id": alrik,
            "back": f"/campaigns/{cid}"}  # fmt: skip
    with statements(app, own_task=True) as seen:
        r = await t.player.post(f"/campaigns/{cid}/chat", data=form, headers=HTMX)
    assert r.status_code == 200, r.text
    assert r.text.lstrip().startswith('<form id="chat-form"')
    assert 'name="idempotency_key"' in r.text  # a fresh key for the next line
    assert f'<option value="{alrik}" selected>Alrik</option>' in r.text
    assert ">gm_user</option>" in r.text
    assert ">player_user</option>" not in r.text  # nobody whispers to themselves
    assert '<option value="ic" selected>' in r.text
    assert f'name="back" value="/campaigns/{cid}"' in r.text
    assert "Zeile" not in r.text and "Ich öffne" not in r.text
    reads = [s for s in seen if s.startswith("SELECT")]
    assert not [s for s in reads if s.startswith(("SELECT chat_message.", "SELECT handout."))]
    page = (await t.player.get(f"/campaigns/{cid}")).text
    assert "Ich öffne die Tür." in page
