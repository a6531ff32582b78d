"""The PDF downloads (docs/print.md): what a viewer may read, they may print."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Literal

from fastapi import APIRouter, Response
from fastapi.types import DecoratedCallable

from app.core.systems import RuleSystem
from app.printing import service
from app.printing.document import Document, render
from app.web.deps import CurrentUser, Session, TransactionalRoute
from app.web.ids import PathId

router = APIRouter(prefix="/api/v1", tags=["print"], route_class=TransactionalRoute)

PDF: dict[int | str, dict[str, Any]] = {
    200: {"content": {"application/pdf": {}}, "description": "An A4 PDF."}
}


def _pdf_route(path: str) -> Callable[[DecoratedCallable], DecoratedCallable]:
    """A GET route that answers a PDF (so documented in the OpenAPI schema)."""
    return router.get(path, response_class=Response, responses=PDF)


async def _pdf(document: Document, filename: str) -> Response:
    """The document laid out off the event loop, as a download the browser may show."""
    data = await asyncio.to_thread(render, document)
    return Response(
        data,
        media_type="application/pdf",
        headers={"Content-Disposition": f'inline; filename="{filename}"'},
    )


@_pdf_route("/campaigns/{campaign_id}/characters/{character_id}/sheet.pdf")
async def character_sheet(
    campaign_id: PathId, character_id: PathId, session: Session, user: CurrentUser
) -> Response:
    """A character's sheet, for every member who may read it."""
    document = await service.sheet(session, user, campaign_id, character_id)
    return await _pdf(document, f"sheet-{character_id}.pdf")


@_pdf_route("/campaigns/{campaign_id}/bestiary/{entry_id}/card.pdf")
async def monster_card(
    campaign_id: PathId, entry_id: PathId, session: Session, user: CurrentUser
) -> Response:
    """A monster card: the GMs' with every fact, a player's with what the heroes know."""
    document = await service.monster_card(session, user, campaign_id, entry_id)
    return await _pdf(document, f"card-{entry_id}.pdf")


@_pdf_route("/campaigns/{campaign_id}/encounters/{encounter_id}/initiative.pdf")
async def initiative_list(
    campaign_id: PathId, encounter_id: PathId, session: Session, user: CurrentUser
) -> Response:
    """An encounter's initiative list (GMs)."""
    document = await service.initiative(session, user, campaign_id, encounter_id)
    return await _pdf(document, f"initiative-{encounter_id}.pdf")


@_pdf_route("/campaigns/{campaign_id}/handouts/{handout_id}/handout.pdf")
async def handout(
    campaign_id: PathId, handout_id: PathId, session: Session, user: CurrentUser
) -> Response:
    """A handout, for the members it was shown to and the GMs."""
    document = await service.handout(session, user, campaign_id, handout_id)
    return await _pdf(document, f"handout-{handout_id}.pdf")


@_pdf_route("/systems/{system}/sheet.pdf")
async def empty_sheet(
    system: RuleSystem, user: CurrentUser, kind: Literal["pc", "npc"] = "pc"
) -> Response:
    """An empty sheet of a rule system to fill in by hand (any signed-in user)."""
    return await _pdf(service.empty_sheet(system, kind), f"sheet-{system.value}-{kind}.pdf")
