"""Gefährten (hh.md §12): level-up costs, growth per level, Gefährtentalente, carrying, healing.

Numbers from seed 003 ("Gefährten"). Fractional growth (+0.5 Bewegung per level, …) is
kept exact as :class:`~fractions.Fraction`; the value used in play is rounded down
(:meth:`CompanionStats.effective`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from types import MappingProxyType
from typing import Literal

from app.rules.hh.state import size_rank
from app.rules.keyed import by_key

#: XP to bind a summoned spirit permanently.
BINDING_XP = 1
#: XP for one Gefährtentalent.
COMPANION_TALENT_XP = 3
#: Upper bound of a level range → XP per level reached in it (last range is open).
_LEVEL_COST: tuple[tuple[int | None, int], ...] = (
    (7, 1),
    (12, 2),
    (14, 4),
    (16, 8),
    (18, 12),
    (20, 16),
    (None, 20),
)
#: Maximum RS reachable with «Gepanzerte Gestalt».
ARMOURED_MAX_RS = 10


def level_up_cost(new_level: int) -> int:
    """XP to raise a companion's Monsterstufe to ``new_level`` (one step)."""
    if new_level < 1:
        raise ValueError(f"a Monsterstufe is at least 1, not {new_level}")
    for upper, cost in _LEVEL_COST:
        if upper is None or new_level <= upper:
            return cost
    raise AssertionError("the last range is open")  # pragma: no cover


def level_up_total_cost(current_level: int, target_level: int) -> int:
    """XP to go from ``current_level`` to ``target_level``, one level at a time."""
    if target_level < current_level:
        raise ValueError("a companion's Monsterstufe cannot be lowered")
    return sum(level_up_cost(level) for level in range(current_level + 1, target_level + 1))


#: Growth of the derived values per Monsterstufe gained.
GROWTH_PER_LEVEL: Mapping[str, Fraction] = MappingProxyType(
    {
        "initiative": Fraction(1),
        "reaktionen": Fraction(1, 4),
        "bewegung": Fraction(1, 2),
        "rs": Fraction(1, 2),
        "lp": Fraction(2),
        "angriffseffekte": Fraction(1),
        "probenwerte": Fraction(1),
        "schadensbonus": Fraction(1, 2),
    }
)


@dataclass(frozen=True, slots=True)
class CompanionStats:
    """A companion's level and derived values, fractions kept exact."""

    level: int
    initiative: Fraction
    reaktionen: Fraction
    bewegung: Fraction
    rs: Fraction
    lp: Fraction
    angriffseffekte: Fraction
    probenwerte: Fraction
    schadensbonus: Fraction

    def effective(self) -> dict[str, int]:
        """Values used in play: every derived value rounded down."""
        return {name: int(getattr(self, name) // 1) for name in GROWTH_PER_LEVEL}


def companion_stats(
    level: int,
    *,
    initiative: int = 0,
    reaktionen: int = 0,
    bewegung: int = 0,
    rs: int = 0,
    lp: int = 0,
    angriffseffekte: int = 0,
    probenwerte: int = 0,
    schadensbonus: int = 0,
) -> CompanionStats:
    """Build stats from whole numbers (e.g. a spirit's stat block when it is bound)."""
    return CompanionStats(
        level,
        Fraction(initiative),
        Fraction(reaktionen),
        Fraction(bewegung),
        Fraction(rs),
        Fraction(lp),
        Fraction(angriffseffekte),
        Fraction(probenwerte),
        Fraction(schadensbonus),
    )


@dataclass(frozen=True, slots=True)
class LevelUp:
    """Result of raising a companion: new stats and the XP it cost."""

    before: CompanionStats
    after: CompanionStats
    xp_cost: int


def level_up(stats: CompanionStats, target_level: int) -> LevelUp:
    """Raise ``stats`` to ``target_level``: every derived value grows per level gained."""
    cost = level_up_total_cost(stats.level, target_level)
    gained = target_level - stats.level
    grown = {
        name: getattr(stats, name) + per_level * gained
        for name, per_level in GROWTH_PER_LEVEL.items()
    }
    after = replace(stats, level=target_level, **grown)
    return LevelUp(stats, after, cost)


# --- talents ---------------------------------------------------------------------------

TalentKind = Literal["passiv", "aktion"]


@dataclass(frozen=True, slots=True)
class CompanionTalent:
    """A Gefährtentalent: ``wp_cost`` is paid by the summoner per use."""

    key: str
    name: str
    kind: TalentKind
    wp_cost: int = 0
    repeatable: bool = False


COMPANION_TALENTS: Mapping[str, CompanionTalent] = MappingProxyType(
    by_key(
        CompanionTalent("bewegliche_gestalt", "Bewegliche Gestalt", "passiv", repeatable=True),
        CompanionTalent("elementarer_angriff", "Elementarer Angriff", "passiv", repeatable=True),
        CompanionTalent("elementarer_schutz", "Elementarer Schutz", "passiv", repeatable=True),
        CompanionTalent("fernangriff", "Fernangriff", "aktion", wp_cost=1),
        CompanionTalent("flaechenangriff", "Flächenangriff", "aktion", wp_cost=1),
        CompanionTalent("fluechtiger_schritt", "Flüchtiger Schritt", "aktion", wp_cost=1),
        CompanionTalent("furchterregende_gestalt", "Furchterregende Gestalt", "aktion"),
        CompanionTalent(
            "gebieterische_gestalt", "Gebieterische Gestalt", "passiv", repeatable=True
        ),
        CompanionTalent("gepanzerte_gestalt", "Gepanzerte Gestalt", "passiv", repeatable=True),
        CompanionTalent("harmlose_gestalt", "Harmlose Gestalt", "passiv", repeatable=True),
        CompanionTalent("runengebundene_gestalt", "Runengebundene Gestalt", "passiv"),
        CompanionTalent("verschleierte_praesenz", "Verschleierte Präsenz", "passiv"),
    )
)


@dataclass(frozen=True, slots=True)
class TalentCheck:
    """Can the companion learn a talent? ``error`` code + ``params`` when not."""

    ok: bool
    xp_cost: int
    error: str | None = None
    params: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))


