"""Everything a running app holds once: settings, database, broker, hasher, roller."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.accounts.passwords import Hasher
from app.accounts.service import ENDED_SESSIONS_KEY
from app.config import Settings
from app.events.broker import Broker
from app.events.models import CampaignEvent
from app.events.service import PENDING_KEY
from app.events.stream import Look
from app.events.transport import Transport
from app.events.warden import StreamWarden
from app.limits import WriteRateLimiter
from app.rules.dice import Roller
from app.web.members import Members
from app.web.stream_audit import stream_audit


@dataclass
class AppContext:
    settings: Settings
    engine: AsyncEngine
    sessionmaker: async_sessionmaker[AsyncSession]
    #: Sessions that only read, for the live streams (``app.db.create_read_sessionmaker``).
    read_sessions: async_sessionmaker[AsyncSession]
    broker: Broker
    hasher: Hasher
    roller: Roller
    #: Who is a member of a campaign, and as what (``app.campaigns.permissions``, handed in
    #: by ``app.main``: the web toolkit names no package with an HTTP edge).
    members: Members
    #: What carries this process's events to the others and theirs to it (started by the
    #: app's lifespan): ``LISTEN``/``NOTIFY``, NATS JetStream, or none (SQLite, one process).
    transports: list[Transport] = field(default_factory=list)
    #: How a stream sees the scenes as they are now, for the map events it projects
    #: (``app.maps.present.scenes_now``, handed in by ``app.main``: the web toolkit names no
    #: package above it).
    look: Look | None = None
    write_limiter: WriteRateLimiter = field(init=False)
    #: The process's one sweep over its live streams (memberships, sessions, the backstop).
    warden: StreamWarden = field(init=False)

    def __post_init__(self) -> None:
        self.write_limiter = WriteRateLimiter(
            self.settings.write_rate_per_minute, self.settings.write_burst
        )
        self.warden = StreamWarden(
            self.broker,
            self.read_sessions,
            stream_audit(self.members.roles),
            self.settings.stream_poll_seconds,
        )

    async def commit(self, session: AsyncSession) -> None:
        """Commit, then wake this process's live streams for the events just written, and
        end those of the login sessions just ended."""
        pending: list[CampaignEvent] = session.info.pop(PENDING_KEY, [])
        ended: list[str] = session.info.pop(ENDED_SESSIONS_KEY, [])
        await session.commit()
        for event in pending:
            self.broker.publish(event.campaign_id, event.seq, event)
        for transport in self.transports:
            transport.announce(pending)
        if ended:
            self.broker.end_sessions(ended)

    async def rollback(self, session: AsyncSession) -> None:
        """Roll back; the events written in the transaction are forgotten, never published,
        and so are the sessions it ended (they did not end)."""
        session.info.pop(PENDING_KEY, None)
        session.info.pop(ENDED_SESSIONS_KEY, None)
        await session.rollback()
