"""Logging in from a request: the account service's login with the request's address and
browser (the HTML form and the JSON API)."""

from __future__ import annotations

from fastapi import Request
from sqlalchemy.ext.asyncio import AsyncSession

from app.accounts import service
from app.accounts.service import LoginResult
from app.web.context import AppContext


async def log_in(
    request: Request, session: AsyncSession, ctx: AppContext, username: str, password: str
) -> LoginResult:
    """Check the password and open a session for the client that sent ``request``."""
    address = request.client.host if request.client else ""
    user_agent = request.headers.get("user-agent")
    return await service.login(
        session, ctx.hasher, ctx.settings, username, password, address, user_agent
    )
