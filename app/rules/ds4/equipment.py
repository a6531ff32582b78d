"""DS4 starter weapons and armour (ds4.md §4) as data, and the class armour table (seed).

Ids are stable lower-case codes (``langschwert``); the web layer translates names.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Material(StrEnum):
    """Armour material, the columns of the class armour table."""

    STOFF = "stoff"
    LEDER = "leder"
    KETTE = "kette"
    PLATTE = "platte"


class Slot(StrEnum):
    HELMET = "helmet"
    BODY = "body"
    ARM = "arm"
    LEG = "leg"
    SHIELD = "shield"


@dataclass(frozen=True, slots=True)
class Weapon:
    id: str
    wb: int  # Waffenbonus on Schlagen / Schießen
    ini: int = 0  # Initiative modifier while in hand
    ga: int = 0  # Gegnerabwehr: modifier on the target's Abwehr against this weapon
    two_handed: bool = False
    not_for_dwarves: bool = False
    ranged: bool = False
    wooden: bool = False  # breaks instead of being dropped on a Patzer
    zielzauber: int = 0  # bonus on Zielzauber while in hand (Kampfstab)


@dataclass(frozen=True, slots=True)
class Armour:
    id: str
    pa: int
    slots: frozenset[Slot]
    material: Material | None = None  # None for helmets and shields
    ini: int = 0
    laufen: float = 0.0

    @property
    def is_shield(self) -> bool:
        return Slot.SHIELD in self.slots

    @property
    def is_helmet(self) -> bool:
        return Slot.HELMET in self.slots

    @property
    def is_schienen(self) -> bool:
        return bool(self.slots & {Slot.ARM, Slot.LEG})

    @property
    def is_cloth(self) -> bool:
        return self.material is Material.STOFF


WAFFENLOS = Weapon("waffenlos", 0, ga=5)

WEAPONS: dict[str, Weapon] = {
    w.id: w
    for w in (
        Weapon("axt", 1),
        Weapon("armbrust_leicht", 2, -2, two_handed=True, ranged=True),
        Weapon("armbrust_schwer", 3, -4, -2, two_handed=True, ranged=True),
        Weapon("bihaender", 3, -2, -4, two_handed=True, not_for_dwarves=True),
        Weapon("elfenbogen", 3, 1, two_handed=True, not_for_dwarves=True, ranged=True, wooden=True),
        Weapon("kurzbogen", 1, 1, two_handed=True, ranged=True, wooden=True),
        Weapon("langbogen", 2, 1, two_handed=True, not_for_dwarves=True, ranged=True, wooden=True),
        Weapon("dolch", 0, 1),
        Weapon("flegel", 2, -2),
        Weapon("hammer", 1, ga=-1),
        Weapon("hellebarde", 2, -2, two_handed=True),
        Weapon("kampfstab", 1, two_handed=True, wooden=True, zielzauber=1),
        Weapon("keule", 1, wooden=True),
        Weapon("schlachtbeil", 4, -6, -4, two_handed=True, not_for_dwarves=True),
        Weapon("breitschwert", 1, ga=-2),
        Weapon("kurzschwert", 1),
        Weapon("langschwert", 2),
        Weapon("speer", 1),
        Weapon("streitaxt", 3, -2, two_handed=True),
        Weapon("streitkolben", 1, ga=-1),
        WAFFENLOS,
    )
}

_S = Slot

ARMOUR: dict[str, Armour] = {
    a.id: a
    for a in (
        Armour("robe", 0, frozenset({_S.BODY}), Material.STOFF),
        Armour("lederpanzer", 1, frozenset({_S.BODY}), Material.LEDER),
        Armour("lederschienen", 1, frozenset({_S.ARM, _S.LEG}), Material.LEDER),
        Armour("kettenpanzer", 2, frozenset({_S.BODY}), Material.KETTE, laufen=-0.5),
        Armour("plattenarmschienen", 1, frozenset({_S.ARM}), Material.PLATTE, laufen=-0.5),
        Armour("plattenbeinschienen", 1, frozenset({_S.LEG}), Material.PLATTE, laufen=-0.5),
        Armour("plattenpanzer", 3, frozenset({_S.BODY}), Material.PLATTE, laufen=-1.0),
        Armour("metallhelm", 1, frozenset({_S.HELMET}), ini=-1),
        Armour("holzschild", 1, frozenset({_S.SHIELD})),
        Armour("metallschild", 1, frozenset({_S.SHIELD}), laufen=-0.5),
        Armour("turmschild", 2, frozenset({_S.SHIELD}), laufen=-1.0),
    )
}


def weapon(id: str) -> Weapon:
    """A starter weapon by id (``KeyError`` for unknown ids)."""
    return WEAPONS[id]


def armour(id: str) -> Armour:
    """A starter armour piece by id (``KeyError`` for unknown ids)."""
    return ARMOUR[id]
