"""Use cases of accounts: register, log in (throttled), sessions, log out, preferences."""

from __future__ import annotations

import hashlib
import math
import re
import secrets
import unicodedata
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Select,
    bindparam,
    delete,
    func,
    or_,
    select,
    union_all,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app import limits
from app.accounts.models import ApiToken, LoginFailure, User, UserSession
from app.accounts.passwords import Hasher
from app.config import Settings
from app.db import in_chunks, utcnow
from app.errors import LoginFailed, TooManyRequests, ValidationFailed
from app.i18n import LOCALES, _

USERNAME_MIN = 3
USERNAME_MAX = 32
#: Besides letters and digits of any script (and their combining marks), a user name may hold
#: single spaces and these (``Meisterin Mara``, ``O'Brien``, ``jürgen_h``).
USERNAME_PUNCTUATION = frozenset(" .-_'")
EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
PASSWORD_MIN = 12
PASSWORD_MAX = 128
#: Refused regardless of length: the most common long passwords.
COMMON_PASSWORDS = frozenset(
    {
        "123456789012",
        "passwort1234",
        "password1234",
        "qwertzuiop12",
        "qwertyuiop12",
        "111111111111",
        "000000000000",
        "abcdefghijkl",
        "passwortpasswort",
        "passwordpassword",
    }
)
TOUCH_INTERVAL = timedelta(minutes=5)
#: Rings every process when login sessions end; the payload is one session's token hash.
SESSIONS_ENDED_CHANNEL = "tafelrunde_sessions"
#: Key in ``AsyncSession.info``: token hashes of the sessions ended in this transaction,
#: whose live streams the app ends after commit (``app.web.context.AppContext.commit``).
ENDED_SESSIONS_KEY = "ended_sessions"


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class LoginResult:
    user: User
    token: str


def display_name(raw: str) -> str:
    """A user name as shown: composed (NFC), runs of white space as one space, stripped."""
    return unicodedata.normalize("NFC", " ".join(raw.split()))


def login_key(name: str) -> str:
    """The unique key of a user name: the name as typed at login, whatever its case or width
    (NFKC, then case-folded: "Jürgen", "JÜRGEN" and "jürgen" are one account)."""
    return unicodedata.normalize("NFKC", display_name(name)).casefold()


def _username_ok(name: str) -> bool:
    if not USERNAME_MIN <= len(name) <= USERNAME_MAX or len(login_key(name)) > USERNAME_MAX:
        return False
    if not name[0].isalnum() or limits.name_problem(name, USERNAME_MAX):
        return False
    return all(
        ch.isalnum() or ch in USERNAME_PUNCTUATION or unicodedata.category(ch).startswith("M")
        for ch in name
    )


def validate_registration(username: str, password: str, email: str | None) -> dict[str, str]:
    errors: dict[str, str] = {}
    if not _username_ok(username):
        errors["username"] = _(
            "3 to 32 characters: letters, digits, spaces, dot, hyphen, apostrophe or "
            "underscore, starting with a letter or digit."
        )
    if len(password) < PASSWORD_MIN:
        errors["password"] = _("At least %(min)d characters.", min=PASSWORD_MIN)
    elif len(password) > PASSWORD_MAX:
        errors["password"] = _("At most %(max)d characters.", max=PASSWORD_MAX)
    elif password.lower() in COMMON_PASSWORDS or password.casefold() == login_key(username):
        errors["password"] = _("This password is too easy to guess.")
    if email and (not EMAIL_RE.match(email) or limits.name_problem(email, 254)):
        errors["email"] = _("This is not an e-mail address.")
    return errors


async def register(
    session: AsyncSession, hasher: Hasher, username: str, password: str, email: str | None
) -> User:
    username = display_name(username)
    email = (email or "").strip() or None
    errors = validate_registration(username, password, email)
    if not errors and await session.scalar(
        select(User.id).where(User.username_key == login_key(username))
    ):
        errors["username"] = _("This name is taken.")
    if errors:
        raise ValidationFailed(errors)
    user = User(
        username=username,
        username_key=login_key(username),
        email=email,
        password_hash=await hasher.hash(password),
    )
    try:
        # A savepoint: a concurrent registration of the same name that committed first
        # makes this insert fail; that is "name taken", not a server error.
        async with session.begin_nested():
            session.add(user)
    except IntegrityError as exc:
        raise ValidationFailed({"username": _("This name is taken.")}) from exc
    return user


