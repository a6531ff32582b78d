"""The seam between a process's live streams and the other processes: a :class:`Transport`.

The event log in the database stays the one truth and the outbox. A transport announces the
events a process committed (by campaign and ``seq``) to the other processes and hands the
ones they committed to the process's :class:`app.events.broker.Broker`; the streams then
send by ``seq`` from the log, so an announcement that arrives twice, late or never costs at
most a read of the log (the warden's sweep is the backstop for one that never arrives).

Two transports: :class:`app.events.broker.PostgresListener` (``LISTEN``/``NOTIFY`` on one
database, the default: the append sends the ``NOTIFY`` in its transaction) and
:class:`app.events.jetstream.JetStream` (NATS JetStream, ``TAFELRUNDE_NATS_URL``: one
subject per campaign in one stream, published after the commit).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from app.events.models import CampaignEvent


class Transport(Protocol):
    def start(self) -> None:
        """Connect (and keep reconnecting) in the background; never blocks the start-up."""

    async def stop(self) -> None: ...

    def announce(self, events: Sequence[CampaignEvent]) -> None:
        """Tell the other processes about events just committed here; never blocks or
        raises (a lost announcement is caught up from the log)."""
