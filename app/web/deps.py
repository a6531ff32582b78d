"""Request dependencies: the database session (committed here, once), the current user."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any

from fastapi import BackgroundTasks, Depends, Request, Response
from fastapi.routing import APIRoute
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession

from app.accounts import service as accounts
from app.accounts import tokens
from app.accounts.models import User
from app.errors import AppError, Unauthenticated
from app.events.service import PENDING_KEY
from app.i18n import DEFAULT_LOCALE, _, set_locale
from app.web.api_tokens import check_grant
from app.web.context import AppContext
from app.web.security import SAFE_METHODS
from app.web.templating import OffLoopHTMLResponse

COOKIE_NAME = "tafelrunde_session"
SECURE_COOKIE_NAME = "__Host-tafelrunde_session"
LANG_COOKIE = "tafelrunde_lang"

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SignedIn:
    id: int
    username: str


def app_ctx(request: Request) -> AppContext:
    """The app's context. The request's own dependencies read it here rather than through
    :data:`Ctx`: FastAPI solves a dependency's whole tree again each time it is named, even
    when the value is cached, so every ``Depends`` below the routes costs each request."""
    ctx: AppContext = request.app.state.ctx
    return ctx


async def get_ctx(request: Request) -> AppContext:
    """Async on purpose: FastAPI runs a plain ``def`` dependency in a worker thread."""
    return app_ctx(request)


Ctx = Annotated[AppContext, Depends(get_ctx)]


#: The request's session on its scope: made by :func:`get_session` when a dependency first
#: asks for it, committed or rolled back by :class:`TransactionalRoute`.
_SESSION = "tafelrunde.session"
#: Set on the scope by :class:`TransactionalRoute`: the route will finish a session made.
_FINISHED_BY_ROUTE = "tafelrunde.transactional"


class TransactionalRoute(APIRoute):
    """A route whose request transaction follows its answer: status >= 400 rolls back.

    A route that catches a service error and answers 4xx with a re-rendered form returns
    normally; without this its session would commit whatever the service wrote before it
    failed. The session is committed here, once, after the answer is made and before it
    is sent — not by a ``yield`` dependency, whose exit stack and cancel scope cost every
    request about a twentieth of a roll (``bench.roll_request``). Every router uses this
    class (``tests/web/test_transaction.py`` checks it).
    """

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        answer = self.answer_handler()

        async def handle(request: Request) -> Response:
            request.scope[_FINISHED_BY_ROUTE] = True
            try:
                response = await answer(request)
            except AppError as exc:
                await _finish(request, commit=exc.commit_anyway)
                raise
            except BaseException:
                await _finish(request, commit=False)
                raise
            await _finish(request, commit=response.status_code < 400)
            return response

        return handle

    def answer_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """The route's answer, made while its session is open (a subclass wraps it)."""
        handler = super().get_route_handler()

        async def answer(request: Request) -> Response:
            response = await handler(request)
            if isinstance(response, OffLoopHTMLResponse):
                # While the session is open: after a rollback its objects are expired.
                await response.render_off_loop()
            return response

        return answer


async def _finish(request: Request, *, commit: bool) -> None:
    """The only commit of a request, and only of one that succeeded (or whose error asks
    for it: a failed login is recorded for throttling); else the rollback. Then the
    session is closed."""
    session: AsyncSession | None = request.scope.pop(_SESSION, None)
    if session is None:
        return
    ctx = app_ctx(request)
    try:
        if commit:
            await ctx.commit(session)
        else:
            await ctx.rollback(session)
    finally:
        await session.close()
    await _after_the_transaction(request, ctx, commit=commit)


async def finish_now(request: Request) -> None:
    """Finish the request's session now, as if the route had answered: for a route that goes
    on to ask other routes of the app (the feed asking its streams', ``app.web.feed``), each
    with a session of its own, which would otherwise wait for a second connection of the pool
    while holding the first (a burst of such requests takes every connection)."""
    await _finish(request, commit=True)


