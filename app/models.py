"""Every ORM model, imported once so Alembic and the tests see the whole schema."""

from app.accounts.models import LoginFailure, User, UserSession
from app.campaigns.models import Campaign, Invite, Membership
from app.characters.models import Character, Item
from app.db import Base
from app.events.models import CampaignEvent

__all__ = [
    "Base",
    "Campaign",
    "CampaignEvent",
    "Character",
    "Invite",
    "Item",
    "LoginFailure",
    "Membership",
    "User",
    "UserSession",
]
