"""Rule definitions looked up by their ``key`` (conditions, Kampfmanöver, Gefährtentalente)."""

from __future__ import annotations

from typing import Protocol, TypeVar


class Keyed(Protocol):
    @property
    def key(self) -> str: ...


K = TypeVar("K", bound=Keyed)


def by_key(*definitions: K) -> dict[str, K]:
    """``definitions`` by their ``key``, in the order given."""
    return {d.key: d for d in definitions}
