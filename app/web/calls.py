"""A campaign route's call as one parameter: the request, its session and user, the campaign.

Routes under ``/campaigns/{campaign_id}/…`` that answer with a page or a redirect pass these
four on to their helpers together; :data:`CampaignAt` gathers them once (a package adds what
its own path names, as the map's scene does)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import BackgroundTasks, Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from app.accounts.models import User
from app.web.deps import Session, signed_in_user
from app.web.ids import PathId


@dataclass(frozen=True, slots=True)
class CampaignCall:
    """A request about the campaign in its path, by the signed-in ``user``."""

    request: Request
    session: AsyncSession
    user: User
    campaign_id: int

    def parts(self) -> tuple[Request, AsyncSession, User, int]:
        """The four, for a route that names them one by one."""
        return self.request, self.session, self.user, self.campaign_id


async def campaign_call(
    request: Request, campaign_id: PathId, session: Session, later: BackgroundTasks
) -> CampaignCall:
    user = await signed_in_user(request, session, later)
    return CampaignCall(request, session, user, campaign_id)


#: A campaign route's parameter: the request, the session, the user and the campaign's id.
CampaignAt = Annotated[CampaignCall, Depends(campaign_call)]
