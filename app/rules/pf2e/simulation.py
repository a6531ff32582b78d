"""A PF2e fight played to its end many times with the real engine, for the GM's risk estimate.

:func:`simulate` runs ``trials`` fights between sides with the engine's initiative
(``roll_initiative``: Wahrnehmung, adversaries first on a tie, rolled once per fight) and
Strikes (``strike``: MAP, the natural 20/1 step, double damage on a critical hit, at least
1 damage), with simple policies:

- every figure on its feet uses the three actions of its turn for three Strikes (MAP 0,
  −5, −10; −4, −8 with an agile weapon); before each Strike it picks the Strike and the
  enemy it is most likely to drop with it: the exact chance that the damage reaches the
  target's TP, from the engine's forecast (``forecast_strike``) with this Strike's MAP; on
  equal chances the higher expected damage, then the fewest TP left;
- nobody moves, raises a shield, casts, heals or uses reactions; distances play no part
  (no range penalty); conditions count as they stand when the estimate starts.

Dying, as the engine has it (pf2e.md; ``app.encounters.systems.pf2e``): a figure at 0 TP is
out of the fight; a creature without dying rules (the bestiary's NSCs and monsters) is dead
then, a player character unconscious, not dead. The engine has no Sterbend values or
recovery checks yet, so a player character never dies here, and nobody attacks a figure
that is down.

A fight ends when one side has no figure on its feet, or after ``max_rounds``. The dice come
from the roller passed in, so a seeded roller gives the same result every time. Reported
per figure: the chance to go down or to die, and the expected damage taken (TP lost).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from app.rules.dice import Roller
from app.rules.expression import Expression
from app.rules.odds import FightOutcome, RiskResult, run_trials
from app.rules.pf2e.attacks import strike
from app.rules.pf2e.forecast import forecast_strike
from app.rules.pf2e.initiative import Combatant as InitiativeCombatant
from app.rules.pf2e.initiative import Side, roll_initiative
from app.rules.pf2e.modifiers import Modifier
from app.rules.pf2e.statistics import Statistic

#: A fight still running after this many rounds is counted as ended there.
MAX_ROUNDS = 30
#: Actions of a turn, each spent on a Strike.
STRIKES_PER_TURN = 3


@dataclass(frozen=True, slots=True)
class StrikeOption:
    """One Strike a figure can make, with what the engine's ``strike`` takes."""

    attack: Statistic
    damage: Expression
    agile: bool = False
    extra: tuple[Modifier, ...] = ()
    damage_bonuses: tuple[Modifier, ...] = ()


@dataclass(frozen=True, slots=True)
class Combatant:
    """A figure in the simulation: TP, RK, Wahrnehmung, Strikes and whether it dies at 0."""

    id: str
    side: str
    hp: int
    ac: int
    perception: Statistic
    strikes: tuple[StrikeOption, ...]
    dies_at_zero: bool


#: (damage tail, expected damage): ``tail[d]`` is the chance of at least ``d`` damage.
_Odds = tuple[tuple[float, ...], float]


