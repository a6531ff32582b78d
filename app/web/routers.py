"""The app's routers: FastAPI's, with a quick "none of mine" for a path they cannot match.

FastAPI finds a request's route by asking each included router in turn, and a router asks
each of its routes (a regular expression and some bookkeeping in Python, about 4 µs a
route). A scene page, whose router comes late, paid 0.6–1 ms of CPU for that before its
own work began; a static file 0.4 ms (issue 29). :class:`Router` first matches the path
against one expression made of all its routes' expressions (in C) and says "no match" at
once when none fits; when one does, FastAPI's own matching decides as before, so which
route answers, the 405 for a wrong method and the path parameters are unchanged
(``tests/web/test_routers.py`` holds every route of the app to that).
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi.routing import _IncludedRouter
from starlette._utils import get_route_path
from starlette.routing import Match
from starlette.types import Scope


class Router(APIRouter):
    """An :class:`APIRouter` that rejects a path none of its routes can match in one step.

    Include it without a prefix of the include's own (as ``app.main`` does): the quick
    check reads its routes' paths as they are declared."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._quick: tuple[int, re.Pattern[str] | None] = (-1, None)

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] == "http":
            could = self.could_match()
            if could is not None and could.match(get_route_path(scope)) is None:
                return Match.NONE, {}
        return super().matches(scope)

    def could_match(self) -> re.Pattern[str] | None:
        """One expression for all routes' paths (built again when routes were added);
        ``None`` (no quick check) if a route has no path expression of its own.

        Building it takes up to 1.5 ms for a router: :func:`prepare` builds it with the
        app, so that no request waits for it."""
        count, pattern = self._quick
        if count != len(self.routes):
            pattern = _union(self.routes)
            self._quick = (len(self.routes), pattern)
        return pattern


def _union(routes: list[Any]) -> re.Pattern[str] | None:
    parts: list[str] = []
    for route in routes:
        regex = getattr(route, "path_regex", None)
        if not isinstance(regex, re.Pattern):
            return None
        # Each route's named groups would clash in one expression: drop their names.
        parts.append(re.sub(r"\(\?P<[^>]+>", "(?:", regex.pattern))
    return re.compile("|".join(f"(?:{p})" for p in parts)) if parts else None


def prepare(app: FastAPI) -> None:
    """Build what each included router needs to match a request now, not on the first
    request it gets: its quick expression, and FastAPI's own per-route state, which it
    builds when a router is first asked (up to 45 ms for a router of 17 routes). Without
    the quick check the routers before the one asked were built on the way; with it, the
    first chat line of a process waited 30 ms.

    ``_IncludedRouter`` is FastAPI's (0.165) and not public; ``tests/web/test_routers.py``
    fails if it changes."""
    for route in app.router.routes:
        if isinstance(route, _IncludedRouter):
            route.effective_candidates()
            if isinstance(route.original_router, Router):
                route.original_router.could_match()
