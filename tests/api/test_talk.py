"""Table talk over the API and the pages: messages, whispers on every channel, inline rolls,
edit window, delete, paging, unread counts, Markdown-lite against XSS, handouts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from html.parser import HTMLParser
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select, update

from app.core.viewer import Role, Viewer
from app.db import utcnow
from app.events.models import CampaignEvent
from app.events.service import project
from app.rules.dice import ScriptedRoller
from app.talk import service
from app.talk.models import ChatMessage
from tests.api.helpers import Table, make_table
from tests.api.regions import element
from tests.api.test_shared_render import statements
from tests.conftest import ClientFactory, register


@dataclass
class TalkTable(Table):
    """The table with a second player, the bystander of whispers."""

    player2: httpx.AsyncClient


@pytest.fixture
async def table(make_client: ClientFactory, app: FastAPI) -> TalkTable:
    """GM, two players (``player``, ``player2``), an observer, an outsider."""
    t = await make_table(make_client, app)
    second = make_client()
    body = await register(second, "player2_user")
    t.ids["player2"] = body["user"]["id"]  # type: ignore[index]
    r = await second.post("/api/v1/campaigns/join", json={"invite_code": t.invite_code})
    assert r.status_code == 200, r.text
    return TalkTable(**vars(t), player2=second)


def url(t: Table, path: str = "") -> str:
    return f"/api/v1/campaigns/{t.campaign_id}/messages{path}"


async def say(client: httpx.AsyncClient, t: Table, **body: Any) -> dict[str, Any]:
    r = await client.post(url(t), json=body)
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


async def texts(client: httpx.AsyncClient, t: Table) -> list[str]:
    r = await client.get(url(t))
    assert r.status_code == 200, r.text
    return [m["text"] for m in r.json()["messages"]]


async def test_out_of_character_in_character_and_emote(table: TalkTable, app: FastAPI) -> None:
    t = table
    r = await t.player.post(
        f"/api/v1/campaigns/{t.campaign_id}/characters", json={"name": "Alrik", "kind": "pc"}
    )
    assert r.status_code == 201, r.text
    alrik = r.json()["id"]
    ooc = await say(t.player, t, text="Pizza kommt gleich")
    assert ooc["kind"] == "ooc" and ooc["author_name"] == "player_user" and not ooc["whisper"]
    ic = await say(t.player, t, text="Halt, wer da?", kind="ic", as_character_id=alrik)
    assert ic["kind"] == "ic" and ic["speaker"] == "Alrik" and ic["character_id"] == alrik
    emote = await say(t.player, t, text="/me zieht sein Schwert", as_character_id=alrik)
    assert emote["kind"] == "emote" and emote["text"] == "zieht sein Schwert"
    assert emote["speaker"] == "Alrik"
    # Another player may not speak as Alrik; the GM may (as any NSC or character).
    r = await t.player2.post(
        url(t), json={"text": "Ich bin Alrik", "kind": "ic", "as_character_id": alrik}
    )
    assert r.status_code == 422 and "as_character_id" in r.json()["errors"]
    r = await t.gm.post(
        f"/api/v1/campaigns/{t.campaign_id}/characters", json={"name": "Wirt", "kind": "npc"}
    )
    wirt = r.json()["id"]
    gm_ic = await say(t.gm, t, text="Noch ein Bier?", kind="ic", as_character_id=wirt)
    assert gm_ic["speaker"] == "Wirt"
    # Each is an event of the log.
    async with app.state.ctx.sessionmaker() as session:
        types = (
            await session.scalars(
                select(CampaignEvent.type).where(CampaignEvent.type == "chat_message")
            )
        ).all()
    assert len(types) == 4
    # The observer reads along but never writes.
    r = await t.observer.post(url(t), json={"text": "Hallo"})
    assert r.status_code == 403
    assert await texts(t.observer, t) == [
        "Pizza kommt gleich",
        "Halt, wer da?",
        "zieht sein Schwert",
        "Noch ein Bier?",
    ]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"text": ""}, "text"),
        ({"text": "   "}, "text"),
        ({"text": "x" * (service.TEXT_MAX + 1)}, "text"),
        ({"text": "hi", "kind": "ic"}, "as_character_id"),
        ({"text": "hi", "to": [999999]}, "to"),
        ({"text": "/w niemand hallo"}, "to"),
        ({"text": "/r 2d1"}, "text"),
    ],
)
async def test_bad_messages_are_refused_at_the_field(
    table: TalkTable, app: FastAPI, body: dict[str, Any], field: str
) -> None:
    r = await table.player.post(url(table), json=body)
    assert r.status_code == 422, r.text
    assert field in r.json()["errors"]
    async with app.state.ctx.sessionmaker() as session:
        assert (await session.scalars(select(ChatMessage))).all() == []


async def test_a_100_kb_message_is_refused(table: TalkTable) -> None:
    r = await table.player.post(url(table), json={"text": "x" * 100_001})
    assert r.status_code == 422
    r = await table.player.post(url(table), json={"text": "x" * 99_000})
    assert r.status_code == 422 and "text" in r.json()["errors"]


async def test_a_whisper_names_members_with_spaces_in_quotes_whatever_the_case(
    table: TalkTable, make_client: ClientFactory
) -> None:
    t = table
    mara = make_client()
    body = await register(mara, "Meisterin Mara")
    r = await mara.post("/api/v1/campaigns/join", json={"invite_code": t.invite_code})
    assert r.status_code == 200, r.text
    sent = await say(t.player, t, text='/w "meisterin MARA",PLAYER2_USER Psst, hinter dir!')
    assert sorted(sent["to"]) == sorted([body["user"]["id"], t.ids["player2"]])  # type: ignore[index]
    assert "Psst, hinter dir!" in await texts(mara, t)
    assert "Psst, hinter dir!" not in await texts(t.observer, t)
    r = await t.player.post(url(t), json={"text": '/w "Meisterin Mara hallo'})
    assert r.status_code == 422  # an open quote: no text, nobody whispered to by accident


async def test_a_whisper_reaches_only_its_recipients_and_the_gm(table: TalkTable) -> None:
    t = table
    secret = "GEHEIMNIS-4711"
    sent = await say(t.player, t, text=f"/w player2_user {secret}")
    assert sent["whisper"] and sent["to"] == [t.ids["player2"]]
    for client in (t.gm, t.player, t.player2):
        assert secret in await texts(client, t)
    assert secret not in await texts(t.observer, t)
    r = await t.outsider.get(url(t))
    assert r.status_code == 404
    # Not in the observer's chat page, nor in their replay of the JSON event stream.
    page = await t.observer.get(f"/campaigns/{t.campaign_id}/chat")
    assert page.status_code == 200 and secret not in page.text
    gm_page = await t.gm.get(f"/campaigns/{t.campaign_id}/chat")
    assert secret in gm_page.text
    campaign_page = await t.observer.get(f"/campaigns/{t.campaign_id}")
    assert secret not in campaign_page.text
    # To the GM only: the GM and the sender.
    to_gm = "NUR-FUER-DIE-SL"
    sent = await say(t.player2, t, text=to_gm, to="gm")
    assert sent["to_gm"] and sent["to"] == []
    assert to_gm in await texts(t.gm, t)
    assert to_gm in await texts(t.player2, t)
    assert to_gm not in await texts(t.player, t)
    assert to_gm not in await texts(t.observer, t)


async def test_each_readers_page_statement_is_built_once(table: TalkTable) -> None:
    """Whose messages a page shows is part of its statement: one per reader (the GMs share
    theirs), built on their first page and used again for the next."""
    t = table
    service._PAGES.clear()
    await say(t.player, t, text="/w player2_user psst")
    for _ in range(2):
        seen = {name: await texts(client, t) for name, client in (
            ("gm", t.gm), ("player", t.player), ("player2", t.player2),
            ("observer", t.observer))}  # fmt: skip
    assert ["psst"] == seen["gm"] == seen["player"] == seen["player2"] != seen["observer"]
    readers = {None, t.ids["player"], t.ids["player2"], t.ids["observer"]}
    assert set(service._PAGES) == {(reader, False) for reader in readers}


async def test_whisper_edits_and_deletions_stay_with_the_whisper(
    table: TalkTable, app: FastAPI
) -> None:
    t = table
    sent = await say(t.player, t, text="erst", to=[t.ids["player2"]])
    r = await t.player.patch(url(t, f"/{sent['id']}"), json={"text": "GEAENDERT-GEHEIM"})
    assert r.status_code == 200, r.text
    assert r.json()["edited"] and r.json()["text"] == "GEAENDERT-GEHEIM"
    assert "GEAENDERT-GEHEIM" not in await texts(t.observer, t)
    assert "GEAENDERT-GEHEIM" in await texts(t.player2, t)
    async with app.state.ctx.sessionmaker() as session:
        events = (
            await session.scalars(
                select(CampaignEvent).where(CampaignEvent.type.like("chat_message%"))
            )
        ).all()
    assert [(e.type, e.visibility) for e in events] == [
        ("chat_message", "listed"),
        ("chat_message_edited", "listed"),
    ]
    assert events[1].payload["before"] == "erst" and events[1].payload["to"] == [t.ids["player2"]]


async def test_edit_window_and_who_may_edit_or_delete(table: TalkTable, app: FastAPI) -> None:
    t = table
    mine = await say(t.player, t, text="Tippfehlr")
    r = await t.player2.patch(url(t, f"/{mine['id']}"), json={"text": "fremd"})
    assert r.status_code == 403
    r = await t.gm.patch(url(t, f"/{mine['id']}"), json={"text": "SL"})
    assert r.status_code == 403  # the GM deletes, but does not put words in mouths
    r = await t.player.patch(url(t, f"/{mine['id']}"), json={"text": "Tippfehler", "version": 9})
    assert r.status_code == 409
    r = await t.player.patch(url(t, f"/{mine['id']}"), json={"text": ""})
    assert r.status_code == 422 and "text" in r.json()["errors"]
    r = await t.player.patch(url(t, f"/{mine['id']}"), json={"text": "Tippfehler", "version": 1})
    assert r.status_code == 200 and r.json()["version"] == 2
    # After the window the author can neither edit nor delete.
    async with app.state.ctx.sessionmaker() as session:
        long_ago = utcnow() - service.EDIT_WINDOW - timedelta(seconds=1)
        await session.execute(
            update(ChatMessage).where(ChatMessage.id == mine["id"]).values(created_at=long_ago)
        )
        await session.commit()
    r = await t.player.patch(url(t, f"/{mine['id']}"), json={"text": "zu spät"})
    assert r.status_code == 403
    assert (await t.player.delete(url(t, f"/{mine['id']}"))).status_code == 403
    # The GM may delete any message at any time; it stays in the chat as deleted.
    assert (await t.gm.delete(url(t, f"/{mine['id']}"))).status_code == 204
    (shown,) = (await t.player2.get(url(t))).json()["messages"]
    assert shown["deleted"] and shown["text"] == "" and shown["html"] == ""
    assert (await t.gm.delete(url(t, f"/{mine['id']}"))).status_code == 409
    page = await t.player2.get(f"/campaigns/{t.campaign_id}/chat")
    assert "Tippfehler" not in page.text and "Nachricht gelöscht." in page.text
    async with app.state.ctx.sessionmaker() as session:
        kinds = (
            await session.scalars(
                select(CampaignEvent.type)
                .where(CampaignEvent.type.like("chat_message%"))
                .order_by(CampaignEvent.seq)
            )
        ).all()
    assert kinds == ["chat_message", "chat_message_edited", "chat_message_deleted"]


async def test_own_delete_within_the_window(table: TalkTable) -> None:
    t = table
    mine = await say(t.player, t, text="Hoppla")
    assert (await t.player2.delete(url(t, f"/{mine['id']}"))).status_code == 403
    assert (await t.player.delete(url(t, f"/{mine['id']}"))).status_code == 204
    assert await texts(t.gm, t) == [""]
    assert (await t.player.patch(url(t, f"/{mine['id']}"), json={"text": "x"})).status_code == 409


async def test_inline_rolls_land_in_the_dice_log_with_their_visibility(
    table: TalkTable, app: FastAPI
) -> None:
    t = table
    app.state.ctx.roller = ScriptedRoller([15, 4, 6])
    public = await say(t.player, t, text="/r 1d20+7 Angriff")
    assert public["kind"] == "roll" and public["roll"]["total"] == 22
    assert public["roll"]["label"] == "Angriff" and public["roll"]["dice"][0]["faces"] == [15]
    secret = await say(t.player, t, text="/gr 2W10 Sinnesschärfe")
    assert secret["visibility"] == "self" and secret["roll"]["total"] == 10
    rolls = f"/api/v1/campaigns/{t.campaign_id}/rolls"
    log = {e["seq"]: e for e in (await t.player2.get(rolls)).json()["rolls"]}
    assert log[public["roll"]["seq"]]["total"] == 22 and not log[public["roll"]["seq"]]["secret"]
    assert log[secret["roll"]["seq"]]["secret"] and "total" not in log[secret["roll"]["seq"]]
    gm_log = {e["seq"]: e for e in (await t.gm.get(rolls)).json()["rolls"]}
    assert gm_log[secret["roll"]["seq"]]["total"] == 10
    assert gm_log[secret["roll"]["seq"]]["label"] == "Sinnesschärfe"
    # In the chat the GM roll reaches the GMs and the roller only.
    other = (await t.player2.get(url(t))).json()["messages"]
    assert [m["kind"] for m in other] == ["roll"]
    assert [m["kind"] for m in (await t.player.get(url(t))).json()["messages"]] == ["roll"] * 2
    assert [m["kind"] for m in (await t.gm.get(url(t))).json()["messages"]] == ["roll"] * 2
    page = await t.player2.get(f"/campaigns/{t.campaign_id}/chat")
    assert "Sinnesschärfe" not in page.text and "Angriff" in page.text


async def test_paging_back_with_before(
    table: TalkTable, app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = table
    monkeypatch.setattr(service, "RATE_LIMIT", 1000)
    for i in range(service.PAGE_SIZE + 5):
        await say(t.gm, t, text=f"Nachricht {i}")
    first = (await t.player.get(url(t))).json()
    assert len(first["messages"]) == service.PAGE_SIZE
    assert first["messages"][-1]["text"] == f"Nachricht {service.PAGE_SIZE + 4}"
    assert first["messages"][0]["text"] == "Nachricht 5"
    second = (await t.player.get(url(t, f"?before={first['next_before']}"))).json()
    assert [m["text"] for m in second["messages"]] == [f"Nachricht {i}" for i in range(5)]
    assert second["next_before"] is None
    page = await t.player.get(f"/campaigns/{t.campaign_id}/chat?before={first['next_before']}")
    assert "Nachricht 4" in page.text and "Nachricht 5<" not in page.text


async def test_rate_limit(table: TalkTable, app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service, "RATE_LIMIT", 3)
    for i in range(3):
        await say(table.player, table, text=f"{i}")
    r = await table.player.post(url(table), json={"text": "noch eine"})
    assert r.status_code == 429 and int(r.headers["retry-after"]) > 0
    # An inline roll over the limit leaves no roll behind either: nothing half-saved.
    r = await table.player.post(url(table), json={"text": "/r 1d20 Wahrnehmung"})
    assert r.status_code == 429
    await say(table.gm, table, text="die SL darf noch")
    assert await texts(table.gm, table) == ["0", "1", "2", "die SL darf noch"]
    async with app.state.ctx.sessionmaker() as session:
        kinds = await session.scalars(
            select(CampaignEvent.type).where(CampaignEvent.campaign_id == table.campaign_id)
        )
        assert "roll" not in set(kinds)
    # Messages older than the window no longer count.
    async with app.state.ctx.sessionmaker() as session:
        await session.execute(
            update(ChatMessage)
            .where(ChatMessage.campaign_id == table.campaign_id)
            .values(created_at=utcnow() - service.RATE_WINDOW - timedelta(seconds=1))
        )
        await session.commit()
    await say(table.player, table, text="wieder da")


async def test_a_message_is_checked_against_the_rate_as_it_is_written(
    table: TalkTable, app: FastAPI
) -> None:
    """Issue 29: the rate check is part of the message's INSERT, not a statement before it,
    and on PostgreSQL the message takes its ``seq`` from its event in the append itself: a
    chat line is the sign-in, that INSERT and the append."""
    await say(table.gm, table, text="vorher")
    with statements(app, own_task=True) as sql:
        said = await say(table.player, table, text="eins")
    inserts = [s for s in sql if s.startswith("INSERT INTO chat_message")]
    assert len(inserts) == 1 and "count(*)" in inserts[0], sql
    assert not [s for s in sql if s.startswith("SELECT count(*)")], sql
    # On SQLite the append is its seq, its row and the message's seq, apart.
    appended = 3 if app.state.ctx.engine.dialect.name == "sqlite" else 1
    assert len([s for s in sql if not s.startswith("BEGIN")]) == 2 + appended, sql
    async with app.state.ctx.sessionmaker() as session:
        rows = (await session.execute(select(ChatMessage.id, ChatMessage.seq))).all()
        logged = await session.scalars(
            select(CampaignEvent).where(CampaignEvent.type == "chat_message")
        )
        seq_of = {e.payload["message_id"]: e.seq for e in logged}
    # Every message has its event's seq, the new one too, and so its place in the chat.
    assert {m: seq for m, seq in rows} == seq_of and said["id"] in seq_of
    assert [m["text"] for m in (await table.gm.get(url(table))).json()["messages"]][-2:] == [
        "vorher",
        "eins",
    ]


async def test_unread_counts_per_member(table: TalkTable) -> None:
    t = table
    unread = url(t, "/unread")
    await say(t.gm, t, text="eins")
    await say(t.gm, t, text="zwei")
    await say(t.gm, t, text="nur für player", to=[t.ids["player"]])
    assert (await t.player.get(unread)).json() == {"unread": 3}
    assert (await t.player2.get(unread)).json() == {"unread": 2}
    assert (await t.gm.get(unread)).json() == {"unread": 0}  # one's own do not count
    # Opening the chat page marks it read; so does the API.
    assert (await t.player.get(f"/campaigns/{t.campaign_id}/chat")).status_code == 200
    assert (await t.player.get(unread)).json() == {"unread": 0}
    r = await t.player2.post(url(t, "/read"), json={})
    assert r.json() == {"unread": 0}
    first = (await t.player2.get(url(t, ""))).json()["messages"][0]
    r = await t.player2.post(url(t, "/read"), json={"seq": first["seq"]})
    assert r.json() == {"unread": 0}  # a mark moves forward, never back
    await say(t.player, t, text="drei")
    assert (await t.player2.get(unread)).json() == {"unread": 1}
    assert (await t.player.get(unread)).json() == {"unread": 0}
    badge = await t.player2.get(f"/campaigns/{t.campaign_id}/chat/badge")
    assert 'class="badge unread"' in badge.text and ">1<" in badge.text
    assert (await t.outsider.get(unread)).status_code == 404


XSS = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "[klick](javascript:alert(1))",
    '[x](https://example.com/" onmouseover="alert(1))',
    '**<b onclick="alert(1)">fett</b>**',
    "<a href='https://evil.example'>a</a>",
]


class _Tags(HTMLParser):
    """Every start tag with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def tags_of(html: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Tags()
    parser.feed(html)
    return parser.tags


def assert_harmless(html: str) -> None:
    """Only the tags Markdown-lite makes; links only to http(s), never with handlers."""
    for tag, attrs in tags_of(html):
        assert tag in {"strong", "em", "a", "br"}, (tag, html)
        if tag == "a":
            assert set(attrs) == {"href", "rel", "target"}, html
            assert (attrs["href"] or "").startswith(("https://", "http://")), html
            assert '"' not in (attrs["href"] or ""), html
            assert attrs["rel"] == "noopener nofollow"
        else:
            assert attrs == {}, html


@pytest.mark.parametrize("payload", XSS)
async def test_markdown_lite_never_lets_html_through(table: TalkTable, payload: str) -> None:
    t = table
    sent = await say(t.player, t, text=payload)
    assert_harmless(sent["html"])
    page = await t.gm.get(f"/campaigns/{t.campaign_id}/chat")
    line = element(page.text, f"msg-{sent['id']}")
    said = element(line, "text", name="class")
    assert_harmless(said[said.index(">") + 1 : said.rindex("<")])
    for raw in ("<script>alert", "<img src=x", "<b onclick", "<a href='https://evil"):
        assert raw not in page.text


async def test_markdown_lite_renders_bold_italics_and_safe_links(table: TalkTable) -> None:
    t = table
    sent = await say(t.player, t, text="**Achtung** *leise* [Karte](https://example.com/k?a=1&b=2)")
    assert sent["html"] == (
        "<strong>Achtung</strong> <em>leise</em> "
        '<a href="https://example.com/k?a=1&amp;b=2" rel="noopener nofollow" '
        'target="_blank">Karte</a>'
    )


async def test_handouts_shown_to_chosen_players_or_everyone(table: TalkTable, app: FastAPI) -> None:
    t = table
    base = f"/api/v1/campaigns/{t.campaign_id}/handouts"
    r = await t.player.post(base, json={"title": "Meins"})
    assert r.status_code == 403
    r = await t.gm.post(base, json={"title": ""})
    assert r.status_code == 422 and "title" in r.json()["errors"]
    r = await t.gm.post(base, json={"title": "Brief", "body": "Triff mich um **Mitternacht**."})
    assert r.status_code == 201, r.text
    letter = r.json()["id"]
    assert (await t.player.get(base)).json() == {"handouts": []}
    r = await t.gm.post(f"{base}/{letter}/show", json={"to": [999999]})
    assert r.status_code == 422 and "to" in r.json()["errors"]
    r = await t.gm.post(f"{base}/{letter}/show", json={"to": [t.ids["player"]]})
    assert r.status_code == 200 and r.json()["readers"] == [t.ids["player"]]
    (shown,) = (await t.player.get(base)).json()["handouts"]
    assert shown["title"] == "Brief" and "<strong>Mitternacht</strong>" in shown["html"]
    assert shown["readers"] == []  # players do not learn who else got it
    assert (await t.player2.get(base)).json() == {"handouts": []}
    page = await t.player2.get(f"/campaigns/{t.campaign_id}/chat")
    assert "Mitternacht" not in page.text and "Brief" not in page.text
    r = await t.gm.post(base, json={"title": "Aushang", "body": "Kopfgeld!", "shown_to": "all"})
    assert r.status_code == 201
    assert [h["title"] for h in (await t.observer.get(base)).json()["handouts"]] == ["Aushang"]
    async with app.state.ctx.sessionmaker() as session:
        events = (
            await session.scalars(
                select(CampaignEvent)
                .where(CampaignEvent.type.like("handout%"))
                .order_by(CampaignEvent.seq)
            )
        ).all()
    assert [(e.type, e.visibility, e.payload.get("to")) for e in events] == [
        ("handout_created", "gm", None),
        ("handout_shown", "listed", [t.ids["player"]]),
        ("handout_created", "gm", None),
        ("handout_shown", "public", []),
    ]


async def test_chat_form_without_javascript(table: TalkTable) -> None:
    t = table
    chat = f"/campaigns/{t.campaign_id}/chat"
    r = await t.player.post(chat, data={"text": "Hallo Runde", "kind": "ooc"})
    assert r.status_code == 303 and r.headers["location"] == chat
    r = await t.player.post(chat, data={"text": "Psst", "to": [str(t.ids["player2"])]})
    assert r.status_code == 303
    r = await t.player.post(chat, data={"text": "", "kind": "ooc"})
    assert r.status_code == 422 and 'id="text-error"' in r.text
    r = await t.player.post(chat, data={"text": "zurück", "back": f"/campaigns/{t.campaign_id}"})
    assert r.headers["location"] == f"/campaigns/{t.campaign_id}"
    r = await t.player.post(chat, data={"text": "weg", "back": "https://evil.example/"})
    assert r.headers["location"] == chat
    page = await t.player2.get(chat)
    assert "Hallo Runde" in page.text and "Psst" in page.text
    assert "Psst" not in (await t.observer.get(chat)).text
    mid = (await t.player.get(url(t))).json()["messages"][0]["id"]
    r = await t.player.post(f"{chat}/{mid}/edit", data={"text": "Hallo, Runde!", "version": "1"})
    assert r.status_code == 303
    # Deleting asks first (without JavaScript, a page of its own), then deletes.
    r = await t.player.post(f"{chat}/{mid}/delete")
    assert (
        r.status_code == 200 and "Diese Nachricht löschen?" in r.text and 'name="confirm"' in r.text
    )
    assert "Hallo, Runde!" in (await t.gm.get(chat)).text
    r = await t.player.post(f"{chat}/{mid}/delete", data={"confirm": "1"})
    assert r.status_code == 303
    assert "Hallo, Runde!" not in (await t.gm.get(chat)).text
    # The campaign page shows the chat panel (its newest messages and the form).
    campaign = await t.player2.get(f"/campaigns/{t.campaign_id}")
    assert 'id="talk-panel"' in campaign.text and "Psst" in campaign.text
    assert "Psst" not in (await t.observer.get(f"/campaigns/{t.campaign_id}")).text


async def test_journal_private_group_and_chosen_members(table: TalkTable, app: FastAPI) -> None:
    t = table
    base = f"/api/v1/campaigns/{t.campaign_id}/journal"

    async def titles(client: httpx.AsyncClient) -> list[str]:
        r = await client.get(base)
        assert r.status_code == 200, r.text
        return sorted(n["title"] for n in r.json()["notes"])

    r = await t.player.post(base, json={"title": "Mein Verdacht", "body": "Der Wirt lügt."})
    assert r.status_code == 201 and r.json()["sharing"] == "private"
    private = r.json()
    r = await t.player.post(base, json={"title": "Questliste", "sharing": "group"})
    assert r.status_code == 201
    r = await t.player.post(base, json={"title": "x", "sharing": "listed", "to": [t.ids["gm"]]})
    assert r.status_code == 422 and "sharing" in r.json()["errors"]  # chosen readers: GMs only
    r = await t.gm.post(
        base, json={"title": "Nur für player", "sharing": "listed", "to": [t.ids["player"]]}
    )
    assert r.status_code == 201 and r.json()["readers"] == [t.ids["player"]]
    r = await t.gm.post(base, json={"title": "y", "sharing": "listed", "to": [999999]})
    assert r.status_code == 422 and "to" in r.json()["errors"]
    r = await t.gm.post(base, json={"title": ""})
    assert r.status_code == 422 and "title" in r.json()["errors"]
    assert (await t.observer.post(base, json={"title": "z"})).status_code == 403
    assert await titles(t.player) == ["Mein Verdacht", "Nur für player", "Questliste"]
    assert await titles(t.gm) == ["Nur für player", "Questliste"]  # private is private
    assert await titles(t.player2) == ["Questliste"]
    assert await titles(t.observer) == ["Questliste"]
    # Sharing a private note later: then it is an event to its readers.
    r = await t.player.patch(
        f"{base}/{private['id']}",
        json={"title": "Mein Verdacht", "body": "Der Wirt lügt.", "sharing": "group", "version": 1},
    )
    assert r.status_code == 200, r.text
    assert "Mein Verdacht" in await titles(t.gm)
    r = await t.player2.patch(f"{base}/{private['id']}", json={"title": "fremd"})
    assert r.status_code == 403  # they read it (the group's), only its author and GMs change it
    r = await t.player.patch(f"{base}/{private['id']}", json={"title": "alt", "version": 1})
    assert r.status_code == 409
    async with app.state.ctx.sessionmaker() as session:
        events = (
            await session.scalars(
                select(CampaignEvent)
                .where(CampaignEvent.type == "journal_note_shared")
                .order_by(CampaignEvent.seq)
            )
        ).all()
    assert [(e.payload["title"], e.visibility) for e in events] == [
        ("Questliste", "public"),
        ("Nur für player", "listed"),
        ("Mein Verdacht", "public"),
    ]
    page = await t.player2.get(f"/campaigns/{t.campaign_id}/journal")
    assert "Questliste" in page.text and "Nur für player" not in page.text
    r = await t.player2.post(
        f"/campaigns/{t.campaign_id}/journal", data={"title": "Notiz", "sharing": "private"}
    )
    assert r.status_code == 303
    r = await t.player2.post(f"/campaigns/{t.campaign_id}/journal", data={"title": ""})
    assert r.status_code == 422 and 'id="title-error"' in r.text


async def test_a_gm_deleting_a_whisper_tells_exactly_its_readers(
    table: TalkTable, app: FastAPI
) -> None:
    t = table
    sent = await say(t.player, t, text="psst", to=[t.ids["player2"]])
    assert (await t.gm.delete(url(t, f"/{sent['id']}"))).status_code == 204
    async with app.state.ctx.sessionmaker() as session:
        deleted = await session.scalar(
            select(CampaignEvent).where(CampaignEvent.type == "chat_message_deleted")
        )
    assert deleted is not None and deleted.actor_id == t.ids["gm"]
    seen = {
        role: bool(project([deleted], Viewer(t.ids[role], role, Role(kind))))
        for role, kind in (
            ("gm", "gm"),
            ("player", "player"),
            ("player2", "player"),
            ("observer", "observer"),
        )
    }
    assert seen == {"gm": True, "player": True, "player2": True, "observer": False}


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/messages", {"text": "Al\x00rik"}, "text"),
        ("/handouts", {"title": "Brief", "body": "Al\x00rik"}, "body"),
        ("/handouts", {"title": "Br\u202eief"}, "title"),
        ("/journal", {"title": "Notiz", "body": "Al\x00rik"}, "body"),
        ("/journal", {"title": "No\u200btiz"}, "title"),
    ],
)
async def test_nul_and_invisible_characters_are_refused_at_the_field(
    table: TalkTable, path: str, body: dict[str, Any], field: str
) -> None:
    r = await table.gm.post(f"/api/v1/campaigns/{table.campaign_id}{path}", json=body)
    assert r.status_code == 422, r.text
    assert field in r.json()["errors"]
