"""Beschaffung (hh.md §12): is an item to be had in a settlement?

First a Glück Probe with a modifier by price; if the item is not there, an adventurer may
spend one day and roll Gassenwissen (Beschaffung) with its own modifier. "Immer" needs no
roll, "Niemals" is impossible. Prices are in Lira; "bis X" includes X.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction
from typing import Literal

from app.rules.dice import Roller
from app.rules.hh.modifiers import Breakdown, Part, breakdown
from app.rules.hh.probe import OptionalProbe, ProbeResult, roll_probe
from app.rules.hh.state import Figure

Category = Literal["ausruestung", "konstruktion"]
Step = Literal["glueck", "gassenwissen"]
Price = int | Fraction | Decimal


@dataclass(frozen=True, slots=True)
class Availability:
    """A table cell: ``"immer"`` (no roll), ``"probe"`` with ``modifier``, ``"niemals"``."""

    kind: Literal["immer", "probe", "niemals"]
    modifier: int = 0

    def as_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "modifier": self.modifier}


IMMER = Availability("immer")
NIEMALS = Availability("niemals")


def _p(modifier: int) -> Availability:
    return Availability("probe", modifier)


@dataclass(frozen=True, slots=True)
class ProcurementRow:
    """A table row: price limits (inclusive, ``None`` = no limit) and the two cells."""

    max_ausruestung: int | None
    max_konstruktion: int | None
    glueck: Availability
    gassenwissen: Availability

    def max_price(self, category: Category) -> int | None:
        return self.max_ausruestung if category == "ausruestung" else self.max_konstruktion


#: The Beschaffung table of seed 003, cheapest row first.
PROCUREMENT_TABLE: tuple[ProcurementRow, ...] = (
    ProcurementRow(3, 25, IMMER, IMMER),
    ProcurementRow(10, 100, _p(4), IMMER),
    ProcurementRow(25, 250, _p(2), IMMER),
    ProcurementRow(100, 1_000, _p(0), _p(4)),
    ProcurementRow(250, 2_500, _p(-2), _p(2)),
    ProcurementRow(1_000, 10_000, _p(-4), _p(0)),
    ProcurementRow(2_500, 25_000, _p(-6), _p(-2)),
    ProcurementRow(10_000, 100_000, NIEMALS, _p(-4)),
    ProcurementRow(None, None, NIEMALS, _p(-6)),
)


def procurement_row(price: Price, category: Category = "ausruestung") -> ProcurementRow:
    """The table row for an item of ``price`` Lira (``category`` picks the price column)."""
    if price < 0:
        raise ValueError(f"a price cannot be negative, got {price}")
    if category not in ("ausruestung", "konstruktion"):
        raise ValueError(f"unknown category {category!r}")
    for row in PROCUREMENT_TABLE:
        limit = row.max_price(category)
        if limit is None or price <= limit:
            return row
    raise AssertionError("the last row has no limit")  # pragma: no cover


@dataclass(frozen=True, slots=True)
class ProcurementResult(OptionalProbe):
    """One Beschaffung step.

    ``possible`` is ``False`` for "Niemals" (no roll made). ``found`` is the outcome;
    ``days`` is the time spent (1 for a Gassenwissen search, 0 for the Glück check).
    """

    step: Step
    availability: Availability
    possible: bool
    found: bool
    probe: ProbeResult | None
    days: int
    #: The Probe's target with every modifier (:func:`procure`; ``None`` without a figure).
    target: Breakdown | None = None


def _resolve(
    roller: Roller, step: Step, cell: Availability, value: int, modifier: int, days: int
) -> ProcurementResult:
    if cell.kind == "niemals":
        return ProcurementResult(step, cell, possible=False, found=False, probe=None, days=0)
    if cell.kind == "immer":
        return ProcurementResult(step, cell, possible=True, found=True, probe=None, days=days)
    probe = roll_probe(roller, value, cell.modifier + modifier)
    return ProcurementResult(step, cell, True, probe.success, probe, days)


def check_availability(
    roller: Roller,
    price: Price,
    glueck: int,
    *,
    category: Category = "ausruestung",
    modifier: int = 0,
) -> ProcurementResult:
    """Glück Probe: is the item available in the settlement right now?

    ``modifier`` is any further modifier (GM, Glückspunkt +4, …) added to the table's.
    """
    row = procurement_row(price, category)
    return _resolve(roller, "glueck", row.glueck, glueck, modifier, days=0)


def search_item(
    roller: Roller,
    price: Price,
    gassenwissen_beschaffung: int,
    *,
    category: Category = "ausruestung",
    modifier: int = 0,
) -> ProcurementResult:
    """One day of searching with Gassenwissen (Beschaffung); failure: not to be had here."""
    row = procurement_row(price, category)
    return _resolve(
        roller, "gassenwissen", row.gassenwissen, gassenwissen_beschaffung, modifier, days=1
    )


#: The skill each step rolls (hh.md §12).
STEP_SKILLS: dict[Step, str] = {"glueck": "Glück", "gassenwissen": "Gassenwissen (Beschaffung)"}


def procure(
    roller: Roller,
    figure: Figure,
    step: Step,
    price: Price,
    *,
    category: Category = "ausruestung",
    modifier: int = 0,
) -> ProcurementResult:
    """One Beschaffung step by ``figure`` on the one modifier path (``modifiers.breakdown``):
    the step's skill, the figure's conditions (the Probe counts as an action, like every
    Probe from the sheet), the table's modifier for ``price`` and ``modifier`` (the GM's).
    The result's ``target`` shows each part, e.g. "Glück 10 − angeschlagen 2 + Tabelle 4 = 12".
    """
    if step not in STEP_SKILLS:
        raise ValueError(f"unknown step {step!r}")
    row = procurement_row(price, category)
    cell = row.glueck if step == "glueck" else row.gassenwissen
    base = breakdown(figure, STEP_SKILLS[step], "action", (Part("Modifikator", modifier),))
    shown = base.plus(Part("Tabelle", cell.modifier))
    days = 0 if step == "glueck" else 1
    # The table's modifier is the cell's; ``_resolve`` adds it to the figure's own parts.
    result = _resolve(roller, step, cell, base.value, base.modifier, days)
    return replace(result, target=shown)
