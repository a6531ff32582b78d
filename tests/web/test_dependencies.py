"""Every dependency of every route is a coroutine function: FastAPI runs a plain function
dependency in its thread pool, a hop of about 75 µs of CPU per request (bench/RESULTS.md,
«2026-12-07 afternoon»), for functions that only gather form fields or query parameters."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute, _IncludedRouter


def _routes(app: FastAPI) -> Iterator[APIRoute]:
    for branch in app.router.routes:
        inner = branch.original_router.routes if isinstance(branch, _IncludedRouter) else [branch]
        yield from (r for r in inner if isinstance(r, APIRoute))


def _calls(dependant: Dependant) -> Iterator[Any]:
    for sub in dependant.dependencies:
        if sub.call is not None:
            yield sub.call
        yield from _calls(sub)


def _runs_on_the_loop(call: Any) -> bool:
    target = call if inspect.isfunction(call) or inspect.ismethod(call) else call.__call__
    return inspect.iscoroutinefunction(target) or inspect.isasyncgenfunction(target)


def test_no_route_has_a_dependency_that_runs_in_the_thread_pool(app: FastAPI) -> None:
    routes = list(_routes(app))
    assert len(routes) > 100  # the app's routes were found, not an empty walk
    sync = {
        f"{route.path} → {getattr(call, '__qualname__', call)}"
        for route in routes
        for call in _calls(route.dependant)
        if not _runs_on_the_loop(call)
    }
    assert not sync, sorted(sync)
