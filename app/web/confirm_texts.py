"""What a destructive action's confirmation page says, declared once beside its route.

A route that asks first (``app.web.confirm``) names its texts in a :class:`ConfirmText`
constant and answers the first post with :meth:`ConfirmText.page`, instead of spelling out
the page's parts at every call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from fastapi import Request
from fastapi.responses import HTMLResponse

from app.i18n import _
from app.web.confirm import confirm_page


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
