"""The H&H Probe (hh.md §1): 2W10 roll-under with Qualitätsstufen, Volltreffer and Patzer.

``target = value + modifier``; success when the sum is ≤ target and not 19 or 20; a Pasch
(both dice equal) is a Volltreffer on success and a Patzer otherwise. The QS of a success
is ``qs(roll)``; a Volltreffer reaches the highest QS the target allows, ``qs(min(target, 18))``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import NotRequired, TypedDict

from app.rules.dice import DieRoll, Roller, roll_dice

SIDES = 10
#: Rolls that always fail, whatever the target.
AUTOMATIC_FAILURES = frozenset({19, 20})
#: The highest roll that can succeed.
BEST_SUCCESS = 18


def qs(x: int) -> int:
    """Qualitätsstufe of ``x``: one per started 5 (1–5 → 1, 6–10 → 2, …); 0 for ``x ≤ 0``."""
    return 0 if x <= 0 else (x + 4) // 5


def best_qs(target: int) -> int:
    """Highest QS reachable against ``target`` (what a Volltreffer yields); 0 if none."""
    return qs(min(target, BEST_SUCCESS)) if target >= 2 else 0


@dataclass(frozen=True, slots=True)
class Difficulty:
    key: str
    name: str
    modifier: int


DIFFICULTIES: tuple[Difficulty, ...] = (
    Difficulty("sehr_einfach", "sehr einfach", 6),
    Difficulty("einfach", "einfach", 4),
    Difficulty("wenig_fordernd", "wenig fordernd", 2),
    Difficulty("fordernd", "fordernd", 0),
    Difficulty("sehr_fordernd", "sehr fordernd", -2),
    Difficulty("schwierig", "schwierig", -4),
    Difficulty("sehr_schwierig", "sehr schwierig", -6),
)
_DIFFICULTY_BY_NAME = {d.key: d for d in DIFFICULTIES} | {d.name: d for d in DIFFICULTIES}


def difficulty_modifier(name: str) -> int:
    """Modifier of a difficulty by key (``"sehr_schwierig"``) or name (``"sehr schwierig"``)."""
    try:
        return _DIFFICULTY_BY_NAME[name.strip().lower()].modifier
    except KeyError:
        raise ValueError(f"unknown difficulty {name!r}") from None


class ProbeJSON(TypedDict):
    """A :class:`ProbeResult` as JSON (without its recorded dice): a fight keeps a Probe
    that waits for an answer (``app.encounters.state``)."""

    faces: list[int]
    value: int
    modifier: int
    target: int
    roll: int
    success: bool
    qs: int
    volltreffer: bool
    patzer: bool
    extra_qs: NotRequired[int]
    automatic: NotRequired[bool]


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """Outcome of one Probe.

    ``faces`` is empty only for an automatic Volltreffer (Glück burned before the roll); its
    ``roll`` then counts as the best successful roll ``min(target, 18)`` (project decision).
    ``qs`` already includes ``extra_qs`` (Fokus, Zielen, …), which only applies on success.
    """

    faces: tuple[int, ...]
    value: int
    modifier: int
    target: int
    roll: int
    success: bool
    qs: int
    volltreffer: bool
    patzer: bool
    extra_qs: int = 0
    automatic: bool = False
    #: The recorded dice (set by :func:`roll_probe`; rebuilt from ``faces`` otherwise).
    dice: DieRoll | None = field(default=None, compare=False, repr=False)

    @property
    def failure(self) -> bool:
        return not self.success

    @property
    def pasch(self) -> bool:
        return len(self.faces) == 2 and self.faces[0] == self.faces[1]

    @property
    def rolls(self) -> tuple[DieRoll, ...]:
        """The dice this Probe used (none for an automatic Volltreffer)."""
        if self.dice is not None:
            return (self.dice,)
        return (DieRoll(SIDES, self.faces),) if self.faces else ()

    @property
    def outcome(self) -> str:
        """German outcome word: Volltreffer, Erfolg, Misserfolg or Patzer."""
        if self.volltreffer:
            return "Volltreffer"
        if self.patzer:
            return "Patzer"
        return "Erfolg" if self.success else "Misserfolg"

    def describe(self) -> str:
        """E.g. ``"2W10: 5 + 6 = 11 ≤ 15 → Erfolg, QS 3"``."""
        if self.automatic:
            return f"Glück verbrannt → Volltreffer, QS {self.qs}"
        a, b = self.faces
        if self.roll in AUTOMATIC_FAILURES:
            relation = "(19/20)"
        else:
            relation = "≤" if self.roll <= self.target else ">"
        head = f"2W10: {a} + {b} = {self.roll} {relation} {self.target} → {self.outcome}"
        return f"{head}, QS {self.qs}" if self.success else head

    def as_dict(self) -> ProbeJSON:
        return {
            "faces": list(self.faces),
            "value": self.value,
            "modifier": self.modifier,
            "target": self.target,
            "roll": self.roll,
            "success": self.success,
            "qs": self.qs,
            "volltreffer": self.volltreffer,
            "patzer": self.patzer,
            "extra_qs": self.extra_qs,
            "automatic": self.automatic,
        }

    @classmethod
    def from_dict(cls, data: ProbeJSON) -> ProbeResult:
        """The Probe :meth:`as_dict` wrote (its dice rebuilt from ``faces``)."""
        return cls(
            faces=tuple(data["faces"]), value=data["value"], modifier=data["modifier"],
            target=data["target"], roll=data["roll"], success=data["success"], qs=data["qs"],
            volltreffer=data["volltreffer"], patzer=data["patzer"],
            extra_qs=data.get("extra_qs", 0), automatic=data.get("automatic", False),
        )  # fmt: skip


class OptionalProbe:
    """Mixin of a result that rolls a Probe only when one is needed (``probe`` is ``None``
    otherwise): its dice are the Probe's, if any."""

    __slots__ = ()
    probe: ProbeResult | None

    @property
    def rolls(self) -> tuple[DieRoll, ...]:
        return self.probe.rolls if self.probe else ()


