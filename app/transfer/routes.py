"""HTML side of the campaign export (a download on the settings page) and import (a form)."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import File, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.campaigns import service as campaigns
from app.core.systems import LABELS
from app.core.viewer import Role
from app.errors import ValidationFailed
from app.i18n import _
from app.transfer import parts, service
from app.web.deps import CurrentUser, OptionalUser, Session
from app.web.idempotency import IDEMPOTENT, IdempotentRoute
from app.web.ids import PathId
from app.web.routers import Router
from app.web.templating import page, redirect

router = Router(route_class=IdempotentRoute, include_in_schema=False)


@router.get("/campaigns/{campaign_id}/export")
async def export(campaign_id: PathId, session: Session, user: CurrentUser) -> Response:
    document = await service.export_campaign(session, user, campaign_id)
    body = await asyncio.to_thread(service.encode_document, document)
    disposition = f'attachment; filename="campaign-{campaign_id}.json"'
    return Response(
        body, media_type="application/json", headers={"Content-Disposition": disposition}
    )


@router.post("/campaigns/import", dependencies=[IDEMPOTENT])
async def import_(
    request: Request,
    session: Session,
    user: CurrentUser,
    document: Annotated[UploadFile | None, File()] = None,
) -> Response:
    try:
        if document is None or not document.filename:
            raise ValidationFailed({"document": _("Choose an exported campaign file.")})
        service.check_size(document.size or 0)
        parsed = await asyncio.to_thread(service.read_document, await document.read())
        campaign = await service.import_campaign(session, user, parsed)
    except ValidationFailed as exc:
        summaries = await campaigns.my_campaigns(session, user)
        context = {
            "summaries": summaries,
            "errors": {},
            "values": {},
            "systems": LABELS,
            "import_errors": exc.fields,
        }
        return page(request, "campaigns/index.html", context, status_code=422)
    # The GM's first stop when the file named other people: whom to hand their parts to.
    if await parts.count(session, campaign.id):
        return redirect(request, f"/campaigns/{campaign.id}/parts")
    return redirect(request, f"/campaigns/{campaign.id}")


@router.get("/campaigns/{campaign_id}/parts", response_class=HTMLResponse)
async def parts_page(
    request: Request, campaign_id: PathId, session: Session, user: CurrentUser
) -> Response:
    """The imported parts of the campaign, each with its takeover link once made."""
    found = await parts.parts_of(session, user, campaign_id)
    return page(request, "transfer/parts.html", {"campaign_id": campaign_id, "parts": found})


@router.post("/campaigns/{campaign_id}/parts/{part_id}/link", dependencies=[IDEMPOTENT])
async def make_link(
    request: Request, campaign_id: PathId, part_id: PathId, session: Session, user: CurrentUser
) -> Response:
    await parts.make_takeover_link(session, user, campaign_id, part_id)
    return redirect(request, f"/campaigns/{campaign_id}/parts#part-{part_id}")


@router.get("/takeover/{code}", response_class=HTMLResponse)
async def takeover_page(
    request: Request, code: str, session: Session, user: OptionalUser
) -> Response:
    if user is None:
        return RedirectResponse(f"/login?next=/takeover/{code}", status_code=303)
    part, campaign = await parts.part_by_code(session, code)
    return page(
        request,
        "transfer/takeover.html",
        {"code": code, "campaign": campaign, "part": part, "role": Role(part.role)},
    )


@router.post("/takeover/{code}", dependencies=[IDEMPOTENT])
async def takeover(request: Request, code: str, session: Session, user: CurrentUser) -> Response:
    campaign = await parts.claim(session, user, code)
    return redirect(request, f"/campaigns/{campaign.id}")
