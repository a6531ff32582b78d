"""The six attributes, their German names, and attribute modifiers.

Character sheets of the German core rules list Attributswerte (scores); the modifier is
``(score - 10) // 2`` (floor), e.g. 18 → +4, 9 → -1. Sheets that store modifiers directly
pass them to :func:`attribute_modifier_of` unchanged.
"""

from __future__ import annotations

from enum import StrEnum

from app.rules.pf2e.modifiers import ATTRIBUTE, Modifier


class Attribute(StrEnum):
    STRENGTH = "strength"
    DEXTERITY = "dexterity"
    CONSTITUTION = "constitution"
    INTELLIGENCE = "intelligence"
    WISDOM = "wisdom"
    CHARISMA = "charisma"

    @property
    def label(self) -> str:
        """German name, e.g. ``Geschicklichkeit``."""
        return _LABELS[self][0]

    @property
    def abbreviation(self) -> str:
        """German abbreviation, e.g. ``GE``."""
        return _LABELS[self][1]


_LABELS = {
    Attribute.STRENGTH: ("Stärke", "ST"),
    Attribute.DEXTERITY: ("Geschicklichkeit", "GE"),
    Attribute.CONSTITUTION: ("Konstitution", "KO"),
    Attribute.INTELLIGENCE: ("Intelligenz", "IN"),
    Attribute.WISDOM: ("Weisheit", "WE"),
    Attribute.CHARISMA: ("Charisma", "CH"),
}


def attribute_modifier(score: int) -> int:
    """Attributsmodifikator of an Attributswert: ``(score - 10) // 2``, rounded down."""
    if isinstance(score, bool) or not isinstance(score, int) or score < 1:
        raise ValueError(f"an attribute score is a positive integer, not {score!r}")
    return (score - 10) // 2


def attribute_modifier_of(attribute: str, value: int) -> Modifier:
    """The attribute modifier as a :class:`Modifier`, source = the German attribute name."""
    return Modifier(Attribute(attribute).label, ATTRIBUTE, value)
