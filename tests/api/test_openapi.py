"""The API's OpenAPI document builds (the API docs page and other clients read it), with
the live event stream documented as ``text/event-stream``."""

from __future__ import annotations

from fastapi import FastAPI

from tests.conftest import ClientFactory


async def test_the_openapi_document_builds_with_the_event_stream(
    make_client: ClientFactory, app: FastAPI
) -> None:
    r = await make_client().get("/api/openapi.json")
    assert r.status_code == 200, r.text
    stream = r.json()["paths"]["/api/v1/campaigns/{campaign_id}/events"]["get"]
    assert "text/event-stream" in stream["responses"]["200"]["content"]
