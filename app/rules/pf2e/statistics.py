"""Derived statistics: RK, saves, Wahrnehmung, skills, weapon and spell attacks, spell DC.

A :class:`Statistic` is a German name plus the modifiers that make it up. Its
``modifier`` is the Gesamtmodifikator after stacking; its ``dc`` is ``10 + modifier``,
which is how every DC derived from a statistic works (Reflex +4 → Reflex-SG 14, spell
DC, Wahrnehmungs-SG, skill DC) and also how RK is built (10 + Dex up to the armour's cap
+ proficiency + armour item bonus + other bonuses and penalties).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NotRequired, TypedDict, Unpack

from app.rules.pf2e.attributes import Attribute, attribute_modifier_of
from app.rules.pf2e.modifiers import ITEM, Modifier, ModifierBreakdown, stack_modifiers
from app.rules.pf2e.proficiency import proficiency_modifier

DC_BASE = 10


def dc_from_modifier(modifier: int) -> int:
    """Any DC derived from a total modifier: ``10 + modifier``."""
    return DC_BASE + modifier


@dataclass(frozen=True, slots=True)
class Statistic:
    """A named statistic and its modifiers; ``dc_name`` is the German name of its DC."""

    name: str
    modifiers: tuple[Modifier, ...] = ()
    dc_name: str = field(default="")

    def __post_init__(self) -> None:
        object.__setattr__(self, "modifiers", tuple(self.modifiers))
        if not self.dc_name:
            object.__setattr__(self, "dc_name", f"{self.name}-SG")

    @property
    def breakdown(self) -> ModifierBreakdown:
        return stack_modifiers(self.modifiers)

    @property
    def modifier(self) -> int:
        """The Gesamtmodifikator after stacking."""
        return self.breakdown.total

    @property
    def dc(self) -> int:
        """``10 + modifier``: the statistic's SG (or, for RK, the RK itself)."""
        return dc_from_modifier(self.modifier)

    def with_modifiers(self, modifiers: Iterable[Modifier]) -> Statistic:
        """The same statistic with more modifiers (e.g. a situational bonus)."""
        return Statistic(self.name, (*self.modifiers, *modifiers), self.dc_name)


class Save(StrEnum):
    FORTITUDE = "fortitude"
    REFLEX = "reflex"
    WILL = "will"

    @property
    def label(self) -> str:
        """German name: ``Zähigkeit``, ``Reflex``, ``Wille``."""
        return _SAVES[self][0]

    @property
    def dc_name(self) -> str:
        """``Zähigkeits-SG``, ``Reflex-SG``, ``Willens-SG``."""
        return _SAVES[self][1]

    @property
    def attribute(self) -> Attribute:
        """Key attribute: Konstitution, Geschicklichkeit, Weisheit."""
        return _SAVES[self][2]


_SAVES = {
    Save.FORTITUDE: ("Zähigkeit", "Zähigkeits-SG", Attribute.CONSTITUTION),
    Save.REFLEX: ("Reflex", "Reflex-SG", Attribute.DEXTERITY),
    Save.WILL: ("Wille", "Willens-SG", Attribute.WISDOM),
}


class Training(TypedDict):
    """The keywords every trained statistic takes (saves, skills, spellcasting)."""

    level: int
    rank: str
    attribute_modifier: int
    modifiers: NotRequired[Iterable[Modifier]]


def _trained(
    name: str,
    attribute: str,
    dc_name: str = "",
    *,
    level: int,
    rank: str,
    attribute_modifier: int,
    modifiers: Iterable[Modifier] = (),
) -> Statistic:
    """Key attribute + proficiency + other modifiers: saves, Wahrnehmung, skills, spells."""
    base = (attribute_modifier_of(attribute, attribute_modifier), proficiency_modifier(rank, level))
    return Statistic(name, (*base, *modifiers), dc_name)


def saving_throw(save: str, **training: Unpack[Training]) -> Statistic:
    """Reflex (GE), Wille (WE) or Zähigkeit (KO) with its proficiency and other modifiers."""
    kind = Save(save)
    return _trained(kind.label, kind.attribute, kind.dc_name, **training)


def perception(
    *, level: int, rank: str, wisdom_modifier: int, modifiers: Iterable[Modifier] = ()
) -> Statistic:
    """Wahrnehmung: Weisheit + proficiency + other modifiers; DC Wahrnehmungs-SG."""
    return _trained(
        "Wahrnehmung", Attribute.WISDOM, "Wahrnehmungs-SG",
        level=level, rank=rank, attribute_modifier=wisdom_modifier, modifiers=modifiers,
    )  # fmt: skip


def skill(name: str, attribute: str, **training: Unpack[Training]) -> Statistic:
    """A skill (e.g. ``Athletik`` with Stärke) by its key attribute; DC ``<name>-SG``."""
    return _trained(name, attribute, **training)


def armor_class(
    *,
    level: int,
    rank: str,
    dexterity_modifier: int,
    dex_cap: int | None = None,
    armor_bonus: int = 0,
    armor_name: str = "Rüstung",
    modifiers: Iterable[Modifier] = (),
) -> Statistic:
    """RK: 10 + GE (up to the armour's GE-Limit) + proficiency + armour item bonus + others.

    ``rank`` is the proficiency for the armour category worn (or Ungerüstete Verteidigung);
    ``dex_cap=None`` means no cap (no armour). The cap only limits a positive modifier.
    """
    dex = dexterity_modifier
    source = Attribute.DEXTERITY.label
    if dex_cap is not None and dex > dex_cap:
        dex = dex_cap
        source = f"{source} (GE-Limit {dex_cap:+d})"
    parts = [
        Modifier(source, "attribute", dex),
        proficiency_modifier(rank, level),
    ]
    if armor_bonus:
        parts.append(Modifier(armor_name, ITEM, armor_bonus))
    return Statistic("RK", (*parts, *modifiers), "RK")


def weapon_attack(
    name: str,
    *,
    ranged: bool,
    level: int,
    rank: str,
    strength_modifier: int,
    dexterity_modifier: int,
    finesse: bool = False,
    item_bonus: int = 0,
    modifiers: Iterable[Modifier] = (),
) -> Statistic:
    """Nahkampf- or Fernkampfangriff with a weapon.

    Melee uses Stärke; with Finesse both Stärke and Geschicklichkeit are offered and the
    better one counts. Ranged uses Geschicklichkeit. ``item_bonus`` is the weapon's
    potency rune (Gegenstandsbonus).
    """
    offered: list[Modifier] = []
    if ranged:
        offered.append(attribute_modifier_of(Attribute.DEXTERITY, dexterity_modifier))
    else:
        offered.append(attribute_modifier_of(Attribute.STRENGTH, strength_modifier))
        if finesse:
            offered.append(attribute_modifier_of(Attribute.DEXTERITY, dexterity_modifier))
    offered.append(proficiency_modifier(rank, level))
    if item_bonus:
        offered.append(Modifier(f"{name} (Waffenverbesserungsrune)", ITEM, item_bonus))
    kind = "Fernkampfangriff" if ranged else "Nahkampfangriff"
    return Statistic(f"{kind} ({name})", (*offered, *modifiers))


def spellcasting(attribute: str, **training: Unpack[Training]) -> Statistic:
    """Zauberangriff with the spellcasting attribute; its ``dc`` is the Zauber-SG."""
    return _trained("Zauberangriff", attribute, "Zauber-SG", **training)
