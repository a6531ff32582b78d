"""Every template a request renders, to render again from memory: the pages' baseline.

A page is its template *and* the live regions' blocks rendered into its slots (each region
renders its own, ``app.web.regions``), some in a worker thread. The baseline «the template
from memory» is all of them with the same contexts, so the spy sits below
``app.web.templating.render``, which the regions import by name: at Jinja's
``Template.render`` (whole templates), the templating module's ``render_block`` (blocks)
and Jinja's ``Macro.__call__`` where no template is being rendered (a macro called from
Python: the dice log's entries, ``app.web.templating.render_macro``).
"""

from __future__ import annotations

import threading
from typing import Any

import jinja2
import jinja2.runtime
import jinja2_fragments

import app.web.templating as templating

#: (template name, block or ``None`` for the whole template, its context).
Rendered = tuple[str, str | None, dict[str, Any]]
#: A macro called from Python, with its arguments.
Called = tuple[jinja2.runtime.Macro, tuple[Any, ...]]


class TemplateSpy:
    """Collects each render while installed (:class:`Spying`); :meth:`clear` before a
    request, :meth:`replay` after it renders the same templates again."""

    def __init__(self) -> None:
        self.calls: list[Rendered] = []
        self.macros: list[Called] = []
        self._lock = threading.Lock()
        self._replaying = False
        #: Per thread: how many renders are under way (a macro inside one is part of it).
        self.depth = threading.local()

    def note(self, name: str, block: str | None, context: dict[str, Any]) -> None:
        with self._lock:
            if not self._replaying:
                self.calls.append((name, block, dict(context)))

    def note_macro(self, macro: jinja2.runtime.Macro, args: tuple[Any, ...]) -> None:
        with self._lock:
            if not self._replaying and not getattr(self.depth, "n", 0):
                self.macros.append((macro, args))

    def clear(self) -> None:
        with self._lock:
            self.calls = []
            self.macros = []

    def replay(self) -> int:
        """Render every collected template once more (not collected again); the characters
        rendered."""
        self._replaying = True
        try:
            shown = sum(len(templating.render(n, block, **ctx)) for n, block, ctx in self.calls)
            return shown + sum(len(macro(*args)) for macro, args in self.macros)
        finally:
            self._replaying = False


class Spying:
    """Installs a :class:`TemplateSpy` for the ``async with`` block."""

    def __init__(self) -> None:
        self.spy = TemplateSpy()
        self._whole, self._block = jinja2.Template.render, jinja2_fragments.render_block
        self._macro = jinja2.runtime.Macro.__call__

    async def __aenter__(self) -> TemplateSpy:
        spy, whole, block, macro_call = self.spy, self._whole, self._block, self._macro
        depth = spy.depth

        def render_whole(template: jinja2.Template, *args: Any, **kwargs: Any) -> str:
            spy.note(str(template.name), None, dict(*args, **kwargs))
            depth.n = getattr(depth, "n", 0) + 1
            try:
                return whole(template, *args, **kwargs)
            finally:
                depth.n -= 1

        def render_part(env: jinja2.Environment, name: str, part: str, **context: Any) -> str:
            spy.note(name, part, context)
            depth.n = getattr(depth, "n", 0) + 1
            try:
                return block(env, name, part, **context)
            finally:
                depth.n -= 1

        def call_macro(macro: jinja2.runtime.Macro, *args: Any, **kwargs: Any) -> str:
            spy.note_macro(macro, args)
            return macro_call(macro, *args, **kwargs)

        jinja2.Template.render = render_whole  # type: ignore[method-assign, assignment]
        vars(templating)["render_block"] = render_part
        jinja2.runtime.Macro.__call__ = call_macro  # type: ignore[method-assign, assignment]
        return spy

    async def __aexit__(self, *_exc: object) -> None:
        jinja2.Template.render = self._whole  # type: ignore[method-assign]
        vars(templating)["render_block"] = self._block
        jinja2.runtime.Macro.__call__ = self._macro  # type: ignore[method-assign]