class _Chances:
    """The exact damage odds of each Strike (with its MAP) against each target, computed
    once for all fights (they depend only on the values)."""

    def __init__(self, combatants: Mapping[str, Combatant]) -> None:
        self._by_id = combatants
        self._cache: dict[tuple[str, int, int, str], _Odds] = {}

    def odds(self, attacker: str, index: int, number: int, target: str) -> _Odds:
        key = (attacker, index, number, target)
        found = self._cache.get(key)
        if found is None:
            s = self._by_id[attacker].strikes[index]
            dist = forecast_strike(
                s.attack, self._by_id[target].ac, s.damage, target_hp=1,
                target_dies_at_zero=True, attack_number=number, agile=s.agile,
                extra=s.extra, damage_bonuses=s.damage_bonuses,
            ).damage  # fmt: skip
            top = max(dist)
            tail = [0.0] * (top + 2)
            for d in range(top, -1, -1):
                tail[d] = tail[d + 1] + float(dist.get(d, 0))
            found = (tuple(tail), sum(float(d * p) for d, p in dist.items()))
            self._cache[key] = found
        return found

    def choice(
        self, attacker: str, number: int, enemies: Sequence[str], hp: Mapping[str, int]
    ) -> tuple[int, str]:
        """The (Strike, target) most likely to drop a target, then the most damage."""
        best: tuple[float, float, int, str] | None = None
        pick = (0, enemies[0])
        for index in range(len(self._by_id[attacker].strikes)):
            for target in enemies:
                tail, expected = self.odds(attacker, index, number, target)
                p = tail[hp[target]] if hp[target] < len(tail) else 0.0
                rank = (p, expected, -hp[target], target)
                if best is None or rank > best:
                    best, pick = rank, (index, target)
        return pick


def _over(hp: Mapping[str, int], sides: Mapping[str, str]) -> bool:
    return len({sides[fid] for fid, points in hp.items() if points > 0}) < 2


def _turn(
    roller: Roller,
    chances: _Chances,
    me: Combatant,
    by_id: Mapping[str, Combatant],
    hp: dict[str, int],
    sides: Mapping[str, str],
) -> None:
    for number in range(1, STRIKES_PER_TURN + 1):
        enemies = sorted(fid for fid, p in hp.items() if p > 0 and sides[fid] != me.side)
        if not enemies or not me.strikes:
            return
        index, target = chances.choice(me.id, number, enemies, hp)
        s = me.strikes[index]
        result = strike(
            roller, s.attack, by_id[target].ac, s.damage, attack_number=number,
            agile=s.agile, extra=s.extra, damage_bonuses=s.damage_bonuses,
        )  # fmt: skip
        hp[target] = max(0, hp[target] - result.damage_total)


def fight(
    roller: Roller,
    combatants: Sequence[Combatant],
    max_rounds: int = MAX_ROUNDS,
    chances: _Chances | None = None,
) -> tuple[dict[str, int], int]:
    """One fight to its end: every figure's TP at the end, and the rounds played."""
    by_id = {c.id: c for c in combatants}
    chances = chances or _Chances(by_id)
    sides = {c.id: c.side for c in combatants}
    hp = {c.id: c.hp for c in combatants}
    people = [
        InitiativeCombatant(
            c.id, c.id, Side.ADVENTURER if c.side == "abenteurer" else Side.ADVERSARY,
            c.perception,
        )
        for c in combatants
    ]  # fmt: skip
    order = [e.combatant.id for e in roll_initiative(roller, people)]
    rounds = 0
    while rounds < max_rounds and not _over(hp, sides):
        rounds += 1
        for fid in order:
            if hp[fid] > 0:
                _turn(roller, chances, by_id[fid], by_id, hp, sides)
            if _over(hp, sides):
                break
    return hp, rounds


def simulate(
    roller: Roller,
    combatants: Sequence[Combatant],
    party_side: str,
    trials: int,
    max_rounds: int = MAX_ROUNDS,
    should_stop: Callable[[], bool] = lambda: False,
) -> RiskResult:
    """Play ``trials`` fights; the risks are those of the figures on ``party_side``
    (``should_stop``: the caller's time budget, asked after every fight)."""
    by_id = {c.id: c for c in combatants}
    chances = _Chances(by_id)

    def play() -> FightOutcome:
        hp, rounds = fight(roller, combatants, max_rounds, chances)
        down = frozenset(fid for fid, points in hp.items() if points <= 0)
        return FightOutcome(
            rounds,
            down,
            frozenset(fid for fid in down if by_id[fid].dies_at_zero),
            {fid: by_id[fid].hp - points for fid, points in hp.items()},
        )

    party = [c.id for c in combatants if c.side == party_side]
    return run_trials(play, list(by_id), party, trials, should_stop)
