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
    if isinstance(rules, cast(type, kind)):
        return cast(T, rules)
    return None
