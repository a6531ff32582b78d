"""The attack forecast equals the distribution of the real engine over every dice sequence.

The reference walks :func:`resolve_attack` itself over every dice sequence
(:mod:`tests.rules.forecast_reference`).
"""

from __future__ import annotations

import itertools
import math
import random
import time
from fractions import Fraction
from typing import Any

import pytest

from app.rules.hh.attack import AttackSpec, Weapon, resolve_attack
from app.rules.hh.forecast import forecast_attack
from app.rules.hh.state import Figure
from app.rules.odds import ActionForecast
from tests.rules.forecast_reference import every_outcome


def _reference(attacker: Figure, defender: Figure, spec: AttackSpec) -> ActionForecast:
    damage: dict[int, Fraction] = {}
    p_hit = p_crit = p_fumble = p_down = p_dead = Fraction(0)
    outcomes = every_outcome(lambda roller: resolve_attack(roller, attacker, defender, spec=spec))
    for result, p in outcomes:
        after = result.defender
        lost = defender.lp - after.lp
        damage[lost] = damage.get(lost, Fraction(0)) + p
        p_hit += p if result.hit else 0
        p_crit += p if result.hit and result.attack.volltreffer else 0
        p_fumble += p if result.attack.patzer else 0
        p_dead += p if after.dead else 0
        p_down += p if after.dead or (after.lp <= 0 and not after.on_feet) else 0
    return ActionForecast(
        defends=spec.defend and defender.can_react,
        p_hit=p_hit,
        p_crit=p_crit,
        p_fumble=p_fumble,
        damage=dict(sorted(damage.items())),
        p_down=p_down,
        p_dead=p_dead,
    )


def _fighter(name: str, kampfkunst: int, *, unb: int = 6, **values: Any) -> Figure:
    skills = {"Kampfkunst": kampfkunst, "Unbeugsamkeit": unb}
    return Figure(name, name, skills=skills, **values)


CASES = [
    # (attacker Kampfkunst, defender LP, RS, weapon) against a defender without a reaction:
    # every dice sequence (attack, crit and fumble tables, damage dice) is walked.
    pytest.param(12, 6, 0, Weapon(die=2, bonus=1), id="w2"),
    pytest.param(15, 3, 2, Weapon(die=2, bonus=2, kind="brechend"), id="brechend"),
]


@pytest.mark.parametrize(("att", "lp", "rs", "weapon"), CASES)
def test_forecast_equals_the_engine_over_every_dice_sequence(
    att: int, lp: int, rs: int, weapon: Weapon
) -> None:
    attacker = _fighter("a", att)
    defender = _fighter("d", 10, lp=lp, lp_max=10, rs=rs, reactions_left=0, unb=2)
    spec = AttackSpec(weapon=weapon)
    expected = _reference(attacker, defender, spec)
    got = forecast_attack(attacker, defender, spec)
    assert got == expected
    assert sum(got.damage.values()) == 1


class _FacesThenOnes:
    """Given faces first, then 1 for every further die (hit and crit are decided by then)."""

    def __init__(self, faces: tuple[int, ...]) -> None:
        self.faces = list(faces)

    def roll(self, sides: int) -> int:
        return self.faces.pop(0) if self.faces else 1


@pytest.mark.parametrize(("att", "dfn"), [(12, 10), (16, 15), (9, 14), (18, 4)])
def test_hit_and_crit_equal_the_engine_over_all_face_pairs_of_attack_and_defence(
    att: int, dfn: int
) -> None:
    attacker = _fighter("a", att)
    defender = _fighter("d", dfn, lp=50, lp_max=50, reactions_left=1)
    hit = crit = 0
    for faces in itertools.product(range(1, 11), repeat=4):
        result = resolve_attack(_FacesThenOnes(faces), attacker, defender)
        hit += result.hit
        crit += result.hit and result.attack.volltreffer
    got = forecast_attack(attacker, defender, AttackSpec())
    assert got.defends
    assert (got.p_hit, got.p_crit) == (Fraction(hit, 10_000), Fraction(crit, 10_000))


