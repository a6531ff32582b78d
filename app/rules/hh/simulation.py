"""An H&H fight played to its end many times with the real engine, for the GM's risk estimate.

:func:`simulate` runs ``trials`` fights between two sides with the engine's own round order
(hh.md §5), reactions, attacks and defences (§6), damage, dying and death (§7) and the end
of round (zehrend, Sterbend-Probe), with simple policies:

- every figure that can act attacks on each of its turns, the enemy it is most likely to
  drop: the one with the fewest LP left (a cheap stand-in for a forecast per target,
  which would cost milliseconds per turn);
- a defender defends while it has a reaction left (the engine's rule);
- nobody spends Glück (the estimate is for the GM: it errs towards danger), nobody moves
  and nobody heals or stabilises a dying figure.

A fight ends when one side has no figure on its feet (LP > 0 and able to act) or after
``max_rounds``. The dice come from the roller passed in, so a seeded roller gives the same
result every time. What it reports per figure: the chance to go down (LP ≤ 0 at some point)
or to die, and the expected damage taken (LP lost, counting below 0).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from app.rules.dice import Roller
from app.rules.hh.attack import AttackSpec, resolve_attack
from app.rules.hh.initiative import round_order, start_of_round
from app.rules.hh.options import DEFAULT_OPTIONS, RuleOptions
from app.rules.hh.round_end import end_of_round
from app.rules.hh.state import Figure
from app.rules.odds import MAX_ROUNDS, FightOutcome, RiskResult, run_trials


@dataclass(frozen=True, slots=True)
class Fighter:
    """A figure in the simulation: its state, its side and how it attacks."""

    figure: Figure
    side: str
    attack: AttackSpec = field(default_factory=AttackSpec)


def _standing(f: Figure) -> bool:
    return f.lp > 0 and f.can_act


@dataclass(slots=True)
class _Fight:
    """One fight's running state: the figures by id (updated as they fight), their sides and
    their attacks, with the dice and the rule options every step uses."""

    roller: Roller
    options: RuleOptions
    figures: dict[str, Figure]
    sides: Mapping[str, str]
    specs: Mapping[str, AttackSpec]

    def target(self, side: str) -> str | None:
        """The enemy with the fewest LP left among those still standing."""
        figures, sides = self.figures, self.sides
        enemies = [f for fid, f in figures.items() if sides[fid] != side and _standing(f)]
        return min(enemies, key=lambda f: (f.lp, f.id)).id if enemies else None

    def over(self) -> bool:
        standing = {self.sides[fid] for fid, f in self.figures.items() if _standing(f)}
        return len(standing) < 2

    def turn(self, actor: str) -> bool:
        """One figure's turn; whether it ended with a figure out (the fight may be over)."""
        me = self.figures[actor]
        if not me.can_act:
            return False
        target = self.target(self.sides[actor])
        if target is None:
            return True
        result = resolve_attack(
            self.roller, me, self.figures[target], self.options, self.specs[actor]
        )
        self.figures[actor] = result.attacker
        self.figures[target] = result.defender
        return not (_standing(result.defender) and _standing(result.attacker))

    def round(self) -> None:
        granted, _ = start_of_round(list(self.figures.values()))
        self.figures.update({f.id: f for f in granted})
        for turn in round_order(list(self.figures.values())):
            if self.turn(turn.figure) and self.over():
                return
        ended = end_of_round(self.roller, list(self.figures.values()), self.options)
        self.figures.update({f.id: f for f in ended.figures})


def fight(
    roller: Roller,
    fighters: Sequence[Fighter],
    options: RuleOptions = DEFAULT_OPTIONS,
    max_rounds: int = MAX_ROUNDS,
) -> tuple[dict[str, Figure], int, set[str]]:
    """One fight to its end: the final figures, the rounds played, who went down."""
    state = _Fight(
        roller,
        options,
        figures={f.figure.id: f.figure for f in fighters},
        sides={f.figure.id: f.side for f in fighters},
        specs={f.figure.id: f.attack for f in fighters},
    )
    went_down: set[str] = set()
    rounds = 0
    while rounds < max_rounds and not state.over():
        rounds += 1
        state.round()
        went_down |= {fid for fid, f in state.figures.items() if f.lp <= 0 or f.dead}
    return state.figures, rounds, went_down


def simulate(
    roller: Roller,
    fighters: Sequence[Fighter],
    party_side: str,
    trials: int,
    options: RuleOptions = DEFAULT_OPTIONS,
    max_rounds: int = MAX_ROUNDS,
    should_stop: Callable[[], bool] = lambda: False,
) -> RiskResult:
    """Play ``trials`` fights; the risks are those of the figures on ``party_side``.

    ``should_stop`` is asked after every fight (the caller's time budget): the result then
    counts the fights played so far (at least 2), and ``trials`` says how many.
    """
    start_lp = {f.figure.id: f.figure.lp for f in fighters}

    def play() -> FightOutcome:
        final, played, went_down = fight(roller, fighters, options, max_rounds)
        return FightOutcome(
            played,
            frozenset(went_down),
            frozenset(fid for fid, f in final.items() if f.dead),
            {fid: start_lp[fid] - f.lp for fid, f in final.items()},
        )

    party = [f.figure.id for f in fighters if f.side == party_side]
    return run_trials(play, list(start_lp), party, trials, should_stop)
