from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Boolean, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.campaigns.columns import CampaignOwned, Edited, Stamped
from app.db import Base, UTCDateTime, owned_by, refers_to


class CharacterKind(StrEnum):
    pc = "pc"
    npc = "npc"


class Character(CampaignOwned, Edited, Base):
    """A character sheet. ``data`` holds the system's sheet values (see ``systems/``)."""

    __tablename__ = "character"

    #: The player who owns the sheet; ``None`` for GM-made NSC templates.
    owner_id: Mapped[int | None] = refers_to("user_account.id", index=True)
    system: Mapped[str] = mapped_column(String(8))
    name: Mapped[str] = mapped_column(String(100))
    kind: Mapped[str] = mapped_column(String(8), default=CharacterKind.pc.value)
    hidden_from_players: Mapped[bool] = mapped_column(Boolean, default=False)
    archived_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class Item(CampaignOwned, Stamped, Base):
    """An item stack: carried by a character, or in the GM's campaign item library.

    ``fields`` holds the system fields (weapon WB/INI/GA, damage die, traits, armour values,
    H&H size class, ...). ``slot`` is the equipment slot when ``equipped``; ``container``
    names where an unequipped item is kept (``"rucksack"`` for H&H, ``None`` = carried).
    ``price`` counts the system's base coin (H&H Lira, DS4 Silber, PF2e Silber).
    """

    __tablename__ = "item"

    character_id: Mapped[int | None] = owned_by("character.id", index=True)
    in_library: Mapped[bool] = mapped_column(Boolean, default=False)
    name: Mapped[str] = mapped_column(String(100))
    description: Mapped[str] = mapped_column(Text, default="")
    quantity: Mapped[int] = mapped_column(Integer, default=1)
    price: Mapped[int | None] = mapped_column(Integer)
    fields: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    slot: Mapped[str | None] = mapped_column(String(20))
    equipped: Mapped[bool] = mapped_column(Boolean, default=False)
    container: Mapped[str | None] = mapped_column(String(20))
