"""The campaign's event types (``app.campaigns.service`` writes them); the membership events
are ``app.events.events``'s (the live stream reads them).
"""

from __future__ import annotations

from app.events.payload import EventPayload, event_type


@event_type("campaign_created")
class CampaignCreated(EventPayload):
    name: str
    system: str


@event_type("settings_changed")
class SettingsChanged(EventPayload):
    #: The campaign's name and options before and after.
    before: dict[str, object]
    after: dict[str, object]


#: The payload classes of this package; ``app.wiring`` registers them.
EVENTS: tuple[type[EventPayload], ...] = (
    CampaignCreated,
    SettingsChanged,
)
