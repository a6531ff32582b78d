"""PF2e's encounter XP budget (the GM rules' "Building Encounters"), beside the simulated risk.

Each creature is worth XP by its level relative to the party level; the encounter's total
is compared with the budgets of the five threats for the party's size (docs/rules/pf2e.md,
"Encounter budget"):

- creature XP: party level −4: 10, −3: 15, −2: 20, −1: 30, ±0: 40, +1: 60, +2: 80,
  +3: 120, +4: 160;
- budget for four characters: trivial 40, low 60, moderate 80, severe 120, extreme 160;
  each character more or fewer adds or removes 10, 15, 20, 30, 40.

**Project decisions** where the table stops: a creature more than 4 levels below the party
is worth 0 XP; one more than 4 above continues the table's doubling every two levels
(+5: 240, +6: 320, +7: 480, …). The rating is the highest threat whose budget the total
reaches (below the low budget: trivial); beyond the extreme budget it stays extreme. The
party level is the mean level of the party, rounded half up.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from app.rules.odds import THREATS, BudgetRating

#: Creature XP by (creature level − party level), −4 … +4 (GM rules' table).
CREATURE_XP = {-4: 10, -3: 15, -2: 20, -1: 30, 0: 40, 1: 60, 2: 80, 3: 120, 4: 160}
#: (budget for four characters, adjustment per character more or fewer) per threat.
BUDGETS = {
    "trivial": (40, 10),
    "low": (60, 15),
    "moderate": (80, 20),
    "severe": (120, 30),
    "extreme": (160, 40),
}
BASE_PARTY = 4


def creature_xp(difference: int) -> int:
    """XP of a creature ``difference`` levels above (negative: below) the party level."""
    if difference < -4:
        return 0
    if difference <= 4:
        return CREATURE_XP[difference]
    beyond = difference - 4  # +5: 240, +6: 320, +7: 480, +8: 640, …
    doublings: int = beyond // 2
    return 160 * (1 << doublings) * (3 if beyond % 2 else 2) // 2


def budgets(party_size: int) -> dict[str, int]:
    """The XP each threat allows a party of ``party_size`` characters."""
    return {t: base + (party_size - BASE_PARTY) * step for t, (base, step) in BUDGETS.items()}


def party_level(levels: Sequence[int]) -> int:
    """The mean level of the party, rounded half up."""
    return math.floor(sum(levels) / len(levels) + 0.5)


def rate(party_levels: Sequence[int], creature_levels: Sequence[int]) -> BudgetRating:
    """The XP budget rating of ``creature_levels`` against a party with ``party_levels``."""
    if not party_levels:
        raise ValueError("an XP budget needs a party")
    level = party_level(party_levels)
    xp = sum(creature_xp(c - level) for c in creature_levels)
    allowed = budgets(len(party_levels))
    rating = THREATS[0]
    for threat in THREATS[1:]:
        if xp >= allowed[threat]:
            rating = threat
    return BudgetRating(xp, rating, level, len(party_levels), allowed)
