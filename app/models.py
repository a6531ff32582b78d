"""Every ORM model, imported once so Alembic and the tests see the whole schema."""

from app.accounts.models import ApiToken, LoginFailure, User, UserSession
from app.campaigns.models import Campaign, Invite, Membership
from app.characters.models import Character, Item
from app.db import Base
from app.encounters.models import BestiaryEntry, Encounter, Participant, UndoStep
from app.events.models import CampaignEvent
from app.idempotency.models import IdempotentRequest
from app.knowledge.models import KnownFact
from app.maps.models import Scene, SceneBackground, Token
from app.sessions.models import ClientSeed, FairPlayRule, GameSession
from app.talk.models import (
    ChatMessage,
    ChatRead,
    ChatRecipient,
    Handout,
    HandoutImage,
    HandoutReader,
    JournalNote,
    JournalReader,
)
from app.transfer.models import ImportedPart
from app.webhooks.models import Webhook

__all__ = [
    "ApiToken",
    "Base",
    "BestiaryEntry",
    "Campaign",
    "CampaignEvent",
    "Character",
    "ChatMessage",
    "ChatRead",
    "ChatRecipient",
    "ClientSeed",
    "Encounter",
    "FairPlayRule",
    "GameSession",
    "Handout",
    "HandoutImage",
    "HandoutReader",
    "IdempotentRequest",
    "ImportedPart",
    "Invite",
    "Item",
    "JournalNote",
    "JournalReader",
    "KnownFact",
    "LoginFailure",
    "Membership",
    "Participant",
    "Scene",
    "SceneBackground",
    "Token",
    "UndoStep",
    "User",
    "UserSession",
    "Webhook",
]
