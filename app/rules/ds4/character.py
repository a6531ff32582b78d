"""DS4 character description, the class armour table and validation (ds4.md §3).

Validation never raises for rule problems; it returns :class:`Problem` values with a stable
``code``, a ``severity`` (``error`` forbids, ``warning`` allows and shows the effect) and
``params``. The web layer translates codes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

from app.rules.ds4.equipment import Armour, Material, Slot, Weapon
from app.rules.ds4.progression import stufe_for_ep


class Attribut(StrEnum):
    KOERPER = "koerper"
    AGILITAET = "agilitaet"
    GEIST = "geist"


class Eigenschaft(StrEnum):
    STAERKE = "staerke"
    HAERTE = "haerte"
    BEWEGUNG = "bewegung"
    GESCHICK = "geschick"
    VERSTAND = "verstand"
    AURA = "aura"


class Volk(StrEnum):
    MENSCH = "mensch"
    ELF = "elf"
    ZWERG = "zwerg"


class Klasse(StrEnum):
    KRIEGER = "krieger"
    SPAEHER = "spaeher"
    HEILER = "heiler"
    ZAUBERER = "zauberer"
    SCHWARZMAGIER = "schwarzmagier"


VOLK_BONUS: dict[Volk, frozenset[Eigenschaft]] = {
    Volk.MENSCH: frozenset(Eigenschaft),
    Volk.ELF: frozenset({Eigenschaft.BEWEGUNG, Eigenschaft.GESCHICK, Eigenschaft.AURA}),
    Volk.ZWERG: frozenset({Eigenschaft.STAERKE, Eigenschaft.HAERTE, Eigenschaft.GESCHICK}),
}

KLASSE_BONUS: dict[Klasse, frozenset[Eigenschaft]] = {
    Klasse.KRIEGER: frozenset({Eigenschaft.STAERKE, Eigenschaft.HAERTE}),
    Klasse.SPAEHER: frozenset({Eigenschaft.BEWEGUNG, Eigenschaft.GESCHICK}),
    Klasse.HEILER: frozenset({Eigenschaft.VERSTAND, Eigenschaft.AURA}),
    Klasse.ZAUBERER: frozenset({Eigenschaft.VERSTAND, Eigenschaft.AURA}),
    Klasse.SCHWARZMAGIER: frozenset({Eigenschaft.VERSTAND, Eigenschaft.AURA}),
}

ZWERG_ZAEH_ABWEHR = 1

CREATION_ATTRIBUTE_POINTS = 20
CREATION_ATTRIBUTE_MAX = 8
CREATION_TRAIT_POINTS = 8
CREATION_TRAIT_MAX = 4


@dataclass(frozen=True, slots=True)
class Attributes:
    koerper: int
    agilitaet: int
    geist: int

    def get(self, a: Attribut) -> int:
        return int(getattr(self, a.value))


@dataclass(frozen=True, slots=True)
class Traits:
    """Eigenschaften; on a :class:`Character` these are the values before Volk/Klasse bonus."""

    staerke: int
    haerte: int
    bewegung: int
    geschick: int
    verstand: int
    aura: int

    def get(self, e: Eigenschaft) -> int:
        return int(getattr(self, e.value))


Hand = Literal["melee", "ranged"]


@dataclass(frozen=True, slots=True)
class Equipment:
    """What a character carries and wears.

    ``melee_weapon`` feeds Schlagen (none = Waffenlos), ``ranged_weapon`` feeds Schießen.
    ``in_hand`` says which of the two is wielded right now: its INI modifies Initiative, its
    Zielzauber bonus applies, and a two-handed weapon in hand forbids a shield.
    """

    melee_weapon: Weapon | None = None
    ranged_weapon: Weapon | None = None
    in_hand: Hand = "melee"
    armour: tuple[Armour, ...] = ()

    @property
    def weapon_in_hand(self) -> Weapon | None:
        return self.melee_weapon if self.in_hand == "melee" else self.ranged_weapon


@dataclass(frozen=True, slots=True)
class Character:
    """A typed DS4 character: ``traits`` are before bonuses, the bonuses name the trait."""

    attributes: Attributes
    traits: Traits
    volk: Volk
    volk_bonus: Eigenschaft
    klasse: Klasse
    klasse_bonus: Eigenschaft
    equipment: Equipment = field(default_factory=Equipment)
    ep: int = 0

    @property
    def stufe(self) -> int:
        return stufe_for_ep(self.ep)

    def trait(self, e: Eigenschaft) -> int:
        """An Eigenschaft including the Volk and Klasse bonus."""
        return self.traits.get(e) + (e is self.volk_bonus) + (e is self.klasse_bonus)


# --- class armour table (seed, GRW p. 40) --------------------------------------------------

_ALL_BODY = frozenset(Material)


@dataclass(frozen=True, slots=True)
class ArmourPermission:
    """One row of the class armour table."""

    body: frozenset[Material]  # materials of body armour (Panzer) the class may wear
    helmets: bool
    schienen: frozenset[Material]  # materials of arm/leg Schienen the class may wear
    shields: bool


CLASS_ARMOUR: dict[Klasse, ArmourPermission] = {
    Klasse.KRIEGER: ArmourPermission(_ALL_BODY, True, _ALL_BODY, True),
    Klasse.SPAEHER: ArmourPermission(_ALL_BODY - {Material.PLATTE}, True, _ALL_BODY, True),
    Klasse.HEILER: ArmourPermission(
        frozenset({Material.STOFF, Material.LEDER}), False, frozenset({Material.LEDER}), True
    ),
    Klasse.ZAUBERER: ArmourPermission(frozenset({Material.STOFF}), False, frozenset(), True),
    Klasse.SCHWARZMAGIER: ArmourPermission(frozenset({Material.STOFF}), False, frozenset(), True),
}


def armour_allowed(klasse: Klasse, piece: Armour) -> bool:
    """Whether the class may wear ``piece`` without the Klassenfremde-Rüstung penalties."""
    perm = CLASS_ARMOUR[klasse]
    if piece.is_shield:
        return perm.shields
    if piece.is_helmet:
        return perm.helmets
    if piece.is_schienen:
        return piece.material in perm.schienen
    return piece.material in perm.body


# --- validation ---------------------------------------------------------------------------

Severity = Literal["error", "warning"]


@dataclass(frozen=True, slots=True)
class Problem:
    code: str
    severity: Severity
    params: Mapping[str, str | int] = field(default_factory=dict, hash=False)


def validate_equipment(character: Character) -> list[Problem]:
    """Equipment rules: dwarf ban, weapon slots, shield vs 2h, one piece per slot, class."""
    problems: list[Problem] = []
    eq = character.equipment
    for slot_name, w in (("melee", eq.melee_weapon), ("ranged", eq.ranged_weapon)):
        if w is None:
            continue
        if character.volk is Volk.ZWERG and w.not_for_dwarves:
            problems.append(Problem("weapon_not_for_dwarves", "error", {"weapon": w.id}))
        if (slot_name == "ranged") != w.ranged:
            problems.append(
                Problem("weapon_wrong_slot", "error", {"weapon": w.id, "slot": slot_name})
            )
    in_hand = eq.weapon_in_hand
    shields = [a for a in eq.armour if a.is_shield]
    if in_hand is not None and in_hand.two_handed and shields:
        problems.append(
            Problem(
                "shield_with_two_handed_weapon",
                "error",
                {"weapon": in_hand.id, "shield": shields[0].id},
            )
        )
    for slot in Slot:
        pieces = [a.id for a in eq.armour if slot in a.slots]
        if len(pieces) > 1:
            problems.append(
                Problem(
                    "slot_used_twice", "error", {"slot": slot.value, "items": ", ".join(pieces)}
                )
            )
    for piece in eq.armour:
        if not armour_allowed(character.klasse, piece):
            problems.append(
                Problem(
                    "armour_not_allowed_for_class",
                    "warning",
                    {"armour": piece.id, "klasse": character.klasse.value, "pa": piece.pa},
                )
            )
    return problems


def validate_creation(character: Character) -> list[Problem]:
    """Creation limits: 20 Attribute points (max 8 each), 8 Eigenschaft points (max 4
    each before bonuses), allowed Volk/Klasse bonuses, Stufe 1 with 0 EP."""
    problems: list[Problem] = []
    attrs = {a.value: character.attributes.get(a) for a in Attribut}
    traits = {e.value: character.traits.get(e) for e in Eigenschaft}
    for kind, values, total, cap in (
        ("attribute", attrs, CREATION_ATTRIBUTE_POINTS, CREATION_ATTRIBUTE_MAX),
        ("trait", traits, CREATION_TRAIT_POINTS, CREATION_TRAIT_MAX),
    ):
        for name, value in values.items():
            if value < 0:
                problems.append(
                    Problem(f"{kind}_negative", "error", {"name": name, "value": value})
                )
            elif value > cap:
                problems.append(
                    Problem(
                        f"{kind}_above_max", "error", {"name": name, "value": value, "max": cap}
                    )
                )
        spent = sum(values.values())
        if spent > total:
            problems.append(
                Problem(f"{kind}_points_exceeded", "error", {"spent": spent, "total": total})
            )
        elif spent < total:
            problems.append(
                Problem(f"{kind}_points_unspent", "warning", {"spent": spent, "total": total})
            )
    problems += _bonus_problems(character)
    if character.ep != 0:
        problems.append(Problem("creation_ep_not_zero", "error", {"ep": character.ep}))
    return problems


def _bonus_problems(character: Character) -> list[Problem]:
    problems: list[Problem] = []
    if character.volk_bonus not in VOLK_BONUS[character.volk]:
        problems.append(
            Problem(
                "volk_bonus_not_allowed",
                "error",
                {"volk": character.volk.value, "trait": character.volk_bonus.value},
            )
        )
    if character.klasse_bonus not in KLASSE_BONUS[character.klasse]:
        problems.append(
            Problem(
                "klasse_bonus_not_allowed",
                "error",
                {"klasse": character.klasse.value, "trait": character.klasse_bonus.value},
            )
        )
    return problems


def validate_character(character: Character, *, creation: bool = False) -> list[Problem]:
    """All problems of a character: equipment always, creation limits when ``creation``."""
    problems = validate_creation(character) if creation else []
    if not creation:
        problems += _bonus_problems(character)
        if character.ep < 0:
            problems.append(Problem("ep_negative", "error", {"ep": character.ep}))
    return problems + validate_equipment(character)


def has_errors(problems: list[Problem]) -> bool:
    return any(p.severity == "error" for p in problems)
