"""Request dependencies: the database session (committed here, once), the current user."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from app.accounts import service as accounts
from app.accounts.models import User
from app.campaigns.permissions import remember_role, role_in_campaign
from app.errors import AppError, Unauthenticated
from app.i18n import _, negotiate, set_locale
from app.web.context import AppContext

COOKIE_NAME = "tafelrunde_session"
SECURE_COOKIE_NAME = "__Host-tafelrunde_session"
LANG_COOKIE = "tafelrunde_lang"


@dataclass(frozen=True, slots=True)
class SignedIn:
    id: int
    username: str


async def get_ctx(request: Request) -> AppContext:
    """Async on purpose: FastAPI runs a plain ``def`` dependency in a worker thread."""
    ctx: AppContext = request.app.state.ctx
    return ctx


Ctx = Annotated[AppContext, Depends(get_ctx)]


async def get_session(ctx: Ctx) -> AsyncIterator[AsyncSession]:
    """One session per request, committed here after the route returns, before the response.

    This is the only commit of a request. On an error nothing is saved, unless the error
    asks for it (a failed login is recorded for throttling).
    """
    async with ctx.sessionmaker() as session:
        try:
            yield session
        except AppError as exc:
            if exc.commit_anyway:
                await ctx.commit(session)
            else:
                await session.rollback()
            raise
        except BaseException:
            await session.rollback()
            raise
        else:
            await ctx.commit(session)


Session = Annotated[AsyncSession, Depends(get_session, scope="function")]


def session_token(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip() or None
    return request.cookies.get(SECURE_COOKIE_NAME) or request.cookies.get(COOKIE_NAME)


def apply_locale(request: Request, user: User | None) -> None:
    if user is not None:
        locale = user.locale
    else:
        locale = request.cookies.get(LANG_COOKIE) or negotiate(
            request.headers.get("accept-language")
        )
    set_locale(locale)
    request.state.locale = locale


def _campaign_in_path(request: Request) -> int | None:
    raw = request.path_params.get("campaign_id")
    if isinstance(raw, int):
        return raw
    return int(raw) if isinstance(raw, str) and raw.isdigit() and len(raw) < 10 else None


#: The session lookup and the user's role in one campaign (the one the request is about).
_USER_AND_ROLE_FOR_TOKEN = accounts.USER_FOR_TOKEN.add_columns(role_in_campaign(User.id))


async def _user_for(
    request: Request, session: AsyncSession, ctx: AppContext, token: str
) -> User | None:
    """The user behind ``token``. On a request under ``/campaigns/{campaign_id}/…`` their role
    there is read in the same statement and remembered for this request's authorization."""
    campaign_id = _campaign_in_path(request)
    if campaign_id is None:
        return await accounts.user_for_token(session, ctx.settings, token)
    found = await accounts.user_and_more_for_token(
        session, ctx.settings, token, _USER_AND_ROLE_FOR_TOKEN, {"role_campaign_id": campaign_id}
    )
    if found is None:
        return None
    user, role_name = found
    remember_role(session, campaign_id, user.id, role_name)
    return user


async def optional_user(request: Request, session: Session, ctx: Ctx) -> User | None:
    token = session_token(request)
    user = await _user_for(request, session, ctx, token) if token else None
    # A plain snapshot for templates: error pages render after the session rolled back.
    request.state.user = SignedIn(user.id, user.username) if user else None
    apply_locale(request, user)
    return user


OptionalUser = Annotated[User | None, Depends(optional_user)]


async def required_user(user: OptionalUser) -> User:
    if user is None:
        raise Unauthenticated(_("Please log in."))
    return user


CurrentUser = Annotated[User, Depends(required_user)]
