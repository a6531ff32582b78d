"""Helpers for the live-region tests: find one element in a page, read a page's pushes, and
serve the test's own app over HTTP (so regions registered in a test reach its stream)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from html.parser import HTMLParser
from types import ModuleType
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI
from sqlalchemy import select

from app.core.viewer import Role, Viewer
from app.events.models import CampaignEvent
from app.events.stream import Outgoing, projected
from app.maps.present import scenes_now
from app.web.regions import Page
from tests.conftest import _free_port

VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)


class _Finder(HTMLParser):
    """The outer HTML of the first element whose attribute ``name`` is ``value``."""

    def __init__(self, source: str, name: str, value: str) -> None:
        super().__init__(convert_charrefs=False)
        self.source, self.name, self.value = source, name, value
        self.lines = [0]
        for line in source.splitlines(keepends=True):
            self.lines.append(self.lines[-1] + len(line))
        self.start: int | None = None
        self.depth = 0
        self.found: str | None = None

    def _offset(self) -> int:
        line, column = self.getpos()
        return self.lines[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.found is not None:
            return
        if self.start is None:
            if (self.name, self.value) in attrs:
                self.start = self._offset()
                if tag in VOID:
                    self.found = self.get_starttag_text()
                else:
                    self.depth = 1
        elif tag not in VOID:
            self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if self.start is None or self.found is not None:
            return
        self.depth -= 1
        if self.depth == 0:
            end = self.source.index(">", self._offset()) + 1
            self.found = self.source[self.start : end]


def element(html: str, value: str, name: str = "id") -> str:
    """The element of ``html`` whose ``name`` attribute is ``value`` (outer HTML, normalised)."""
    finder = _Finder(html, name, value)
    finder.feed(html)
    finder.close()
    assert finder.found is not None, f"no element with {name}={value!r}"
    return normalise(finder.found)


def inner(html: str, value: str) -> str:
    """The content of the element with id ``value`` (normalised)."""
    outer = element(html, value)
    return normalise(outer[outer.index(">") + 1 : outer.rindex("<")])


def normalise(html: str) -> str:
    """Whitespace collapsed, the out-of-band marker and the forms' idempotency keys dropped:
    the push swaps a region with ``hx-swap-oob``, the page has it in place, and every render
    of a form gets a fresh key; everything else must be the same."""
    html = html.replace('hx-swap-oob="true"', "")
    html = re.sub(r'(name="idempotency_key" value=)"[0-9a-f-]{36}"', r'\1""', html)
    html = re.sub(r"\s+", " ", html)
    html = re.sub(r"\s+>", ">", html)
    return re.sub(r">\s+<", "><", html).strip()


def without(html: str, value: str) -> str:
    """``html`` without the element whose id is ``value``."""
    return normalise(html).replace(element(html, value), "")


async def events_after(app: FastAPI, campaign_id: int, after: int) -> list[CampaignEvent]:
    async with app.state.ctx.sessionmaker() as session:
        rows = await session.scalars(
            select(CampaignEvent)
            .where(CampaignEvent.campaign_id == campaign_id, CampaignEvent.seq > after)
            .order_by(CampaignEvent.seq)
        )
        return list(rows.all())


async def last_seq(app: FastAPI, campaign_id: int) -> int:
    events = await events_after(app, campaign_id, 0)
    return events[-1].seq if events else 0


async def pushed(
    app: FastAPI, page: Page[Any], key: Any, viewer: Viewer, campaign_id: int, after: int
) -> list[Outgoing]:
    """What ``page``'s live stream about ``key`` sends ``viewer`` for the events after
    ``after`` (the render function its route hands to the stream, on the real log)."""
    events = await events_after(app, campaign_id, after)
    render = page.stream(key)
    # As the stream projects them: map events against the scenes as they are.
    shown = await projected(app.state.ctx, campaign_id, viewer, events, scenes_now)
    return await render(app.state.ctx.read_sessions, viewer, shown)


def counted_renders(
    monkeypatch: pytest.MonkeyPatch, module: ModuleType, name: str = "render"
) -> list[str]:
    """The templates ``module`` renders from now on (its ``render``, or the function
    ``name`` of ``app.web.templating`` it imported, counted)."""
    made: list[str] = []
    original: Callable[..., str] = getattr(module, name)

    def counted(template: str, *args: Any, **kwargs: Any) -> str:
        made.append(template)
        return original(template, *args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return made


def viewer(user_id: int, username: str, role: str) -> Viewer:
    return Viewer(user_id, username, Role(role))


@asynccontextmanager
async def served(app: FastAPI) -> AsyncIterator[str]:
    """Serve ``app`` (this test's, with its registrations) over HTTP in this event loop."""
    port = _free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="off", log_level="warning")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task
