"""HTML side of the campaign export (a download on the settings page) and import (a form)."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, File, Request, UploadFile
from fastapi.responses import Response

from app.campaigns import service as campaigns
from app.errors import ValidationFailed
from app.i18n import _
from app.transfer import service
from app.web.deps import CurrentUser, Session
from app.web.idempotency import IDEMPOTENT, IdempotentRoute
from app.web.ids import PathId
from app.web.templating import page, redirect

router = APIRouter(route_class=IdempotentRoute, include_in_schema=False)


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
            "systems": campaigns.SYSTEM_NAMES,
            "import_errors": exc.fields,
        }
        return page(request, "campaigns/index.html", context, status_code=422)
    return redirect(request, f"/campaigns/{campaign.id}")
