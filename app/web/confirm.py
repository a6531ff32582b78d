"""The confirmation step of a destructive action, on the server: it works without JavaScript.

A destructive form posts without ``confirm=1`` first; its route answers with a page that says
what will happen and repeats the post with ``confirm=1`` (and a fresh idempotency key, so a
creating route never replays the confirmation page). With JavaScript, ``static/js/app.js``
asks in a ``<dialog>`` (the form's ``data-confirm``) and adds ``confirm=1`` itself, so the
page is never shown. See docs/ui.md, "Confirmations".
"""

from __future__ import annotations

from collections.abc import Mapping

from fastapi import Request
from fastapi.responses import HTMLResponse

from app.web.templating import page

CONFIRM_FIELD = "confirm"


def confirmed(form: Mapping[str, object]) -> bool:
    """Whether the user confirmed the action (the second post)."""
    return form.get(CONFIRM_FIELD) == "1"


def confirm_page(
    request: Request,
    *,
    question: str,
    consequence: str,
    button: str,
    action: str,
    back: str,
    fields: Mapping[str, str] | None = None,
) -> HTMLResponse:
    """The page that asks before ``action`` is posted again with ``confirm=1``."""
    kept = {k: v for k, v in (fields or {}).items() if k not in (CONFIRM_FIELD, "idempotency_key")}
    context = {
        "question": question,
        "consequence": consequence,
        "button": button,
        "action": action,
        "back": back,
        "fields": kept,
    }
    return page(request, "confirm.html", context)
