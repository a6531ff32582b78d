"""Who knows which fact of a bestiary entry.

A row says: this fact of this entry is known to the party (``user_id`` empty: every member
who is not a GM) or to one member. ``text`` is empty for a true fact (it is rendered from
the entry's current stat block, so a corrected entry corrects what the heroes know) and
holds the false statement of a false fact; ``pending`` marks a false fact that waits for
the GM to confirm or replace it (nobody but the GMs sees those).
"""

from __future__ import annotations

from sqlalchemy import Boolean, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.campaigns.columns import CampaignOwned, Stamped
from app.db import Base, owned_by


class KnownFact(CampaignOwned, Stamped, Base):
    __tablename__ = "known_fact"

    entry_id: Mapped[int] = owned_by("bestiary_entry.id", index=True)
    #: The fact's key in the system's list (``lp``, ``res:Feuer``, ...).
    fact: Mapped[str] = mapped_column(String(80))
    #: The one member who knows it; empty: the party.
    user_id: Mapped[int | None] = owned_by("user_account.id", index=True)
    #: A false fact's statement; empty for a true fact.
    text: Mapped[str | None] = mapped_column(Text)
    pending: Mapped[bool] = mapped_column(Boolean, default=False)
    #: The ``seq`` of the event that revealed it (or proposed it, while pending).
    seq: Mapped[int] = mapped_column(Integer, default=0)