async def _after_the_transaction(request: Request, ctx: AppContext, *, commit: bool) -> None:
    """The sign-in's upkeep of the login session, whatever the answer, and the writes left
    with :func:`afterwards` by a request that succeeded; each in a transaction of its own.
    The request's answer stands if they fail (it is committed): they are logged."""
    upkeep: accounts.Upkeep | None = request.scope.pop(_UPKEEP, None)
    writes: list[Write] = request.scope.pop(_AFTERWARDS, []) if commit else []
    if upkeep is not None:
        writes.insert(0, partial(accounts.keep_up, upkeep=upkeep))
    if not writes:
        return
    try:
        async with ctx.sessionmaker() as own:
            for write in writes:
                await write(own)
            await ctx.commit(own)
    except DBAPIError as exc:
        log.warning("left after the request, not written: %s", exc)


#: A write a request of a safe method leaves to make once its transaction ended.
Write = Callable[[AsyncSession], Awaitable[None]]
#: Where the request keeps them.
_AFTERWARDS = "tafelrunde.afterwards"


def afterwards(request: Request, write: Write) -> None:
    """Make ``write`` once the request's own transaction committed, in one of its own,
    before the answer is sent: for a page (a safe method, which only reads) that changes a
    private mark of its viewer, such as the chat's read mark."""
    request.scope.setdefault(_AFTERWARDS, []).append(write)


async def get_session(request: Request) -> AsyncSession:
    """One session per request, made at the first ask and finished by the route
    (:class:`TransactionalRoute`) after it answered, before the answer is sent."""
    session: AsyncSession | None = request.scope.get(_SESSION)
    if session is None:
        if not request.scope.get(_FINISHED_BY_ROUTE):
            raise RuntimeError("a session outside a TransactionalRoute would never be saved")
        ctx = app_ctx(request)
        # A safe method or a lookup only reads: on SQLite its transaction takes no write
        # lock, so a page, a print or the GM's risk simulation holds up no one's roll.
        reading = request.method in SAFE_METHODS or request.scope.get(_LOOKUP, False)
        session = ctx.read_sessions() if reading else ctx.sessionmaker()
        request.scope[_SESSION] = session
    return session


Session = Annotated[AsyncSession, Depends(get_session)]

#: Set on a request whose route is a lookup (:data:`LOOKUP`).
_LOOKUP = "tafelrunde.lookup"


async def _lookup(request: Request) -> None:
    request.scope[_LOOKUP] = True


#: A route's ``dependencies=[LOOKUP]``: a POST that only reads (the odds, the forecast, the
#: risk simulation: a body too large or too structured for a query string). Its session is
#: one that only reads, like a GET's; a route's own dependencies are solved before its
#: parameters', so the session it gets is made after this.
LOOKUP = Depends(_lookup)


@asynccontextmanager
async def attempt(session: AsyncSession) -> AsyncIterator[None]:
    """Run a use case whose refusal the route answers with a re-rendered form.

    The use case runs in a SAVEPOINT: if it raises, what it changed is undone at once, so
    the form is rendered from the database as it was (and a failed flush, e.g. a stale
    version, leaves the session usable). Saving is still the request's business: the 4xx
    answer rolls the whole request back (:class:`TransactionalRoute`).
    """
    pending: list[object] = session.info.setdefault(PENDING_KEY, [])
    written = len(pending)
    try:
        async with session.begin_nested():
            yield
    except BaseException:
        del pending[written:]  # its events are undone with it: never to be published
        raise


