"""Every router's quick "none of mine" (``app.web.routers``) agrees with FastAPI's full
matching, for a path of every route of the app with every method, and for paths no route
has; and a request still finds its route, or a 404 or 405, through the whole app."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.routing import _IncludedRouter
from starlette.routing import Match

from app import main
from app.config import Settings
from app.main import create_app
from app.web.routers import Router
from tests.conftest import ClientFactory, register

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
NO_ROUTE = ("/nope", "/api/v1/nope", "/campaigns/1/nope", "/api/v1/campaigns/1/rolls/x/y", "/")
_PARAM = re.compile(r"\{(\w+)(?::(\w+))?\}")


def _sample(path: str) -> str:
    """``path`` with each parameter filled as its convertor accepts it."""
    kinds = {
        "int": "7",
        "path": "a/b.txt",
        "float": "1.5",
        "uuid": "0" * 8 + "-0000" * 3 + "-" + "0" * 12,
    }
    return _PARAM.sub(lambda m: kinds.get(m.group(2) or "", "x7"), path)


def _included(app: FastAPI) -> list[Any]:
    return [r for r in app.router.routes if isinstance(r, _IncludedRouter)]


def _scope(path: str, method: str) -> dict[str, Any]:
    return {"type": "http", "path": path, "method": method, "root_path": "",
            "headers": [], "query_string": b""}  # fmt: skip


def test_the_served_app_has_its_routers_prepared_before_a_request(
    app: FastAPI, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``app.main:app`` (what ``tafelrunde serve`` runs) builds each router's expression and
    FastAPI's state for its routes before a request has come: the first request to a router
    would wait for them (a first chat line 27–87 ms, a first roll 9–11 ms)."""
    included = _included(app)
    assert len(included) >= 20
    for branch in included:
        assert isinstance(branch.original_router, Router), branch.original_router
    routers = [branch.original_router for branch in included]
    for router in routers:
        router._quick = (-1, None)
    built: list[FastAPI] = []

    def made(*_args: object) -> FastAPI:
        built.append(create_app(settings))
        return built[0]

    monkeypatch.setattr(main, "create_app", made)
    monkeypatch.delitem(vars(main), "app", raising=False)
    served = main.app
    monkeypatch.delitem(vars(main), "app")
    assert built == [served]
    assert all(router._quick[1] is not None for router in routers), routers
    assert all(b._effective_candidates_version is not None for b in _included(served))


def test_the_quick_check_agrees_with_full_matching_on_every_route(app: FastAPI) -> None:
    paths = {
        _sample(getattr(r, "path", "")) for b in _included(app) for r in b.original_router.routes
    }
    paths.update(NO_ROUTE)
    compared = 0
    for branch in _included(app):
        for path in sorted(paths):
            for method in METHODS:
                quick = branch.matches(_scope(path, method))[0]
                full = branch._match(_scope(path, method))[0]
                assert quick == full, (path, method, branch.original_router.routes[0].path)
                compared += quick != Match.NONE
    assert compared >= len(paths) - len(NO_ROUTE)  # every route's own path found somewhere


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [("GET", "/campaigns/999999", 404), ("DELETE", "/api/v1/auth/login", 405),
     ("GET", "/api/v1/nope", 404), ("GET", "/static/nope.css", 404)],
)  # fmt: skip
async def test_a_request_still_finds_its_route_or_its_error(
    make_client: ClientFactory, method: str, path: str, status: int
) -> None:
    client = make_client()
    await register(client, "router_probe")
    assert (await client.request(method, path)).status_code == status
    made = await client.post("/api/v1/campaigns", json={"name": "Probe", "system": "hh"})
    assert made.status_code == 201, made.text
    page = await client.get(f"/campaigns/{made.json()['id']}")
    assert page.status_code == 200 and "Probe" in page.text
