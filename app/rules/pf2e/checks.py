"""A generic check (Wurf): W20 + Gesamtmodifikator against a DC, with fortune/misfortune,
degree-changing abilities, the secret flag (Verdeckter Wurf) and rerolls.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypedDict

from app.rules.dice import DieRoll, Roller
from app.rules.pf2e.degrees import (
    AdjustedDegree,
    Degree,
    DegreeAdjustment,
    apply_adjustments,
    degree_of_success,
)
from app.rules.pf2e.errors import RerollNotAllowed
from app.rules.pf2e.fortune import D20Roll, FortuneState, roll_d20
from app.rules.pf2e.modifiers import Modifier, ModifierBreakdown, signed, stack_modifiers
from app.rules.pf2e.statistics import Statistic

#: Actions with the trait Verdeckt that a character rolls from its sheet, by key: seed 002
#: ("dies ist oft der Fall, wenn du Wissen Abrufen und Suchen ausführst") and the core rules
#: (Gespür für Motive). Suchen and Gespür für Motive use Wahrnehmung, Wissen abrufen a skill
#: of knowledge (``RECALL_SKILLS``).
SECRET_ACTIONS: dict[str, str] = {
    "search": "Suchen",
    "sense_motive": "Gespür für Motive",
    "recall": "Wissen abrufen",
}
#: The skills Wissen abrufen uses (core rules; Lore skills are not on the sheet).
RECALL_SKILLS = frozenset(
    {"Arkane Künste", "Gesellschaftskunde", "Handwerkskunst", "Medizin", "Naturkunde",
     "Okkultismus", "Religionskunde"}
)  # fmt: skip

SECRET_LABEL = "Verdeckter Wurf"
FORTUNE = "fortune"
MISFORTUNE = "misfortune"


class FortuneOptions(TypedDict, total=False):
    """What changes a check's W20 or its degree: the keywords of :func:`roll_check` that the
    rolls built on it (saves, attack rolls, forecasts) pass on unchanged."""

    adjustments: Iterable[DegreeAdjustment]
    fortune: bool
    misfortune: bool


class CheckOptions(FortuneOptions, total=False):
    """All keywords of :func:`roll_check` after the DC."""

    dc_label: str
    extra: Iterable[Modifier]
    secret: bool


@dataclass(frozen=True, slots=True)
class CheckResult:
    """Everything a check produced. ``dc``/``degree`` are ``None`` when nothing was compared
    (initiative). ``secret`` results go to the GM only (see :meth:`as_dict`)."""

    label: str
    roll: D20Roll
    modifiers: tuple[Modifier, ...]
    breakdown: ModifierBreakdown
    dc: int | None
    dc_label: str | None
    adjustments: tuple[DegreeAdjustment, ...]
    adjusted: AdjustedDegree | None
    secret: bool
    fortune: bool
    misfortune: bool
    rerolled: CheckResult | None = None
    reroll_source: str | None = None

    @property
    def natural(self) -> int:
        return self.roll.natural

    @property
    def modifier(self) -> int:
        return self.breakdown.total

    @property
    def total(self) -> int:
        """Das Ergebnis: kept W20 + Gesamtmodifikator."""
        return self.natural + self.modifier

    @property
    def degree(self) -> Degree | None:
        """Final degree, after the natural 20/1 step and degree-changing abilities."""
        return self.adjusted.final if self.adjusted is not None else None

    @property
    def dice(self) -> tuple[DieRoll, ...]:
        """The dice of this roll (a reroll's earlier dice stay on :attr:`rerolled`)."""
        return (self.roll.die,)

    def describe(self, *, attack: bool = False) -> str:
        """German summary, e.g. ``Reflex: 1W20: 12 +7 = 19 gegen Reflex-SG 18 – Erfolg``;
        ``attack=True`` names the degrees of an attack roll (``Treffer``, ...)."""
        text = f"{self.label}: {self.roll.die.describe()} {signed(self.modifier)} = {self.total}"
        if self.dc is not None:
            text += f" gegen {self.dc_label} {self.dc}"
        if self.degree is not None:
            text += f" – {self.degree.attack_label if attack else self.degree.label}"
        return text

    def as_dict(self, *, reveal: bool = True) -> dict[str, object]:
        """JSON-ready form. A secret result with ``reveal=False`` shows only that a roll
        happened: no faces, no total, no DC, no degree (what players may see)."""
        if self.secret and not reveal:
            return {"label": self.label, "secret": True, "secret_label": SECRET_LABEL}
        return {
            "label": self.label,
            "secret": self.secret,
            "dice": [d.as_dict() for d in self.dice],
            "natural": self.natural,
            "fortune_state": self.roll.state.value,
            "fortune_label": self.roll.state.label,
            "breakdown": self.breakdown.as_dict(),
            "modifier": self.modifier,
            "total": self.total,
            "dc": self.dc,
            "dc_label": self.dc_label,
            "degree": None if self.degree is None else int(self.degree),
            "degree_label": None if self.degree is None else self.degree.label,
            "adjustment": (
                None
                if self.adjusted is None or self.adjusted.applied is None
                else self.adjusted.applied.label
            ),
            "rerolled": None if self.rerolled is None else self.rerolled.as_dict(reveal=reveal),
            "reroll_source": self.reroll_source,
        }


def _resolve(
    label: str,
    roll: D20Roll,
    modifiers: tuple[Modifier, ...],
    dc: int | None,
    dc_label: str | None,
    adjustments: tuple[DegreeAdjustment, ...],
    *,
    secret: bool,
    fortune: bool,
    misfortune: bool,
    rerolled: CheckResult | None = None,
    reroll_source: str | None = None,
) -> CheckResult:
    breakdown = stack_modifiers(modifiers)
    adjusted = None
    if dc is not None:
        degree = degree_of_success(roll.natural, breakdown.total, dc)
        adjusted = apply_adjustments(degree, adjustments)
    return CheckResult(
        label=label,
        roll=roll,
        modifiers=modifiers,
        breakdown=breakdown,
        dc=dc,
        dc_label=dc_label,
        adjustments=adjustments,
        adjusted=adjusted,
        secret=secret,
        fortune=fortune,
        misfortune=misfortune,
        rerolled=rerolled,
        reroll_source=reroll_source,
    )


def roll_check(
    roller: Roller,
    statistic: Statistic,
    dc: int | None = None,
    *,
    dc_label: str = "SG",
    extra: Iterable[Modifier] = (),
    adjustments: Iterable[DegreeAdjustment] = (),
    fortune: bool = False,
    misfortune: bool = False,
    secret: bool = False,
) -> CheckResult:
    """Roll a check with ``statistic`` (plus ``extra`` situational modifiers) against ``dc``.

    ``fortune`` / ``misfortune``: one effect of each kind at most (the caller picks the
    one that applies); both cancel. ``secret=True`` makes it a Verdeckter Wurf.
    """
    modifiers = (*statistic.modifiers, *extra)
    roll = roll_d20(roller, fortune=fortune, misfortune=misfortune)
    return _resolve(
        statistic.name,
        roll,
        modifiers,
        dc,
        dc_label if dc is not None else None,
        tuple(adjustments),
        secret=secret,
        fortune=fortune,
        misfortune=misfortune,
    )


def reroll_check(roller: Roller, previous: CheckResult, *, kind: str, source: str) -> CheckResult:
    """Reroll a check because of a fortune (``kind="fortune"``, e.g. Heldenpunkt) or a
    misfortune (``kind="misfortune"``) effect; the new result counts, even if worse.

    The reroll rolls the W20 the way the original did (two dice if it was under fortune or
    misfortune) with the same modifiers, DC and abilities. It is refused when the roll
    already has an effect of that kind: at most one fortune and one misfortune per roll.
    Whether the trigger fits (e.g. "when you fail") is up to the caller.
    """
    if kind not in (FORTUNE, MISFORTUNE):
        raise ValueError(f"a reroll is a {FORTUNE!r} or {MISFORTUNE!r} effect, not {kind!r}")
    if (kind == FORTUNE and previous.fortune) or (kind == MISFORTUNE and previous.misfortune):
        effect = "Glückseffekt" if kind == FORTUNE else "Unglückseffekt"
        raise RerollNotAllowed(
            "Auf diesen Wurf wirkt schon ein %(effect)s; %(source)s ist nicht möglich.",
            effect=effect,
            source=source,
        )
    # A roll whose effects cancelled has used both kinds, so only these two modes remain.
    state = previous.roll.state
    roll = roll_d20(
        roller,
        fortune=state is FortuneState.FORTUNE,
        misfortune=state is FortuneState.MISFORTUNE,
    )
    return _resolve(
        previous.label,
        roll,
        previous.modifiers,
        previous.dc,
        previous.dc_label,
        previous.adjustments,
        secret=previous.secret,
        fortune=previous.fortune or kind == FORTUNE,
        misfortune=previous.misfortune or kind == MISFORTUNE,
        rerolled=previous,
        reroll_source=source,
    )
