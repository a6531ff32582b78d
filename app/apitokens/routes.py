"""The page of a user's personal API tokens: create one (its secret shown once), see when
each was last used, revoke. Plain forms; no script needed."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse, Response

from app.accounts.tokens import Scope
from app.apitokens import service
from app.db import utcnow
from app.errors import ValidationFailed
from app.i18n import N_, _
from app.web.deps import CurrentUser, Session
from app.web.idempotency import IDEMPOTENT, IdempotentRoute
from app.web.ids import PathId
from app.web.routers import Router
from app.web.templating import page, redirect

router = Router(route_class=IdempotentRoute, include_in_schema=False)

#: The scopes with what each allows (msgids).
SCOPES = {
    Scope.read: N_("Read: every page and live stream of your campaigns"),
    Scope.play: N_("Play: read, and roll, act in fights, move, chat and edit your own sheets"),
    Scope.manage: N_("Manage: everything you may do, but account settings and tokens"),
}
#: Lifetimes offered by the form, in days (0: no expiry).
LIFETIMES = (30, 90, 365, 0)


async def _context(session: Session, user: CurrentUser, **extra: Any) -> dict[str, Any]:
    return {
        "tokens": await service.mine(session, user),
        "campaigns": await service.campaigns_of(session, user),
        "scopes": SCOPES,
        "lifetimes": LIFETIMES,
        "errors": {},
        "values": {"scope": Scope.read.value, "days": "90"},
        "created": None,
        **extra,
    }


@router.get("/account/tokens", response_class=HTMLResponse)
async def tokens_page(request: Request, session: Session, user: CurrentUser) -> Response:
    return page(request, "apitokens/page.html", await _context(session, user))


def _parse(values: dict[str, str]) -> tuple[Scope, int | None, int]:
    errors: dict[str, str] = {}
    scope = Scope.read
    try:
        scope = Scope(values.get("scope", ""))
    except ValueError:
        errors["scope"] = _("Choose one of the listed options.")
    raw_campaign = values.get("campaign_id", "")
    campaign_id = int(raw_campaign) if raw_campaign.isdigit() and len(raw_campaign) < 10 else None
    if raw_campaign and campaign_id is None:
        errors["campaign_id"] = _("Choose one of the listed options.")
    days = int(values["days"]) if values.get("days", "").isdigit() else -1
    if days not in LIFETIMES:
        errors["days"] = _("Choose one of the listed options.")
    if errors:
        raise ValidationFailed(errors)
    return scope, campaign_id, days


@router.post("/account/tokens", dependencies=[IDEMPOTENT])
async def create(request: Request, session: Session, user: CurrentUser) -> Response:
    form = await request.form()
    values = {k: str(v) for k, v in form.items()}
    try:
        scope, campaign_id, days = _parse(values)
        expires = utcnow() + timedelta(days=days) if days else None
        token, secret = await service.create(
            session, user, values.get("name", ""), scope, campaign_id, expires
        )
    except ValidationFailed as exc:
        context = await _context(session, user, errors=exc.fields, values=values)
        return page(request, "apitokens/page.html", context, status_code=422)
    context = await _context(session, user, created={"token": token, "secret": secret})
    return page(request, "apitokens/page.html", context, status_code=201)


@router.post("/account/tokens/{token_id}/revoke")
async def revoke(
    request: Request, token_id: PathId, session: Session, user: CurrentUser
) -> Response:
    await service.revoke(session, user, token_id)
    return redirect(request, "/account/tokens")
