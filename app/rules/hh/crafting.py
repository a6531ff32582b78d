"""Herstellung (hh.md §12): cost, reachable Güte, time, missing tools.

Ordinary crafting needs no Probe when time, tools, workplace and cost suffice; the
Probenwert decides which Güte a crafter reaches reliably. The GM may still ask for a Probe
(time pressure, damaged work piece, bad conditions, risky item): :func:`crafting_probe`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction
from types import MappingProxyType
from typing import Literal

from app.rules.dice import Roller
from app.rules.hh.magic import GRADES, Grade, grade_rank
from app.rules.hh.modifiers import Breakdown, Part, breakdown
from app.rules.hh.probe import OptionalProbe, ProbeResult, roll_probe
from app.rules.hh.state import Figure

Price = int | Fraction | Decimal
#: ``"passend"``: tools and workplace fit; ``"fehlt_erschwert"``: missing, −4;
#: ``"fehlt_unmoeglich"``: missing and the GM rules it out.
Equipment = Literal["passend", "fehlt_erschwert", "fehlt_unmoeglich"]

COST_SHARE = Fraction(1, 5)
MISSING_TOOLS_MODIFIER = -4
HOURS_PER_WORKDAY = 8
#: Crafting time per Güte, in hours.
CRAFTING_HOURS: Mapping[Grade, int] = MappingProxyType({"C": 4, "B": 8, "A": 16, "S": 32})
#: Lowest Probenwert that reaches each Güte (0–5: nothing usable).
MIN_VALUE_FOR_GRADE: Mapping[Grade, int] = MappingProxyType({"C": 6, "B": 11, "A": 16, "S": 21})


def crafting_cost(price: Price) -> Fraction:
    """Herstellungskosten: 20 % of the price on the wanted Güte, exact (no rounding)."""
    if price < 0:
        raise ValueError(f"a price cannot be negative, got {price}")
    return Fraction(price) * COST_SHARE


def reachable_grade(value: int) -> Grade | None:
    """Highest Güte reached with Probenwert ``value``; ``None`` for 5 or less."""
    best: Grade | None = None
    for grade in GRADES:
        if value >= MIN_VALUE_FOR_GRADE[grade]:
            best = grade
    return best


def crafting_hours(grade: Grade) -> int:
    """Time for one piece of Güte ``grade`` (C 4 h, B 8 h, A 16 h, S 32 h)."""
    return CRAFTING_HOURS[grade]


def crafting_workdays(grade: Grade) -> Fraction:
    """The same in 8-hour workdays (C = ½)."""
    return Fraction(CRAFTING_HOURS[grade], HOURS_PER_WORKDAY)


@dataclass(frozen=True, slots=True)
class CraftingPlan:
    """Whether a crafter can make an item of ``grade`` and what it costs.

    ``error``: ``None`` | ``"missing_equipment"`` | ``"no_usable_grade"`` |
    ``"grade_too_high"`` (``reachable`` is then the best Güte possible).
    """

    grade: Grade
    value: int
    effective_value: int
    reachable: Grade | None
    cost: Fraction
    hours: int
    error: str | None
    #: The Probenwert with every modifier (:func:`plan_for`; ``None`` without a figure).
    target: Breakdown | None = None

    @property
    def possible(self) -> bool:
        return self.error is None

    @property
    def workdays(self) -> Fraction:
        return Fraction(self.hours, HOURS_PER_WORKDAY)

    def as_dict(self) -> dict[str, object]:
        return {
            "grade": self.grade,
            "value": self.value,
            "effective_value": self.effective_value,
            "reachable": self.reachable,
            "cost": str(self.cost),
            "hours": self.hours,
            "possible": self.possible,
            "error": self.error,
        }


def plan_crafting(
    price: Price, grade: Grade, value: int, *, equipment: Equipment = "passend", modifier: int = 0
) -> CraftingPlan:
    """Plan crafting an item of ``price`` (on Güte ``grade``) with Probenwert ``value``.

    Missing tools lower the Probenwert by 4 (``"fehlt_erschwert"``) or forbid crafting
    (``"fehlt_unmoeglich"``); ``modifier`` is any further modifier set by the GM.
    """
    if grade not in CRAFTING_HOURS:
        raise ValueError(f"unknown Güte {grade!r}")
    effective = value + modifier + (MISSING_TOOLS_MODIFIER if equipment == "fehlt_erschwert" else 0)
    reachable = reachable_grade(effective)
    error: str | None = None
    if equipment == "fehlt_unmoeglich":
        error = "missing_equipment"
    elif reachable is None:
        error = "no_usable_grade"
    elif grade_rank(grade) > grade_rank(reachable):
        error = "grade_too_high"
    return CraftingPlan(
        grade=grade,
        value=value,
        effective_value=effective,
        reachable=reachable,
        cost=crafting_cost(price),
        hours=CRAFTING_HOURS[grade],
        error=error,
    )


@dataclass(frozen=True, slots=True)
class CraftingOutcome(OptionalProbe):
    """Result of crafting: ``success`` without a Probe when none was required."""

    plan: CraftingPlan
    probe: ProbeResult | None
    success: bool


def crafting_probe(
    roller: Roller, plan: CraftingPlan, *, probe_required: bool = False, modifier: int = 0
) -> CraftingOutcome:
    """Carry out a possible plan: no roll unless the GM requires a Probe.

    The Probe is rolled on the plan's effective Probenwert plus ``modifier`` (e.g. time
    pressure). An impossible plan raises :class:`ValueError`.
    """
    if not plan.possible:
        raise ValueError(f"crafting is not possible: {plan.error}")
    if not probe_required:
        return CraftingOutcome(plan, None, True)
    probe = roll_probe(roller, plan.effective_value, modifier)
    return CraftingOutcome(plan, probe, probe.success)


def plan_for(
    figure: Figure,
    skill: str,
    price: Price,
    grade: Grade,
    *,
    equipment: Equipment = "passend",
    modifier: int = 0,
) -> CraftingPlan:
    """:func:`plan_crafting` for ``figure`` crafting with ``skill`` on the one modifier path:
    the skill value, the figure's conditions (crafting counts as an action, like every Probe
    from the sheet), ``modifier`` (the GM's) and missing tools; ``target`` lists each part."""
    base = breakdown(figure, skill, "action", (Part("Modifikator", modifier),))
    tools = MISSING_TOOLS_MODIFIER if equipment == "fehlt_erschwert" else 0
    plan = plan_crafting(price, grade, base.value, equipment=equipment, modifier=base.modifier)
    return replace(plan, target=base.plus(Part("Werkzeug fehlt", tools)))
