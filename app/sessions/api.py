"""JSON API of game sessions and fair play (``docs/fairplay.md``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from fastapi import Query
from fastapi.responses import HTMLResponse, PlainTextResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from app.campaigns import service as campaigns
from app.i18n import _, local_datetime, zone_name
from app.sessions import record, service, views
from app.web.deps import CurrentUser, Session
from app.web.idempotency import IDEMPOTENT, IdempotentRoute
from app.web.ids import PathId
from app.web.routers import Router
from app.web.templating import render

router = Router(
    prefix="/api/v1/campaigns/{campaign_id}", tags=["sessions"], route_class=IdempotentRoute
)


class Started(BaseModel):
    id: int
    started_at: datetime
    commitment: str | None


class Ended(BaseModel):
    ended_at: datetime
    server_seed: str | None


class SeedIn(BaseModel):
    #: Checked at the field by the service (64 characters, no control characters).
    client_seed: str = Field(max_length=10_000)


class SeedOut(BaseModel):
    session_id: int
    client_seed: str


class RuleIn(BaseModel):
    enabled: bool
    overrides: Literal["forbidden", "marked", "silent"] = "marked"
    reveal_secret_rolls: bool = True


class RuleOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    enabled: bool
    overrides: str
    reveal_secret_rolls: bool


class SessionOut(BaseModel):
    id: int
    started_at: datetime
    ended_at: datetime | None
    fairplay: bool
    commitment: str | None


@router.put("/fairplay", response_model=RuleOut)
async def configure(
    campaign_id: PathId, body: RuleIn, session: Session, user: CurrentUser
) -> RuleOut:
    rule = await service.configure(
        session, user, campaign_id, enabled=body.enabled, overrides=body.overrides,
        reveal_secret_rolls=body.reveal_secret_rolls,
    )  # fmt: skip
    return RuleOut.model_validate(rule)


@router.get("/fairplay", response_model=RuleOut)
async def current_rule(campaign_id: PathId, session: Session, user: CurrentUser) -> RuleOut:
    await campaigns.open_campaign(session, user, campaign_id)
    rule = await service.rule(session, campaign_id)
    return RuleOut.model_validate(rule)


@router.post("/sessions", status_code=201, response_model=Started, dependencies=[IDEMPOTENT])
async def start(campaign_id: PathId, session: Session, user: CurrentUser) -> Started:
    game = await service.start(session, user, campaign_id)
    return Started(id=game.id, started_at=game.started_at, commitment=game.commitment)


@router.get("/sessions", response_model=list[SessionOut])
async def sessions(campaign_id: PathId, session: Session, user: CurrentUser) -> list[SessionOut]:
    return [
        SessionOut(
            id=g.id,
            started_at=g.started_at,
            ended_at=g.ended_at,
            fairplay=g.commitment is not None,
            commitment=g.commitment,
        )
        for g in await service.sessions_of(session, user, campaign_id)
    ]


@router.post("/sessions/{session_id}/end", response_model=Ended)
async def end(
    campaign_id: PathId, session_id: PathId, session: Session, user: CurrentUser
) -> Ended:
    game = await service.end(session, user, campaign_id, session_id)
    assert game.ended_at is not None
    return Ended(ended_at=game.ended_at, server_seed=game.server_seed)


@router.put("/sessions/{session_id}/seed", response_model=SeedOut)
async def set_seed(
    campaign_id: PathId, session_id: PathId, body: SeedIn, session: Session, user: CurrentUser
) -> SeedOut:
    row = await service.set_seed(session, user, campaign_id, session_id, body.client_seed)
    return SeedOut(session_id=row.session_id, client_seed=row.client_seed)


@router.get("/sessions/{session_id}/fairplay")
async def fairplay(
    campaign_id: PathId, session_id: PathId, session: Session, user: CurrentUser
) -> dict[str, Any]:
    """The session's fair-play export, as the caller may see it (for the verifiers)."""
    return dict(await service.fairplay_export(session, user, campaign_id, session_id))


@router.get("/sessions/{session_id}/export", response_class=Response)
async def export(
    campaign_id: PathId,
    session_id: PathId,
    session: Session,
    user: CurrentUser,
    format: Literal["md", "html"] = Query(default="md"),
) -> Response:
    """The session record as Markdown or as a printable HTML page, with exactly what the
    caller may see (a GM's includes the secret rolls)."""
    game, viewer = await service.open_game(session, user, campaign_id, session_id)
    campaign, _viewer = await campaigns.open_campaign(session, user, campaign_id)
    lines = record.lines(await service.session_events(session, game), viewer)
    title = _("Session record: %(name)s", name=campaign.name)
    subtitle = _("Session %(id)d, %(start)s", id=game.id, start=local_datetime(game.started_at))
    name = f"session-{game.id}"
    if format == "md":
        return PlainTextResponse(
            record.markdown(title, subtitle, lines),
            media_type="text/markdown; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{name}.md"'},
        )
    html = render(
        "sessions/record.html", title=title, subtitle=subtitle, lines=lines,
        session=views.session_view(game), campaign_id=campaign_id, zone=zone_name(),
    )  # fmt: skip
    return HTMLResponse(html)
