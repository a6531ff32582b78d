"""The campaign's event types (``app.campaigns.service`` writes them); the membership events
are ``app.events.events``'s (the live stream reads them).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.events.payload import EventPayload, event_type


@event_type("campaign_created")
@dataclass(frozen=True, slots=True, kw_only=True)
class CampaignCreated(EventPayload):
    name: str
    system: str


@event_type("settings_changed")
@dataclass(frozen=True, slots=True, kw_only=True)
class SettingsChanged(EventPayload):
    #: The campaign's name and options before and after.
    before: dict[str, object]
    after: dict[str, object]


#: The payload classes of this package; ``app.wiring`` registers them.
EVENTS: tuple[type[EventPayload], ...] = (
    CampaignCreated,
    SettingsChanged,
)
