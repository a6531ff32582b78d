"""Every template a request renders, to render again from memory: the pages' baseline.

A page is its template *and* the live regions' blocks rendered into its slots (each region
renders its own, ``app.web.regions``), some in a worker thread. The baseline «the template
from memory» is all of them with the same contexts, so the spy sits below
``app.web.templating.render``, which the regions import by name: at Jinja's
``Template.render`` (whole templates) and the templating module's ``render_block`` (blocks).
"""

from __future__ import annotations

import threading
from typing import Any

import jinja2
import jinja2_fragments

import app.web.templating as templating

#: (template name, block or ``None`` for the whole template, its context).
Rendered = tuple[str, str | None, dict[str, Any]]


class TemplateSpy:
    """Collects each render while installed (:class:`Spying`); :meth:`clear` before a
    request, :meth:`replay` after it renders the same templates again."""

    def __init__(self) -> None:
        self.calls: list[Rendered] = []
        self._lock = threading.Lock()
        self._replaying = False

    def note(self, name: str, block: str | None, context: dict[str, Any]) -> None:
        with self._lock:
            if not self._replaying:
                self.calls.append((name, block, dict(context)))

    def clear(self) -> None:
        with self._lock:
            self.calls = []

    def replay(self) -> int:
        """Render every collected template once more (not collected again); the characters
        rendered."""
        self._replaying = True
        try:
            return sum(len(templating.render(n, block, **ctx)) for n, block, ctx in self.calls)
        finally:
            self._replaying = False


class Spying:
    """Installs a :class:`TemplateSpy` for the ``async with`` block."""

    def __init__(self) -> None:
        self.spy = TemplateSpy()
        self._whole, self._block = jinja2.Template.render, jinja2_fragments.render_block

    async def __aenter__(self) -> TemplateSpy:
        spy, whole, block = self.spy, self._whole, self._block

        def render_whole(template: jinja2.Template, *args: Any, **kwargs: Any) -> str:
            spy.note(str(template.name), None, dict(*args, **kwargs))
            return whole(template, *args, **kwargs)

        def render_part(env: jinja2.Environment, name: str, part: str, **context: Any) -> str:
            spy.note(name, part, context)
            return block(env, name, part, **context)

        jinja2.Template.render = render_whole  # type: ignore[method-assign, assignment]
        vars(templating)["render_block"] = render_part
        return spy

    async def __aexit__(self, *_exc: object) -> None:
        jinja2.Template.render = self._whole  # type: ignore[method-assign]
        vars(templating)["render_block"] = self._block
