"""The PDF downloads (docs/print.md): what a viewer may read, they may print."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from fastapi import Path, Response
from fastapi.types import DecoratedCallable
from sqlalchemy.ext.asyncio import AsyncSession

from app.accounts.models import User
from app.core.systems import RuleSystem
from app.printing import service
from app.printing.document import Document, render
from app.web.deps import CurrentUser, Session, TransactionalRoute
from app.web.ids import MAX_ROW_ID, PathId
from app.web.routers import Router

router = Router(prefix="/api/v1", tags=["print"], route_class=TransactionalRoute)

PDF: dict[int | str, dict[str, Any]] = {
    200: {"content": {"application/pdf": {}}, "description": "An A4 PDF."}
}


def _pdf_route(
    path: str, name: str | None = None, description: str | None = None
) -> Callable[[DecoratedCallable], DecoratedCallable]:
    """A GET route that answers a PDF (so documented in the OpenAPI schema)."""
    return router.get(
        path, name=name, description=description, response_class=Response, responses=PDF
    )


async def _pdf(document: Document, filename: str) -> Response:
    """The document laid out off the event loop, as a download the browser may show."""
    data = await asyncio.to_thread(render, document)
    return Response(
        data,
        media_type="application/pdf",
        headers={"Content-Disposition": f'inline; filename="{filename}"'},
    )


#: Lays out one row of a campaign: (session, user, campaign id, row id) → the document.
Loader = Callable[[AsyncSession, User, int, int], Awaitable[Document]]


@dataclass(frozen=True)
class RowPdf:
    """A PDF of one row of a campaign, served at ``/campaigns/{campaign_id}/<path>``."""

    name: str
    path: str
    #: The path parameter naming the row (``character_id``, …).
    id_param: str
    load: Loader
    #: The file is ``<stem>-<row id>.pdf``.
    stem: str
    doc: str


ROW_PDFS = (
    RowPdf(
        "character_sheet", "characters/{character_id}/sheet.pdf", "character_id", service.sheet,
        "sheet", "A character's sheet, for every member who may read it.",
    ),
    RowPdf(
        "monster_card", "bestiary/{entry_id}/card.pdf", "entry_id", service.monster_card,
        "card", "A monster card: the GMs' with every fact, a player's with what the heroes know.",
    ),
    RowPdf(
        "initiative_list", "encounters/{encounter_id}/initiative.pdf", "encounter_id",
        service.initiative, "initiative", "An encounter's initiative list (GMs).",
    ),
    RowPdf(
        "handout", "handouts/{handout_id}/handout.pdf", "handout_id", service.handout,
        "handout", "A handout, for the members it was shown to and the GMs.",
    ),
)  # fmt: skip


def _serve(pdf: RowPdf) -> None:
    """The GET route of ``pdf``: the same for every row, but for its path, loader and name
    (the row's id keeps its path parameter's name in the schema through an alias)."""

    async def endpoint(
        campaign_id: PathId,
        session: Session,
        user: CurrentUser,
        row_id: int = Path(alias=pdf.id_param, ge=1, le=MAX_ROW_ID),
    ) -> Response:
        document = await pdf.load(session, user, campaign_id, row_id)
        return await _pdf(document, f"{pdf.stem}-{row_id}.pdf")

    path = f"/campaigns/{{campaign_id}}/{pdf.path}"
    _pdf_route(path, name=pdf.name, description=pdf.doc)(endpoint)


for _row_pdf in ROW_PDFS:
    _serve(_row_pdf)


@_pdf_route("/systems/{system}/sheet.pdf")
async def empty_sheet(
    system: RuleSystem, user: CurrentUser, kind: Literal["pc", "npc"] = "pc"
) -> Response:
    """An empty sheet of a rule system to fill in by hand (any signed-in user)."""
    return await _pdf(service.empty_sheet(system, kind), f"sheet-{system.value}-{kind}.pdf")
