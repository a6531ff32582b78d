"""Schaden (hh.md §6.4): per-QS damage rolls, RS per roll, brechend/direkt, resistances."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

DamageKind = Literal["normal", "brechend", "direkt"]
ResistanceLevel = Literal["none", "resistant", "vulnerable", "immune"]

DAMAGE_KINDS: tuple[str, ...] = ("normal", "brechend", "direkt")
RESISTANCES: tuple[str, ...] = ("none", "resistant", "vulnerable", "immune")
#: Elemental damage types (seed 003, Elementarer Angriff).
ELEMENTS: frozenset[str] = frozenset({"feuer", "eis", "blitz", "wind", "säure"})


def effective_rs(rs: int, kind: str) -> int:
    """RS that reduces each roll: full (normal), halved rounding down (brechend), 0 (direkt)."""
    if kind == "normal":
        return max(0, rs)
    if kind == "brechend":
        return max(0, rs) // 2
    if kind == "direkt":
        return 0
    raise ValueError(f"unknown damage kind {kind!r}; expected one of {DAMAGE_KINDS}")


def apply_resistance(total: int, resistance: str) -> int:
    """Resistant ×½, vulnerable ×1.5, immune ×0 on the total, rounding down."""
    if resistance == "none":
        return total
    if resistance == "resistant":
        return total // 2
    if resistance == "vulnerable":
        return total * 3 // 2
    if resistance == "immune":
        return 0
    raise ValueError(f"unknown resistance {resistance!r}; expected one of {RESISTANCES}")


def damage_per_roll(rolls: Sequence[int], bonus: int, rs: int, kind: str = "normal") -> list[int]:
    """Each roll's damage after RS: ``max(0, roll + bonus − RS)``."""
    armour = effective_rs(rs, kind)
    return [max(0, r + bonus - armour) for r in rolls]


def damage(
    rolls: list[int], bonus: int, rs: int, kind: str = "normal", resistance: str = "none"
) -> int:
    """Total damage of one hit (hh.md §6.4); never negative.

    >>> damage([7, 5], 1, 2)   # seed example: QS 2, W10+1, RS 2
    10
    """
    return apply_resistance(sum(damage_per_roll(rolls, bonus, rs, kind)), resistance)


def elemental_kind(kind: str, resistance: str) -> str:
    """Elemental damage is brechend unless the target is resistant or immune.

    Project decision: ``direkt`` stays ``direkt`` (e.g. «Zerschmetterter Leib»).
    """
    if kind == "direkt":
        return "direkt"
    if resistance in ("resistant", "immune"):
        return kind
    return "brechend"


def elemental_damage(
    rolls: list[int], bonus: int, rs: int, resistance: str = "none", kind: str = "normal"
) -> int:
    """Damage of an elemental attack (fire, ice, lightning, wind, acid), hh.md §6.4."""
    return damage(rolls, bonus, rs, elemental_kind(kind, resistance), resistance)


def resistance_against(resistances: Mapping[str, str], damage_type: str) -> str:
    """A target's resistance level against ``damage_type`` (``"none"`` if unlisted)."""
    return resistances.get(damage_type.lower(), "none")


def typed_damage(
    rolls: list[int],
    bonus: int,
    rs: int,
    *,
    kind: str = "normal",
    damage_type: str = "physisch",
    resistances: Mapping[str, str] | None = None,
) -> int:
    """Damage of a given type against a target's resistance table; elements are handled."""
    resistance = resistance_against(resistances or {}, damage_type)
    if damage_type.lower() in ELEMENTS:
        return elemental_damage(rolls, bonus, rs, resistance, kind)
    return damage(rolls, bonus, rs, kind, resistance)
