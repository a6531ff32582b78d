"""Printouts (issue 30): every sheet kind, the empty sheets for the table, monster cards,
initiative lists and handouts as A4 PDFs, holding exactly what the viewer may read."""

from __future__ import annotations

import io

import httpx
import pytest
from fastapi import FastAPI
from PIL import Image
from pypdf import PdfReader

from app.characters.sheets import TEXT_MAX
from app.characters.systems.registry import SYSTEMS
from app.i18n import gettext, set_locale
from app.printing.document import PAGES_MAX, Document, Text, TooLong, render
from app.talk.handouts import BODY_MAX
from tests.api.helpers import Table, make_table
from tests.conftest import ClientFactory

A4_POINTS = (595.28, 841.89)
TROLL = {
    "monsterstufe": 14, "gefahr": "hoch", "lp": 61, "rs": 3, "verteidigung": 9,
    "unbeugsamkeit": 14, "resistenzen": {"Feuer": "vulnerable"}, "waffe": "Keule",
}  # fmt: skip


def base(t: Table) -> str:
    return f"/api/v1/campaigns/{t.campaign_id}"


def pdf_of(r: httpx.Response) -> PdfReader:
    """The answer's PDF, checked to be one on A4 portrait."""
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/pdf"
    reader = PdfReader(io.BytesIO(r.content))
    for page in reader.pages:
        size = (float(page.mediabox.width), float(page.mediabox.height))
        assert size == pytest.approx(A4_POINTS, abs=0.5)
    return reader


def text_of(reader: PdfReader) -> str:
    return "\n".join(page.extract_text() for page in reader.pages)


async def character(t: Table, client: httpx.AsyncClient, name: str, **extra: object) -> int:
    r = await client.post(f"{base(t)}/characters", json={"name": name, **extra})
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


@pytest.mark.parametrize("system", sorted(SYSTEMS))
async def test_each_sheet_prints_with_its_values_in_german(
    make_client: ClientFactory, app: FastAPI, system: str
) -> None:
    t = await make_table(make_client, app, system)
    cid = await character(t, t.player, "Alrike Großfeld")
    spec = next(s for s in SYSTEMS[system].fields("pc") if s.kind == "int" and s.maximum)
    value = max(spec.minimum or 0, 1) + 1
    r = await t.player.get(f"{base(t)}/characters/{cid}")
    r = await t.player.patch(
        f"{base(t)}/characters/{cid}",
        json={"version": r.json()["version"], "changes": {spec.key: value}},
    )
    assert r.status_code == 200, r.text
    r = await t.player.post(f"{base(t)}/characters/{cid}/items", json={"name": "Ahnenschwert"})
    assert r.status_code == 201, r.text

    for client in (t.player, t.gm, t.observer):
        reader = pdf_of(await client.get(f"{base(t)}/characters/{cid}/sheet.pdf"))
        assert 1 <= len(reader.pages) <= 4
        text = text_of(reader)
        assert "Alrike Großfeld" in text and "Spielercharakter" in text
        assert f"{spec.label} {value}" in text
        assert "Ahnenschwert" in text
        assert "rucksack" not in text  # where it is, in words, not as a stored key
        for german in ("Abgeleitete Werte", "Gegenstände", "Seite 1 von", "Die Nordmark"):
            assert german in text
        # A printout has no navigation and no buttons.
        for ui in ("Abmelden", "Speichern", "Würfeln"):
            assert ui not in text


@pytest.mark.parametrize("system", sorted(SYSTEMS))
@pytest.mark.parametrize("kind", ["pc", "npc"])
async def test_empty_sheets_for_the_table(
    make_client: ClientFactory, app: FastAPI, system: str, kind: str
) -> None:
    client = make_client()
    url = f"/api/v1/systems/{system}/sheet.pdf?kind={kind}"
    assert (await client.get(url)).status_code in (303, 401)
    t = await make_table(make_client, app, system)
    text = text_of(pdf_of(await t.outsider.get(url)))
    set_locale("de")
    labels = [gettext(s.label) for s in SYSTEMS[system].fields(kind) if s.kind in ("int", "text")]
    for label in labels[:5]:
        assert label in text
    assert "Name: ____" in text and "Notizen" in text
    assert "Nichtspielercharakter" in text if kind == "npc" else "Spielercharakter" in text
    assert " nein" not in text  # an empty flag is left blank, not printed as "no"
    assert (await t.gm.get(f"/api/v1/systems/{system}/sheet.pdf?kind=x")).status_code == 422
    assert (await t.gm.get("/api/v1/systems/gurps/sheet.pdf")).status_code == 422


