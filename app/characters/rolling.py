"""Rolls from a sheet: what is asked (``RollRequest``), the odds before rolling and the roll
itself as the payload of a ``roll`` event.

Each system module (:mod:`app.characters.systems`) turns a request into engine calls:
values come from its sheet (engine-derived), dice, outcomes and odds from ``app/rules``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from app.characters.sheets import ItemLike
from app.errors import ValidationFailed
from app.rules.dice import DieRoll


@dataclass(frozen=True, slots=True)
class HelperSheet:
    """A helping character's sheet (H&H Helfen), loaded by the service: its value is read
    from its own sheet and equipped items."""

    character_id: int
    name: str
    data: Mapping[str, object]
    items: Sequence[ItemLike]


@dataclass(frozen=True, slots=True)
class RollRequest:
    target: str
    modifier: int = 0
    difficulty: str = ""
    #: H&H Glück option declared before the roll: bonus, cancel_penalty, auto_volltreffer.
    luck: str = ""
    dc: int | None = None
    fortune: bool = False
    misfortune: bool = False
    attack_number: int = 1
    visibility: str = "public"
    #: A knowledge check about this bestiary entry (``app.knowledge``): the rules set the
    #: SG and secrecy, and the outcome reveals facts.
    knowledge_of: int | None = None
    #: A character of the same campaign who helps (H&H Helfen; ``helping`` systems only).
    helper_id: int | None = None
    #: Its sheet, filled in by the service from ``helper_id``.
    helper: HelperSheet | None = None


@dataclass(frozen=True, slots=True)
class Odds:
    headline: str
    details: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class RollOutcome:
    label: str
    expression: str
    dice: tuple[DieRoll, ...]
    modifier: int
    total: int
    summary: str
    outcome: dict[str, object]
    #: Sheet fields the roll changed (H&H Glück spent or burned): key → new value.
    sheet_changes: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Target:
    key: str
    label: str


def bad(field_: str, message: str) -> ValidationFailed:
    """A roll request the sheet cannot make, answered at its field."""
    return ValidationFailed({field_: message})
