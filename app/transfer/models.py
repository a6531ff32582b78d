"""Imported parts: the people an imported campaign document names, as placeholders.

An import never makes anyone but the importer a member, and never writes a real account's id
into the copy (docs/table-talk.md, "Campaign export and import"). Every other person the
document names with a role or characters becomes an :class:`ImportedPart` of the copy: their
name as the document wrote it, the role they had (a former GM's as co-GM) and the copy's
characters that were theirs. The GM can hand a part over: a takeover link (``code``) lets
the person who opens it join with that role and take over those characters.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, String
from sqlalchemy.orm import Mapped, mapped_column

from app.campaigns.columns import CampaignOwned, Stamped
from app.core.transfer import Grants
from app.db import Base, UTCDateTime, refers_to


class ImportedPart(CampaignOwned, Stamped, Base):
    __tablename__ = "imported_part"

    #: The user name the document gave, shown as "(importiert)"; never matched to an account.
    name: Mapped[str] = mapped_column(String(32))
    role: Mapped[str] = mapped_column(String(16))
    #: The copy's characters that belonged to this person (ids in the copy).
    character_ids: Mapped[list[int]] = mapped_column(JSON, default=list)
    #: What the document gave this person in the talk rows (``app.core.transfer.Grants``):
    #: given to whoever takes the part over.
    grants: Mapped[Grants] = mapped_column(JSON, default=dict)
    #: The takeover link's code once the GM made one (a secret like an invite code).
    code: Mapped[str | None] = mapped_column(String(32), unique=True)
    claimed_by: Mapped[int | None] = refers_to("user_account.id")
    claimed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
