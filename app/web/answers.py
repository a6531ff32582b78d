"""Answers the JSON API routes share."""

from __future__ import annotations

from collections.abc import Awaitable

from fastapi import Response


async def no_content(done: Awaitable[object]) -> Response:
    """``204 No Content`` once ``done`` (a deletion, a revocation) has run: the answer of
    every route that removes something and has nothing to send back."""
    await done
    return Response(status_code=204)
