"""Argon2id password hashing, off the event loop and limited to two hashes at a time.

One hash takes ~170 ms and 64 MiB; running it in the loop would stall every live stream,
and running unbounded many at once would let a login flood exhaust memory.
"""

from __future__ import annotations

import asyncio

from anyio import to_thread
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError


class Hasher:
    def __init__(self, time_cost: int, memory_kib: int) -> None:
        self._ph = PasswordHasher(time_cost=time_cost, memory_cost=memory_kib)
        # Verified when the user does not exist, so timing does not reveal which names exist.
        self._dummy = self._ph.hash("tafelrunde-dummy-password")
        # One per hasher (one per app, so one event loop): a module-level semaphore is bound
        # to the first loop that waits on it and fails in any other.
        self._limit = asyncio.Semaphore(2)

    async def hash(self, password: str) -> str:
        async with self._limit:
            return await to_thread.run_sync(self._ph.hash, password)

    async def verify(self, stored: str | None, password: str) -> bool:
        async with self._limit:
            return await to_thread.run_sync(self._verify, stored, password)

    def _verify(self, stored: str | None, password: str) -> bool:
        try:
            return self._ph.verify(stored or self._dummy, password) and stored is not None
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

    def needs_rehash(self, stored: str) -> bool:
        return self._ph.check_needs_rehash(stored)
