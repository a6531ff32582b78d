"""Map service errors to responses: JSON under /api, pages (or a login redirect) elsewhere."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exception_handlers import request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response

from app.errors import AppError, LoginFailed, TooManyRequests, Unauthenticated, ValidationFailed
from app.i18n import _, negotiate, set_locale
from app.web.deps import LANG_COOKIE
from app.web.templating import page


def _is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


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
    locale = (
        getattr(request.state, "locale", None)
        or request.cookies.get(LANG_COOKIE)
        or negotiate(request.headers.get("accept-language"))
    )
    set_locale(locale)
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
        {"title": titles.get(exc.status_code, _("Something went wrong")), "message": exc.message},
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


def install(app: FastAPI) -> None:
    app.add_exception_handler(AppError, handle_app_error)
    app.add_exception_handler(RequestValidationError, handle_request_validation)
