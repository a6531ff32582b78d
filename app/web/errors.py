"""Map service errors to responses: JSON under /api, pages (or a login redirect) elsewhere."""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exception_handlers import request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm.exc import StaleDataError

from app.db import is_database_unavailable, is_storage_full
from app.errors import AppError, LoginFailed, TooManyRequests, Unauthenticated, ValidationFailed
from app.i18n import DEFAULT_LOCALE, _, set_locale
from app.web.deps import LANG_COOKIE
from app.web.templating import page

log = logging.getLogger(__name__)

#: Seconds a client is asked to wait when the database is away (``Retry-After``).
DATABASE_RETRY_AFTER = 5


def _is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def _use_request_locale(request: Request) -> None:
    locale = (
        getattr(request.state, "locale", None) or request.cookies.get(LANG_COOKIE) or DEFAULT_LOCALE
    )
    set_locale(locale)


def _plain_error(
    request: Request, status_code: int, title: str, message: str, headers: dict[str, str]
) -> Response:
    """An error that is no ``AppError``: JSON ``detail`` under /api, the error page elsewhere."""
    if _is_api(request):
        return JSONResponse({"detail": message}, status_code=status_code, headers=headers)
    response = page(
        request, "error.html", {"title": title, "message": message}, status_code=status_code
    )
    response.headers.update(headers)
    return response


def _back(request: Request) -> str | None:
    """The page the user came from, when it is one of ours: an error page never leaves them
    without a way back to their form."""
    referer = urlsplit(request.headers.get("referer", ""))
    if referer.netloc != request.url.netloc or not referer.path.startswith("/"):
        return None
    return referer.path + (f"?{referer.query}" if referer.query else "")


async def handle_app_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, AppError)
    headers: dict[str, str] = {}
    if isinstance(exc, TooManyRequests):
        headers["Retry-After"] = str(exc.retry_after)
    if _is_api(request):
        body: dict[str, object] = {"detail": exc.message}
        if isinstance(exc, ValidationFailed):
            body = {
                "detail": [
                    {"loc": ["body", field], "msg": msg, "type": "value_error"}
                    for field, msg in exc.fields.items()
                ],
                "errors": exc.fields,
            }
        if isinstance(exc, Unauthenticated):
            headers["WWW-Authenticate"] = "Bearer"
        return JSONResponse(body, status_code=exc.status_code, headers=headers)
    _use_request_locale(request)
    if isinstance(exc, LoginFailed) and hasattr(request.state, "login_context"):
        return page(
            request,
            "accounts/login.html",
            request.state.login_context,
            block="form",
            status_code=401,
        )
    if isinstance(exc, Unauthenticated):
        target = request.url.path
        if request.headers.get("hx-request") == "true":
            return Response(status_code=401, headers={"HX-Redirect": f"/login?next={target}"})
        return RedirectResponse(f"/login?next={target}", status_code=303)
    titles = {403: _("Not allowed"), 404: _("Not found"), 409: _("Changed meanwhile")}
    response = page(
        request,
        "error.html",
        {
            "title": titles.get(exc.status_code, _("Something went wrong")),
            "message": exc.message,
            "back": _back(request),
        },
        status_code=exc.status_code,
    )
    response.headers.update(headers)
    return response


async def handle_request_validation(request: Request, exc: Exception) -> Response:
    """FastAPI's 422 for a body or parameter its schema refuses, with the ``errors`` map
    (field → message) every 422 of the API carries, as the services' refusals do."""
    assert isinstance(exc, RequestValidationError)
    if not _is_api(request):
        return await request_validation_exception_handler(request, exc)
    errors: dict[str, str] = {}
    for error in exc.errors():
        loc = [str(part) for part in error.get("loc", ())]
        field = ".".join(loc[1:]) if len(loc) > 1 else ".".join(loc)
        errors.setdefault(field, str(error.get("msg", "")).removeprefix("Value error, "))
    return JSONResponse(
        {"detail": jsonable_encoder(exc.errors()), "errors": errors}, status_code=422
    )


async def handle_race(request: Request, exc: Exception) -> Response:
    """A concurrent request got there first → 409: a unique or foreign key violation, or
    the write of a version-guarded row (``app.campaigns.columns.Versioned``) that another
    request changed or deleted after this one read it.

    The services check what they can before writing (and lock where a race is likely), and
    name the row where they expect the race (``app.maps.service.flush_token``); this is the
    answer for the race that slips past them, instead of a 500. Nothing of it is kept.
    """
    log.info("%s answered 409: %s", type(exc).__name__, exc)
    _use_request_locale(request)
    return _plain_error(
        request,
        409,
        _("Changed meanwhile"),
        _("Someone else changed the same thing at the same moment. Reload and try again."),
        {},
    )


async def handle_database_error(request: Request, exc: Exception) -> Response:
    """The database is away: 503 with ``Retry-After``; anything else stays a 500."""
    assert isinstance(exc, DBAPIError)
    if not is_database_unavailable(exc):
        raise exc
    _use_request_locale(request)
    headers = {"Retry-After": str(DATABASE_RETRY_AFTER)}
    if is_storage_full(exc):
        log.error("database storage is full: %s", exc)
        message = _("The server's storage is full, so nothing was saved. Please tell the operator.")
    else:
        log.warning("database unavailable: %s", exc)
        message = _(
            "The database cannot be reached right now, so nothing was saved. "
            "Please try again in a few seconds."
        )
    return _plain_error(request, 503, _("Temporarily unavailable"), message, headers)


def install(app: FastAPI) -> None:
    app.add_exception_handler(AppError, handle_app_error)
    app.add_exception_handler(IntegrityError, handle_race)
    app.add_exception_handler(StaleDataError, handle_race)
    app.add_exception_handler(DBAPIError, handle_database_error)
    app.add_exception_handler(RequestValidationError, handle_request_validation)
