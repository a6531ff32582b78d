"""Asking an adapter for a capability: ``capability(rules, Tactics)``.

A rule system's adapter implements a small core protocol and whichever capability protocols
(``runtime_checkable``) its game has (``app.encounters.systems.protocol``,
``app.characters.systems.protocol``); a caller asks for one with :func:`capability` and gets
it typed, or ``None`` where the system lacks it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar, cast

T = TypeVar("T")


def capability(rules: object, kind: Callable[..., T]) -> T | None:
    """``rules`` as the capability ``kind`` (a ``runtime_checkable`` protocol), or ``None``
    where its adapter does not implement it.

    ``kind`` is typed as a callable rather than ``type[T]`` because mypy refuses a protocol
    class where ``type[T]`` is expected (``type-abstract``); at run time it is the class."""
    known = _KNOWN.get((id(rules), kind))
    if known is None or known[0] is not rules:
        if len(_KNOWN) >= _KNOWN_MAX:
            _KNOWN.clear()
        known = _KNOWN[(id(rules), kind)] = (rules, isinstance(rules, cast(type, kind)))
    return cast(T, rules) if known[1] else None


#: Answers by adapter and capability, with the adapter (its id is not reused while kept):
#: an ``isinstance`` against a protocol compares every member of it, on every call, and
#: the adapters are the registry's, asked the same on every page and push.
_KNOWN: dict[tuple[int, object], tuple[object, bool]] = {}
_KNOWN_MAX = 1024