@dataclass(frozen=True, slots=True)
class Throttle:
    """Growing delays after failed logins: ``free`` failures cost nothing, then each
    further attempt waits 1 s after the last failure, twice as long each time, at most
    ``max_delay`` seconds. A delay, never a lock that the right password cannot open
    later, and counted where the guessing comes from (see docs/security.md)."""

    free: int
    max_delay: float

    def wait(self, failures: int, last: datetime | None, now: datetime) -> float:
        """Seconds until the next attempt may be checked (0: now)."""
        if last is None or failures < self.free:
            return 0.0
        delay = min(self.max_delay, 2.0 ** min(failures - self.free, 30))
        return max(0.0, (last - now).total_seconds() + delay)


async def _failures(
    session: AsyncSession, since: datetime, *conditions: ColumnElement[bool]
) -> tuple[int, datetime | None]:
    row = (
        await session.execute(
            select(func.count(), func.max(LoginFailure.created_at)).where(
                LoginFailure.created_at > since, *conditions
            )
        )
    ).one()
    return int(row[0]), row[1]


async def _check_throttle(
    session: AsyncSession, settings: Settings, key: str, address: str
) -> None:
    """Refuse (429, ``Retry-After``) while this account+address, or this address as a
    whole, must still wait after its failures. Right and wrong passwords alike."""
    now = utcnow()
    since = now - timedelta(minutes=settings.login_window_minutes)
    pair = Throttle(settings.login_free_failures, settings.login_max_delay_seconds)
    whole = Throttle(settings.login_address_free_failures, settings.login_address_max_delay_seconds)
    wait = max(
        pair.wait(
            *await _failures(
                session, since, LoginFailure.username_key == key, LoginFailure.address == address
            ),
            now,
        ),
        whole.wait(*await _failures(session, since, LoginFailure.address == address), now),
    )
    if wait > 0:
        seconds = math.ceil(wait)
        raise TooManyRequests(
            _(
                "Too many failed logins. Please wait %(seconds)d seconds and try again.",
                seconds=seconds,
            ),
            retry_after=seconds,
        )


async def login(
    session: AsyncSession,
    hasher: Hasher,
    settings: Settings,
    username: str,
    password: str,
    address: str,
    user_agent: str | None,
) -> LoginResult:
    """Check the password, throttled per account and address and per address; open a session."""
    limits.check_no_nul(username, "username")
    key = login_key(username)[:USERNAME_MAX]
    address = address[:64]
    await _check_throttle(session, settings, key, address)
    user = await session.scalar(select(User).where(User.username_key == key))
    ok = await hasher.verify(user.password_hash if user else None, password)
    if user is None or not ok or not user.is_active:
        session.add(LoginFailure(username_key=key, address=address))
        raise LoginFailed(_("Unknown name or wrong password."))
    if hasher.needs_rehash(user.password_hash):
        user.password_hash = await hasher.hash(password)
    token = secrets.token_urlsafe(32)
    session.add(
        UserSession(
            token_hash=token_hash(token),
            user_id=user.id,
            user_agent=(user_agent or "")[:255] or None,
        )
    )
    # Only this address's failures: the owner logging in elsewhere does not reset a
    # stranger's count.
    await session.execute(
        delete(LoginFailure).where(
            LoginFailure.username_key == key, LoginFailure.address == address
        )
    )
    return LoginResult(user=user, token=token)


#: The session lookup, built once: it runs on every request. A package above accounts may
#: add a column to it for :func:`user_and_more_for_token` (``USER_FOR_TOKEN.add_columns(…)``).
USER_FOR_TOKEN = (
    select(User, UserSession.id, UserSession.last_seen_at)
    .join(UserSession, UserSession.user_id == User.id)
    .where(UserSession.token_hash == bindparam("token_hash"))
)


@dataclass(frozen=True, slots=True)
class Upkeep:
    """What a sign-in leaves to do to its login session, in a transaction of its own
    (:func:`keep_up`): touch it now and then, end it once idle too long. The sign-in
    itself only reads, so a page load writes nothing (on SQLite: takes no write lock)."""

    session_id: int
    end: bool


async def user_for_token(
    session: AsyncSession, settings: Settings, token: str
) -> tuple[User | None, Upkeep | None]:
    """The active user behind a session token (``None`` if it is unknown or expired), and
    what its login session needs done."""
    row = (await session.execute(USER_FOR_TOKEN, {"token_hash": token_hash(token)})).first()
    if row is None:
        return None, None
    user, session_id, last_seen_at = row
    in_use, upkeep = _session_in_use(settings, user, session_id, last_seen_at)
    return (user if in_use else None), upkeep


async def user_and_more_for_token(
    session: AsyncSession,
    settings: Settings,
    token: str,
    statement: Select[Any],
    params: Mapping[str, object],
) -> tuple[tuple[User, Sequence[Any]] | None, Upkeep | None]:
    """:func:`user_for_token`, and more columns read in the same statement.

    ``statement`` is :data:`USER_FOR_TOKEN` with columns added by a package above accounts
    (the web layer adds the user's role in the campaign a request is about and that
    campaign's row: two round trips less on every campaign request); ``params`` binds their
    parameters. The added columns come back in their order.
    """
    row = (await session.execute(statement, {**params, "token_hash": token_hash(token)})).first()
    if row is None:
        return None, None
    user, session_id, last_seen_at, *more = row
    in_use, upkeep = _session_in_use(settings, user, session_id, last_seen_at)
    return ((user, more) if in_use else None), upkeep


