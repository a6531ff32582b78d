"""Map service errors to responses: JSON under /api, pages (or a login redirect) elsewhere."""

from __future__ import annotations

from fastapi import FastAPI, Request
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


def install(app: FastAPI) -> None:
    app.add_exception_handler(AppError, handle_app_error)
