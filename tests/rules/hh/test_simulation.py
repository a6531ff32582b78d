"""The fight simulation behind the GM's risk estimate: sane extremes, a seed, convergence."""

from __future__ import annotations

import random

from app.rules.hh.attack import AttackSpec, Weapon
from app.rules.hh.simulation import Fighter, fight, simulate
from app.rules.hh.state import Figure


class SeededRoller:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def roll(self, sides: int) -> int:
        return self.rng.randint(1, sides)


def _hero(i: int) -> Fighter:
    skills = {"Kampfkunst": 14, "Unbeugsamkeit": 8, "Spürsinn": 10}
    fig = Figure(f"h{i}", f"Held {i}", "abenteurer", skills, lp=20, lp_max=20, rs=2)
    return Fighter(fig, "abenteurer", AttackSpec(weapon=Weapon(die=10, bonus=2)))


def _monster(name: str, i: int, stufe: int, lp: int, rs: int, die: int, bonus: int) -> Fighter:
    fig = Figure(f"{name}{i}", f"{name} {i}", "gegner", monsterstufe=stufe, lp=lp, lp_max=lp,
                 rs=rs)  # fmt: skip
    return Fighter(fig, "gegner", AttackSpec(weapon=Weapon(die=die, bonus=bonus)))


def test_four_heroes_against_one_rat_are_safe() -> None:
    fighters = [_hero(i) for i in range(4)] + [_monster("ratte", 1, 6, 4, 0, 4, 0)]
    result = simulate(SeededRoller(1), fighters, "abenteurer", 500)
    assert result.p_wipe.value < 0.01
    assert result.figures["ratte1"].p_down.value > 0.99


def test_one_hero_against_ten_trolls_falls() -> None:
    trolls = [_monster("troll", i, 14, 40, 4, 10, 4) for i in range(10)]
    result = simulate(SeededRoller(2), [_hero(0), *trolls], "abenteurer", 300)
    assert result.p_wipe.value > 0.95
    assert result.figures["h0"].p_down.value > 0.95


def test_a_seed_gives_the_same_result() -> None:
    fighters = [_hero(i) for i in range(2)] + [_monster("ork", i, 10, 16, 1, 10, 1)
                                                for i in range(3)]  # fmt: skip
    first = simulate(SeededRoller(7), fighters, "abenteurer", 200)
    again = simulate(SeededRoller(7), fighters, "abenteurer", 200)
    other = simulate(SeededRoller(8), fighters, "abenteurer", 200)
    assert first == again
    assert first != other


def test_standard_error_shrinks_with_the_square_root_of_the_trials() -> None:
    fighters = [_hero(i) for i in range(2)] + [_monster("ork", i, 11, 16, 1, 10, 1)
                                                for i in range(3)]  # fmt: skip
    small = simulate(SeededRoller(3), fighters, "abenteurer", 100)
    large = simulate(SeededRoller(3), fighters, "abenteurer", 1600)
    assert 0.05 < large.p_any_down.value < 0.999
    ratio = small.p_any_down.stderr / large.p_any_down.stderr
    assert 2.5 < ratio < 6  # √16 = 4, with sampling noise in p
    assert abs(small.p_any_down.value - large.p_any_down.value) < 4 * small.p_any_down.stderr


def test_a_fight_ends_when_one_side_stands_no_more() -> None:
    fighters = [_hero(0), _monster("ratte", 1, 6, 4, 0, 4, 0)]
    final, rounds, went_down = fight(SeededRoller(5), fighters)
    standing = [f for f in final.values() if f.lp > 0 and f.can_act]
    assert {f.id for f in standing} in ({"h0"}, {"ratte1"}) and rounds >= 1
    assert went_down == {f.id for f in final.values() if f.lp <= 0 or f.dead}
