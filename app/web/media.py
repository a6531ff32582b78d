"""Serving a stored image: its ETag, long private caching, 304 on a matching If-None-Match.

The image's route checks who may see it first; this only shapes the answer. ``private``:
a shared cache must not hand one member's handout to another.
"""

from __future__ import annotations

from fastapi import Request, Response

#: A stored image never changes under its ETag (a new upload gets a new one).
IMAGE_CACHE_CONTROL = "private, max-age=31536000, immutable"


def image_response(request: Request, data: bytes, mime: str, etag: str) -> Response:
    """The image, or 304 when the browser already holds this ETag."""
    tag = f'"{etag}"'
    headers = {"ETag": tag, "Cache-Control": IMAGE_CACHE_CONTROL}
    sent = request.headers.get("if-none-match", "")
    if tag in (part.strip() for part in sent.split(",")):
        return Response(status_code=304, headers=headers)
    return Response(content=data, media_type=mime, headers=headers)
