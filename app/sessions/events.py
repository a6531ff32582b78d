"""Game sessions' and fair play's event types (``app.sessions``, docs/fairplay.md)."""

from __future__ import annotations

from app.events.payload import EventPayload, event_type

# --- game sessions and fair play (app/sessions, docs/fairplay.md) ------------------------------


@event_type("session_started")
class SessionStarted(EventPayload):
    """A GM started a game session; in fair play with the commitment to its server seed,
    published before any roll of the session (the first link of its chain)."""

    session_id: int
    #: SHA-256 (hex) of the 32-byte server seed; ``None`` when fair play is off.
    commitment: str | None
    #: The table rule for this session (``None`` without fair play).
    overrides: str | None
    reveal_secret_rolls: bool


@event_type("session_ended")
class SessionEnded(EventPayload):
    """A GM ended the game session; in fair play the server seed is published (hex)."""

    session_id: int
    server_seed: str | None


@event_type("client_seed_set")
class ClientSeedSet(EventPayload):
    """A member set their client seed for the session's rolls from now on."""

    session_id: int
    client_seed: str


@event_type("fairplay_configured")
class FairPlayConfigured(EventPayload):
    """A GM changed the campaign's fair-play rule (applies from the next session)."""

    enabled: bool
    overrides: str
    reveal_secret_rolls: bool


#: The payload classes of this package; ``app.wiring`` registers them.
EVENTS: tuple[type[EventPayload], ...] = (
    SessionStarted,
    SessionEnded,
    ClientSeedSet,
    FairPlayConfigured,
)
