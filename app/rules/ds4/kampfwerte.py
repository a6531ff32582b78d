"""DS4 Kampfwerte with a breakdown of where every number comes from (ds4.md §3).

Breakdown labels are stable codes ``kind:id``:

* ``attribute:<attribut>`` / ``trait:<eigenschaft>`` — a character value (traits include the
  Volk and Klasse bonus), ``attribute:agilitaet/2`` for half AGI in Laufen;
* ``constant`` — the fixed part (Lebenskraft +10, Laufen +1);
* ``weapon:<id>`` — WB, INI or Zielzauber bonus of a weapon;
* ``armour:<id>`` — PA, INI or Laufen of a worn piece;
* ``klassenfremd:<id>`` — the extra effect of armour the class may not wear: the AGI malus
  (−PA, halved in Laufen) and the three extra PA on Zaubern and Zielzauber (PA × 4 in all);
* ``volk:zwerg_zaeh`` — the dwarf's Abwehr +1.

Zaubern and Zielzauber are shown without a spell's Zauberbonus (ZB), which belongs to the
spell; :func:`with_zauberbonus` adds it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from app.rules.ds4.character import (
    ZWERG_ZAEH_ABWEHR,
    Attribut,
    Character,
    Eigenschaft,
    Volk,
    armour_allowed,
)
from app.rules.ds4.equipment import WAFFENLOS

N = TypeVar("N", int, float)

KLASSENFREMD_SPELL_FACTOR = 4
LEBENSKRAFT_BASE = 10
LAUFEN_BASE = 1.0


@dataclass(frozen=True, slots=True)
class Kampfwert(Generic[N]):
    """A value and the labelled parts it is the sum of."""

    value: N
    breakdown: tuple[tuple[str, N], ...]


def _kw(parts: list[tuple[str, int]]) -> Kampfwert[int]:
    return Kampfwert(sum(v for _, v in parts), tuple(parts))


@dataclass(frozen=True, slots=True)
class CombatValues:
    lebenskraft: Kampfwert[int]
    abwehr: Kampfwert[int]
    initiative: Kampfwert[int]
    laufen: Kampfwert[float]
    schlagen: Kampfwert[int]
    schiessen: Kampfwert[int]
    zaubern: Kampfwert[int]
    zielzauber: Kampfwert[int]


def _a(c: Character, a: Attribut) -> tuple[str, int]:
    return (f"attribute:{a.value}", c.attributes.get(a))


def _t(c: Character, e: Eigenschaft) -> tuple[str, int]:
    return (f"trait:{e.value}", c.trait(e))


def combat_values(character: Character) -> CombatValues:
    """All eight Kampfwerte of ``character`` with breakdowns (recompute on every change)."""
    c = character
    eq = c.equipment
    armour = eq.armour
    foreign = [p for p in armour if not armour_allowed(c.klasse, p)]
    agi_malus = [(f"klassenfremd:{p.id}", -p.pa) for p in foreign if p.pa]
    in_hand = eq.weapon_in_hand

    lebenskraft = _kw(
        [
            _a(c, Attribut.KOERPER),
            _t(c, Eigenschaft.HAERTE),
            ("constant", LEBENSKRAFT_BASE),
        ]
    )

    abwehr_parts = [_a(c, Attribut.KOERPER), _t(c, Eigenschaft.HAERTE)]
    abwehr_parts += [(f"armour:{p.id}", p.pa) for p in armour if p.pa]
    if c.volk is Volk.ZWERG:
        abwehr_parts.append(("volk:zwerg_zaeh", ZWERG_ZAEH_ABWEHR))
    abwehr = _kw(abwehr_parts)

    ini_parts = [_a(c, Attribut.AGILITAET), *agi_malus, _t(c, Eigenschaft.BEWEGUNG)]
    ini_parts += [(f"armour:{p.id}", p.ini) for p in armour if p.ini]
    if in_hand is not None and in_hand.ini:
        ini_parts.append((f"weapon:{in_hand.id}", in_hand.ini))
    initiative = _kw(ini_parts)

    laufen_parts: list[tuple[str, float]] = [
        ("attribute:agilitaet/2", c.attributes.agilitaet / 2),
        *((label, v / 2) for label, v in agi_malus),
        ("constant", LAUFEN_BASE),
    ]
    laufen_parts += [(f"armour:{p.id}", p.laufen) for p in armour if p.laufen]
    laufen = Kampfwert(sum(v for _, v in laufen_parts), tuple(laufen_parts))

    melee = eq.melee_weapon or WAFFENLOS
    schlagen = _kw(
        [_a(c, Attribut.KOERPER), _t(c, Eigenschaft.STAERKE), (f"weapon:{melee.id}", melee.wb)]
    )

    schiessen_parts = [_a(c, Attribut.AGILITAET), *agi_malus, _t(c, Eigenschaft.GESCHICK)]
    if eq.ranged_weapon is not None:
        schiessen_parts.append((f"weapon:{eq.ranged_weapon.id}", eq.ranged_weapon.wb))
    schiessen = _kw(schiessen_parts)

    spell_pa: list[tuple[str, int]] = []
    for p in armour:
        if p.is_cloth or not p.pa:
            continue
        spell_pa.append((f"armour:{p.id}", -p.pa))
        if p in foreign:
            spell_pa.append((f"klassenfremd:{p.id}", -p.pa * (KLASSENFREMD_SPELL_FACTOR - 1)))

    zaubern = _kw([_a(c, Attribut.GEIST), _t(c, Eigenschaft.AURA), *spell_pa])

    ziel_parts = [_a(c, Attribut.GEIST), _t(c, Eigenschaft.GESCHICK), *spell_pa]
    if in_hand is not None and in_hand.zielzauber:
        ziel_parts.append((f"weapon:{in_hand.id}", in_hand.zielzauber))
    zielzauber = _kw(ziel_parts)

    return CombatValues(
        lebenskraft, abwehr, initiative, laufen, schlagen, schiessen, zaubern, zielzauber
    )


def with_zauberbonus(value: Kampfwert[int], zb: int, spell: str) -> Kampfwert[int]:
    """Zaubern or Zielzauber for a particular spell: adds its ZB as ``spell:<id>``."""
    return _kw([*value.breakdown, (f"spell:{spell}", zb)])