def evaluate_probe(
    faces: tuple[int, int],
    value: int,
    modifier: int = 0,
    *,
    extra_qs: int = 0,
    dice: DieRoll | None = None,
) -> ProbeResult:
    """Evaluate a Probe from two W10 faces (hh.md §1); ``extra_qs`` is added on success."""
    if len(faces) != 2:
        raise ValueError(f"a Probe needs two W10 faces, got {faces!r}")
    a, b = faces
    if not (1 <= a <= SIDES and 1 <= b <= SIDES):
        raise ValueError(f"a Probe needs two W10 faces, got {faces!r}")
    roll = a + b
    target = value + modifier
    success = roll <= target and roll not in AUTOMATIC_FAILURES
    pasch = a == b
    volltreffer = pasch and success
    if volltreffer:
        base = best_qs(target)
    elif success:
        base = qs(roll)
    else:
        base = 0
    return ProbeResult(
        faces=(a, b),
        value=value,
        modifier=modifier,
        target=target,
        roll=roll,
        success=success,
        qs=base + extra_qs if success else 0,
        volltreffer=volltreffer,
        patzer=pasch and not success,
        extra_qs=extra_qs if success else 0,
        dice=dice,
    )


def automatic_volltreffer(value: int, modifier: int = 0, *, extra_qs: int = 0) -> ProbeResult:
    """A Volltreffer without dice (Glück burned before the roll, hh.md §4).

    Project decision: it succeeds whatever the target, with QS ``max(1, best_qs(target))``,
    and its roll counts as ``min(target, 18)`` (at least 2) in an opposed comparison.
    """
    target = value + modifier
    return ProbeResult(
        faces=(),
        value=value,
        modifier=modifier,
        target=target,
        roll=max(2, min(target, BEST_SUCCESS)),
        success=True,
        qs=max(1, best_qs(target)) + extra_qs,
        volltreffer=True,
        patzer=False,
        extra_qs=extra_qs,
        automatic=True,
    )


def roll_probe(roller: Roller, value: int, modifier: int = 0, *, extra_qs: int = 0) -> ProbeResult:
    """Roll 2W10 with ``roller`` and evaluate; the result keeps the faces (see ``rolls``)."""
    dice = roll_dice(roller, 2, SIDES)
    faces = dice.faces
    return evaluate_probe((faces[0], faces[1]), value, modifier, extra_qs=extra_qs, dice=dice)


# --- exact odds ---------------------------------------------------------------------------

#: For each sum 2..20: (number of face pairs, number of which are a Pasch); 100 pairs in all.
_PAIRS_BY_SUM: tuple[tuple[int, int, int], ...] = tuple(
    (s, 10 - abs(s - 11), 1 if s % 2 == 0 else 0) for s in range(2, 21)
)


@dataclass(frozen=True, slots=True)
class ProbeOdds:
    """Exact odds of a Probe against one target, as counts out of the 100 face pairs."""

    target: int
    successes: int
    volltreffer: int
    patzer: int
    #: ``qs_counts[q]`` = face pairs giving QS ``q`` (index 0 = failure), before extra QS.
    qs_counts: tuple[int, ...]

    @property
    def success(self) -> Fraction:
        return Fraction(self.successes, 100)

    @property
    def volltreffer_chance(self) -> Fraction:
        return Fraction(self.volltreffer, 100)

    @property
    def patzer_chance(self) -> Fraction:
        return Fraction(self.patzer, 100)

    def qs_distribution(self) -> dict[int, Fraction]:
        """QS → probability; QS 0 stands for failure. Only reachable QS are listed."""
        return {q: Fraction(n, 100) for q, n in enumerate(self.qs_counts) if n}

    def as_dict(self) -> dict[str, object]:
        """JSON-ready counts out of 100 face pairs (= percent) for display."""
        return {
            "target": self.target,
            "success": self.successes,
            "volltreffer": self.volltreffer,
            "patzer": self.patzer,
            "qs": {q: n for q, n in enumerate(self.qs_counts) if n},
        }


@lru_cache(maxsize=64)
def _odds_for_target(target: int) -> ProbeOdds:
    counts = [0] * (qs(BEST_SUCCESS) + 1)
    successes = volltreffer = patzer = 0
    top = best_qs(target)
    for s, pairs, pasch in _PAIRS_BY_SUM:
        if s <= target and s not in AUTOMATIC_FAILURES:
            successes += pairs
            volltreffer += pasch
            counts[qs(s)] += pairs - pasch
            counts[top] += pasch
        else:
            patzer += pasch
            counts[0] += pairs
    return ProbeOdds(target, successes, volltreffer, patzer, tuple(counts))


def probe_odds(value: int, modifier: int = 0) -> ProbeOdds:
    """Exact odds for ``value + modifier`` (targets outside 1..19 behave like 1 or 19)."""
    return _odds_for_target(max(1, min(value + modifier, 19)))


def success_probability(value: int, modifier: int = 0) -> Fraction:
    """Exact chance that a Probe on ``value`` with ``modifier`` succeeds."""
    return probe_odds(value, modifier).success


def qs_distribution(value: int, modifier: int = 0) -> dict[int, Fraction]:
    """Exact QS distribution (0 = failure) for ``value + modifier``."""
    return probe_odds(value, modifier).qs_distribution()


def probability_table(targets: range = range(2, 31)) -> list[ProbeOdds]:
    """Odds for every target in ``targets`` (default 2..30), for a table shown before rolling."""
    return [probe_odds(t) for t in targets]
