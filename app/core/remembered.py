"""A bounded cache with least-recently-used eviction, for values a process keeps between
requests (line of sight, rendered log entries): one helper instead of a copy per cache."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


def remembered(cache: OrderedDict[K, V], key: K, make: Callable[[], V], limit: int) -> V:
    """``cache[key]``, made by ``make`` when missing; the least recently used entries go
    once there are more than ``limit``."""
    found = cache.get(key)
    if found is None:
        found = cache[key] = make()
        while len(cache) > limit:
            cache.popitem(last=False)
    else:
        cache.move_to_end(key)
    return found


def recalled(cache: OrderedDict[K, V], key: K) -> V | None:
    """``cache[key]`` if it is kept (and now the most recently used), else ``None``: for a
    caller that makes the missing values together (one read for all of them)."""
    found = cache.get(key)
    if found is not None:
        cache.move_to_end(key)
    return found
