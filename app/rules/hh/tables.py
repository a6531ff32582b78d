"""The Volltreffer/Patzer tables and the Kontrollverlust table (seeds 003/000) as data.

Every entry has a stable ``key`` (snake_case of its German name), the German ``name`` and
``text`` (seed 003 wording) and structured :class:`TableEffect` data the engine applies.
Ranges: ≤0, 1–2, 3–4, 5–6, 7–9, 10–14, 15+ (hh.md §6.5).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Role = Literal["attacker", "defender", "caster", "area"]

TABLE_NAMES: tuple[str, ...] = (
    "angriff_volltreffer",
    "angriff_patzer",
    "verteidigung_volltreffer",
    "verteidigung_patzer",
    "kontrollverlust",
)

#: The tables' German titles, as the log shows them (seed 003).
TABLE_TITLES: dict[str, str] = {
    "angriff_volltreffer": "Volltreffer beim Angriff",
    "angriff_patzer": "Patzer beim Angriff",
    "verteidigung_volltreffer": "Volltreffer bei der Verteidigung",
    "verteidigung_patzer": "Patzer bei der Verteidigung",
    "kontrollverlust": "Kontrollverlust",
}

#: Lower bound of each band; the first band is everything ≤ 0.
BAND_STARTS: tuple[int, ...] = (-(10**9), 1, 3, 5, 7, 10, 15)
BAND_LABELS: tuple[str, ...] = ("≤0", "1–2", "3–4", "5–6", "7–9", "10–14", "15+")


@dataclass(frozen=True, slots=True)
class ConditionGrant:
    """A condition the entry applies to ``target`` (a role in the exchange)."""

    target: Role
    condition: str
    resource: Literal["LP", "WP"] | None = None
    cause: str = ""
    probe_skill: str = ""


@dataclass(frozen=True, slots=True)
class SelfDamage:
    """Damage to ``target``: ``dice`` W10 (times (Fokus + 1) if ``per_focus``)."""

    target: Role
    dice: int
    kind: Literal["normal", "brechend", "direkt"] = "direkt"
    resource: Literal["LP", "WP"] = "LP"
    per_focus: bool = False
    #: Radius (Schritt) per (Fokus + 1) for an area effect; 0 = single target.
    radius_per_focus: int = 0


@dataclass(frozen=True, slots=True)
class TableEffect:
    """Structured effect of a table entry (all fields default to "no effect")."""

    extra_damage_dice: int = 0
    direct_damage: bool = False
    conditions: tuple[ConditionGrant, ...] = ()
    damage: tuple[SelfDamage, ...] = ()
    counter_attack: bool = False
    counter_attack_bonus: int = 0
    #: Free movement of the defender: Bewegung ÷ this, without Blockadeangriffe (0 = none).
    free_move_divisor: int = 0
    #: The attacker slides this many Schritt past the defender (may trigger Blockade).
    slide: int = 0
    jammed_weapon: bool = False
    negate_attack: bool = False
    #: Defence bonus against this attacker until the start of the next round.
    defence_bonus: int = 0
    attack_fizzles: bool = False
    gm_decides: bool = False


@dataclass(frozen=True, slots=True)
class TableEntry:
    table: str
    band: int
    low: int | None
    high: int | None
    key: str
    name: str
    text: str
    effect: TableEffect

    @property
    def range_label(self) -> str:
        return BAND_LABELS[self.band]

    def contains(self, roll: int) -> bool:
        return (self.low is None or roll >= self.low) and (self.high is None or roll <= self.high)


_BOUNDS: tuple[tuple[int | None, int | None], ...] = (
    (None, 0),
    (1, 2),
    (3, 4),
    (5, 6),
    (7, 9),
    (10, 14),
    (15, None),
)


def _table(name: str, rows: list[tuple[str, str, str, TableEffect]]) -> tuple[TableEntry, ...]:
    assert len(rows) == len(_BOUNDS)
    return tuple(
        TableEntry(name, i, lo, hi, key, label, text, eff)
        for i, ((lo, hi), (key, label, text, eff)) in enumerate(zip(_BOUNDS, rows, strict=True))
    )


def _hit_rows(target: Role) -> list[tuple[str, str, str, TableEffect]]:
    """Rows shared by «Volltreffer beim Angriff» and «Patzer bei der Verteidigung»."""
    blutung = ConditionGrant(target, "zehrend", "LP", "Blutung", "Heilkunde")
    return [
        (
            "zerschmetterter_leib",
            "Zerschmetterter Leib",
            "+2 Schadenswürfel und direkter Schaden.",
            TableEffect(extra_damage_dice=2, direct_damage=True),
        ),
        (
            "verheerender_treffer",
            "Verheerender Treffer",
            "+2 Schadenswürfel.",
            TableEffect(extra_damage_dice=2),
        ),
        (
            "tiefe_wunde",
            "Tiefe Wunde",
            "+1 Schadenswürfel und Zustand «Zehrend (LP, Blutung)».",
            TableEffect(extra_damage_dice=1, conditions=(blutung,)),
        ),
        (
            "kopftreffer",
            "Kopftreffer",
            "+1 Schadenswürfel und Zustand «verwirrt».",
            TableEffect(extra_damage_dice=1, conditions=(ConditionGrant(target, "verwirrt"),)),
        ),
        (
            "beintreffer",
            "Beintreffer",
            "+1 Schadenswürfel und Zustand «Eingeschränkt».",
            TableEffect(extra_damage_dice=1, conditions=(ConditionGrant(target, "eingeschränkt"),)),
        ),
        (
            "gefaehrlicher_treffer",
            "Gefährlicher Treffer",
            "+1 Schadenswürfel.",
            TableEffect(extra_damage_dice=1),
        ),
        ("gewoehnlicher_treffer", "Gewöhnlicher Treffer", "Kein Effekt.", TableEffect()),
    ]


TABLES: dict[str, tuple[TableEntry, ...]] = {
    "angriff_volltreffer": _table("angriff_volltreffer", _hit_rows("defender")),
    "verteidigung_patzer": _table("verteidigung_patzer", _hit_rows("defender")),
    "angriff_patzer": _table(
        "angriff_patzer",
        [
            (
                "muskelriss",
                "Muskelriss",
                "Der Angreifer erleidet 1W10 direkten Schaden und Zustand «Angeschlagen».",
                TableEffect(
                    damage=(SelfDamage("attacker", 1),),
                    conditions=(ConditionGrant("attacker", "angeschlagen"),),
                ),
            ),
            (
                "ueberdehnt",
                "Überdehnt",
                "Der Angreifer erleidet 1W10 direkten Schaden.",
                TableEffect(damage=(SelfDamage("attacker", 1),)),
            ),
            (
                "offene_deckung",
                "Offene Deckung",
                "Der Angreifer ist «verwirrt».",
                TableEffect(conditions=(ConditionGrant("attacker", "verwirrt"),)),
            ),
            (
                "fehltritt",
                "Fehltritt",
                "Der Angreifer rutscht 2 Schritt am Gegner vorbei (kann Blockadeangriff "
                "auslösen) und erleidet «Eingeschränkt».",
                TableEffect(slide=2, conditions=(ConditionGrant("attacker", "eingeschränkt"),)),
            ),
            (
                "waffe_blockiert",
                "Waffe blockiert",
                "Die Waffe verkeilt sich. Der Angreifer benötigt eine Aktion und eine "
                "erfolgreiche Probe auf Unbeugsamkeit (Nahkampf) oder Handwerk (Fernkampf), "
                "um sie zu befreien.",
                TableEffect(jammed_weapon=True),
            ),
            (
                "entmutigt",
                "Entmutigt",
                "Der Angreifer erleidet «entmutigt».",
                TableEffect(conditions=(ConditionGrant("attacker", "entmutigt"),)),
            ),
            (
                "unsauberer_angriff",
                "Unsauberer Angriff",
                "Der Angriff verpufft wirkungslos.",
                TableEffect(attack_fizzles=True),
            ),
        ],
    ),
    "verteidigung_volltreffer": _table(
        "verteidigung_volltreffer",
        [
            (
                "toedliche_konteroeffnung",
                "Tödliche Konteröffnung",
                "Sofortiger Gegenangriff mit +2 Angriffsbonus. Zählt nicht als Reaktion.",
                TableEffect(counter_attack=True, counter_attack_bonus=2),
            ),
            (
                "brutale_riposte",
                "Brutale Riposte",
                "Sofortiger Gegenangriff. Zählt nicht als Reaktion.",
                TableEffect(counter_attack=True),
            ),
            (
                "entmutigt",
                "Entmutigt",
                "Der Angreifer erhält «entmutigt».",
                TableEffect(conditions=(ConditionGrant("attacker", "entmutigt"),)),
            ),
            (
                "gleichgewicht_gebrochen",
                "Gleichgewicht gebrochen",
                "Der Angreifer ist «verwirrt».",
                TableEffect(conditions=(ConditionGrant("attacker", "verwirrt"),)),
            ),
            (
                "raum_gewonnen",
                "Raum gewonnen",
                "Der Verteidiger darf sich sofort (Bewegungsweite ÷ 4) Schritt frei bewegen, "
                "ohne Blockadeangriffe zu provozieren.",
                TableEffect(free_move_divisor=4),
            ),
            (
                "saubere_abwehr",
                "Saubere Abwehr",
                "Der Angriff wird vollständig negiert. Zusätzlich +2 Verteidigung gegen "
                "diesen Gegner bis zum Beginn der nächsten Runde.",
                TableEffect(negate_attack=True, defence_bonus=2),
            ),
            (
                "routiniertes_parieren",
                "Routiniertes Parieren",
                "Kein zusätzlicher Effekt.",
                TableEffect(),
            ),
        ],
    ),
    "kontrollverlust": _table(
        "kontrollverlust",
        [
            (
                "arkane_implosion",
                "Arkane Implosion",
                "Der Zauberer erleidet Fokus+1 × 1W10 brechenden Schaden.",
                TableEffect(damage=(SelfDamage("caster", 1, "brechend", per_focus=True),)),
            ),
            (
                "arkane_explosion",
                "Arkane Explosion",
                "Alle Ziele im Umkreis von Fokus+1 × 5 Schritt (inklusive dem Zauberer) "
                "erleiden 1W10 brechenden Schaden.",
                TableEffect(damage=(SelfDamage("area", 1, "brechend", radius_per_focus=5),)),
            ),
            (
                "manabrand",
                "Manabrand",
                "Der Zauberer erleidet «zehrend (MP, Mana)» (000: zehrender WP-Schaden, "
                "Magiekunde).",
                TableEffect(
                    conditions=(ConditionGrant("caster", "zehrend", "WP", "Mana", "Magiekunde"),)
                ),
            ),
            (
                "fehlzauber",
                "Fehlzauber",
                "Der Zauber entlädt sich ungeplant; SL bestimmt wie.",
                TableEffect(gm_decides=True),
            ),
            (
                "rueckkopplung",
                "Rückkopplung",
                "Der Zauberer verliert 1W10 WP und ist «angeschlagen».",
                TableEffect(
                    damage=(SelfDamage("caster", 1, "direkt", "WP"),),
                    conditions=(ConditionGrant("caster", "angeschlagen"),),
                ),
            ),
            (
                "innere_verwerfung",
                "Innere Verwerfung",
                "Der Zauberer ist «verwirrt».",
                TableEffect(conditions=(ConditionGrant("caster", "verwirrt"),)),
            ),
            (
                "harmlos_verpufft",
                "Harmlos verpufft",
                "Die Magie zerfällt folgenlos.",
                TableEffect(),
            ),
        ],
    ),
}


def band_index(roll: int) -> int:
    """Index of the band (0..6) a modified table roll falls into."""
    if roll <= 0:
        return 0
    if roll <= 2:
        return 1
    if roll <= 4:
        return 2
    if roll <= 6:
        return 3
    if roll <= 9:
        return 4
    if roll <= 14:
        return 5
    return 6


def table_entry(table: str, roll: int) -> TableEntry:
    """The entry of ``table`` for a modified roll (2W10 − QS etc.; may be ≤ 0 or > 20)."""
    try:
        entries = TABLES[table]
    except KeyError:
        raise ValueError(f"unknown table {table!r}; expected one of {TABLE_NAMES}") from None
    return entries[band_index(roll)]


def table_by_key(table: str, key: str) -> TableEntry:
    for entry in TABLES[table]:
        if entry.key == key:
            return entry
    raise ValueError(f"no entry {key!r} in table {table!r}")
