"""Conditions that the turn flow changes: Sterbend/Verwundet/Todgeweiht, Genesungswurf,
Anhaltender Schaden, Verängstigt and Kränkelnd (pure: dice only from the Roller passed in).

The seed (002, "Würfe") defines the Einfacher Wurf these use but not the conditions
themselves; they follow the core rules, and ``docs/rules/pf2e.md`` lists every decision.

- At 0 TP a creature becomes Sterbend 1 (2 after a Kritischer Treffer) plus its Verwundet
  value; damage while Sterbend adds 1 (2 on a Kritischer Treffer). It dies at Sterbend
  4 − Todgeweiht.
- Genesungswurf at the start of its turn: Einfacher Wurf against SG 10 + Sterbend with
  degrees (natural 20/1 step as for every check): Kritischer Erfolg −2, Erfolg −1,
  Fehlschlag +1, Kritischer Fehlschlag +2. Losing Sterbend (by the check or by healing)
  raises Verwundet by 1.
- Anhaltender Schaden at the end of the turn: the damage, then an Einfacher Wurf SG 15 that
  ends it on a success.
- Verängstigt drops by 1 at the end of the creature's turn. Kränkelnd: Würgen (one action)
  is a Zähigkeit save against the effect's SG: Erfolg −1, Kritischer Erfolg −2.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from app.rules.dice import DieRoll, Roller
from app.rules.pf2e.attacks import DamageRoll, roll_damage
from app.rules.pf2e.checks import CheckResult, roll_check
from app.rules.pf2e.degrees import Degree, degree_of_success
from app.rules.pf2e.flat import FlatCheckResult, roll_flat_check
from app.rules.pf2e.fortune import D20Roll, roll_d20
from app.rules.pf2e.statistics import Statistic

DYING_LIMIT = 4
RECOVERY_BASE_DC = 10
PERSISTENT_DC = 15
RECOVERY_LABEL = "Genesungswurf"
RECOVERY_STEP = {
    Degree.CRITICAL_SUCCESS: -2,
    Degree.SUCCESS: -1,
    Degree.FAILURE: 1,
    Degree.CRITICAL_FAILURE: 2,
}
RETCH_STEP = {Degree.CRITICAL_SUCCESS: 2, Degree.SUCCESS: 1}


@dataclass(frozen=True, slots=True)
class Dying:
    """The dying-related values of one creature (all ≥ 0)."""

    dying: int = 0
    wounded: int = 0
    doomed: int = 0

    @property
    def threshold(self) -> int:
        """The Sterbend value at which the creature dies."""
        return max(DYING_LIMIT - self.doomed, 0)

    @property
    def dead(self) -> bool:
        return self.dying > 0 and self.dying >= self.threshold

    def describe(self) -> str:
        """Rule notation only (numbers and rule terms, no words for a language to translate):
        ``Sterbend 0``; a dead creature's Sterbend with the threshold it reached,
        ``Sterbend 4 (≥ 4), Verwundet 1``."""
        dying = f"Sterbend {self.dying}" + (f" (≥ {self.threshold})" if self.dead else "")
        parts = [dying]
        parts += [f"Verwundet {self.wounded}"] if self.wounded else []
        parts += [f"Todgeweiht {self.doomed}"] if self.doomed else []
        return ", ".join(parts)


def knocked_out(state: Dying, *, critical: bool) -> Dying:
    """Reduced to 0 TP: Sterbend 1 (2 after a Kritischer Treffer) + Verwundet."""
    return replace(state, dying=(2 if critical else 1) + state.wounded)


def damaged_while_dying(state: Dying, *, critical: bool) -> Dying:
    """Damage taken while Sterbend: +1, +2 on a Kritischer Treffer."""
    return replace(state, dying=state.dying + (2 if critical else 1))


def lose_dying(state: Dying) -> Dying:
    """Sterbend ends (a Genesungswurf to 0 or healing): Verwundet rises by 1."""
    if not state.dying:
        return state
    return replace(state, dying=0, wounded=state.wounded + 1)


@dataclass(frozen=True, slots=True)
class RecoveryResult:
    """One Genesungswurf with the values before and after."""

    roll: D20Roll
    dc: int
    degree: Degree
    before: Dying
    after: Dying

    @property
    def dice(self) -> tuple[DieRoll, ...]:
        return (self.roll.die,)

    def describe(self) -> str:
        return (
            f"{RECOVERY_LABEL} SG {self.dc}: {self.roll.die.describe()} = {self.roll.natural}"
            f" – {self.degree.label}: {self.before.describe()} → {self.after.describe()}"
        )


def recovery_check(roller: Roller, state: Dying) -> RecoveryResult:
    """The Genesungswurf of a Sterbend creature at the start of its turn."""
    if not state.dying or state.dead:
        raise ValueError("only a dying creature makes a recovery check")
    dc = RECOVERY_BASE_DC + state.dying
    roll = roll_d20(roller)
    degree = degree_of_success(roll.natural, 0, dc)
    after = replace(state, dying=max(state.dying + RECOVERY_STEP[degree], 0))
    if after.dying == 0:
        after = lose_dying(state)
    return RecoveryResult(roll, dc, degree, state, after)


@dataclass(frozen=True, slots=True)
class PersistentResult:
    """Anhaltender Schaden at the end of a turn: the damage and the flat check to end it."""

    damage: DamageRoll
    flat: FlatCheckResult
    kind: str

    @property
    def ended(self) -> bool:
        return self.flat.success

    @property
    def dice(self) -> tuple[DieRoll, ...]:
        return (*self.damage.dice, *self.flat.dice)

    def describe(self) -> list[str]:
        head = f"Anhaltender Schaden {self.kind}".strip()
        end = "endet" if self.ended else "bleibt"
        return [f"{head}: {self.damage.describe()}", f"{self.flat.describe()} – {end}"]


def persistent_damage(roller: Roller, expression: str, kind: str = "") -> PersistentResult:
    """Roll the damage, then the Einfacher Wurf SG 15 that ends it on a success."""
    damage = roll_damage(roller, expression)
    flat = roll_flat_check(roller, PERSISTENT_DC)
    return PersistentResult(damage, flat, kind)


def frightened_after_turn(value: int) -> int:
    """Verängstigt at the end of the creature's own turn."""
    return max(value - 1, 0)


@dataclass(frozen=True, slots=True)
class RetchResult:
    """Würgen against Kränkelnd: the Zähigkeit save and the value after it."""

    check: CheckResult
    before: int
    after: int

    def describe(self) -> str:
        return f"Würgen: {self.check.describe()} – Kränkelnd {self.before} → {self.after}"


def retch(roller: Roller, fortitude: Statistic, dc: int, value: int) -> RetchResult:
    """Würgen (one action): Erfolg lowers Kränkelnd by 1, Kritischer Erfolg by 2."""
    check = roll_check(roller, fortitude, dc, dc_label="SG")
    step = RETCH_STEP.get(check.degree, 0) if check.degree is not None else 0
    return RetchResult(check, value, max(value - step, 0))
