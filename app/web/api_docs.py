"""``/api/docs``: Swagger UI served from ``static/vendor`` (no CDN), within our own CSP.

FastAPI's built-in page loads Swagger UI from a CDN and starts it with an inline script;
our Content-Security-Policy (``script-src 'self'``) blocks both, so the page was blank.
"""

from __future__ import annotations

from fastapi.responses import HTMLResponse

from app.web.deps import TransactionalRoute
from app.web.routers import Router
from app.web.templating import render

SWAGGER_UI = "/static/vendor/swagger-ui-5.35.0"

router = Router(route_class=TransactionalRoute)  # like every router (no session here)


@router.get("/api/docs", include_in_schema=False, response_class=HTMLResponse)
async def api_docs() -> HTMLResponse:
    return HTMLResponse(render("api_docs.html", swagger_ui=SWAGGER_UI))
