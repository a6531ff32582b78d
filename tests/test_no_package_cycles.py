"""No import cycle between the packages of ``app``, counting every module (issue 26).

import-linter's ``layers`` contract checks imports upwards, but its ``ignore_imports`` may
hide a cycle; here the graph of every module (grimp, the library import-linter runs on) is
folded into one of the top-level packages (``app.campaigns.views`` → ``campaigns``,
``app/main.py`` → ``main``), and a cycle is a set of packages each of which imports the
others, directly or through a chain.

None is left (issue 26): the last, ``accounts ↔ campaigns ↔ web``, went through the
packages' HTTP edges (``routes``, ``api``, ``live``), which use the web toolkit, while the
toolkit read the login session and the member's role from those packages. Now the pages of
the accounts are a package of their own (``app.login``), and the campaigns package's answers
about members reach the toolkit through ``AppContext.members`` (``app.web.members``), built
by ``app.main``: the toolkit names no package with an HTTP edge.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache

import grimp
import pytest

HTTP_EDGE = ("routes", "api", "live")

Graph = Mapping[str, frozenset[str]]


@cache
def _modules() -> dict[str, frozenset[str]]:
    graph = grimp.build_graph("app")
    return {m: frozenset(graph.find_modules_directly_imported_by(m)) for m in graph.modules}


def _package(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "app" and len(parts) > 1 else None


def package_graph(skip: Callable[[str], bool] = lambda _m: False) -> Graph:
    """Which top-level package imports which, from every module ``skip`` does not name."""
    edges: dict[str, set[str]] = {}
    for module, imported in _modules().items():
        source = _package(module)
        if source is None or skip(module):
            continue
        edges.setdefault(source, set())
        for target in map(_package, imported):
            if target is not None and target != source:
                edges[source].add(target)
    return {name: frozenset(targets) for name, targets in edges.items()}


def _reach(graph: Graph, start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for target in graph.get(todo.pop(), frozenset()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def cycles(graph: Graph) -> set[frozenset[str]]:
    """The sets of two or more packages that all import each other (through chains too)."""
    reach = {name: _reach(graph, name) for name in graph}
    found: set[frozenset[str]] = set()
    for name in graph:
        if name in reach[name]:
            found.add(frozenset({name, *(other for other in reach[name] if name in reach[other])}))
    return found


def _is_http_edge(module: str) -> bool:
    return module.rsplit(".", 1)[-1] in HTTP_EDGE


# --- the rule -------------------------------------------------------------------------------


def test_no_package_cycle() -> None:
    found = cycles(package_graph())
    assert not found, f"Packages importing each other (directly or through others): {found}"


def test_the_web_toolkit_reaches_no_package_with_an_http_edge() -> None:
    """What keeps the toolkit out of cycles: a package's HTTP edge uses ``app.web``, so
    ``app.web`` may not import that package, directly or through others."""
    with_edge = {_package(m) for m in _modules() if _is_http_edge(m)} - {None, "web"}
    reached = _reach(package_graph(), "web") & with_edge
    assert not reached, f"app.web imports packages with an HTTP edge: {reached}"


# --- the cycle finder finds what it should --------------------------------------------------


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": frozenset({"b"}), "b": frozenset()}, set()),
        ({"a": frozenset({"b"}), "b": frozenset({"a"})}, {frozenset({"a", "b"})}),
        (
            {"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a"}), "d": frozenset()},
            {frozenset({"a", "b", "c"})},
        ),
        (
            {
                "a": frozenset({"b"}),
                "b": frozenset({"a"}),
                "c": frozenset({"d"}),
                "d": frozenset({"c"}),
            },
            {frozenset({"a", "b"}), frozenset({"c", "d"})},
        ),
    ],
)
def test_cycles_are_found(graph: Graph, expected: set[frozenset[str]]) -> None:
    assert cycles(graph) == expected
