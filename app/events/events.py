"""The event types the log itself reads, or that packages below their writer need.

The membership changes (``app.campaigns.service`` writes them; the live stream re-checks
its viewer on them, ``app.events.stream``) and the dice roll (written by the dice log, a
sheet's roll — ``app.characters``, beside ``app.rolls`` — and the chat's inline roll; the
fair-play check of ``app.sessions`` and the campaign page read it). Every other payload
class lives in the package that writes it (``app/<package>/events.py``);
``app/events/payload.py`` has their base and registry.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from app.events.payload import EventPayload, event_type, subject_of
from app.rules.dice import DieRoll

# --- members (``app.campaigns.service`` writes them) ------------------------------------------


@event_type("member_joined")
class MemberJoined(EventPayload):
    user_id: int
    role: str


@event_type("member_removed")
class MemberRemoved(EventPayload):
    user_id: int


@event_type("member_role_changed")
class MemberRoleChanged(EventPayload):
    user_id: int
    role: str


@event_type("gm_transferred")
class GmTransferred(EventPayload):
    #: The new GM.
    user_id: int


# --- dice ------------------------------------------------------------------------------------


@event_type("roll")
class Roll(EventPayload):
    """A roll of the dice log: a free expression or, with the sheet fields, a roll from a
    sheet through its rules engine. Built only by :meth:`build`."""

    VISIBILITIES: ClassVar[frozenset[str]] = frozenset({"public", "gm", "self"})
    STUB_WHEN_HIDDEN: ClassVar[bool] = True

    expression: str
    label: str
    #: ``{"sides", "faces", "kept"}`` per group of dice.
    dice: list[dict[str, object]]
    #: +1 or −1 per group of dice.
    signs: list[int]
    modifier: int
    total: int
    #: Sheet rolls only (``None`` for a free roll):
    system: str | None = None
    summary: str | None = None
    outcome: dict[str, object] | None = None
    character_id: int | None = None
    character_name: str | None = None
    #: The sheet's roll target (``skill:Spürsinn``, ``attack:…``).
    target: str | None = None

    @property
    def subject(self) -> str | None:
        return None if self.character_id is None else subject_of("character", self.character_id)

    @classmethod
    def build(
        cls,
        *,
        actor_name: str,
        expression: str,
        label: str,
        dice: Sequence[DieRoll],
        modifier: int,
        total: int,
        signs: Sequence[int] | None = None,
        sheet: SheetRoll | None = None,
    ) -> Roll:
        """The one builder of ``roll`` payloads; ``signs`` default to all +1."""
        return cls(
            actor_name=actor_name,
            expression=expression,
            label=label,
            dice=[d.as_dict() for d in dice],
            signs=list(signs) if signs is not None else [1] * len(dice),
            modifier=modifier,
            total=total,
            system=sheet.system if sheet else None,
            summary=sheet.summary if sheet else None,
            outcome=sheet.outcome if sheet else None,
            character_id=sheet.character_id if sheet else None,
            character_name=sheet.character_name if sheet else None,
            target=sheet.target if sheet else None,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class SheetRoll:
    """What a roll from a sheet adds to a ``roll`` payload."""

    system: str
    summary: str
    outcome: dict[str, object]
    character_id: int
    character_name: str
    target: str


#: The payload classes of this package; ``app.wiring`` registers them.
EVENTS: tuple[type[EventPayload], ...] = (
    MemberJoined,
    MemberRemoved,
    MemberRoleChanged,
    GmTransferred,
    Roll,
)
