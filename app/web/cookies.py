"""The session cookie: opaque token, HttpOnly, SameSite=Lax; Secure with __Host- over https."""

from __future__ import annotations

from fastapi import Request, Response

from app.web.deps import COOKIE_NAME, SECURE_COOKIE_NAME

MAX_AGE = 60 * 60 * 24 * 30


def set_session_cookie(request: Request, response: Response, token: str) -> None:
    secure = request.url.scheme == "https"
    response.set_cookie(
        SECURE_COOKIE_NAME if secure else COOKIE_NAME,
        token,
        max_age=MAX_AGE,
        path="/",
        secure=secure,
        httponly=True,
        samesite="lax",
    )


def clear_session_cookie(response: Response) -> None:
    response.delete_cookie(COOKIE_NAME, path="/", httponly=True, samesite="lax")
    response.delete_cookie(SECURE_COOKIE_NAME, path="/", secure=True, httponly=True, samesite="lax")
