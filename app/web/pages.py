"""A campaign's page that its forms show again: its GET route, and a form's answer.

Many packages have a page (the sessions, the handouts, the journal, the scenes, the
encounters) whose forms post, then go back to it; a refused form shows the page again (422)
with what was typed and the messages. :class:`FormPage` is such a page: its template and what
it shows (``view``), built the same for the GET route and for every refusal.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from app.accounts.models import User
from app.core.viewer import Viewer
from app.errors import ValidationFailed
from app.web.calls import CampaignAt, CampaignCall
from app.web.deps import attempt
from app.web.templating import is_htmx, page, redirect

C = TypeVar("C")

#: Opens the campaign for the user (session, user, campaign id): the campaign and the user as
#: its viewer; a stranger gets its refusal (``app.campaigns.service.open_campaign``).
Opener = Callable[[AsyncSession, User, int], Awaitable[tuple[C, Viewer]]]
#: What a campaign's page shows its viewer (session, viewer, campaign).
PageView = Callable[[AsyncSession, Viewer, C], Awaitable[Mapping[str, object]]]
#: Builds a campaign's page for a call about it.
PageBuilder = Callable[[CampaignCall], Awaitable[Response]]
#: A GET route of a campaign's page.
PageRoute = Callable[[CampaignCall], Awaitable[Response]]
#: What a refused form adds to the page (the messages, the values as typed).
Refusal = Callable[[ValidationFailed], Mapping[str, object]]


@dataclass(frozen=True, slots=True)
class FormPage(Generic[C]):
    """A campaign's page: ``template`` with what ``view`` shows the viewer ``open`` makes;
    ``blank``: what its forms show when nothing was refused (no messages, no typed values);
    ``fragment``: the template of its form alone, which HTMX gets instead of the page, with
    what ``fragment_view`` shows (default ``view``): the form's choices, not the page's
    content around it."""

    template: str
    open: Opener[C]
    view: PageView[C]
    blank: Mapping[str, object] = field(default_factory=dict)
    fragment: str | None = None
    fragment_view: PageView[C] | None = None

    async def render(
        self,
        call: CampaignCall,
        extra: Mapping[str, object] | None = None,
        status_code: int = 200,
        opened: tuple[C, Viewer] | None = None,
    ) -> HTMLResponse:
        """The page; ``extra``: what a refused form adds (its messages, what was typed);
        ``opened``: the campaign and viewer as the route opened them before its change (a
        write drops the transaction's reads, so opening it again would read it again)."""
        campaign, viewer = opened or await self.open(call.session, call.user, call.campaign_id)
        alone = self.fragment is not None and is_htmx(call.request)
        view = (self.fragment_view or self.view) if alone else self.view
        context = {
            **await view(call.session, viewer, campaign),
            **self.blank,
            **(extra or {}),
        }
        template = self.fragment if alone and self.fragment else self.template
        return page(call.request, template, context, status_code=status_code)

    async def answer(
        self,
        call: CampaignCall,
        change: Callable[[], Awaitable[object]],
        refusal: Refusal,
        done: str,
    ) -> Response:
        """A form's answer: ``change`` in a savepoint, then a redirect to ``done``; when it is
        refused (nothing of it kept), the page again (422) with ``refusal`` of it."""
        try:
            async with attempt(call.session):
                await change()
        except ValidationFailed as exc:
            return await self.render(call, refusal(exc), 422)
        return redirect(call.request, done)


def show_page(build: PageBuilder) -> PageRoute:
    """The GET route that shows the page ``build`` makes (nothing refused, status 200)."""

    async def show(call: CampaignAt) -> Response:
        return await build(call)

    return show


def page_route(router: APIRouter, path: str, name: str, build: PageBuilder) -> PageRoute:
    """Adds the GET route ``name`` at ``path`` that shows the page ``build`` makes."""
    route = show_page(build)
    router.add_api_route(path, route, methods=["GET"], response_class=HTMLResponse, name=name)
    return route
