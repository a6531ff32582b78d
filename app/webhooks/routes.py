"""The webhooks page of a campaign (GMs): add a Discord or other webhook, test it, remove it,
and see which one fails. Plain forms; no script needed."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse, Response

from app.campaigns import service as campaigns
from app.campaigns.permissions import Action
from app.errors import ValidationFailed
from app.web.deps import Ctx, CurrentUser, Session
from app.web.idempotency import IDEMPOTENT, IdempotentRoute
from app.web.ids import PathId
from app.web.routers import Router
from app.web.templating import page, redirect
from app.webhooks import guard, service
from app.webhooks.delivery import Outcome
from app.webhooks.messages import CATEGORIES

router = Router(route_class=IdempotentRoute, include_in_schema=False)


async def _context(
    session: Session, user: CurrentUser, campaign_id: int, **extra: Any
) -> dict[str, Any]:
    campaign, _viewer = await campaigns.open_campaign(
        session, user, campaign_id, Action.edit_settings
    )
    hooks = await service.hooks(session, user, campaign_id)
    rows = [{"hook": h, "url": guard.masked(h.url), "failing": service.failing(h)} for h in hooks]
    return {
        "campaign": campaign,
        "rows": rows,
        "categories": CATEGORIES,
        "errors": {},
        "values": {"events": list(CATEGORIES)},
        "created": None,
        "tested": None,
        **extra,
    }


@router.get("/campaigns/{campaign_id}/webhooks", response_class=HTMLResponse)
async def webhooks_page(
    request: Request, campaign_id: PathId, session: Session, user: CurrentUser
) -> Response:
    return page(request, "webhooks/page.html", await _context(session, user, campaign_id))


@router.post("/campaigns/{campaign_id}/webhooks", dependencies=[IDEMPOTENT])
async def add(
    request: Request, campaign_id: PathId, session: Session, user: CurrentUser, ctx: Ctx
) -> Response:
    form = await request.form()
    url = str(form.get("url", ""))
    events = [str(e) for e in form.getlist("events")]
    try:
        created = await service.create(
            session,
            user,
            campaign_id,
            url,
            events,
            allow_private=ctx.settings.webhooks_allow_private,
        )
    except ValidationFailed as exc:
        values = {"url": url, "events": events}
        context = await _context(session, user, campaign_id, errors=exc.fields, values=values)
        return page(request, "webhooks/page.html", context, status_code=422)
    context = await _context(session, user, campaign_id, created=created)
    return page(request, "webhooks/page.html", context, status_code=201)


@router.post("/campaigns/{campaign_id}/webhooks/{hook_id}/test")
async def test(
    request: Request,
    campaign_id: PathId,
    hook_id: PathId,
    session: Session,
    user: CurrentUser,
    ctx: Ctx,
) -> Response:
    outcome: Outcome = await service.send_test(
        session, user, campaign_id, hook_id, ctx.settings, lambda: ctx.commit(session)
    )
    tested = {"id": hook_id, "outcome": outcome}
    context = await _context(session, user, campaign_id, tested=tested)
    return page(request, "webhooks/page.html", context)


@router.post("/campaigns/{campaign_id}/webhooks/{hook_id}/delete")
async def remove(
    request: Request, campaign_id: PathId, hook_id: PathId, session: Session, user: CurrentUser
) -> Response:
    await service.delete(session, user, campaign_id, hook_id)
    return redirect(request, f"/campaigns/{campaign_id}/webhooks")
