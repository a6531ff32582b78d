"""Handout images: the GMs upload, the server re-encodes, only the handout's readers get it."""

from __future__ import annotations

import io

import httpx
import pytest
from fastapi import FastAPI
from PIL import Image, PngImagePlugin

from app import limits
from tests.api.helpers import Table, make_table
from tests.conftest import ClientFactory


def png(width: int = 40, height: int = 30) -> bytes:
    """A PNG with a text chunk the server must strip."""
    out = io.BytesIO()
    meta = PngImagePlugin.PngInfo()
    meta.add_text("Author", "geheime SL-Notiz")
    Image.new("RGB", (width, height), (200, 30, 30)).save(out, format="PNG", pnginfo=meta)
    return out.getvalue()


@pytest.fixture
async def table(make_client: ClientFactory, app: FastAPI) -> tuple[Table, int]:
    t = await make_table(make_client, app)
    r = await t.gm.post(f"/api/v1/campaigns/{t.campaign_id}/handouts", json={"title": "Karte"})
    assert r.status_code == 201, r.text
    return t, int(r.json()["id"])


async def upload(client: httpx.AsyncClient, t: Table, hid: int, data: bytes) -> httpx.Response:
    return await client.post(
        f"/api/v1/campaigns/{t.campaign_id}/handouts/{hid}/image",
        files={"image": ("karte.png", data, "image/png")},
    )


async def test_the_image_reaches_only_the_handouts_readers(table: tuple[Table, int]) -> None:
    t, hid = table
    r = await upload(t.gm, t, hid, png())
    assert r.status_code == 200, r.text
    image = r.json()["image"]
    assert (image["width"], image["height"]) == (40, 30)
    url = image["url"]
    got = await t.gm.get(url)
    assert got.status_code == 200 and got.headers["content-type"] == "image/png"
    assert b"geheime SL-Notiz" not in got.content  # metadata stripped
    assert "private" in got.headers["cache-control"] and got.headers["etag"]
    again = await t.gm.get(url, headers={"If-None-Match": got.headers["etag"]})
    assert again.status_code == 304
    # Not shown yet: players and observers get nothing, non-members neither.
    for client in (t.player, t.observer, t.outsider):
        assert (await client.get(url)).status_code == 404
    assert (await t.anonymous.get(url)).status_code in (303, 401)
    # Shown to the player alone.
    r = await t.gm.post(
        f"/api/v1/campaigns/{t.campaign_id}/handouts/{hid}/show", json={"to": [t.ids["player"]]}
    )
    assert r.status_code == 200, r.text
    assert (await t.player.get(url)).content == got.content
    assert (await t.observer.get(url)).status_code == 404
    page = (await t.player.get(f"/campaigns/{t.campaign_id}/handouts")).text
    assert f'src="{url}"' in page.replace("&amp;", "&")
    assert url not in (await t.observer.get(f"/campaigns/{t.campaign_id}/handouts")).text


async def test_only_gms_upload(table: tuple[Table, int]) -> None:
    t, hid = table
    assert (await upload(t.player, t, hid, png())).status_code == 403
    assert (await upload(t.observer, t, hid, png())).status_code == 403
    assert (await upload(t.outsider, t, hid, png())).status_code == 404
    assert (await upload(t.anonymous, t, hid, png())).status_code == 401
    assert (await upload(t.gm, t, 999_999, png())).status_code == 404


async def test_bad_uploads_are_refused_and_nothing_is_stored(table: tuple[Table, int]) -> None:
    t, hid = table
    r = await upload(t.gm, t, hid, b"<script>alert(1)</script>")
    assert r.status_code == 422 and "image" in r.json()["errors"]
    r = await upload(t.gm, t, hid, _bomb())
    assert r.status_code == 422, r.text
    r = await upload(t.gm, t, hid, b"\x89PNG" + b"0" * (limits.IMAGE_UPLOAD_BYTES + 10))
    assert r.status_code == 413
    shelf = (await t.gm.get(f"/api/v1/campaigns/{t.campaign_id}/handouts")).json()
    assert shelf["handouts"][0]["image"] is None


def _bomb() -> bytes:
    """A small PNG that declares far more pixels than allowed."""
    out = io.BytesIO()
    Image.new("1", (9000, 9000)).save(out, format="PNG")
    return out.getvalue()


async def test_the_form_uploads_too(table: tuple[Table, int]) -> None:
    t, hid = table
    r = await t.gm.post(
        f"/campaigns/{t.campaign_id}/handouts/{hid}/image",
        files={"image": ("karte.png", png(), "image/png")},
    )
    assert r.status_code == 303, r.text
    r = await t.gm.post(
        f"/campaigns/{t.campaign_id}/handouts/{hid}/image",
        files={"image": ("x.txt", b"nope", "text/plain")},
    )
    assert r.status_code == 422 and 'role="alert"' in r.text
