"""A signed-in user's call to a route under ``/campaigns/{campaign_id}``, as one parameter.

Nearly every campaign route takes the request, the campaign id from the path, the request's
session and the signed-in user, and hands the four on to its helpers (``FormPage``, a page
context). :data:`CampaignCall` declares them once: a route takes ``call: CampaignCall``; its
fields stand in the order ``FormPage.render`` and ``FormPage.answer`` take them, so
``page.answer(*call, ...)`` passes them on.
"""

from __future__ import annotations

from typing import Annotated, NamedTuple

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from app.accounts.models import User
from app.web.deps import CurrentUser, Session
from app.web.ids import PathId


class CampaignRequest(NamedTuple):
    """The request, its session, the signed-in user and the campaign id of the path."""

    request: Request
    session: AsyncSession
    user: User
    campaign_id: int


async def _campaign_request(
    request: Request, campaign_id: PathId, session: Session, user: CurrentUser
) -> CampaignRequest:
    return CampaignRequest(request, session, user, campaign_id)


CampaignCall = Annotated[CampaignRequest, Depends(_campaign_request)]
