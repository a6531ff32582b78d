"""The DS4 attack forecast equals the real engine over every dice sequence."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.rules.ds4 import WAFFENLOS, AttackKind, AttackModifiers, Fighter, attack, weapon
from app.rules.ds4.equipment import Weapon
from app.rules.ds4.forecast import forecast_attack
from tests.rules.forecast_reference import every_outcome

ORK = Fighter("ork", lebenskraft=7, koerper=5, abwehr=15, schlagen=10)


def _reference(
    attacker: Fighter,
    target: Fighter,
    arm: Weapon | None,
    kind: AttackKind,
    mods: AttackModifiers | None = None,
) -> dict[str, Fraction]:
    out = dict.fromkeys(("hit", "crit", "fumble", "down", "dead", "mean"), Fraction(0))
    for result, p in every_outcome(lambda r: attack(r, attacker, target, arm, kind, mods)):
        out["hit"] += p if result.hit else 0
        out["crit"] += p if result.hit and result.attack.immersieg else 0
        out["fumble"] += p if result.attack.patzer else 0
        out["down"] += p if result.target_unconscious or result.target_dead else 0
        out["dead"] += p if result.target_dead else 0
        out["mean"] += p * result.damage
    return out


CASES = [
    pytest.param(Fighter("g", 20, 8, 12, schlagen=12), weapon("axt"), AttackKind.SCHLAGEN, None,
                 id="seed-gruffneck"),
    pytest.param(Fighter("g", 20, 8, 12, schlagen=23), None, AttackKind.SCHLAGEN, None,
                 id="pw-above-20-unarmed"),
    pytest.param(Fighter("m", 10, 3, 4, zielzauber=14), weapon("kampfstab"),
                 AttackKind.ZIELZAUBER, AttackModifiers(distance_m=25), id="zielzauber-range"),
    pytest.param(Fighter("s", 10, 3, 4, schiessen=11, prone=True), WAFFENLOS,
                 AttackKind.SCHIESSEN, AttackModifiers(abwehr_extra=(("x", -3),)), id="prone"),
]  # fmt: skip


@pytest.mark.parametrize(("attacker", "arm", "kind", "mods"), CASES)
def test_forecast_equals_the_engine_over_every_dice_sequence(
    attacker: Fighter, arm: Weapon | None, kind: AttackKind, mods: AttackModifiers | None
) -> None:
    got = forecast_attack(attacker, ORK, arm, kind, mods)
    ref = _reference(attacker, ORK, arm, kind, mods)
    assert sum(got.damage.values()) == 1
    assert (got.p_hit, got.p_crit, got.p_fumble) == (ref["hit"], ref["crit"], ref["fumble"])
    assert (got.p_down, got.p_dead) == (ref["down"], ref["dead"])
    assert got.expected_damage == ref["mean"]


def test_helpless_target_rolls_no_abwehr() -> None:
    helpless = Fighter("ork", lebenskraft=7, koerper=5, abwehr=15, can_defend=False)
    attacker = Fighter("g", 20, 8, 12, schlagen=12)
    got = forecast_attack(attacker, helpless, weapon("axt"), AttackKind.SCHLAGEN)
    assert not got.defends
    # Every success deals its result: faces 1..11 (face 1 is an Immersieg worth 12).
    assert got.expected_damage == Fraction(12 + sum(range(2, 13)), 20)
