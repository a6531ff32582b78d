"""The bestiary form: rows of inputs for resistances, spells and Strikes (never JSON), one more
row without JavaScript, every typed value kept on an error, each message at its field."""

from __future__ import annotations

import re

from fastapi import FastAPI
from sqlalchemy import select

from app.encounters.models import BestiaryEntry
from tests.api.helpers import make_table
from tests.conftest import ClientFactory


def _value(html: str, dom_id: str) -> str:
    found = re.search(rf'id="{re.escape(dom_id)}" name="[^"]*" value="([^"]*)"', html)
    assert found, dom_id
    return found.group(1)


async def _stored(app: FastAPI, name: str) -> BestiaryEntry:
    async with app.state.ctx.sessionmaker() as session:
        entry = await session.scalar(select(BestiaryEntry).where(BestiaryEntry.name == name))
        assert entry is not None
        return entry  # type: ignore[no-any-return]


async def test_hh_entry_with_rows_round_trip(make_client: ClientFactory, app: FastAPI) -> None:
    t = await make_table(make_client, app, "hh")
    url = f"/campaigns/{t.campaign_id}/bestiary"
    page = (await t.gm.get(url)).text
    assert "JSON" not in page
    assert 'name="zauber-0-name"' in page and 'name="resistenzen-0-type"' in page
    # One more spell row, without saving: the typed values stay.
    form = {"name": "Eisschrat", "lp": "30", "zauber-0-name": "Frosthauch",
            "zauber-0-grade": "B", "zauber-0-focus": "1", "zauber-0-range": "10",
            "zauber-0-schaden_w": "6", "resistenzen-0-type": "Kälte",
            "resistenzen-0-kind": "immune", "_more": "zauber"}  # fmt: skip
    r = await t.gm.post(url, data=form)
    assert r.status_code == 200, r.text
    assert _value(r.text, "nb-name") == "Eisschrat" and _value(r.text, "nb-lp") == "30"
    assert _value(r.text, "nb-zauber-0-name") == "Frosthauch"
    assert _value(r.text, "nb-zauber-1-name") == ""
    assert _value(r.text, "nb-resistenzen-0-type") == "Kälte"
    # A mistake in the second spell and in LP: nothing saved, everything kept, messages in
    # words at their fields.
    form |= {"_more": "", "lp": "zwanzig", "zauber-1-name": "Frosthauch", "zauber-1-range": "9"}
    r = await t.gm.post(url, data=form)
    assert r.status_code == 422, r.text
    assert "JSON" not in r.text and "Etwas ist schiefgegangen" not in r.text
    assert _value(r.text, "nb-lp") == "zwanzig"
    assert _value(r.text, "nb-zauber-1-name") == "Frosthauch"
    assert re.search(r'id="nb-lp-error" role="alert">[^<]*Zahl', r.text)
    assert 'aria-describedby="nb-lp-error"' in r.text
    assert 'id="nb-zauber-1-error"' in r.text
    # Fixed (the duplicate spell removed by its box): saved with structured values.
    form |= {"lp": "30", "zauber-1-remove": "on"}
    r = await t.gm.post(url, data=form)
    assert r.status_code == 303, r.text
    entry = await _stored(app, "Eisschrat")
    assert entry.data["lp"] == 30 and entry.data["resistenzen"] == {"Kälte": "immune"}
    spells = entry.data["zauber"]
    assert isinstance(spells, list)
    (spell,) = spells
    assert (
        spell["name"] == "Frosthauch" and spell["schaden_w"] == 6 and spell["key"] == "frosthauch"
    )
    # The stored entry's form shows its rows; an error there keeps that form open as typed.
    edit = f"{url}/{entry.id}"
    page = (await t.gm.get(url)).text
    assert _value(page, f"b-{entry.id}-zauber-0-name") == "Frosthauch"
    bad = {"version": str(entry.version), "name": "Eisschrat", "zauber-0-name": "Frosthauch"}
    r = await t.gm.post(edit, data={**bad, "zauber-0-grade": "X"})
    assert r.status_code == 422, r.text
    assert re.search(r"<details open><summary><strong>Eisschrat", r.text)
    assert f'id="b-{entry.id}-zauber-0-error"' in r.text


async def test_pf2e_strikes_as_rows(make_client: ClientFactory, app: FastAPI) -> None:
    t = await make_table(make_client, app, "pf2e")
    url = f"/campaigns/{t.campaign_id}/bestiary"
    form = {"name": "Ork", "tp": "20", "angriffe-0-name": "Axt", "angriffe-0-bonus": "7",
            "angriffe-0-schaden": "1W8+3", "angriffe-1-name": "Bogen", "angriffe-1-bonus": "5",
            "angriffe-1-schaden": "1W6", "angriffe-1-fernkampf": "on",
            "angriffe-1-entfernung": "18"}  # fmt: skip
    r = await t.gm.post(url, data={**form, "angriffe-0-schaden": "viel"})
    assert r.status_code == 422
    assert _value(r.text, "nb-angriffe-0-schaden") == "viel"
    assert 'id="nb-angriffe-0-error"' in r.text and "1W6+2" in r.text
    r = await t.gm.post(url, data=form)
    assert r.status_code == 303, r.text
    strikes = (await _stored(app, "Ork")).data["angriffe"]
    assert isinstance(strikes, list)
    assert [s["name"] for s in strikes] == ["Axt", "Bogen"]
    assert strikes[1]["fernkampf"] is True and strikes[1]["entfernung"] == 18
    assert strikes[0]["agil"] is False
