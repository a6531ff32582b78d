"""JSON API of accounts: register, log in (returns a bearer token), log out."""

from __future__ import annotations

from fastapi import Request, Response
from pydantic import BaseModel, Field

from app.accounts import service
from app.web.cookies import clear_session_cookie, set_session_cookie
from app.web.deps import Ctx, CurrentUser, Session, TransactionalRoute, session_token
from app.web.routers import Router
from app.web.signin import log_in

router = Router(prefix="/api/v1/auth", tags=["auth"], route_class=TransactionalRoute)


class RegisterIn(BaseModel):
    username: str = Field(max_length=64)
    password: str = Field(max_length=1024)
    email: str | None = Field(default=None, max_length=254)


class UserOut(BaseModel):
    id: int
    username: str


class LoginIn(BaseModel):
    username: str = Field(max_length=64)
    password: str = Field(max_length=1024)


class LoginOut(BaseModel):
    token: str
    user: UserOut


@router.post("/register", status_code=201, response_model=UserOut)
async def register(body: RegisterIn, session: Session, ctx: Ctx) -> UserOut:
    user = await service.register(session, ctx.hasher, body.username, body.password, body.email)
    return UserOut(id=user.id, username=user.username)


@router.post("/login", response_model=LoginOut)
async def login(
    body: LoginIn, request: Request, response: Response, session: Session, ctx: Ctx
) -> LoginOut:
    result = await log_in(request, session, ctx, body.username, body.password)
    set_session_cookie(request, response, result.token)
    return LoginOut(
        token=result.token, user=UserOut(id=result.user.id, username=result.user.username)
    )


@router.post("/logout", status_code=204)
async def logout(request: Request, response: Response, session: Session, user: CurrentUser) -> None:
    token = session_token(request)
    if token:
        await service.logout(session, token)
    clear_session_cookie(response)


@router.post("/logout-everywhere", status_code=204)
async def logout_everywhere(response: Response, session: Session, user: CurrentUser) -> None:
    await service.logout_everywhere(session, user.id)
    clear_session_cookie(response)
