"""JSON API of the campaign export and import."""

from __future__ import annotations

import asyncio
from dataclasses import asdict
from typing import Any

from fastapi import Request
from fastapi.responses import Response
from pydantic import BaseModel

from app.characters.transfer import CharactersDoc
from app.events.transfer import EventsDoc
from app.transfer import parts, service
from app.web.deps import CurrentUser, Session
from app.web.idempotency import IDEMPOTENT, IdempotentRoute
from app.web.ids import PathId
from app.web.routers import Router

router = Router(route_class=IdempotentRoute, prefix="/api/v1/campaigns", tags=["transfer"])


class Part(BaseModel):
    id: int
    label: str
    name: str
    role: str
    characters: list[str]
    #: The takeover link's code once made; null before and once the part is taken over.
    code: str | None
    claimed_by: str | None


class TakeoverLink(BaseModel):
    code: str
    url: str


class TakenOver(BaseModel):
    campaign_id: int


class Imported(BaseModel):
    id: int
    name: str
    system: str
    characters: int
    events: int
    #: The imported parts waiting to be handed over (``GET …/{id}/parts``).
    parts: int


def _inline_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A JSON schema with its ``$defs`` inlined: OpenAPI resolves refs from its own root."""
    defs = schema.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return walk(defs[node["$ref"].rsplit("/", 1)[-1]])
            return {key: walk(value) for key, value in node.items()}
        if isinstance(node, list):
            return [walk(value) for value in node]
        return node

    inlined: dict[str, Any] = walk(schema)
    return inlined


async def read_body(request: Request) -> bytes:
    """The body, refused with 413 above the import limit before it is read when announced."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit():
        service.check_size(int(declared))
    return await request.body()


@router.get(
    "/{campaign_id}/export",
    responses={200: {"content": {"application/json": {"schema": {"type": "object"}}}}},
)
async def export(campaign_id: PathId, session: Session, user: CurrentUser) -> Response:
    """The whole campaign as one document (GM only); ``POST /import`` reads it back."""
    document = await service.export_campaign(session, user, campaign_id)
    body = await asyncio.to_thread(service.encode_document, document)
    return Response(body, media_type="application/json")


#: The import's request body in the OpenAPI document (:func:`describe_import_body`).
_IMPORT_BODY: dict[str, object] = {}


def describe_import_body() -> None:
    """The document's schema as the import's request body: its parts are registered by
    ``app.wiring``, so ``app.main`` calls this after ``wire()``."""
    schema = _inline_schema(service.document_model().model_json_schema())
    _IMPORT_BODY["requestBody"] = {
        "required": True,
        "content": {"application/json": {"schema": schema}},
    }


@router.post(
    "/import",
    status_code=201,
    response_model=Imported,
    dependencies=[IDEMPOTENT],
    openapi_extra=_IMPORT_BODY,
)
async def import_(request: Request, session: Session, user: CurrentUser) -> Imported:
    """A new campaign of yours from an exported document (at most 16 MiB)."""
    document = await asyncio.to_thread(service.read_document, await read_body(request))
    campaign = await service.import_campaign(session, user, document)
    return Imported(
        id=campaign.id,
        name=campaign.name,
        system=campaign.system,
        characters=len(document.part(CharactersDoc).characters),
        events=len(document.part(EventsDoc).events),
        parts=await parts.count(session, campaign.id),
    )


@router.get("/{campaign_id}/parts", response_model=list[Part])
async def list_parts(campaign_id: PathId, session: Session, user: CurrentUser) -> list[Part]:
    """The people an imported campaign names, as parts to hand over (GM and co-GMs)."""
    found = await parts.parts_of(session, user, campaign_id)
    return [Part(**{**asdict(p), "role": p.role.value}) for p in found]


@router.post("/{campaign_id}/parts/{part_id}/link", response_model=TakeoverLink)
async def make_link(
    campaign_id: PathId, part_id: PathId, session: Session, user: CurrentUser
) -> TakeoverLink:
    """The part's takeover link (made once; 409 once the part is taken over)."""
    code = await parts.make_takeover_link(session, user, campaign_id, part_id)
    return TakeoverLink(code=code, url=f"/takeover/{code}")


@router.post("/takeover/{code}", response_model=TakenOver, dependencies=[IDEMPOTENT])
async def take_over(code: str, session: Session, user: CurrentUser) -> TakenOver:
    """Take over an imported part: join with its role and own its characters."""
    campaign = await parts.claim(session, user, code)
    return TakenOver(campaign_id=campaign.id)
