"""Static assets: fingerprinted URLs, long caching for them, gzip for text, the favicon.

``static_url("css/app.css")`` is ``/static/css/app.css?v=<hash of the content>``: a new
version of a file gets a new URL, so a URL with ``v`` may be cached for a year
(``immutable``); a URL without it is revalidated each time (ETag). Text assets are sent
gzip-compressed when the browser accepts it; pages and event streams are not compressed.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Scope

STATIC_DIR = Path(__file__).resolve().parents[2] / "static"
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
GZIP_MIN_BYTES = 500


@lru_cache(maxsize=64)
def fingerprint(path: str) -> str:
    """The first 12 hex digits of the SHA-256 of a static file (read once per process)."""
    return hashlib.sha256((STATIC_DIR / path).read_bytes()).hexdigest()[:12]


def static_url(path: str) -> str:
    return f"/static/{path}?v={fingerprint(path)}"


class FingerprintedStaticFiles(StaticFiles):
    """StaticFiles with a cache lifetime by URL: a year for fingerprinted ones."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        if response.status_code in (200, 304):
            query = scope.get("query_string", b"").decode("latin-1")
            versioned = any(part.startswith("v=") for part in query.split("&"))
            response.headers["cache-control"] = IMMUTABLE if versioned else REVALIDATE
        return response


def static_app() -> ASGIApp:
    return GZipMiddleware(
        FingerprintedStaticFiles(directory=STATIC_DIR), minimum_size=GZIP_MIN_BYTES
    )


async def favicon(request: Request) -> Response:
    """Browsers ask for ``/favicon.ico`` whatever the page links: send them to the icon."""
    return RedirectResponse(static_url("favicon.svg"), status_code=301)