def session_token(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip() or None
    return request.cookies.get(SECURE_COOKIE_NAME) or request.cookies.get(COOKIE_NAME)


def apply_locale(request: Request, user: User | None) -> None:
    # German unless chosen otherwise (the menu's switch): not the browser's language.
    locale = user.locale if user is not None else request.cookies.get(LANG_COOKIE)
    locale = locale or DEFAULT_LOCALE
    set_locale(locale)
    request.state.locale = locale


def _campaign_in_path(request: Request) -> int | None:
    raw = request.path_params.get("campaign_id")
    if isinstance(raw, int):
        return raw
    return int(raw) if isinstance(raw, str) and raw.isdigit() and len(raw) < 10 else None


async def _user_for(
    request: Request, session: AsyncSession, ctx: AppContext, token: str
) -> User | None:
    """The user behind ``token``. On a request under ``/campaigns/{campaign_id}/…`` their role
    there is read in the same statement and remembered for this request's authorization
    (:class:`app.web.members.Members`, from the campaigns package). The login session's
    upkeep (touch it, or end it when idle) is done once the request's transaction ended,
    in one of its own (:func:`_finish`): the sign-in only reads."""
    campaign_id = _campaign_in_path(request)
    if campaign_id is None:
        user, request.scope[_UPKEEP] = await accounts.user_for_token(session, ctx.settings, token)
        return user
    members = ctx.members
    found, request.scope[_UPKEEP] = await accounts.user_and_more_for_token(
        session, ctx.settings, token, members.lookup, {"role_campaign_id": campaign_id}
    )
    if found is None:
        return None
    user, more = found
    members.remember(session, campaign_id, user.id, more)
    return user


#: Where the request keeps its sign-in's upkeep of the login session (``accounts.Upkeep``).
_UPKEEP = "tafelrunde.upkeep"


async def _user_for_api_token(
    request: Request, session: AsyncSession, ctx: AppContext, token: str, later: BackgroundTasks
) -> User | None:
    """The user behind a personal API token, once the token may make this request: another
    campaign is not found, a write beyond its scope forbidden (``app.web.api_tokens``).

    Its use is noted after the response, in a transaction of its own (never the request's,
    which may roll back, and on SQLite holds the one write lock until it ends)."""
    found = await tokens.user_for_api_token(session, token)
    if found is None:
        return None
    user, grant = found
    if grant.use_to_note:
        later.add_task(_note_use, ctx, grant.token_id)
    await check_grant(request, session, user.id, grant)
    return user


async def _note_use(ctx: AppContext, token_id: int) -> None:
    async with ctx.sessionmaker() as own:
        await tokens.note_use(own, token_id)


#: Where the request keeps its signed-in user (or ``None``) once read.
_SIGNED_IN = "tafelrunde.signed_in"


async def signed_in(request: Request, session: AsyncSession, later: BackgroundTasks) -> User | None:
    """The request's user, read once: :data:`OptionalUser` and :data:`CurrentUser` both ask
    for it (one sign-in statement, one take from the write limit per request)."""
    if _SIGNED_IN in request.scope:
        known: User | None = request.scope[_SIGNED_IN]
        return known
    ctx = app_ctx(request)
    token = session_token(request)
    if token and tokens.is_api_token(token):
        user = await _user_for_api_token(request, session, ctx, token, later)
    else:
        user = await _user_for(request, session, ctx, token) if token else None
    # A plain snapshot for templates: error pages render after the session rolled back.
    request.state.user = SignedIn(user.id, user.username) if user else None
    apply_locale(request, user)
    if user is not None and request.method not in SAFE_METHODS:
        ctx.write_limiter.take(user.id)
    request.scope[_SIGNED_IN] = user
    return user


async def optional_user(request: Request, session: Session, later: BackgroundTasks) -> User | None:
    return await signed_in(request, session, later)


OptionalUser = Annotated[User | None, Depends(optional_user)]


async def signed_in_user(request: Request, session: AsyncSession, later: BackgroundTasks) -> User:
    """The request's user, or :class:`Unauthenticated`. For a dependency that needs the user
    along with its own work (:data:`app.web.calls.CampaignAt`): asking for it here rather
    than through :data:`CurrentUser` spares FastAPI solving that dependency's tree."""
    user = await signed_in(request, session, later)
    if user is None:
        raise Unauthenticated(_("Please log in."))
    return user


async def required_user(request: Request, session: Session, later: BackgroundTasks) -> User:
    return await signed_in_user(request, session, later)


CurrentUser = Annotated[User, Depends(required_user)]
