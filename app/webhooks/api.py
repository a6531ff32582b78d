"""JSON API of a campaign's webhooks (GMs only)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from fastapi import Response
from pydantic import BaseModel, Field

from app.web.answers import no_content
from app.web.deps import Ctx, CurrentUser, Session
from app.web.idempotency import IDEMPOTENT, IdempotentRoute
from app.web.ids import PathId
from app.web.routers import Router
from app.webhooks import guard, service
from app.webhooks.models import Webhook

router = Router(
    prefix="/api/v1/campaigns/{campaign_id}/webhooks",
    tags=["webhooks"],
    route_class=IdempotentRoute,
)

Category = Literal["rolls", "turns", "combat", "session"]


class WebhookIn(BaseModel):
    url: str = Field(max_length=guard.MAX_URL_LENGTH)
    events: list[Category] = Field(min_length=1, max_length=4)


class WebhookOut(BaseModel):
    id: int
    #: Masked but once: in the answer that creates the hook.
    url: str
    kind: str
    events: list[str]
    last_status: int | None
    last_error: str | None
    last_attempt_at: datetime | None
    failures: int


class WebhookCreated(WebhookOut):
    #: The key of the ``X-Tafelrunde-Signature`` HMAC, shown once.
    secret: str


class TestOut(BaseModel):
    ok: bool
    status: int
    error: str | None


def _out(hook: Webhook) -> WebhookOut:
    return WebhookOut(
        id=hook.id,
        url=guard.masked(hook.url),
        kind=hook.kind,
        events=hook.events,
        last_status=hook.last_status,
        last_error=hook.last_error,
        last_attempt_at=hook.last_attempt_at,
        failures=hook.failures,
    )


@router.post("", status_code=201, response_model=WebhookCreated, dependencies=[IDEMPOTENT])
async def create(
    campaign_id: PathId, body: WebhookIn, session: Session, user: CurrentUser, ctx: Ctx
) -> WebhookCreated:
    created = await service.create(
        session,
        user,
        campaign_id,
        body.url,
        body.events,
        allow_private=ctx.settings.webhooks_allow_private,
    )
    shown = _out(created.hook).model_dump() | {"url": created.url}
    return WebhookCreated(**shown, secret=created.secret)


@router.get("", response_model=list[WebhookOut])
async def list_hooks(campaign_id: PathId, session: Session, user: CurrentUser) -> list[WebhookOut]:
    return [_out(h) for h in await service.hooks(session, user, campaign_id)]


@router.delete("/{hook_id}", status_code=204)
async def delete(
    campaign_id: PathId, hook_id: PathId, session: Session, user: CurrentUser
) -> Response:
    return await no_content(service.delete(session, user, campaign_id, hook_id))


@router.post("/{hook_id}/test", response_model=TestOut)
async def test(
    campaign_id: PathId, hook_id: PathId, session: Session, user: CurrentUser, ctx: Ctx
) -> TestOut:
    outcome = await service.send_test(
        session, user, campaign_id, hook_id, ctx.settings, lambda: ctx.commit(session)
    )
    return TestOut(ok=outcome.ok, status=outcome.status, error=outcome.error)
