"""The DS4 fight simulation behind the GM's risk estimate: extremes, a seed, convergence."""

from __future__ import annotations

import random
from typing import Any

import pytest

from app.rules.ds4 import simulation
from app.rules.ds4.combat import AttackKind, AttackOutcome, Condition, Fighter
from app.rules.ds4.combat import attack as real_attack
from app.rules.ds4.equipment import Weapon
from app.rules.ds4.simulation import Combatant, best_attack, fight, simulate


class SeededRoller:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def roll(self, sides: int) -> int:
        return self.rng.randint(1, sides)


def _hero(i: int) -> Combatant:
    f = Fighter(f"h{i}", lebenskraft=20, koerper=8, abwehr=8, schlagen=12)
    return Combatant(f, "abenteurer", 8, AttackKind.SCHLAGEN, Weapon("langschwert", wb=2))


def _monster(name: str, i: int, lk: int, koerper: int, abwehr: int, schlagen: int) -> Combatant:
    f = Fighter(f"{name}{i}", lebenskraft=lk, koerper=koerper, abwehr=abwehr, schlagen=schlagen)
    return Combatant(f, "gegner", 6, AttackKind.SCHLAGEN, None)


def _orcs(n: int) -> list[Combatant]:
    return [_monster("ork", i, 15, 8, 9, 12) for i in range(n)]


def test_four_heroes_against_one_rat_are_safe() -> None:
    fighters = [_hero(i) for i in range(4)] + [_monster("ratte", 1, 4, 2, 2, 5)]
    result = simulate(SeededRoller(1), fighters, "abenteurer", 500)
    assert result.p_wipe.value < 0.01
    assert result.figures["ratte1"].p_down.value > 0.99


def test_one_hero_against_ten_trolls_falls() -> None:
    trolls = [_monster("troll", i, 60, 14, 14, 20) for i in range(10)]
    result = simulate(SeededRoller(2), [_hero(0), *trolls], "abenteurer", 300)
    assert result.p_wipe.value > 0.95
    assert result.figures["h0"].p_down.value > 0.95
    assert result.figures["h0"].expected_damage.value >= 20


def test_a_seed_gives_the_same_result() -> None:
    fighters = [_hero(i) for i in range(2)] + _orcs(3)
    first = simulate(SeededRoller(7), fighters, "abenteurer", 200)
    again = simulate(SeededRoller(7), fighters, "abenteurer", 200)
    other = simulate(SeededRoller(8), fighters, "abenteurer", 200)
    assert first == again
    assert first != other


def test_standard_error_shrinks_with_the_square_root_of_the_trials() -> None:
    fighters = [_hero(i) for i in range(2)] + _orcs(3)
    small = simulate(SeededRoller(3), fighters, "abenteurer", 100)
    large = simulate(SeededRoller(3), fighters, "abenteurer", 1600)
    assert 0.05 < large.p_any_down.value < 0.95
    ratio = small.p_any_down.stderr / large.p_any_down.stderr
    assert 2.5 < ratio < 6  # √16 = 4, with sampling noise in p
    assert abs(small.p_any_down.value - large.p_any_down.value) < 4 * small.p_any_down.stderr


def test_a_fight_ends_when_one_side_stands_no_more() -> None:
    fighters = [_hero(0), *_orcs(1)]
    final, rounds, went_down = fight(SeededRoller(5), fighters)
    standing = {f.id for f in final.values() if f.condition is Condition.OK}
    assert standing in ({"h0"}, {"ork0"}) and rounds >= 1
    assert went_down == {f.id for f in final.values() if f.condition is not Condition.OK}


def test_a_time_budget_stops_early_with_what_was_played() -> None:
    fighters = [_hero(0), *_orcs(1)]
    result = simulate(SeededRoller(4), fighters, "abenteurer", 1000, should_stop=lambda: True)
    assert result.trials == 2


def test_each_figure_uses_its_best_attack() -> None:
    archer = Fighter("a", lebenskraft=10, koerper=5, abwehr=5, schlagen=6, schiessen=11)
    mage = Fighter("m", lebenskraft=10, koerper=5, abwehr=5, schlagen=4, zielzauber=9)
    even = Fighter("e", lebenskraft=10, koerper=5, abwehr=5, schlagen=7, schiessen=7)
    assert best_attack(archer) is AttackKind.SCHIESSEN
    assert best_attack(mage) is AttackKind.ZIELZAUBER
    assert best_attack(even) is AttackKind.SCHLAGEN


def test_the_surprising_side_acts_first_in_round_one_only(monkeypatch: pytest.MonkeyPatch) -> None:
    attackers: list[str] = []

    def recording(roller: Any, attacker: Fighter, *args: Any, **kwargs: Any) -> AttackOutcome:
        attackers.append(attacker.id)
        return real_attack(roller, attacker, *args, **kwargs)

    monkeypatch.setattr(simulation, "attack", recording)
    slow = Combatant(Fighter("h", lebenskraft=99, koerper=8, abwehr=30, schlagen=1),
                     "abenteurer", 1, AttackKind.SCHLAGEN, None)  # fmt: skip
    fast = Combatant(Fighter("o", lebenskraft=99, koerper=8, abwehr=30, schlagen=1),
                     "gegner", 5, AttackKind.SCHLAGEN, None)  # fmt: skip
    fight(SeededRoller(1), [slow, fast], surprise="abenteurer", max_rounds=3)
    assert attackers == ["h", "o", "o", "h", "o", "h"]  # 1 + 10 > 5 in round 1, then 5 > 1


def test_each_figure_attacks_the_enemy_it_is_most_likely_to_drop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    targets: list[str] = []

    def recording(roller: Any, attacker: Fighter, target: Fighter, *a: Any) -> AttackOutcome:
        targets.append(target.id)
        return real_attack(roller, attacker, target, *a)

    monkeypatch.setattr(simulation, "attack", recording)
    hero = Combatant(Fighter("h", lebenskraft=30, koerper=8, abwehr=8, schlagen=14),
                     "abenteurer", 10, AttackKind.SCHLAGEN, None)  # fmt: skip
    # Fewer LK behind a strong Abwehr is the harder one to drop: the forecast decides.
    open_ = _monster("a", 0, 6, 8, 2, 0)
    armoured = _monster("b", 0, 4, 8, 20, 0)
    fight(SeededRoller(3), [hero, open_, armoured], max_rounds=1)
    assert targets[0] == "a0"
