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

Dying, with the engine's rules (``app.rules.pf2e.conditions``, pf2e.md "Dying"): a figure at
0 TP is out of the fight. A creature without dying rules (the bestiary's NSCs and monsters)
is dead then. A player character gets Sterbend 1 (2 after a Kritischer Treffer) plus its
Verwundet value; at the start of each of its turns it makes its Genesungswurf; it dies at
Sterbend 4 − Todgeweiht; when Sterbend ends it stays at 0 TP (unconscious) with Verwundet
+1. Nobody heals or stabilises anyone, so a character still dying when the fight is over
goes on rolling Genesungswürfe (one per round, at most ``max_rounds``) until it is stable or
dead. Policy for the downed (``finish_off``):

- ``False`` (the default, the GM's estimate): nobody strikes a figure that is down while
  an enemy is on its feet, and the fight ends when one side has no figure on its feet;
  the dead are those the damage or the Genesungswürfe killed.
- ``True``: a figure with no enemy on its feet strikes the downed enemies that are not dead
  yet (damage while Sterbend: +1, +2 on a Kritischer Treffer; a stable character at 0 TP
  hit again is Sterbend again with its Verwundet value) until they are dead or
  ``max_rounds`` have passed — the upper bound of the risk, monsters that kill.

A fight ends when one side has no figure on its feet, or after ``max_rounds``. The dice come
from the roller passed in, so a seeded roller gives the same result every time. Reported
per figure: the chance to go down or to die, and the expected damage taken (TP lost).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from app.rules.dice import Roller
from app.rules.expression import Expression
from app.rules.odds import MAX_ROUNDS, DamageOdds, FightOutcome, RiskResult, damage_odds, run_trials
from app.rules.pf2e.attacks import strike
from app.rules.pf2e.conditions import Dying, damaged_while_dying, knocked_out, recovery_check
from app.rules.pf2e.forecast import forecast_strike
from app.rules.pf2e.initiative import Combatant as InitiativeCombatant
from app.rules.pf2e.initiative import Side, roll_initiative
from app.rules.pf2e.modifiers import Modifier
from app.rules.pf2e.statistics import Statistic

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
    """A figure in the simulation: TP, RK, Wahrnehmung, Strikes, whether it dies at 0 (no
    dying rules) and its Verwundet, Todgeweiht and Sterbend values when the estimate starts."""

    id: str
    side: str
    hp: int
    ac: int
    perception: Statistic
    strikes: tuple[StrikeOption, ...]
    dies_at_zero: bool
    wounded: int = 0
    doomed: int = 0
    dying: int = 0


class _Chances:
    """The exact damage odds of each Strike (with its MAP) against each target, computed
    once for all fights (they depend only on the values)."""

    def __init__(self, combatants: Mapping[str, Combatant]) -> None:
        self._by_id = combatants
        self._cache: dict[tuple[str, int, int, str], DamageOdds] = {}

    def odds(self, attacker: str, index: int, number: int, target: str) -> DamageOdds:
        key = (attacker, index, number, target)
        found = self._cache.get(key)
        if found is None:
            s = self._by_id[attacker].strikes[index]
            dist = forecast_strike(
                s.attack, self._by_id[target].ac, s.damage, target_hp=1,
                target_dies_at_zero=True, attack_number=number, agile=s.agile,
                extra=s.extra, damage_bonuses=s.damage_bonuses,
            ).damage  # fmt: skip
            found = damage_odds(dist)
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


@dataclass(slots=True)
class _State:
    """One fight's running values: TP, the dying values of those with dying rules, the dead."""

    by_id: Mapping[str, Combatant]
    hp: dict[str, int]
    dying: dict[str, Dying]
    dead: set[str]

    def standing(self, fid: str) -> bool:
        return self.hp[fid] > 0

    def sides_standing(self) -> set[str]:
        return {self.by_id[fid].side for fid in self.hp if self.standing(fid)}

    def over(self, finish_off: bool) -> bool:
        """No fight left: one side has nobody on its feet (and, finishing off, no standing
        figure has a downed enemy still alive)."""
        standing = self.sides_standing()
        if len(standing) >= 2:
            return False
        return not finish_off or not any(
            not self.standing(fid) and fid not in self.dead and c.side not in standing
            for fid, c in self.by_id.items()
        )

    def targets(self, me: Combatant, finish_off: bool) -> list[str]:
        """Enemies on their feet; finishing off, the downed not yet dead when none stands."""
        foes = [fid for fid, c in self.by_id.items() if c.side != me.side]
        up = sorted(fid for fid in foes if self.standing(fid))
        if up or not finish_off:
            return up
        return sorted(fid for fid in foes if fid not in self.dead)

    def hurt(self, target: str, damage: int, critical: bool) -> None:
        """Damage taken: TP lost; at 0 TP dead or Sterbend (pf2e.md "Dying")."""
        if damage <= 0:
            return
        was_up = self.standing(target)
        self.hp[target] = max(0, self.hp[target] - damage)
        if self.standing(target):
            return
        if self.by_id[target].dies_at_zero:
            self.dead.add(target)
            return
        state = self.dying[target]
        if was_up or not state.dying:
            state = knocked_out(state, critical=critical)
        else:
            state = damaged_while_dying(state, critical=critical)
        self.dying[target] = state
        if state.dead:
            self.dead.add(target)

    def anyone_dying(self) -> bool:
        return any(s.dying and fid not in self.dead for fid, s in self.dying.items())

    def recover(self, roller: Roller, fid: str) -> None:
        """The Genesungswurf at the start of a dying figure's turn."""
        state = self.dying[fid]
        if fid in self.dead or self.standing(fid) or not state.dying:
            return
        after = recovery_check(roller, state).after
        self.dying[fid] = after
        if after.dead:
            self.dead.add(fid)


def _turn(
    roller: Roller, chances: _Chances, me: Combatant, state: _State, finish_off: bool
) -> None:
    for number in range(1, STRIKES_PER_TURN + 1):
        enemies = state.targets(me, finish_off)
        if not enemies or not me.strikes:
            return
        index, target = chances.choice(me.id, number, enemies, state.hp)
        s = me.strikes[index]
        result = strike(
            roller, s.attack, state.by_id[target].ac, s.damage, attack_number=number,
            agile=s.agile, extra=s.extra, damage_bonuses=s.damage_bonuses,
        )  # fmt: skip
        state.hurt(target, result.damage_total, result.critical)


@dataclass(frozen=True, slots=True)
class Ending:
    """How one fight ended: every figure's TP, the rounds fought, who is dead."""

    hp: Mapping[str, int]
    rounds: int
    dead: frozenset[str]
    dying: Mapping[str, Dying]


def fight(
    roller: Roller,
    combatants: Sequence[Combatant],
    max_rounds: int = MAX_ROUNDS,
    chances: _Chances | None = None,
    finish_off: bool = False,
) -> Ending:
    """One fight to its end, then the Genesungswürfe of those still dying."""
    by_id = {c.id: c for c in combatants}
    chances = chances or _Chances(by_id)
    dying = {c.id: Dying(c.dying, c.wounded, c.doomed) for c in combatants}
    dead = {c.id for c in combatants if dying[c.id].dead or (c.dies_at_zero and c.hp <= 0)}
    state = _State(by_id, {c.id: max(c.hp, 0) for c in combatants}, dying, dead)
    people = [
        InitiativeCombatant(
            c.id, c.id, Side.ADVENTURER if c.side == "abenteurer" else Side.ADVERSARY,
            c.perception,
        )
        for c in combatants
    ]  # fmt: skip
    order = [e.combatant.id for e in roll_initiative(roller, people)]
    rounds = 0
    while rounds < max_rounds and not state.over(finish_off):
        rounds += 1
        for fid in order:
            state.recover(roller, fid)
            if state.standing(fid):
                _turn(roller, chances, by_id[fid], state, finish_off)
            if state.over(finish_off):
                break
    for _ in range(max_rounds):
        if not state.anyone_dying():
            break
        for fid in order:
            state.recover(roller, fid)
    return Ending(dict(state.hp), rounds, frozenset(state.dead), dict(state.dying))


def simulate(
    roller: Roller,
    combatants: Sequence[Combatant],
    party_side: str,
    trials: int,
    max_rounds: int = MAX_ROUNDS,
    should_stop: Callable[[], bool] = lambda: False,
    finish_off: bool = False,
) -> RiskResult:
    """Play ``trials`` fights; the risks are those of the figures on ``party_side``
    (``should_stop``: the caller's time budget, asked after every fight; ``finish_off``:
    the policy for the downed, see the module)."""
    by_id = {c.id: c for c in combatants}
    chances = _Chances(by_id)

    def play() -> FightOutcome:
        end = fight(roller, combatants, max_rounds, chances, finish_off)
        return FightOutcome(
            end.rounds,
            frozenset(fid for fid, points in end.hp.items() if points <= 0),
            end.dead,
            {fid: by_id[fid].hp - points for fid, points in end.hp.items()},
        )

    party = [c.id for c in combatants if c.side == party_side]
    return run_trials(play, list(by_id), party, trials, should_stop)