def check_learn_companion_talent(
    key: str, companion_xp: int, known: Iterable[str] = (), *, current_rs: int | None = None
) -> TalentCheck:
    """Learning a Gefährtentalent costs 3 XP.

    Errors: ``unknown_talent``, ``already_known`` (not repeatable), ``rs_at_maximum``
    (Gepanzerte Gestalt at 10 RS, needs ``current_rs``), ``not_enough_xp``.
    """
    talent = COMPANION_TALENTS.get(key)
    if talent is None:
        return TalentCheck(False, 0, "unknown_talent", {"talent": key})
    if not talent.repeatable and key in set(known):
        return TalentCheck(False, COMPANION_TALENT_XP, "already_known", {"talent": key})
    if key == "gepanzerte_gestalt" and current_rs is not None and current_rs >= ARMOURED_MAX_RS:
        return TalentCheck(
            False, COMPANION_TALENT_XP, "rs_at_maximum", {"rs": current_rs, "max": ARMOURED_MAX_RS}
        )
    if companion_xp < COMPANION_TALENT_XP:
        return TalentCheck(
            False,
            COMPANION_TALENT_XP,
            "not_enough_xp",
            {"xp": companion_xp, "needed": COMPANION_TALENT_XP},
        )
    return TalentCheck(True, COMPANION_TALENT_XP)


def check_learn_adventurer_talent(key: str, summoner_talents: Iterable[str]) -> TalentCheck:
    """An adventurer talent can only be taught if the summoner has it (cost: the talent's)."""
    if key not in set(summoner_talents):
        return TalentCheck(False, 0, "summoner_lacks_talent", {"talent": key})
    return TalentCheck(True, 0)


def armoured_rs(base_rs: int, times_learned: int) -> int:
    """RS with «Gepanzerte Gestalt» learned ``times_learned`` times: +2 each, at most 10."""
    if base_rs >= ARMOURED_MAX_RS:
        return base_rs
    return min(ARMOURED_MAX_RS, base_rs + 2 * times_learned)


def elemental_protection(choices: Iterable[str]) -> dict[str, str]:
    """«Elementarer Schutz»: element chosen once → ``"resistant"``, twice → ``"immune"``."""
    counts: dict[str, int] = {}
    for element in choices:
        counts[element] = counts.get(element, 0) + 1
    return {e: "immune" if n >= 2 else "resistant" for e, n in counts.items()}


@dataclass(frozen=True, slots=True)
class ShapeChange:
    """Change of size with «Gebieterische» (``steps`` > 0) or «Harmlose Gestalt» (< 0)."""

    size_steps: int
    rs: int
    lp: int
    initiative: int
    bewegung: int


def shape_change(steps: int) -> ShapeChange:
    """Per size larger: RS +1, LP +4; per size smaller: Initiative and Bewegung +2."""
    if steps >= 0:
        return ShapeChange(steps, rs=steps, lp=4 * steps, initiative=0, bewegung=0)
    return ShapeChange(steps, rs=0, lp=0, initiative=-2 * steps, bewegung=-2 * steps)


# --- transport and damage ---------------------------------------------------------------

MovementForm = Literal["normal", "fliegen", "graben", "tauchen"]


def carry_places(lp: int, movement: MovementForm = "normal") -> int:
    """Inventory places a companion carries: LP ÷ 2; flying half of that; digging none."""
    places = max(0, lp) // 2
    if movement == "fliegen":
        return places // 2
    if movement == "graben":
        return 0
    return places


def movement_with_form(bewegung: int, movement: MovementForm) -> int:
    """Bewegung in a special movement form: digging moves at a quarter (round down)."""
    return bewegung // 4 if movement == "graben" else bewegung


def movement_form_modifier(movement: MovementForm) -> int:
    """Modifier on Proben while flying or digging (−2)."""
    return -2 if movement in ("fliegen", "graben") else 0


HealingSource = Literal["rast", "manifestation_heilen", "heilkunde", "heiltrank", "other"]
_COMPANION_HEALING: frozenset[str] = frozenset({"rast", "manifestation_heilen"})


def companion_can_be_healed_by(source: HealingSource) -> bool:
    """Companions heal only by resting or the spell «Manifestation heilen»."""
    return source in _COMPANION_HEALING


def fits_in_guerteltasche(size: str) -> bool:
    """A «winzig» companion travels in the Gürteltasche without a Geistertasche."""
    return size == "winzig"


def can_serve_as_mount(companion_size: str, summoner_size: str) -> bool:
    """A companion at least one size larger than its summoner can be ridden."""
    return size_rank(companion_size) >= size_rank(summoner_size) + 1


def is_defeated(lp: int) -> bool:
    """A companion that lost all LP is defeated; its Geisterpuppe must be repaired."""
    return lp <= 0
