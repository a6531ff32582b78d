"""HTML of the dice log on the campaign page: a roll from its form, a page of older entries."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Form, Query, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from app.campaigns import service as campaigns
from app.campaigns import views as campaign_views
from app.campaigns.live import CAMPAIGN_PAGE
from app.campaigns.models import Campaign
from app.campaigns.views import CampaignPage
from app.core.viewer import Viewer
from app.errors import ValidationFailed
from app.rolls import live, service, views
from app.web.deps import Ctx, CurrentUser, Session
from app.web.idempotency import IDEMPOTENT, IdempotentRoute
from app.web.ids import MAX_ROW_ID, PathId
from app.web.routers import Router
from app.web.templating import is_htmx, page, redirect

router = Router(include_in_schema=False, route_class=IdempotentRoute)


@router.get("/campaigns/{campaign_id}/log", response_class=HTMLResponse)
async def older_entries(
    request: Request,
    campaign_id: PathId,
    session: Session,
    user: CurrentUser,
    before: int = Query(ge=1, le=MAX_ROW_ID),
) -> Response:
    """The next page of the dice log, for the "older entries" control."""
    _campaign, viewer = await campaigns.open_campaign(session, user, campaign_id)
    if not is_htmx(request):
        return redirect(request, f"/campaigns/{campaign_id}?before={before}")
    context = await live.log_context(session, viewer, campaign_id, before)
    return page(request, live.TEMPLATE, {"viewer": viewer, **context}, block="log_page")


@dataclass(frozen=True, slots=True)
class RollForm:
    """The dice form's fields, as typed."""

    expression: str
    label: str
    visibility: str

    def values(self) -> dict[str, str]:
        """What the form shows again after a refusal."""
        return {"expression": self.expression, "label": self.label, "visibility": self.visibility}

    def kept(self) -> dict[str, str]:
        """What the form keeps for the next roll (the expression is cleared)."""
        return {"label": self.label, "visibility": self.visibility}


async def _roll_fields(
    expression: Annotated[str, Form()] = "",
    label: Annotated[str, Form()] = "",
    visibility: Annotated[str, Form()] = "public",
) -> RollForm:
    return RollForm(expression, label, visibility)


RollFields = Annotated[RollForm, Depends(_roll_fields)]


async def _roll_form(
    request: Request,
    session: AsyncSession,
    opened: tuple[Campaign, Viewer],
    form: Mapping[str, object],
    status_code: int = 200,
) -> Response:
    """The roll form with ``form`` (its errors and values): alone for HTMX, else the page."""
    campaign, viewer = opened
    context = await campaign_views.page_context(session, campaign, viewer, parts=())
    context.update({**views.FORM_DEFAULTS, **form})
    if is_htmx(request):
        return page(request, live.TEMPLATE, context, block="roll_form", status_code=status_code)
    await CAMPAIGN_PAGE.contribute(session, viewer, CampaignPage(campaign.id), context)
    return page(request, "campaigns/detail.html", context, status_code=status_code)


@router.post("/campaigns/{campaign_id}/rolls", dependencies=[IDEMPOTENT])
async def roll(
    request: Request,
    campaign_id: PathId,
    session: Session,
    user: CurrentUser,
    ctx: Ctx,
    typed: RollFields,
) -> Response:
    # Read with the sign-in: no statement now, and none after the roll's write, which drops
    # the transaction's reads (the campaign row and the role are the same objects then).
    opened = await campaigns.open_campaign(session, user, campaign_id)
    try:
        await service.roll(
            session, ctx.roller, user, campaign_id, typed.expression, typed.label, typed.visibility
        )
    except ValidationFailed as exc:
        form = {"roll_errors": exc.fields, "roll_values": typed.values()}
        return await _roll_form(request, session, opened, form, 422)
    if is_htmx(request):
        form = {"roll_values": typed.kept()}
        return await _roll_form(request, session, opened, form)
    return redirect(request, f"/campaigns/{campaign_id}")
