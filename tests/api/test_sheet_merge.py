"""Two open views of one sheet: edits of different fields both survive; the same field changed
in both shows both values and lets the user choose; validation does not depend on the order
in which fields were filled, and a fixed error does not stay on screen."""

from __future__ import annotations

from html.parser import HTMLParser

import httpx
from fastapi import FastAPI

from tests.api.helpers import make_table
from tests.conftest import ClientFactory

HTMX = {"HX-Request": "true"}


class _Form(HTMLParser):
    """The values the sheet form would post, as a browser builds them (last value wins)."""

    def __init__(self) -> None:
        super().__init__()
        self.inside = False
        self.values: dict[str, str] = {}
        self._textarea: str | None = None
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and a.get("id") == "sheet-form":
            self.inside = True
        if not self.inside or "name" not in a:
            if tag == "option" and self._select and "selected" in a:
                self.values[self._select] = a.get("value", "")
            return
        if tag == "input" and a.get("type") not in ("checkbox", "submit"):
            self.values[a["name"]] = a.get("value", "")
        elif tag == "input" and "checked" in a:
            self.values[a["name"]] = "on"
        elif tag == "textarea":
            self._textarea = a["name"]
            self.values[a["name"]] = ""
        elif tag == "select":
            self._select = a["name"]

    def handle_data(self, data: str) -> None:
        if self._textarea:
            self.values[self._textarea] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.inside = False
        elif tag == "textarea":
            self._textarea = None
        elif tag == "select":
            self._select = None


async def _form(client: httpx.AsyncClient, url: str) -> dict[str, str]:
    parser = _Form()
    parser.feed((await client.get(url)).text)
    assert "_base.lp" in parser.values and "lp" in parser.values
    return parser.values


async def _sheet(t_api: str, client: httpx.AsyncClient, cid: str) -> dict[str, object]:
    return (await client.get(f"{t_api}/characters/{cid}")).json()["data"]  # type: ignore[no-any-return]


async def test_two_views_merge_per_field(make_client: ClientFactory, app: FastAPI) -> None:
    t = await make_table(make_client, app, "hh")
    api = f"/api/v1/campaigns/{t.campaign_id}"
    alrik = (await t.player.post(f"{api}/characters", json={"name": "Alrik"})).json()
    cid = str(alrik["id"])
    url = f"/campaigns/{t.campaign_id}/characters/{cid}"
    await t.player.post(url, data={"lp_max": "20", "lp": "20", "_base.lp": "x"})
    phone, desktop = await _form(t.player, url), await _form(t.player, url)
    # The phone saves LP (the whole form, plain); the desktop, opened before, saves XP.
    r = await t.player.post(url, data={**phone, "lp": "14"})
    assert r.status_code == 303, r.text
    r = await t.player.post(url, data={**desktop, "xp": "250"})
    assert r.status_code == 303, r.text
    data = await _sheet(api, t.player, cid)
    assert data["lp"] == 14 and data["xp"] == 250

    # Both change LP: the second is told both values and chooses.
    r = await t.player.post(url, data={**desktop, "xp": "250", "lp": "9", "talents": "Klettern"})
    assert r.status_code == 200, r.text
    assert "„14“" in r.text and "„9“" in r.text and 'value="9"' in r.text
    data = await _sheet(api, t.player, cid)
    assert data["lp"] == 14 and data["talents"] == ["Klettern"]  # the other change is saved
    again = _Form()
    again.feed(r.text)
    assert again.values["_base.lp"] == "14" and again.values["lp"] == "9"
    # "Take 14" keeps theirs; "Save" would have kept mine.
    r = await t.player.post(url, data={**again.values, "_take": "lp"})
    assert r.status_code == 303 and (await _sheet(api, t.player, cid))["lp"] == 14
    r = await t.player.post(url, data=again.values)
    assert r.status_code == 303 and (await _sheet(api, t.player, cid))["lp"] == 9


async def test_validation_does_not_depend_on_the_order_of_fields(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app, "hh")
    api = f"/api/v1/campaigns/{t.campaign_id}"
    alrik = (await t.player.post(f"{api}/characters", json={"name": "Alrik"})).json()
    cid = str(alrik["id"])
    url = f"/campaigns/{t.campaign_id}/characters/{cid}"
    await t.player.post(url, data={"lp_max": "20", "lp": "20", "_base.lp": "x"})
    form = await _form(t.player, url)
    # LP 24 first (HTMX, the field alone): refused while LP max is 20, kept in its input.
    r = await t.player.post(url, data={**form, "lp": "24", "_field": "lp"}, headers=HTMX)
    assert r.status_code == 422 and 'value="24"' in r.text
    refused = _Form()
    refused.feed(r.text)
    assert refused.values["_stale"] == "1"
    # Then LP max 24: both are saved together, and the whole sheet comes back without the
    # stale message.
    r = await t.player.post(
        url, data={**refused.values, "lp_max": "24", "_field": "lp_max"}, headers=HTMX
    )
    assert r.status_code == 200, r.text
    assert 'aria-invalid="true"' not in r.text and 'id="sheet"' in r.text
    data = await _sheet(api, t.player, cid)
    assert data["lp"] == 24 and data["lp_max"] == 24
    # A plain save of both at once is fine too.
    form = await _form(t.player, url)
    r = await t.player.post(url, data={**form, "lp": "30", "lp_max": "30"})
    assert r.status_code == 303 and (await _sheet(api, t.player, cid))["lp"] == 30
