"""JSON API of personal API tokens (a login session only: no token manages tokens)."""

from __future__ import annotations

from datetime import datetime

from fastapi import Response
from pydantic import AwareDatetime, BaseModel, ConfigDict

from app.accounts.tokens import Scope
from app.apitokens import service
from app.limits import Name
from app.web.answers import no_content
from app.web.deps import CurrentUser, Session
from app.web.idempotency import IDEMPOTENT, IdempotentRoute
from app.web.ids import PathId, RowId
from app.web.routers import Router

router = Router(prefix="/api/v1/auth/tokens", tags=["auth"], route_class=IdempotentRoute)


class TokenIn(BaseModel):
    name: Name
    scope: Scope
    campaign_id: RowId | None = None
    expires_at: AwareDatetime | None = None


class TokenOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    scope: str
    campaign_id: int | None
    campaign_name: str | None = None
    created_at: datetime
    expires_at: datetime | None
    last_used_at: datetime | None


class TokenShown(BaseModel):
    """What the answer to a new token reads from its row (all but the secret)."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    scope: str
    campaign_id: int | None
    expires_at: datetime | None


class TokenCreated(TokenShown):
    #: The secret, shown once: send it as ``Authorization: Bearer …``.
    token: str


@router.post("", status_code=201, response_model=TokenCreated, dependencies=[IDEMPOTENT])
async def create(body: TokenIn, session: Session, user: CurrentUser) -> TokenCreated:
    token, secret = await service.create(
        session, user, body.name, body.scope, body.campaign_id, body.expires_at
    )
    shown = TokenShown.model_validate(token).model_dump()
    return TokenCreated(**shown, token=secret)


@router.get("", response_model=list[TokenOut])
async def list_tokens(session: Session, user: CurrentUser) -> list[TokenOut]:
    return [
        TokenOut.model_validate(v.token).model_copy(update={"campaign_name": v.campaign_name})
        for v in await service.mine(session, user)
    ]


@router.delete("/{token_id}", status_code=204)
async def revoke(token_id: PathId, session: Session, user: CurrentUser) -> Response:
    return await no_content(service.revoke(session, user, token_id))
