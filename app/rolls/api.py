"""JSON API of the dice log."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import Query
from pydantic import BaseModel, Field

from app.campaigns import service as campaigns
from app.campaigns.permissions import Action, authorize_viewer
from app.events.events import Roll
from app.events.service import can_see
from app.rolls import service
from app.web.calls import CampaignAt
from app.web.deps import Ctx
from app.web.idempotency import IDEMPOTENT, IdempotentRoute
from app.web.ids import MAX_ROW_ID
from app.web.routers import Router

router = Router(
    prefix="/api/v1/campaigns/{campaign_id}/rolls", tags=["rolls"], route_class=IdempotentRoute
)


class RollIn(BaseModel):
    expression: str = Field(max_length=200)
    label: str | None = Field(default=None, max_length=200)
    visibility: Literal["public", "gm", "self"] = "public"


class DieOut(BaseModel):
    sides: int
    faces: list[int]
    kept: list[bool]


class RollOut(BaseModel):
    """A roll as its roller receives it, as the dice log shows it to them: a roll for the
    GMs only by a roller who is not a GM is ``secret``, without its values."""

    event_id: int
    expression: str
    label: str | None
    visibility: str
    secret: bool = False
    dice: list[DieOut] | None
    modifier: int | None
    total: int | None


class RollPage(BaseModel):
    rolls: list[dict[str, Any]]
    next_before: int | None


@router.post("", status_code=201, response_model=RollOut, dependencies=[IDEMPOTENT])
async def roll(call: CampaignAt, body: RollIn, ctx: Ctx) -> RollOut:
    _request, session, user, campaign_id = call.parts()
    event = await service.roll(
        session, ctx.roller, user, campaign_id, body.expression, body.label, body.visibility
    )
    rolled = Roll.from_json(event.payload)
    # The role read with the sign-in: no statement more on the hottest path.
    viewer = await authorize_viewer(session, campaign_id, user.id, user.username, Action.view)
    if not can_see(event, viewer):
        return RollOut(
            event_id=event.seq, expression=rolled.expression, label=rolled.label or None,
            visibility=event.visibility, secret=True, dice=None, modifier=None, total=None,
        )  # fmt: skip
    return RollOut(
        event_id=event.seq,
        expression=rolled.expression,
        label=rolled.label or None,
        visibility=event.visibility,
        dice=[DieOut.model_validate(d) for d in rolled.dice],
        modifier=rolled.modifier,
        total=rolled.total,
    )


@router.get("", response_model=RollPage)
async def log(
    call: CampaignAt, before: int | None = Query(default=None, ge=1, le=MAX_ROW_ID)
) -> RollPage:
    _campaign, viewer = await campaigns.open_campaign(call.session, call.user, call.campaign_id)
    page, next_before = await service.log_page(call.session, viewer, call.campaign_id, before)
    return RollPage(rolls=[e.data() for e in page], next_before=next_before)
