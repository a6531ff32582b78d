"""JSON API of campaigns."""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.campaigns import service
from app.core.systems import RuleSystem
from app.events.encoding import render_json
from app.limits import Name
from app.web.deps import CurrentUser, Session, TransactionalRoute
from app.web.idempotency import IDEMPOTENT, IdempotentRoute
from app.web.ids import PathId
from app.web.routers import Router
from app.web.sse import LiveStream
from app.web.streams import MemberStream

router = Router(prefix="/api/v1/campaigns", tags=["campaigns"], route_class=IdempotentRoute)
#: The campaign's event stream (its own tag): the events package knows no HTTP and no campaign.
events_router = Router(tags=["events"], route_class=TransactionalRoute)


class CampaignIn(BaseModel):
    name: Name
    system: RuleSystem


class CampaignCreated(BaseModel):
    id: int
    name: str
    system: str
    invite_code: str


class JoinIn(BaseModel):
    invite_code: str = Field(max_length=64)


class Joined(BaseModel):
    campaign_id: int
    role: str


class MemberOut(BaseModel):
    user_id: int
    username: str
    role: str


class CampaignOut(BaseModel):
    id: int
    name: str
    system: str
    role: str
    members: list[MemberOut]


class CampaignListItem(BaseModel):
    id: int
    name: str
    system: str
    role: str


@router.post("", status_code=201, response_model=CampaignCreated, dependencies=[IDEMPOTENT])
async def create(body: CampaignIn, session: Session, user: CurrentUser) -> CampaignCreated:
    campaign = await service.create_campaign(session, user, body.name, body.system.value)
    invites = await service.active_invites(session, campaign.id)
    return CampaignCreated(
        id=campaign.id, name=campaign.name, system=campaign.system, invite_code=invites[0].code
    )


@router.get("", response_model=list[CampaignListItem])
async def list_mine(session: Session, user: CurrentUser) -> list[CampaignListItem]:
    return [
        CampaignListItem(
            id=s.campaign.id, name=s.campaign.name, system=s.campaign.system, role=s.role
        )
        for s in await service.my_campaigns(session, user)
    ]


@router.post("/join", response_model=Joined, dependencies=[IDEMPOTENT])
async def join(body: JoinIn, session: Session, user: CurrentUser) -> Joined:
    campaign, role = await service.join(session, user, body.invite_code)
    return Joined(campaign_id=campaign.id, role=role)


@router.get("/{campaign_id}", response_model=CampaignOut)
async def get(campaign_id: PathId, session: Session, user: CurrentUser) -> CampaignOut:
    campaign, viewer = await service.open_campaign(session, user, campaign_id)
    members = await service.members(session, campaign_id)
    return CampaignOut(
        id=campaign.id,
        name=campaign.name,
        system=campaign.system,
        role=viewer.role,
        members=[MemberOut(user_id=m.user_id, username=m.username, role=m.role) for m in members],
    )


@events_router.get(
    "/api/v1/campaigns/{campaign_id}/events",
    response_class=LiveStream,
    # LiveStream's constructor names no status code, from which the OpenAPI schema would take it.
    status_code=200,
    responses={200: {"content": {"text/event-stream": {}}}},
)
async def campaign_events(stream: MemberStream) -> LiveStream:
    """Every event the caller may see after ``Last-Event-ID`` / ``?after=``, then live."""
    return stream(render_json)
