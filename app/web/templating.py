"""Jinja2 with gettext and named blocks: one block per updatable region.

The full page, the HTMX response and the live push all render the same block.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any
from uuid import uuid4

import anyio
from babel.dates import format_datetime
from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, pass_context, select_autoescape
from jinja2.runtime import Context
from jinja2_fragments import render_block
from markupsafe import Markup
from starlette.types import Receive, Scope, Send

from app import i18n
from app.web.static import static_url

BERLIN = i18n.TIME_ZONE
TEMPLATE_DIR = Path(__file__).resolve().parents[2] / "templates"


def _datetime(value: Any, fmt: str = "short") -> str:
    return format_datetime(value, format=fmt, tzinfo=BERLIN, locale=i18n.get_locale())


def _isotime(value: str) -> str:
    """``HH:MM`` in German time of an ISO timestamp: per log entry, so plain strftime."""
    return datetime.fromisoformat(value).astimezone(BERLIN).strftime("%H:%M")


ROLE_LABELS = {
    "gm": i18n.N_("GM"),
    "co_gm": i18n.N_("Co-GM"),
    "player": i18n.N_("Player"),
    "observer": i18n.N_("Observer"),
}


def idempotency_field() -> Markup:
    """A fresh key per rendered form: a double submit of it answers like the first."""
    return Markup(f'<input type="hidden" name="idempotency_key" value="{uuid4()}">')


def role_label(role: str) -> str:
    return i18n.gettext(ROLE_LABELS.get(str(role), str(role)))


def _gettext_markup(message: str, **variables: Any) -> Markup:
    """``{{ _("…") }}``: what Jinja's newstyle gettext returns (the translation as Markup,
    formatted with ``variables``), without its two indirections through the template's
    context per call: a log entry calls it several times, so it was a tenth of the
    campaign page's render. Without variables a text with no ``%`` is not formatted (the
    result is the same)."""
    text = Markup(i18n.gettext(message))
    return text % variables if variables or "%" in text else text


@pass_context
def _slot(context: Context, name: str) -> Markup:
    """The HTML of the live regions registered for slot ``name`` of the page
    (:meth:`app.web.regions.Page.contribute`); nothing where the page has none."""
    slots = context.get("slots") or {}
    return Markup(slots.get(name, ""))


class ViewModelEnvironment(Environment):
    """Looks up ``entry.total`` in a dict by key first.

    Our templates get their data as plain dicts (log entries, roster rows). Jinja's
    ``getattr`` tries the attribute first and falls back to the key only after an
    ``AttributeError``: an exception per lookup, a sixth of the campaign page's render time
    with 200 log entries. A dict key that shadows a dict method is not used by our templates.
    """

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute in obj:
            return obj[attribute]
        return super().getattr(obj, attribute)


def _in_locale(translate: Callable[[str], str]) -> Callable[..., str]:
    """A filter that depends on the reader's language. Taking the context keeps Jinja from
    evaluating it once when it compiles a template (``{{ "2W10+3"|dice }}`` would otherwise
    stay in the language of the first render)."""

    @pass_context
    def run(_context: Context, text: str) -> str:
        return translate(text)

    return run


def build_environment() -> Environment:
    env = ViewModelEnvironment(
        loader=FileSystemLoader(TEMPLATE_DIR),
        autoescape=select_autoescape(default=True),
        extensions=["jinja2.ext.i18n"],
        enable_async=False,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=lambda s, **kw: i18n.gettext(s, **kw),
        ngettext=lambda s, p, n, **kw: i18n.ngettext(s, p, n, **kw),
        newstyle=True,
    )
    env.globals["_"] = _gettext_markup  # every template autoescapes (select_autoescape)
    env.filters["datetime"] = _datetime
    env.filters["isotime"] = _isotime
    env.filters["dice"] = _in_locale(i18n.dice_notation)
    env.filters["rule_text"] = _in_locale(i18n.rule_text)
    env.globals["role_label"] = role_label
    env.globals["slot"] = _slot
    env.globals["static_url"] = static_url
    env.globals["idempotency_field"] = idempotency_field
    macros = env.get_template("_macros.html").module
    # Globals rather than imports: a block rendered alone does not run its template's imports.
    env.globals["field_error"] = macros.field_error  # type: ignore[attr-defined]
    env.globals["described"] = macros.described  # type: ignore[attr-defined]
    env.globals["locales"] = i18n.LOCALES
    return env


environment = build_environment()


def render(template: str, block: str | None = None, **context: Any) -> str:
    context.setdefault("locale", i18n.get_locale())
    if block is None:
        return environment.get_template(template).render(**context)
    return render_block(environment, template, block, **context)


def render_macro(template: str, name: str, *args: Any) -> Markup:
    """The macro ``name`` of ``template`` called with ``args``: for pieces rendered one at a
    time from Python (kept rendered, say), at the cost of a loop in a template rather than
    of a render each."""
    made: Markup = getattr(environment.get_template(template).module, name)(*args)
    return made


def is_htmx(request: Request) -> bool:
    return request.headers.get("hx-request") == "true"


class OffLoopHTMLResponse(HTMLResponse):
    """HTML rendered in a worker thread. Rendering is the bulk of a page's CPU and grows
    with the collections on it (a sheet at its item limit takes a few hundred ms): in a
    thread it costs the event loop only the interpreter's switch interval (5 ms) at a time,
    so other requests go on. A route's page is rendered by :class:`app.web.deps.
    TransactionalRoute` while the request's session is still open (a template error still
    rolls the request back); a page built outside a route (an error page) when it is sent."""

    def __init__(self, render_html: Callable[[], str], status_code: int) -> None:
        self._render_html: Callable[[], str] | None = render_html
        super().__init__(status_code=status_code)

    async def render_off_loop(self) -> None:
        """Render once, in a worker thread."""
        if self._render_html is None:
            return
        html = await anyio.to_thread.run_sync(self._render_html)
        self._render_html = None
        self.body = html.encode(self.charset)
        self.raw_headers = [(k, v) for k, v in self.raw_headers if k != b"content-length"]
        self.raw_headers.append((b"content-length", str(len(self.body)).encode("latin-1")))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.render_off_loop()
        await super().__call__(scope, receive, send)


def _render_in(locale: str, template: str, block: str | None, context: dict[str, Any]) -> str:
    i18n.set_locale(locale)
    return render(template, block, **context)


def page(
    request: Request,
    template: str,
    context: dict[str, Any],
    *,
    block: str | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    """The whole page, or only ``block`` when HTMX asked for a fragment (rendered off the
    event loop, see :class:`OffLoopHTMLResponse`)."""
    context = {"request": request, "user": getattr(request.state, "user", None), **context}
    chosen = block if block and is_htmx(request) else None
    render_html = partial(_render_in, i18n.get_locale(), template, chosen, context)
    return OffLoopHTMLResponse(render_html, status_code)


def redirect(request: Request, url: str) -> Response:
    """After a successful post: HTMX navigates via ``HX-Redirect``, plain forms via 303."""
    if is_htmx(request):
        return Response(status_code=204, headers={"HX-Redirect": url})
    return RedirectResponse(url, status_code=303)
