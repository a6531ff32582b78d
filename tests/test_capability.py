"""``capability`` remembers its answers per adapter, and never one adapter's for another."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from app.core.capability import capability


@runtime_checkable
class Flies(Protocol):
    def fly(self) -> str: ...


class Bird:
    def fly(self) -> str:
        return "up"


class Stone:
    pass


def test_the_answer_is_the_adapters_own_each_time() -> None:
    bird, stone = Bird(), Stone()
    for _ in range(2):
        assert capability(bird, Flies) is bird
        assert capability(stone, Flies) is None


def test_a_new_adapter_is_asked_afresh() -> None:
    # Objects made and dropped one after the other often get the same id.
    for i in range(50):
        adapter: object = Bird() if i % 2 else Stone()
        assert (capability(adapter, Flies) is adapter) is isinstance(adapter, Bird)