def _session_in_use(
    settings: Settings, user: User, session_id: int, last_seen_at: datetime
) -> tuple[bool, Upkeep | None]:
    """Whether a found session still counts, and its upkeep: ended when idle too long,
    touched now and then (not on every request: a write per request would cost more than
    the lookup)."""
    now = utcnow()
    if now - last_seen_at > timedelta(days=settings.session_idle_days):
        return False, Upkeep(session_id, end=True)
    if not user.is_active:
        return False, None
    if now - last_seen_at > TOUCH_INTERVAL:
        return True, Upkeep(session_id, end=False)
    return True, None


async def keep_up(session: AsyncSession, *, upkeep: Upkeep) -> None:
    """Do a sign-in's :class:`Upkeep`. Commit with the app's commit: an ended session's
    live streams end with it."""
    if upkeep.end:
        await _end_sessions(session, UserSession.id == upkeep.session_id)
    else:
        await session.execute(
            update(UserSession)
            .where(UserSession.id == upkeep.session_id)
            .values(last_seen_at=utcnow())
        )


async def session_active(session: AsyncSession, token_hash_: str) -> bool:
    """Whether the login session or personal API token with this hash still exists (not
    logged out, revoked or expired)."""
    return bool(await sessions_active(session, [token_hash_]))


#: The hashes among ``token_hashes`` of login sessions and unexpired personal API tokens.
_LIVE = union_all(
    select(UserSession.token_hash).where(
        UserSession.token_hash.in_(bindparam("token_hashes", expanding=True))
    ),
    select(ApiToken.token_hash).where(
        ApiToken.token_hash.in_(bindparam("token_hashes", expanding=True)),
        or_(ApiToken.expires_at.is_(None), ApiToken.expires_at > bindparam("now")),
    ),
)


async def sessions_active(session: AsyncSession, token_hashes: Collection[str]) -> set[str]:
    """Which of these token hashes belong to sessions or API tokens that still count: one
    statement per 500 (the process's sweep over its live streams)."""
    live: set[str] = set()
    for chunk in in_chunks(token_hashes):
        live.update(await session.scalars(_LIVE, {"token_hashes": chunk, "now": utcnow()}))
    return live


async def _end_sessions(session: AsyncSession, which: ColumnElement[bool]) -> None:
    """Delete the sessions ``which`` selects, and have their live streams end at commit."""
    ended = await session.scalars(
        delete(UserSession).where(which).returning(UserSession.token_hash)
    )
    await _announce_ended(session, list(ended))


async def end_tokens(session: AsyncSession, which: ColumnElement[bool]) -> list[str]:
    """Delete the personal API tokens ``which`` selects and end their live streams at commit,
    as :func:`_end_sessions` does; returns their hashes."""
    ended = list(
        await session.scalars(delete(ApiToken).where(which).returning(ApiToken.token_hash))
    )
    await _announce_ended(session, ended)
    return ended


async def _announce_ended(session: AsyncSession, ended: list[str]) -> None:
    """End the live streams of these token hashes at commit: in this process through
    ``ENDED_SESSIONS_KEY``, in the others through a ``NOTIFY`` on
    ``SESSIONS_ENDED_CHANNEL``, delivered at commit (PostgreSQL)."""
    if not ended:
        return
    session.info.setdefault(ENDED_SESSIONS_KEY, []).extend(ended)
    if session.bind is not None and session.bind.dialect.name == "postgresql":
        for hashed in ended:
            await session.execute(select(func.pg_notify(SESSIONS_ENDED_CHANNEL, hashed)))


async def logout(session: AsyncSession, token: str) -> None:
    await _end_sessions(session, UserSession.token_hash == token_hash(token))


async def logout_everywhere(session: AsyncSession, user_id: int) -> None:
    """Every login session of the user ends, and every personal API token is revoked."""
    await _end_sessions(session, UserSession.user_id == user_id)
    await end_tokens(session, ApiToken.user_id == user_id)


async def set_locale(session: AsyncSession, user: User, locale: str) -> None:
    if locale not in LOCALES:
        raise ValidationFailed({"locale": _("Choose German or English.")})
    user.locale = locale


async def create_user(session: AsyncSession, hasher: Hasher, username: str, password: str) -> User:
    """For the ``create-user`` command: same validation as the form."""
    return await register(session, hasher, username, password, None)
