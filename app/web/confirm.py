"""The confirmation step of a destructive action, on the server: it works without JavaScript.

A destructive form posts without ``confirm=1`` first; its route answers with a page that says
what will happen and repeats the post with ``confirm=1`` (and a fresh idempotency key, so a
creating route never replays the confirmation page). With JavaScript, ``static/js/app.js``
asks in a ``<dialog>`` (the form's ``data-confirm``) and adds ``confirm=1`` itself, so the
page is never shown. See docs/ui.md, "Confirmations". A route names its texts once, in a
:class:`ConfirmText` constant, and answers the first post with :meth:`ConfirmText.page`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from fastapi import Request
from fastapi.responses import HTMLResponse

from app.i18n import _
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


@dataclass(frozen=True, slots=True)
class ConfirmText:
    """The question, what follows and the button, as msgids (marked with ``N_``, translated
    when shown); the question may name ``%(name)s`` and the like, given to :meth:`page`."""

    question: str
    consequence: str
    button: str

    def page(
        self,
        request: Request,
        action: str,
        back: str,
        fields: Mapping[str, str] | None = None,
        **names: object,
    ) -> HTMLResponse:
        """The page that asks before ``action`` is posted again; ``back``: where "no" leads;
        ``fields``: the form's fields to post again."""
        return confirm_page(
            request,
            question=_(self.question, **names),
            consequence=_(self.consequence),
            button=_(self.button),
            action=action,
            back=back,
            fields=fields,
        )
