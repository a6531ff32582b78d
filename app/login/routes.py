"""HTML pages of the accounts: register, log in, log out, language."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from app.accounts import service
from app.errors import LoginFailed, TooManyRequests, ValidationFailed
from app.i18n import LOCALES, set_locale
from app.web.context import AppContext
from app.web.cookies import clear_session_cookie, set_session_cookie
from app.web.deps import (
    LANG_COOKIE,
    Ctx,
    CurrentUser,
    OptionalUser,
    Session,
    TransactionalRoute,
    session_token,
)
from app.web.routers import Router
from app.web.signin import log_in
from app.web.templating import page, redirect

router = Router(include_in_schema=False, route_class=TransactionalRoute)


@dataclass(frozen=True, slots=True)
class Credentials:
    """The username and password a form posts (registering and logging in alike)."""

    username: str
    password: str


async def _credentials(
    username: Annotated[str, Form()] = "", password: Annotated[str, Form()] = ""
) -> Credentials:
    return Credentials(username, password)


CredentialsForm = Annotated[Credentials, Depends(_credentials)]


async def _signed_in(
    request: Request, session: AsyncSession, ctx: AppContext, form: Credentials, to: str
) -> Response:
    """Log in with ``form`` and go to ``to`` with the new session's cookie."""
    result = await log_in(request, session, ctx, form.username, form.password)
    response = redirect(request, to)
    set_session_cookie(request, response, result.token)
    return response


def _signed_out() -> Response:
    """Back to the login page, the session's cookie cleared."""
    response = RedirectResponse("/login", status_code=303)
    clear_session_cookie(response)
    return response


def _safe_next(target: str | None) -> str:
    """Only same-site paths, so a login link cannot send the user elsewhere."""
    if target and target.startswith("/") and not target.startswith("//"):
        return target
    return "/campaigns"


@router.get("/register", response_class=HTMLResponse)
async def register_form(request: Request, user: OptionalUser) -> Response:
    return page(request, "accounts/register.html", {"errors": {}, "values": {}})


@router.post("/register")
async def register(
    request: Request,
    session: Session,
    ctx: Ctx,
    user: OptionalUser,
    form: CredentialsForm,
    email: Annotated[str, Form()] = "",
) -> Response:
    values = {"username": form.username, "email": email}
    try:
        await service.register(session, ctx.hasher, form.username, form.password, email)
        return await _signed_in(request, session, ctx, form, "/campaigns")
    except ValidationFailed as exc:
        # A refused form keeps what was typed, the password too unless it was refused itself.
        if "password" not in exc.fields:
            values["password"] = form.password
        return page(
            request,
            "accounts/register.html",
            {"errors": exc.fields, "values": values},
            block="form",
            status_code=422,
        )


@router.get("/login", response_class=HTMLResponse)
async def login_form(request: Request, user: OptionalUser, next: str | None = None) -> Response:
    return page(
        request, "accounts/login.html", {"error": None, "values": {}, "next": _safe_next(next)}
    )


@router.post("/login")
async def login(
    request: Request,
    session: Session,
    ctx: Ctx,
    user: OptionalUser,
    form: CredentialsForm,
    next: Annotated[str, Form()] = "",
) -> Response:
    values = {"username": form.username, "password": form.password}
    context = {"values": values, "next": _safe_next(next)}
    try:
        return await _signed_in(request, session, ctx, form, _safe_next(next))
    except LoginFailed as exc:
        # Re-raised so the failure is recorded; the handler renders the form (see errors).
        request.state.login_context = {**context, "error": exc.message}
        raise
    except TooManyRequests as exc:
        return page(
            request,
            "accounts/login.html",
            {**context, "error": exc.message},
            block="form",
            status_code=429,
        )
    except ValidationFailed as exc:
        return page(
            request,
            "accounts/login.html",
            {**context, "error": " ".join(exc.fields.values())},
            block="form",
            status_code=422,
        )


@router.post("/logout")
async def logout(request: Request, session: Session, user: OptionalUser) -> Response:
    token = session_token(request)
    if token:
        await service.logout(session, token)
    return _signed_out()


@router.post("/logout-everywhere")
async def logout_everywhere(request: Request, session: Session, user: CurrentUser) -> Response:
    await service.logout_everywhere(session, user.id)
    return _signed_out()


@router.post("/language")
async def language(
    request: Request,
    session: Session,
    user: OptionalUser,
    locale: Annotated[str, Form()] = "de",
    next: Annotated[str, Form()] = "",
) -> Response:
    locale = locale if locale in LOCALES else "de"
    if user is not None:
        await service.set_locale(session, user, locale)
    set_locale(locale)
    response = RedirectResponse(_safe_next(next), status_code=303)
    response.set_cookie(LANG_COOKIE, locale, max_age=60 * 60 * 24 * 365, samesite="lax")
    return response
