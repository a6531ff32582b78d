"""The PF2e fight simulation behind the GM's risk estimate: extremes, a seed, convergence,
the Strike policy with MAP; and the XP budget beside it."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from app.rules.expression import parse
from app.rules.pf2e import budget, simulation
from app.rules.pf2e.attacks import StrikeResult
from app.rules.pf2e.attacks import strike as real_strike
from app.rules.pf2e.degrees import Degree, degree_of_success
from app.rules.pf2e.modifiers import Modifier
from app.rules.pf2e.simulation import Combatant, StrikeOption, fight, simulate
from app.rules.pf2e.statistics import Statistic


class SeededRoller:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.faces: list[tuple[int, int]] = []

    def roll(self, sides: int) -> int:
        face = self.rng.randint(1, sides)
        self.faces.append((sides, face))
        return face


def _stat(name: str, value: int) -> Statistic:
    return Statistic(name, (Modifier("Werteblock", "untyped", value),))


def _figure(
    fid: str, side: str, hp: int, ac: int, bonus: int, damage: str, *, npc: bool,
    agile: bool = False,
) -> Combatant:  # fmt: skip
    strike = StrikeOption(_stat("Schwert", bonus), parse(damage), agile)
    return Combatant(fid, side, hp, ac, _stat("Wahrnehmung", 6), (strike,), npc)


def _hero(i: int) -> Combatant:
    return _figure(f"h{i}", "abenteurer", 20, 18, 9, "1W8+4", npc=False)


def _goblins(n: int) -> list[Combatant]:
    return [_figure(f"g{i}", "gegner", 12, 16, 8, "1W6+2", npc=True) for i in range(n)]


def test_four_heroes_against_one_rat_are_safe() -> None:
    rat = _figure("ratte", "gegner", 6, 14, 5, "1W4", npc=True)
    result = simulate(SeededRoller(1), [*(_hero(i) for i in range(4)), rat], "abenteurer", 500)
    assert result.p_wipe.value < 0.01
    assert result.figures["ratte"].p_dead.value > 0.99


def test_one_hero_against_ten_trolls_falls() -> None:
    trolls = [_figure(f"t{i}", "gegner", 115, 20, 17, "2W10+7", npc=True) for i in range(10)]
    result = simulate(SeededRoller(2), [_hero(0), *trolls], "abenteurer", 300)
    assert result.p_wipe.value > 0.95
    assert result.figures["h0"].p_down.value > 0.95
    # A player character at 0 TP is Sterbend; nobody finishes it off, but nobody heals it.
    assert 0 < result.p_any_dead.value < result.p_any_down.value


def test_a_seed_gives_the_same_result() -> None:
    fighters = [_hero(0), _hero(1), *_goblins(4)]
    first = simulate(SeededRoller(7), fighters, "abenteurer", 200)
    again = simulate(SeededRoller(7), fighters, "abenteurer", 200)
    other = simulate(SeededRoller(8), fighters, "abenteurer", 200)
    assert first == again
    assert first != other


def test_standard_error_shrinks_with_the_square_root_of_the_trials() -> None:
    fighters = [_hero(0), _hero(1), *_goblins(4)]
    small = simulate(SeededRoller(3), fighters, "abenteurer", 100)
    large = simulate(SeededRoller(3), fighters, "abenteurer", 1600)
    assert 0.05 < large.p_any_down.value < 0.95
    ratio = small.p_any_down.stderr / large.p_any_down.stderr
    assert 2.5 < ratio < 6  # √16 = 4, with sampling noise in p
    assert abs(small.p_any_down.value - large.p_any_down.value) < 4 * small.p_any_down.stderr


def test_three_strikes_a_turn_with_the_multiple_attack_penalty(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each figure strikes three times a turn, as the 1st, 2nd and 3rd attack (MAP)."""
    numbers: list[tuple[int, bool]] = []

    def recording(*args: Any, **kwargs: Any) -> StrikeResult:
        numbers.append((kwargs["attack_number"], kwargs["agile"]))
        return real_strike(*args, **kwargs)

    monkeypatch.setattr(simulation, "strike", recording)
    hero = _figure("h", "abenteurer", 20, 18, 9, "1W4", npc=False, agile=True)
    wall = _figure("w", "gegner", 500, 19, 5, "1W4", npc=True)
    end = fight(SeededRoller(1), [hero, wall], max_rounds=2)
    assert end.rounds == 2 and end.hp["w"] < 500
    turns = [numbers[i : i + 3] for i in range(0, len(numbers), 3)]
    assert len(turns) == 4
    assert all([n for n, _ in t] == [1, 2, 3] and len({a for _, a in t}) == 1 for t in turns)
    assert sorted(t[0][1] for t in turns) == [False, False, True, True]


