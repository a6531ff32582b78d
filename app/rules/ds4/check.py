"""DS4 Probe: one W20 per sub-check, Immersieg, Patzer, PW above 20, opposed checks, odds.

Rules (ds4.md §1):

* Success when the face is at most the PW; the result is the face, a failure scores 0.
* Immersieg (default: face 1) always succeeds and scores the PW.
* Patzer (default: face 20) always fails, even with PW 20 or more.
* PW > 20 is split into sub-checks of 20 plus the remainder, one die each, rolled in order.
  Only the first die can be a Patzer; otherwise the check succeeds and the dice are
  assigned to the sub-checks so that the total is as high as possible.
* PW ≤ 0: only an Immersieg succeeds, with result 0.

The Immersieg and Patzer ranges are parameters: every face ``<= immersieg_max`` is an
Immersieg, every face ``>= patzer_min`` a Patzer (defaults 1 and 20).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Literal

from app.rules.dice import DieRoll, Roller, roll_dice

DIE = 20
SUB_CHECK = 20

IMMERSIEG_MAX = 1
PATZER_MIN = 20


class Difficulty(StrEnum):
    """The difficulty guide; :data:`DIFFICULTY_MODIFIER` holds the PW modifier of each."""

    ROUTINE = "routine"
    SEHR_LEICHT = "sehr_leicht"
    LEICHT = "leicht"
    NORMAL = "normal"
    SCHWER = "schwer"
    SEHR_SCHWER = "sehr_schwer"
    AEUSSERST_SCHWER = "aeusserst_schwer"


DIFFICULTY_MODIFIER: dict[Difficulty, int] = {
    Difficulty.ROUTINE: 8,
    Difficulty.SEHR_LEICHT: 4,
    Difficulty.LEICHT: 2,
    Difficulty.NORMAL: 0,
    Difficulty.SCHWER: -2,
    Difficulty.SEHR_SCHWER: -4,
    Difficulty.AEUSSERST_SCHWER: -8,
}


@dataclass(frozen=True, slots=True)
class SubCheck:
    """One die assigned to one sub-check: its sub-PW, the face, and what it scored."""

    pw: int
    face: int
    die_index: int  # position of the die in roll order (0 = first die)
    score: int
    immersieg: bool


@dataclass(frozen=True, slots=True)
class CheckResult:
    """An evaluated Probe.

    ``faces`` are in roll order. ``assignment`` lists the sub-checks in order (20, 20, …,
    remainder) with the die the engine put on each; it is empty after a Patzer on a
    multi-die check (the whole check fails, nothing is assigned). ``immersieg`` is true when
    the check succeeded and at least one die was an Immersieg.
    """

    pw: int
    faces: tuple[int, ...]
    success: bool
    result: int
    immersieg: bool
    patzer: bool
    assignment: tuple[SubCheck, ...]


def _check_ranges(immersieg_max: int, patzer_min: int) -> None:
    if not 1 <= immersieg_max < patzer_min <= DIE:
        raise ValueError(
            f"need 1 <= immersieg_max < patzer_min <= {DIE}, "
            f"got immersieg_max={immersieg_max}, patzer_min={patzer_min}"
        )


def sub_checks(pw: int) -> tuple[int, ...]:
    """The sub-PWs of a check: ``(pw,)`` up to 20, else 20s plus the remainder (44 → 20, 20, 4)."""
    if pw <= SUB_CHECK:
        return (pw,)
    full, rest = divmod(pw, SUB_CHECK)
    return (SUB_CHECK,) * full + ((rest,) if rest else ())


def dice_needed(pw: int) -> int:
    """How many W20 a check with this PW rolls."""
    return len(sub_checks(pw))


def _score(face: int, sub_pw: int, immersieg_max: int) -> int:
    if face <= immersieg_max:
        return max(sub_pw, 0)
    return face if face <= sub_pw else 0


def evaluate_check(
    pw: int,
    faces: Sequence[int],
    *,
    immersieg_max: int = IMMERSIEG_MAX,
    patzer_min: int = PATZER_MIN,
) -> CheckResult:
    """Evaluate a Probe with PW ``pw`` on the given W20 ``faces`` (in roll order).

    ``faces`` must hold exactly :func:`dice_needed` faces, each 1..20.
    """
    _check_ranges(immersieg_max, patzer_min)
    subs = sub_checks(pw)
    faces_t = tuple(faces)
    if len(faces_t) != len(subs):
        raise ValueError(f"PW {pw} needs {len(subs)} W20, got {len(faces_t)} faces")
    for face in faces_t:
        if not 1 <= face <= DIE:
            raise ValueError(f"face {face} is not on a W20")

    first = faces_t[0]
    if first >= patzer_min:
        single = (SubCheck(pw, first, 0, 0, False),) if len(subs) == 1 else ()
        return CheckResult(pw, faces_t, False, 0, False, True, single)

    if len(subs) == 1:
        imm = first <= immersieg_max
        if pw <= 0:
            score = 0
            success = imm
        elif imm:
            score, success = pw, True
        else:
            success = first <= pw
            score = first if success else 0
        sub = SubCheck(pw, first, 0, score, imm and success)
        return CheckResult(pw, faces_t, success, score, imm and success, False, (sub,))

    assignment = _best_assignment(subs, faces_t, immersieg_max)
    total = sum(s.score for s in assignment)
    imm = any(s.immersieg for s in assignment)
    return CheckResult(pw, faces_t, True, total, imm, False, assignment)


def _best_assignment(
    subs: tuple[int, ...], faces: tuple[int, ...], immersieg_max: int
) -> tuple[SubCheck, ...]:
    """Assign dice to sub-checks for the highest total.

    All sub-checks but the remainder are 20, so only the choice of the die for the
    remainder matters: it is the die with the largest gain ``score(rest) - score(20)``
    (the earliest such die on ties). The other dice go to the 20s in roll order.
    """
    rest = subs[-1]
    if rest == SUB_CHECK:
        rest_index = None
    else:
        gains = [
            _score(f, rest, immersieg_max) - _score(f, SUB_CHECK, immersieg_max) for f in faces
        ]
        rest_index = max(range(len(faces)), key=lambda i: (gains[i], -i))
    out: list[SubCheck] = []
    for i, face in enumerate(faces):
        if i == rest_index:
            continue
        out.append(
            SubCheck(
                SUB_CHECK, face, i, _score(face, SUB_CHECK, immersieg_max), face <= immersieg_max
            )
        )
    if rest_index is not None:
        face = faces[rest_index]
        out.append(
            SubCheck(
                rest, face, rest_index, _score(face, rest, immersieg_max), face <= immersieg_max
            )
        )
    return tuple(out)


def evaluate_opposed(a: CheckResult, b: CheckResult) -> Literal["a", "b", "none"]:
    """Vergleichende Probe: who wins, ``"a"``, ``"b"`` or ``"none"`` (tie / both fail).

    Only one succeeds → it wins. Both succeed → an Immersieg beats a normal success;
    otherwise (both normal or both Immersieg) the higher result wins, equal results → none.
    """
    if a.success != b.success:
        return "a" if a.success else "b"
    if not a.success:
        return "none"
    if a.immersieg != b.immersieg:
        return "a" if a.immersieg else "b"
    if a.result == b.result:
        return "none"
    return "a" if a.result > b.result else "b"


# --- rolling -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CheckRoll:
    """A rolled Probe: the PW with its breakdown, the dice as rolled, the evaluation."""

    pw: int
    breakdown: tuple[tuple[str, int], ...]
    roll: DieRoll
    check: CheckResult

    @property
    def success(self) -> bool:
        return self.check.success

    @property
    def result(self) -> int:
        return self.check.result

    @property
    def immersieg(self) -> bool:
        return self.check.immersieg

    @property
    def patzer(self) -> bool:
        return self.check.patzer


def final_pw(
    base: int,
    modifiers: Iterable[tuple[str, int]] = (),
    difficulty: Difficulty | None = None,
    base_label: str = "base",
) -> tuple[int, tuple[tuple[str, int], ...]]:
    """Add labelled modifiers and a difficulty to a base value; returns (PW, breakdown)."""
    breakdown = [(base_label, base), *modifiers]
    if difficulty is not None:
        breakdown.append((f"difficulty:{difficulty.value}", DIFFICULTY_MODIFIER[difficulty]))
    return sum(v for _, v in breakdown), tuple(breakdown)


def roll_check(
    roller: Roller,
    pw: int,
    *,
    modifiers: Iterable[tuple[str, int]] = (),
    difficulty: Difficulty | None = None,
    immersieg_max: int = IMMERSIEG_MAX,
    patzer_min: int = PATZER_MIN,
) -> CheckRoll:
    """Roll a Probe on ``pw`` plus labelled ``modifiers`` and an optional difficulty."""
    _check_ranges(immersieg_max, patzer_min)
    total, breakdown = final_pw(pw, modifiers, difficulty)
    dice = roll_dice(roller, dice_needed(total), DIE)
    check = evaluate_check(total, dice.faces, immersieg_max=immersieg_max, patzer_min=patzer_min)
    return CheckRoll(total, breakdown, dice, check)


# --- odds ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CheckOdds:
    """Exact odds of a Probe before rolling.

    ``expected_result`` is the mean result over all rolls, failures counting 0.
    """

    pw: int
    success: Fraction
    immersieg: Fraction
    patzer: Fraction
    expected_result: Fraction


def check_odds(
    pw: int, *, immersieg_max: int = IMMERSIEG_MAX, patzer_min: int = PATZER_MIN
) -> CheckOdds:
    """Exact success probability, Immersieg/Patzer probability and expected result."""
    _check_ranges(immersieg_max, patzer_min)
    p = Fraction(1, DIE)
    faces = range(1, DIE + 1)
    n_patzer = DIE - patzer_min + 1
    patzer = n_patzer * p
    n_imm = immersieg_max
    subs = sub_checks(pw)
    if len(subs) == 1:
        results = [
            evaluate_check(pw, [f], immersieg_max=immersieg_max, patzer_min=patzer_min)
            for f in faces
        ]
        return CheckOdds(
            pw,
            sum((p for r in results if r.success), Fraction(0)),
            sum((p for r in results if r.immersieg), Fraction(0)),
            patzer,
            sum((r.result * p for r in results), Fraction(0)),
        )

    n = len(subs)
    rest = subs[-1]
    ok_first = [f for f in faces if f < patzer_min]
    success = len(ok_first) * p
    no_imm_first = len(ok_first) - n_imm
    immersieg = success - no_imm_first * p * Fraction(DIE - n_imm, DIE) ** (n - 1)

    def s20(f: int) -> int:
        return _score(f, SUB_CHECK, immersieg_max)

    mean_s20 = sum((s20(f) * p for f in faces), Fraction(0))
    expected = Fraction(0)
    for f1 in ok_first:
        expected += p * (s20(f1) + (n - 1) * mean_s20)
    if rest != SUB_CHECK:
        # Expected best gain: E[max over dice of score(rest) - score(20)], first die
        # restricted to non-Patzer faces (weighted by p each, as above).
        def gain(f: int) -> int:
            return _score(f, rest, immersieg_max) - s20(f)

        gain_values = sorted({gain(f) for f in faces})
        cdf_other = {g: sum((p for f in faces if gain(f) <= g), Fraction(0)) for g in gain_values}
        for f1 in ok_first:
            g1 = gain(f1)
            # E[max(g1, G)] with G the max gain of the other n-1 dice.
            e_max = Fraction(0)
            prev = Fraction(0)
            for g in gain_values:
                cdf = cdf_other[g] ** (n - 1)
                e_max += max(g, g1) * (cdf - prev)
                prev = cdf
            expected += p * e_max
    return CheckOdds(pw, success, immersieg, patzer, expected)
