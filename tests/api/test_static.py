"""Static assets (issue 14): fingerprinted URLs cached for a year, revalidated without the
fingerprint, gzip for text assets, a favicon instead of a 404, streams never compressed."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from tests.conftest import ClientFactory

STATIC = Path(__file__).resolve().parents[2] / "static"
ASSET = re.compile(r'(?:href|src)="(/static/([^"?]+)\?v=([0-9a-f]+))"')


async def test_pages_link_fingerprinted_assets_cached_for_a_year(
    make_client: ClientFactory,
) -> None:
    client = make_client()
    page = (await client.get("/login")).text
    assets = ASSET.findall(page)
    assert {path for _url, path, _v in assets} >= {
        "css/app.css", "js/app.js", "vendor/htmx-2.0.11.min.js", "favicon.svg"
    }  # fmt: skip
    for url, path, version in assets:
        assert version == hashlib.sha256((STATIC / path).read_bytes()).hexdigest()[:12]
        r = await client.get(url)
        assert r.status_code == 200, url
        assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
    r = await client.get("/static/css/app.css")
    assert r.headers["cache-control"] == "no-cache" and r.headers["etag"]


async def test_text_assets_are_compressed(make_client: ClientFactory) -> None:
    client = make_client()
    for path in ("vendor/htmx-2.0.11.min.js", "css/app.css", "js/app.js"):
        r = await client.get(f"/static/{path}", headers={"Accept-Encoding": "gzip"})
        assert r.headers["content-encoding"] == "gzip", path
        assert int(r.headers["content-length"]) < (STATIC / path).stat().st_size // 2, path
        # httpx decodes: the body is the file.
        assert r.content == (STATIC / path).read_bytes()
    raw = await client.get("/static/js/app.js", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in raw.headers
    assert raw.content == (STATIC / "js/app.js").read_bytes()


async def test_the_favicon_is_found(make_client: ClientFactory) -> None:
    client = make_client()
    r = await client.get("/favicon.ico")
    assert r.status_code == 301 and r.headers["location"].startswith("/static/favicon.svg?v=")
    icon = await client.get(r.headers["location"])
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
