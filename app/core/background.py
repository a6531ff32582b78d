"""The start/stop plumbing of the process's background tasks: cancelling a task for good,
and :class:`Ticker`, a task doing its work every interval (the stream sweep, the webhook
delivery)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from abc import ABC, abstractmethod


async def cancel_and_wait(task: asyncio.Task[None] | None) -> None:
    """Cancel ``task`` (if any) and wait until it has ended, swallowing its cancellation."""
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


class Ticker(ABC):
    """A task of this process doing :meth:`tick` every ``interval`` seconds until stopped
    or until :meth:`going` says no more. A failing tick is logged (on the subclass's module
    logger) and the next one comes: the task must outlive any one failure."""

    #: The task's name.
    task_name = "ticker"
    #: What the log says when a tick fails.
    failure = "background tick failed"

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        """Make sure the task runs in this event loop (started again if it ended)."""
        loop = asyncio.get_running_loop()
        task = self._task
        if task is None or task.done() or self._loop is not loop:
            self._loop = loop
            self._task = loop.create_task(self._run(), name=self.task_name)

    async def stop(self) -> None:
        """End the task; one of another (ended) event loop is only forgotten."""
        task, self._task = self._task, None
        if self._loop is asyncio.get_running_loop():
            await cancel_and_wait(task)

    def going(self) -> bool:
        """Whether the next tick is due (else the task ends, until started again)."""
        return True

    @abstractmethod
    async def tick(self) -> object:
        """One round of the task's work (each subclass says what it does)."""

    async def _run(self) -> None:
        log = logging.getLogger(type(self).__module__)
        while True:
            await asyncio.sleep(self.interval)
            if not self.going():
                return
            try:
                await self.tick()
            except Exception:
                log.exception(self.failure)
