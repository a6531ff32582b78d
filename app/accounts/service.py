"""Use cases of accounts: register, log in (throttled), sessions, log out, preferences."""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Select, bindparam, delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.accounts.models import LoginFailure, User, UserSession
from app.accounts.passwords import Hasher
from app.campaigns.permissions import remember_role, role_in_campaign
from app.config import Settings
from app.db import utcnow
from app.errors import LoginFailed, TooManyRequests, ValidationFailed
from app.i18n import LOCALES, _

USERNAME_RE = re.compile(r"^[A-Za-z0-9_.-]{3,32}$")
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


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class LoginResult:
    user: User
    token: str


def validate_registration(username: str, password: str, email: str | None) -> dict[str, str]:
    errors: dict[str, str] = {}
    if not USERNAME_RE.match(username):
        errors["username"] = _("3 to 32 characters: letters, digits, dot, hyphen or underscore.")
    if len(password) < PASSWORD_MIN:
        errors["password"] = _("At least %(min)d characters.", min=PASSWORD_MIN)
    elif len(password) > PASSWORD_MAX:
        errors["password"] = _("At most %(max)d characters.", max=PASSWORD_MAX)
    elif password.lower() in COMMON_PASSWORDS or password.lower() == username.lower():
        errors["password"] = _("This password is too easy to guess.")
    if email and not EMAIL_RE.match(email):
        errors["email"] = _("This is not an e-mail address.")
    return errors


async def register(
    session: AsyncSession, hasher: Hasher, username: str, password: str, email: str | None
) -> User:
    username = username.strip()
    email = (email or "").strip() or None
    errors = validate_registration(username, password, email)
    if not errors and await session.scalar(
        select(User.id).where(User.username_key == username.lower())
    ):
        errors["username"] = _("This name is taken.")
    if errors:
        raise ValidationFailed(errors)
    user = User(
        username=username,
        username_key=username.lower(),
        email=email,
        password_hash=await hasher.hash(password),
    )
    session.add(user)
    await session.flush()
    return user


async def login(
    session: AsyncSession,
    hasher: Hasher,
    settings: Settings,
    username: str,
    password: str,
    address: str,
    user_agent: str | None,
) -> LoginResult:
    """Check the password, throttled per account and per address; open a session."""
    key = username.strip().lower()[:32]
    since = utcnow() - timedelta(minutes=settings.login_window_minutes)
    per_account = await session.scalar(
        select(func.count())
        .select_from(LoginFailure)
        .where(LoginFailure.username_key == key, LoginFailure.created_at > since)
    )
    per_address = await session.scalar(
        select(func.count())
        .select_from(LoginFailure)
        .where(LoginFailure.address == address, LoginFailure.created_at > since)
    )
    if (per_account or 0) >= settings.login_max_failures or (
        per_address or 0
    ) >= settings.login_max_failures * 10:
        raise TooManyRequests(
            _(
                "Too many failed logins. Please wait %(minutes)d minutes and try again.",
                minutes=settings.login_window_minutes,
            ),
            retry_after=settings.login_window_minutes * 60,
        )
    user = await session.scalar(select(User).where(User.username_key == key))
    ok = await hasher.verify(user.password_hash if user else None, password)
    if user is None or not ok or not user.is_active:
        session.add(LoginFailure(username_key=key, address=address[:64]))
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
    await session.execute(delete(LoginFailure).where(LoginFailure.username_key == key))
    return LoginResult(user=user, token=token)


#: Built once: the statement runs on every request.
_USER_FOR_TOKEN = (
    select(User, UserSession.id, UserSession.last_seen_at)
    .join(UserSession, UserSession.user_id == User.id)
    .where(UserSession.token_hash == bindparam("token_hash"))
)
#: The same, and the user's role in one campaign (the one the request is about).
_USER_AND_ROLE_FOR_TOKEN = _USER_FOR_TOKEN.add_columns(role_in_campaign(User.id))


async def user_for_token(
    session: AsyncSession, settings: Settings, token: str, campaign_id: int | None = None
) -> User | None:
    """The active user behind a session token, or ``None`` if it is unknown or expired.

    With ``campaign_id`` the user's role there is read in the same statement and remembered
    for this request's authorization (one round trip less on every campaign request).
    """
    statement: Select[User, int, datetime] | Select[User, int, datetime, str | None]
    statement = _USER_FOR_TOKEN
    params: dict[str, object] = {"token_hash": token_hash(token)}
    if campaign_id is not None:
        statement, params["role_campaign_id"] = _USER_AND_ROLE_FOR_TOKEN, campaign_id
    row = (await session.execute(statement, params)).first()
    if row is None:
        return None
    user: User = row[0]
    session_id: int = row[1]
    last_seen_at: datetime = row[2]
    now = utcnow()
    if now - last_seen_at > timedelta(days=settings.session_idle_days):
        await session.execute(delete(UserSession).where(UserSession.id == session_id))
        return None
    if not user.is_active:
        return None
    if now - last_seen_at > TOUCH_INTERVAL:
        await session.execute(
            update(UserSession).where(UserSession.id == session_id).values(last_seen_at=now)
        )
    if campaign_id is not None:
        remember_role(session, campaign_id, user.id, row[3])
    return user


async def logout(session: AsyncSession, token: str) -> None:
    await session.execute(delete(UserSession).where(UserSession.token_hash == token_hash(token)))


async def logout_everywhere(session: AsyncSession, user_id: int) -> None:
    await session.execute(delete(UserSession).where(UserSession.user_id == user_id))


async def set_locale(session: AsyncSession, user: User, locale: str) -> None:
    if locale not in LOCALES:
        raise ValidationFailed({"locale": _("Choose German or English.")})
    user.locale = locale


async def create_user(session: AsyncSession, hasher: Hasher, username: str, password: str) -> User:
    """For the ``create-user`` command: same validation as the form."""
    return await register(session, hasher, username, password, None)
