"""HTML pages of game sessions: the sessions page (start, end, the table rule, the client
seed, the records), the verification page and the standalone verifier to download."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import Form, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, Response

from app.campaigns import service as campaigns
from app.sessions import live, service, views
from app.web.calls import CampaignCall
from app.web.deps import CurrentUser, Session
from app.web.idempotency import IDEMPOTENT, IdempotentRoute
from app.web.ids import PathId
from app.web.pages import FormPage, page_route
from app.web.routers import Router
from app.web.templating import page, redirect

router = Router(include_in_schema=False, route_class=IdempotentRoute)

#: The standalone verifier, served as it is (standard library only, one file).
VERIFIER = Path(__file__).with_name("verify_fairplay.py")


def _back(campaign_id: int, back: str) -> str:
    """Where a form returns: the campaign page or the sessions page (nowhere else)."""
    sessions = f"/campaigns/{campaign_id}/sessions"
    return sessions if back == sessions else f"/campaigns/{campaign_id}"


_SESSIONS = FormPage("sessions/index.html", campaigns.open_campaign, views.sessions_context)
sessions_page = page_route(
    router, "/campaigns/{campaign_id}/sessions", "sessions_page", _SESSIONS.render
)


@router.post("/campaigns/{campaign_id}/sessions", dependencies=[IDEMPOTENT])
async def start(
    request: Request,
    campaign_id: PathId,
    session: Session,
    user: CurrentUser,
    back: Annotated[str, Form()] = "",
) -> Response:
    await service.start(session, user, campaign_id)
    return redirect(request, _back(campaign_id, back))


@router.post("/campaigns/{campaign_id}/sessions/{session_id}/end")
async def end(
    request: Request,
    campaign_id: PathId,
    session_id: PathId,
    session: Session,
    user: CurrentUser,
    back: Annotated[str, Form()] = "",
) -> Response:
    await service.end(session, user, campaign_id, session_id)
    return redirect(request, _back(campaign_id, back))


@router.post("/campaigns/{campaign_id}/sessions/{session_id}/seed", response_model=None)
async def set_seed(
    request: Request,
    campaign_id: PathId,
    session_id: PathId,
    session: Session,
    user: CurrentUser,
    client_seed: Annotated[str, Form()] = "",
) -> Response:
    return await _SESSIONS.answer(
        CampaignCall(request, session, user, campaign_id),
        lambda: service.set_seed(session, user, campaign_id, session_id, client_seed),
        lambda exc: {"errors": exc.fields, "client_seed": client_seed},
        f"/campaigns/{campaign_id}/sessions",
    )  # fmt: skip


@router.post("/campaigns/{campaign_id}/fairplay")
async def configure(
    request: Request,
    campaign_id: PathId,
    session: Session,
    user: CurrentUser,
    overrides: Annotated[str, Form()] = "marked",
    enabled: Annotated[bool, Form()] = False,
    reveal_secret_rolls: Annotated[bool, Form()] = False,
) -> Response:
    await service.configure(
        session, user, campaign_id, enabled=enabled, overrides=overrides,
        reveal_secret_rolls=reveal_secret_rolls,
    )  # fmt: skip
    return redirect(request, f"/campaigns/{campaign_id}/sessions")


@router.get("/campaigns/{campaign_id}/sessions/{session_id}/verify", response_class=HTMLResponse)
async def verify_page(
    request: Request, campaign_id: PathId, session_id: PathId, session: Session, user: CurrentUser
) -> HTMLResponse:
    """The verification page: ``static/js/fairplay.js`` checks the export in the browser."""
    game, viewer = await service.open_game(session, user, campaign_id, session_id)
    campaign, _viewer = await campaigns.open_campaign(session, user, campaign_id)
    context = {
        "campaign": campaign,
        "campaign_id": campaign_id,
        "viewer": viewer,
        "session": views.session_view(game),
        "labels": views.event_labels(),
    }
    return page(request, "sessions/verify.html", context)


@router.get("/fairplay/verify_fairplay.py", response_class=PlainTextResponse)
async def verifier() -> PlainTextResponse:
    """The standalone verifier (``python3 verify_fairplay.py SESSION.json``)."""
    return PlainTextResponse(
        VERIFIER.read_text(encoding="utf-8"),
        media_type="text/x-python; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="verify_fairplay.py"'},
    )


__all__ = ["live", "router"]
