"""Free dice expressions for the dice log: ``2W10+3``, ``1d20+7``, ``3W6``, ``2d20kh1``, ``4d6kl3``.

Grammar (case-insensitive, spaces ignored; ``W`` is the German ``d``)::

    expression := term (("+" | "-") term)*
    term       := dice | number
    dice       := [count] ("d" | "w") sides [("kh" | "kl" | "k") keep]

Hard limits keep a request from costing the server anything noticeable. Errors carry an
English message id with parameters; the web layer translates them.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from app.rules.dice import DieRoll, Roller, keep_highest, keep_lowest, roll_dice
from app.rules.refusal import Refusal

MAX_LENGTH = 100
MAX_TERMS = 20
MAX_DICE = 100
MAX_SIDES = 1000
MAX_CONSTANT = 10_000

_TERM = re.compile(r"([+-])?(?:(\d*)([dw])(\d+)(?:(kh|kl|k)(\d+))?|(\d+))")


class ExpressionError(Refusal):
    """An expression the roller refuses; ``message`` is a gettext msgid, ``params`` fill it."""


@dataclass(frozen=True, slots=True)
class DiceTerm:
    sign: int
    count: int
    sides: int
    keep: str | None = None  # "kh" or "kl"
    keep_n: int = 0

    def notation(self) -> str:
        keep = f"{self.keep}{self.keep_n}" if self.keep else ""
        return f"{self.count}W{self.sides}{keep}"


@dataclass(frozen=True, slots=True)
class ConstantTerm:
    sign: int
    value: int

    def notation(self) -> str:
        return str(self.value)


Term = DiceTerm | ConstantTerm


@dataclass(frozen=True, slots=True)
class Expression:
    terms: tuple[Term, ...]

    def notation(self) -> str:
        """Normalised German notation, e.g. ``2W10+3``."""
        out = ""
        for i, term in enumerate(self.terms):
            sign = "-" if term.sign < 0 else ("+" if i else "")
            out += sign + term.notation()
        return out


@dataclass(frozen=True, slots=True)
class ExpressionRoll:
    """A rolled expression: every dice group with its faces, the constant part, the total."""

    expression: Expression
    dice: tuple[DieRoll, ...]
    signs: tuple[int, ...]
    modifier: int
    total: int


def parse(text: str) -> Expression:
    """Parse an expression, refusing anything outside the grammar or the limits."""
    if re.search(r"\w\s+\w", text.strip()):
        raise ExpressionError("Spaces may only stand around + and -.")
    source = re.sub(r"\s+", "", text).lower()
    if not source:
        raise ExpressionError("Enter a dice expression, e.g. 2W10+3.")
    if len(source) > MAX_LENGTH:
        raise ExpressionError(
            "The expression is too long (at most %(max)d characters).", max=MAX_LENGTH
        )
    terms: list[Term] = []
    pos = 0
    while pos < len(source):
        match = _TERM.match(source, pos)
        if match is None or match.end() == pos or (terms and match.group(1) is None):
            raise ExpressionError(
                "Cannot read the expression at “%(rest)s”. Use e.g. 2W10+3, 1d20+7 or 4d6kh3.",
                rest=source[pos:],
            )
        terms.append(_term(match))
        pos = match.end()
        if len(terms) > MAX_TERMS:
            raise ExpressionError("Too many terms (at most %(max)d).", max=MAX_TERMS)
    if sum(t.count for t in terms if isinstance(t, DiceTerm)) == 0:
        raise ExpressionError("The expression rolls no dice.")
    if sum(t.count for t in terms if isinstance(t, DiceTerm)) > MAX_DICE:
        raise ExpressionError("Too many dice (at most %(max)d in one roll).", max=MAX_DICE)
    return Expression(tuple(terms))


def _term(match: re.Match[str]) -> Term:
    sign = -1 if match.group(1) == "-" else 1
    if match.group(7) is not None:
        value = int(match.group(7))
        if value > MAX_CONSTANT:
            raise ExpressionError("Numbers may be at most %(max)d.", max=MAX_CONSTANT)
        return ConstantTerm(sign, value)
    count = int(match.group(2)) if match.group(2) else 1
    sides = int(match.group(4))
    if count < 1:
        raise ExpressionError("Roll at least one die.")
    if count > MAX_DICE:
        raise ExpressionError("Too many dice (at most %(max)d in one roll).", max=MAX_DICE)
    if not 2 <= sides <= MAX_SIDES:
        raise ExpressionError("A die has between 2 and %(max)d sides.", max=MAX_SIDES)
    keep = match.group(5)
    if keep is None:
        return DiceTerm(sign, count, sides)
    keep_n = int(match.group(6))
    if not 1 <= keep_n <= count:
        raise ExpressionError("Keep between 1 and %(count)d dice.", count=count)
    return DiceTerm(sign, count, sides, "kl" if keep == "kl" else "kh", keep_n)


def roll(expression: Expression, roller: Roller) -> ExpressionRoll:
    """Roll every dice group of ``expression`` with ``roller`` and add it up."""
    dice: list[DieRoll] = []
    signs: list[int] = []
    modifier = 0
    for term in expression.terms:
        if isinstance(term, ConstantTerm):
            modifier += term.sign * term.value
            continue
        group = roll_dice(roller, term.count, term.sides)
        if term.keep == "kh":
            group = keep_highest(group, term.keep_n)
        elif term.keep == "kl":
            group = keep_lowest(group, term.keep_n)
        dice.append(group)
        signs.append(term.sign)
    total = modifier + sum(s * d.total for s, d in zip(signs, dice, strict=True))
    return ExpressionRoll(expression, tuple(dice), tuple(signs), modifier, total)


#: An exact distribution enumerates kept dice groups up to this many face combinations.
MAX_ENUMERATED_OUTCOMES = 200_000


def _group_counts(term: DiceTerm) -> dict[int, int]:
    """The totals of one dice group over all its faces, with counts (out of sides**count)."""
    if term.keep is None:
        counts = {0: 1}
        for _ in range(term.count):
            step: dict[int, int] = {}
            for total, c in counts.items():
                for face in range(1, term.sides + 1):
                    step[total + face] = step.get(total + face, 0) + c
            counts = step
        return counts
    if term.sides**term.count > MAX_ENUMERATED_OUTCOMES:
        raise ExpressionError("Too many outcomes to enumerate (at most %(max)d).",
                              max=MAX_ENUMERATED_OUTCOMES)  # fmt: skip
    counts = {}
    for faces in itertools.product(range(1, term.sides + 1), repeat=term.count):
        kept = sorted(faces, reverse=term.keep == "kh")[: term.keep_n]
        counts[sum(kept)] = counts.get(sum(kept), 0) + 1
    return counts


def outcome_counts(expression: Expression) -> tuple[dict[int, int], int]:
    """Every total of ``expression`` with its count, and the number of face combinations.

    Exact: plain dice groups are convolved, kept groups (``4W6kh3``) enumerated. The counts
    sum to the second value; each total's probability is its count divided by it.
    """
    counts = {0: 1}
    combinations = 1
    for term in expression.terms:
        if isinstance(term, ConstantTerm):
            counts = {t + term.sign * term.value: c for t, c in counts.items()}
            continue
        group = _group_counts(term)
        combinations *= term.sides**term.count
        step: dict[int, int] = {}
        for total, c in counts.items():
            for value, g in group.items():
                key = total + term.sign * value
                step[key] = step.get(key, 0) + c * g
        counts = step
    return counts, combinations