async def test_who_may_read_may_print(make_client: ClientFactory, app: FastAPI) -> None:
    t = await make_table(make_client, app, "hh")
    pc = await character(t, t.player, "Alrike")
    secret = await character(t, t.gm, "Der Verräter", kind="npc", hidden_from_players=True)
    r = await t.gm.post(f"{base(t)}/bestiary", json={"name": "Höhlentroll", "data": TROLL})
    entry = r.json()["id"]
    r = await t.gm.post(f"{base(t)}/encounters", json={"name": "Höhle"})
    encounter = r.json()["id"]
    r = await t.gm.post(
        f"{base(t)}/handouts",
        json={"title": "Brief", "body": "Um **Mitternacht** [hier](https://example.org/weg)"},
    )
    letter = r.json()["id"]
    expected = {
        f"characters/{pc}/sheet.pdf": (200, 200, 200, 404),
        f"characters/{secret}/sheet.pdf": (200, 404, 404, 404),
        f"bestiary/{entry}/card.pdf": (200, 404, 404, 404),
        f"encounters/{encounter}/initiative.pdf": (200, 403, 403, 404),
        f"handouts/{letter}/handout.pdf": (200, 404, 404, 404),
        "characters/999999/sheet.pdf": (404, 404, 404, 404),
    }
    clients = (t.gm, t.player, t.observer, t.outsider)
    for path, statuses in expected.items():
        got = tuple([(await c.get(f"{base(t)}/{path}")).status_code for c in clients])
        assert got == statuses, path
        assert (await t.anonymous.get(f"{base(t)}/{path}")).status_code in (303, 401)
    # Shown to the player: they print it, the observer still does not.
    r = await t.gm.post(f"{base(t)}/handouts/{letter}/show", json={"to": [t.ids["player"]]})
    assert r.status_code == 200, r.text
    text = text_of(pdf_of(await t.player.get(f"{base(t)}/handouts/{letter}/handout.pdf")))
    assert "Brief" in text and "Um Mitternacht hier (https://example.org/weg)" in text
    assert "**" not in text and "[" not in text  # the text, not its markup
    assert (await t.observer.get(f"{base(t)}/handouts/{letter}/handout.pdf")).status_code == 404


async def test_a_players_monster_card_holds_only_what_the_heroes_know(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "hh")
    r = await t.gm.post(f"{base(t)}/bestiary", json={"name": "Höhlentroll", "data": TROLL})
    url = f"{base(t)}/bestiary/{r.json()['id']}/card.pdf"
    r = await t.gm.post(
        url.replace("card.pdf", "reveal"), json={"facts": ["res:Feuer", "lp"], "to": "party"}
    )
    assert r.status_code == 200, r.text
    for client in (t.player, t.observer):
        text = text_of(pdf_of(await client.get(url)))
        assert "LP ~60" in text and "verwundbar gegen Feuer" in text
        assert "Unbekannte Kreatur" in text and "Monsterkarte" in text
        for secret in ("Höhlentroll", "61", "Keule", "RS 3"):
            assert secret not in text
    gm = text_of(pdf_of(await t.gm.get(url)))
    assert "Höhlentroll" in gm and "Keule" in gm and "der Gruppe" in gm