def test_the_policy_takes_the_enemy_it_can_drop(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fewest TP behind an RK it can hardly hit is not the likeliest drop."""
    armour: list[int] = []

    def recording(roller: Any, attack: Statistic, ac: int, *args: Any, **kw: Any) -> StrikeResult:
        armour.append(ac)
        return real_strike(roller, attack, ac, *args, **kw)

    monkeypatch.setattr(simulation, "strike", recording)
    hero = Combatant(
        "h",
        "abenteurer",
        20,
        18,
        _stat("W", 40),
        _figure("h", "abenteurer", 20, 18, 5, "2W6+6", npc=False).strikes,
        False,
    )
    open_ = _figure("a", "gegner", 8, 10, 0, "1W4", npc=True)
    armoured = _figure("b", "gegner", 3, 30, 0, "1W4", npc=True)
    fight(SeededRoller(4), [hero, open_, armoured], max_rounds=1)
    assert armour[0] == 10


def _death_by_recovery(dying: int) -> float:
    """The exact chance that Genesungswürfe alone (SG 10 + Sterbend, no healing) take a
    character from Sterbend ``dying`` (Verwundet 0) to Sterbend 4: a Markov chain."""
    step = {
        Degree.CRITICAL_SUCCESS: -2, Degree.SUCCESS: -1, Degree.FAILURE: 1,
        Degree.CRITICAL_FAILURE: 2,
    }  # fmt: skip
    dead = {d: 1.0 if d >= 4 else 0.0 for d in range(0, 7)}
    for _ in range(500):
        for d in (1, 2, 3):
            faces = [degree_of_success(n, 0, 10 + d) for n in range(1, 21)]
            dead[d] = sum(dead[max(d + step[f], 0)] for f in faces) / 20
    return dead[dying]


def _ogre() -> Combatant:
    return _figure("oger", "gegner", 300, 30, 20, "3W10+12", npc=True)


def test_a_hero_against_an_ogre_dies_by_the_recovery_checks() -> None:
    """Level 1 against a monster it cannot hurt: it always goes down (Sterbend 1, or 2 after
    a Kritischer Treffer); then only its Genesungswürfe decide, nobody strikes it again."""
    result = simulate(SeededRoller(5), [_hero(0), _ogre()], "abenteurer", 2000)
    low, high = _death_by_recovery(1), _death_by_recovery(2)
    assert 0.1 < low < high < 0.9
    assert result.figures["h0"].p_down.value == 1
    dead = result.figures["h0"].p_dead
    assert low - 4 * dead.stderr < dead.value < high + 4 * dead.stderr
    assert result.p_any_dead == dead


def test_monsters_that_finish_off_kill_every_hero_they_drop() -> None:
    fighters = [_hero(0), _hero(1), _ogre()]
    kind = simulate(SeededRoller(6), fighters, "abenteurer", 300)
    cruel = simulate(SeededRoller(6), fighters, "abenteurer", 300, finish_off=True)
    assert kind.p_wipe.value == cruel.p_wipe.value == 1
    assert kind.figures["h0"].p_dead.value < 0.9
    assert cruel.figures["h0"].p_dead.value == cruel.figures["h1"].p_dead.value == 1


def test_doomed_and_wounded_count_from_the_sheet() -> None:
    """Todgeweiht 3: dead at Sterbend 1, so every fall kills; Verwundet 2: Sterbend 3 or 4."""
    base = _hero(0)
    doomed, wounded = replace(base, doomed=3), replace(base, wounded=2)
    assert simulate(SeededRoller(9), [doomed, _ogre()], "abenteurer", 200).p_any_dead.value == 1
    hurt = simulate(SeededRoller(9), [wounded, _ogre()], "abenteurer", 2000).p_any_dead
    # Sterbend 3 after a Treffer, 4 (dead) after a Kritischer Treffer: at least the chain's 3.
    assert _death_by_recovery(3) - 4 * hurt.stderr < hurt.value < 1
    end = fight(SeededRoller(9), [doomed, _ogre()])
    assert end.dead == {"h0"} and end.dying["h0"].dying in (1, 2)


def test_the_death_risk_converges() -> None:
    fighters = [_hero(0), _hero(1), *_goblins(5)]
    small = simulate(SeededRoller(10), fighters, "abenteurer", 200)
    large = simulate(SeededRoller(10), fighters, "abenteurer", 3200)
    assert 0.02 < large.p_any_dead.value < 0.9
    ratio = small.p_any_dead.stderr / large.p_any_dead.stderr
    assert 2.5 < ratio < 6
    assert abs(small.p_any_dead.value - large.p_any_dead.value) < 4 * small.p_any_dead.stderr
    assert simulate(SeededRoller(10), fighters, "abenteurer", 200) == small


@pytest.mark.parametrize(
    ("party", "creatures", "xp", "rating"),
    [
        ([1, 1, 1, 1], [1], 40, "trivial"),
        ([1, 1, 1, 1], [0, 0], 60, "low"),
        ([3, 3, 3, 3], [3, 1, 1], 80, "moderate"),  # 40 + 20 + 20
        ([5, 5, 5, 5], [8], 120, "severe"),
        ([5, 5, 5, 5], [9], 160, "extreme"),
        ([5, 5, 5, 5], [10, 11], 560, "extreme"),  # +5: 240, +6: 320
        ([5, 5, 5, 5], [0, 5], 40, "trivial"),  # −5: no XP
        ([2, 2, 2], [2, 2], 80, "moderate"),  # three characters: 30, 45, 60, 90, 120
        ([1, 1, 2, 2, 2], [2], 40, "trivial"),  # party level 1.6 → 2
    ],
)
def test_xp_budget(party: list[int], creatures: list[int], xp: int, rating: str) -> None:
    out = budget.rate(party, creatures)
    assert (out.xp, out.rating, out.party_size) == (xp, rating, len(party))


def test_xp_budget_table() -> None:
    assert [budget.creature_xp(d) for d in range(-5, 9)] == [
        0, 10, 15, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640,
    ]  # fmt: skip
    assert budget.budgets(4) == {
        "trivial": 40, "low": 60, "moderate": 80, "severe": 120, "extreme": 160,
    }  # fmt: skip
    assert budget.budgets(6)["moderate"] == 120 and budget.budgets(3)["severe"] == 90
