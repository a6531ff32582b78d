"""The start/stop plumbing of the process's background loops (stream sweep, webhook
delivery, event listeners): cancelling a task for good, and a timer that outlives any one
failure of its work."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable


async def cancel_and_wait(task: asyncio.Task[None] | None) -> None:
    """Cancel ``task`` (if any) and wait until it has ended, swallowing its cancellation."""
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def run_every(
    interval: float,
    work: Callable[[], Awaitable[object]],
    log: logging.Logger,
    failure: str,
    go_on: Callable[[], bool] = lambda: True,
) -> None:
    """Every ``interval`` seconds, do ``work`` while ``go_on()``; a failure is logged
    (as ``failure``) and the loop goes on: it must outlive any one failure."""
    while True:
        await asyncio.sleep(interval)
        if not go_on():
            return
        try:
            await work()
        except Exception:
            log.exception(failure)
