"""A DS4 fight played to its end many times with the real engine, for the GM's risk estimate.

:func:`simulate` runs ``trials`` fights between sides with the engine's initiative order
(``roll_initiative``: high to low, one Stechen per tie kept for the whole fight, the
surprising side +10 in round 1), attacks with the automatic Abwehr, Immersieg and Patzer
(``attack``) and the LK thresholds (``condition``: unconscious at LK ≤ 0, dead below
−KÖR), with simple policies:

- every figure that is conscious attacks once per round, with its best attack (the
  highest of Schlagen, Schießen, Zielzauber; on a tie in that order), the enemy it is most
  likely to drop with that attack: the exact chance that the damage reaches the target's
  LK, from the engine's forecast (``forecast_attack``); on equal chances the one with the
  fewest LK left;
- every target rolls its Abwehr while it is conscious (the engine's rule: it is automatic);
- a figure that lies prone stands up with its movement before it acts, and a dropped
  weapon is picked up the same way (the adapter does not bar an attack without it); nobody
  heals, nobody attacks an unconscious figure, distances and positions play no part.

A fight ends when one side has no conscious figure, or after ``max_rounds``. The dice come
from the roller passed in, so a seeded roller gives the same result every time. Reported
per figure: the chance to go down (LK ≤ 0 at some point) or to die, and the expected
damage taken (LK lost, counting below 0).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from app.rules.dice import Roller
from app.rules.ds4.combat import AttackKind, Condition, Fighter, attack
from app.rules.ds4.equipment import Weapon
from app.rules.ds4.forecast import forecast_attack
from app.rules.ds4.initiative import InitiativeCombatant, roll_initiative
from app.rules.odds import MAX_ROUNDS, DamageOdds, FightOutcome, RiskResult, damage_odds, run_trials


@dataclass(frozen=True, slots=True)
class Combatant:
    """A figure in the simulation: its state, side, Initiative and attack."""

    fighter: Fighter
    side: str
    initiative: int
    kind: AttackKind
    weapon: Weapon | None


def best_attack(fighter: Fighter) -> AttackKind:
    """The attack a figure uses: its highest attack value (Schlagen first on a tie)."""
    return max(AttackKind, key=lambda k: (fighter.attack_value(k), -list(AttackKind).index(k)))


class _Chances:
    """The exact damage odds of each attacker against each target, computed once per fight
    series (they depend only on the values and on whether the target lies prone)."""

    def __init__(self, combatants: Mapping[str, Combatant]) -> None:
        self._by_id = combatants
        self._cache: dict[tuple[str, str, bool], DamageOdds] = {}

    def odds(self, attacker: Fighter, target: Fighter) -> DamageOdds:
        key = (attacker.id, target.id, target.prone)
        found = self._cache.get(key)
        if found is None:
            me = self._by_id[attacker.id]
            healthy = replace(target, lebenskraft=1, can_defend=True)
            dist = forecast_attack(attacker, healthy, me.weapon, me.kind).damage
            found = damage_odds(dist)
            self._cache[key] = found
        return found

    def p_drop(self, attacker: Fighter, target: Fighter) -> float:
        tail, _ = self.odds(attacker, target)
        need = max(0, target.lebenskraft)
        return tail[need] if need < len(tail) else 0.0


def _standing(f: Fighter) -> bool:
    return f.condition is Condition.OK


def _target(
    chances: _Chances, fighters: dict[str, Fighter], sides: Mapping[str, str], actor: str
) -> str | None:
    me = fighters[actor]
    enemies = [f for fid, f in fighters.items() if sides[fid] != sides[actor] and _standing(f)]
    if not enemies:
        return None
    best = min(enemies, key=lambda f: (-chances.p_drop(me, f), f.lebenskraft, f.id))
    return best.id


def _over(fighters: dict[str, Fighter], sides: Mapping[str, str]) -> bool:
    return len({sides[fid] for fid, f in fighters.items() if _standing(f)}) < 2


def _order(
    roller: Roller,
    combatants: Mapping[str, Combatant],
    fighters: dict[str, Fighter],
    tiebreaks: dict[str, tuple[int, ...]],
    surprise: str | None,
    number: int,
) -> tuple[str, ...]:
    """The engine's acting order of round ``number`` (the living; Stechen kept)."""
    people = [
        InitiativeCombatant(fid, combatants[fid].initiative, combatants[fid].side)
        for fid, f in fighters.items()
        if f.condition is not Condition.DEAD
    ]
    order = roll_initiative(roller, people, tiebreaks, surprise, round=number)
    tiebreaks.update(order.tiebreaks)
    return order.ids


def _round(
    roller: Roller,
    chances: _Chances,
    combatants: Mapping[str, Combatant],
    fighters: dict[str, Fighter],
    order: Sequence[str],
) -> None:
    sides = {fid: c.side for fid, c in combatants.items()}
    for fid in order:
        me = fighters[fid]
        if not _standing(me):
            continue
        if me.prone:
            me = fighters[fid] = replace(me, prone=False)
        target = _target(chances, fighters, sides, fid)
        if target is None:
            return
        c = combatants[fid]
        out = attack(roller, me, fighters[target], c.weapon, c.kind)
        fighters[target] = out.target
        if not _standing(out.target) and _over(fighters, sides):
            return


def fight(
    roller: Roller,
    combatants: Sequence[Combatant],
    surprise: str | None = None,
    max_rounds: int = MAX_ROUNDS,
    chances: _Chances | None = None,
) -> tuple[dict[str, Fighter], int, set[str]]:
    """One fight to its end: the final fighters, the rounds played, who went down.

    The order is the engine's; once no surprise bonus counts any more it stays the same
    (the values do not change and the Stechen is kept), so it is not rolled again."""
    by_id = {c.fighter.id: c for c in combatants}
    chances = chances or _Chances(by_id)
    fighters = {fid: c.fighter for fid, c in by_id.items()}
    sides = {fid: c.side for fid, c in by_id.items()}
    tiebreaks: dict[str, tuple[int, ...]] = {}
    steady: tuple[str, ...] | None = None
    went_down: set[str] = set()
    rounds = 0
    while rounds < max_rounds and not _over(fighters, sides):
        rounds += 1
        order = steady or _order(roller, by_id, fighters, tiebreaks, surprise, rounds)
        if rounds > 1 or surprise is None:
            steady = order
        _round(roller, chances, by_id, fighters, order)
        went_down |= {fid for fid, f in fighters.items() if not _standing(f)}
    return fighters, rounds, went_down


def simulate(
    roller: Roller,
    combatants: Sequence[Combatant],
    party_side: str,
    trials: int,
    surprise: str | None = None,
    max_rounds: int = MAX_ROUNDS,
    should_stop: Callable[[], bool] = lambda: False,
) -> RiskResult:
    """Play ``trials`` fights; the risks are those of the figures on ``party_side``
    (``should_stop``: the caller's time budget, asked after every fight)."""
    start = {c.fighter.id: c.fighter.lebenskraft for c in combatants}
    chances = _Chances({c.fighter.id: c for c in combatants})

    def play() -> FightOutcome:
        final, played, went_down = fight(roller, combatants, surprise, max_rounds, chances)
        return FightOutcome(
            played,
            frozenset(went_down),
            frozenset(fid for fid, f in final.items() if f.condition is Condition.DEAD),
            {fid: start[fid] - f.lebenskraft for fid, f in final.items()},
        )

    party = [c.fighter.id for c in combatants if c.side == party_side]
    return run_trials(play, list(start), party, trials, should_stop)