async def test_the_initiative_list_names_every_fighter_in_order(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "hh")
    hero = await character(t, t.player, "Alrike")
    r = await t.gm.post(f"{base(t)}/bestiary", json={"name": "Höhlentroll", "data": TROLL})
    entry = r.json()["id"]
    r = await t.gm.post(f"{base(t)}/encounters", json={"name": "Höhle am Fluss"})
    enc = r.json()["id"]
    for body in ({"character_id": hero}, {"entry_id": entry, "count": 1, "hidden": True}):
        r = await t.gm.post(f"{base(t)}/encounters/{enc}/participants", json=body)
        assert r.status_code == 201, r.text
    r = await t.gm.post(f"{base(t)}/encounters/{enc}/actions/start", json={})
    assert r.status_code == 200, r.text
    reader = pdf_of(await t.gm.get(f"{base(t)}/encounters/{enc}/initiative.pdf"))
    text = text_of(reader)
    assert len(reader.pages) == 1
    assert "Höhle am Fluss" in text and "Initiativeliste" in text and "Runde 1" in text
    assert "Alrike" in text and "Höhlentroll" in text and "(verborgen)" in text
    order = (await t.gm.get(f"{base(t)}/encounters/{enc}")).json()
    names = [p["name"] for p in order["participants"]]
    assert [text.index(n) for n in names] == sorted(text.index(n) for n in names)


async def test_a_long_handout_breaks_into_pages_with_its_picture(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "ds4")
    paragraph = "Die Karte zeigt den Weg über den Pass zur alten Feste. " * 9
    body = "\n\n".join([paragraph] * 60)[:BODY_MAX]
    r = await t.gm.post(
        f"{base(t)}/handouts", json={"title": "Reisebericht", "body": body, "shown_to": "all"}
    )
    assert r.status_code == 201, r.text
    hid = r.json()["id"]
    png = io.BytesIO()
    Image.new("RGB", (400, 300), (30, 90, 160)).save(png, format="PNG")
    r = await t.gm.post(
        f"{base(t)}/handouts/{hid}/image",
        files={"image": ("karte.png", png.getvalue(), "image/png")},
    )
    assert r.status_code == 200, r.text
    reader = pdf_of(await t.observer.get(f"{base(t)}/handouts/{hid}/handout.pdf"))
    assert 4 <= len(reader.pages) <= PAGES_MAX
    assert len(reader.pages[0].images) == 1
    text = text_of(reader)
    assert text.count("alten Feste") == body.count("alten Feste")
    last = reader.pages[-1].extract_text()
    assert f"Seite {len(reader.pages)} von {len(reader.pages)}" in last


def test_a_printout_past_the_page_limit_is_refused() -> None:
    """Nothing a user can store prints this long today; the bound holds if that changes."""
    lines = "\n\n".join(f"Zeile {n}" for n in range(PAGES_MAX * 60))
    with pytest.raises(TooLong) as refused:
        render(Document("Zu lang", "", "", [Text("", lines)]))
    assert refused.value.status_code == 422 and "30" in refused.value.fields["document"]


async def test_a_user_who_chose_english_prints_in_english(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "ds4")
    cid = await character(t, t.player, "Alrike")
    r = await t.player.post("/language", data={"locale": "en", "next": "/campaigns"})
    assert r.status_code == 303, r.text
    english = text_of(pdf_of(await t.player.get(f"{base(t)}/characters/{cid}/sheet.pdf")))
    for label in ("Derived values", "Items", "Player character", "Printed on", "Page 1 of"):
        assert label in english
    assert "Gedruckt" not in english and "Seite 1 von" not in english
    # German stays the default for everyone else.
    german = text_of(pdf_of(await t.gm.get(f"{base(t)}/characters/{cid}/sheet.pdf")))
    assert "Gedruckt am" in german


async def test_a_sheet_with_the_longest_texts_prints_whole(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "hh")
    cid = await character(t, t.player, "Alrike")
    talents = [f"Talent{n:04d}" for n in range(TEXT_MAX // 12)]
    r = await t.player.get(f"{base(t)}/characters/{cid}")
    r = await t.player.patch(
        f"{base(t)}/characters/{cid}",
        json={"version": r.json()["version"], "changes": {"talents": "\n".join(talents)}},
    )
    assert r.status_code == 200, r.text
    reader = pdf_of(await t.player.get(f"{base(t)}/characters/{cid}/sheet.pdf"))
    assert 2 <= len(reader.pages) <= PAGES_MAX
    text = text_of(reader)
    assert all(name in text for name in talents)
