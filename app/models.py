"""Every ORM model, imported once so Alembic and the tests see the whole schema."""

from app.accounts.models import LoginFailure, User, UserSession
from app.campaigns.models import Campaign, Invite, Membership
from app.characters.models import Character, Item
from app.db import Base
from app.encounters.models import BestiaryEntry, Encounter, Participant
from app.events.models import CampaignEvent
from app.idempotency.models import IdempotentRequest

__all__ = [
    "Base",
    "BestiaryEntry",
    "Campaign",
    "CampaignEvent",
    "Character",
    "Encounter",
    "IdempotentRequest",
    "Invite",
    "Item",
    "LoginFailure",
    "Membership",
    "Participant",
    "User",
    "UserSession",
]