SAMPLED = [
    pytest.param(15, 13, 12, 2, Weapon(die=10, bonus=1), {}, id="w10-rs2"),
    pytest.param(
        14, 12, 9, 3, Weapon(die=10, damage_type="Feuer"), {"feuer": "resistant"}, id="fire"
    ),
    pytest.param(16, 10, 15, 1, Weapon(die=8, kind="direkt"), {}, id="direkt"),
]


@pytest.mark.parametrize(("att", "dfn", "lp", "rs", "weapon", "resist"), SAMPLED)
def test_forecast_agrees_with_many_seeded_engine_attacks(
    att: int, dfn: int, lp: int, rs: int, weapon: Weapon, resist: dict[str, str]
) -> None:
    """Realistic values (W10, crit tables, elements): the exact forecast against 10,000
    real attacks with a fixed seed (deterministic), within five standard errors."""
    attacker = _fighter("a", att)
    defender = _fighter(
        "d", dfn, lp=lp, lp_max=20, rs=rs, reactions_left=1, resistances=resist, unb=5
    )
    spec = AttackSpec(weapon=weapon)
    got = forecast_attack(attacker, defender, spec)
    rng = random.Random(1234)
    roller = _SeededRoller(rng)
    n = 10_000
    results = [resolve_attack(roller, attacker, defender, spec=spec) for _ in range(n)]
    observed = {
        "hit": sum(r.hit for r in results) / n,
        "crit": sum(r.hit and r.attack.volltreffer for r in results) / n,
        "down": sum(r.defender.dead or r.defender.lp <= 0 for r in results) / n,
        "dead": sum(r.defender.dead for r in results) / n,
    }
    exact = {"hit": got.p_hit, "crit": got.p_crit, "down": got.p_down, "dead": got.p_dead}
    for key, p in exact.items():
        se = math.sqrt(float(p) * (1 - float(p)) / n) or 1 / n
        assert abs(observed[key] - float(p)) <= 5 * se, (key, observed[key], float(p))
    mean = sum(defender.lp - r.defender.lp for r in results) / n
    assert abs(mean - float(got.expected_damage)) < 0.25


class _SeededRoller:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def roll(self, sides: int) -> int:
        return self.rng.randint(1, sides)


def test_down_and_dead_follow_the_damage_distribution() -> None:
    attacker = _fighter("a", 14)
    defender = _fighter("d", 10, lp=7, lp_max=14, rs=1, reactions_left=1, unb=4)
    got = forecast_attack(attacker, defender, AttackSpec())
    assert got.p_down == sum(p for lost, p in got.damage.items() if lost >= 7)
    assert got.p_dead == sum(p for lost, p in got.damage.items() if 7 - lost <= -4)
    assert 0 < got.p_dead < got.p_down < got.p_hit < 1
    assert got.expected_damage == sum(v * p for v, p in got.damage.items())


def test_no_reaction_left_means_no_defence() -> None:
    attacker = _fighter("a", 12)
    ready = _fighter("d", 12, reactions_left=1)
    spent = _fighter("d", 12, reactions_left=0)
    assert forecast_attack(attacker, ready, AttackSpec()).defends
    undefended = forecast_attack(attacker, spent, AttackSpec())
    assert not undefended.defends
    assert undefended.p_hit > forecast_attack(attacker, ready, AttackSpec()).p_hit
    # Undefended, the hit chance is the chance of the attack Probe alone (2W10 ≤ 12).
    successes = sum(1 for a in range(1, 11) for b in range(1, 11) if a + b <= 12)
    assert undefended.p_hit == Fraction(successes, 100)


def test_forecast_is_fast_enough_to_follow_every_change() -> None:
    """Not a timed assertion of the target (see bench/): a guard against a blow-up."""
    attacker = _fighter("a", 15)
    defender = _fighter("d", 13, lp=20, lp_max=20, rs=2, reactions_left=2)
    start = time.process_time()
    forecast_attack(attacker, defender, AttackSpec(weapon=Weapon(die=10, bonus=2)))
    assert time.process_time() - start < 2.0
