"""Benchmark: the H&H risk estimate, 2,000 fights of four heroes against four orcs.

Run from the repository root: ``.venv/bin/python bench/risk_hh.py``. Prints a Markdown table;
the figures in ``bench/forecast_hh.md`` came from this command. The baseline, measured in the
same run, is 2,000 × (the fight's number of attacks) single ``resolve_attack`` calls: the
ratio says what the simulation costs beyond the attacks themselves.
"""

from __future__ import annotations

import random
import time

from app.rules.hh.attack import AttackSpec, Weapon, resolve_attack
from app.rules.hh.simulation import Fighter, simulate
from app.rules.hh.state import Figure

TRIALS = 2000


class SeededRoller:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.calls = 0

    def roll(self, sides: int) -> int:
        self.calls += 1
        return self.rng.randint(1, sides)


def _fighters() -> list[Fighter]:
    heroes = [
        Fighter(
            Figure(f"h{i}", f"Held {i}", "abenteurer",
                   {"Kampfkunst": 14, "Unbeugsamkeit": 8, "Spürsinn": 10}, lp=20, lp_max=20,
                   rs=2),
            "abenteurer", AttackSpec(weapon=Weapon(die=10, bonus=2)),
        )
        for i in range(4)
    ]  # fmt: skip
    orcs = [
        Fighter(Figure(f"o{i}", f"Ork {i}", "gegner", monsterstufe=11, lp=18, lp_max=18, rs=1),
                "gegner", AttackSpec(weapon=Weapon(die=10, bonus=1)))
        for i in range(4)
    ]  # fmt: skip
    return heroes + orcs


def main() -> None:
    fighters = _fighters()
    roller = SeededRoller(1)
    start = time.process_time()
    result = simulate(roller, fighters, "abenteurer", TRIALS)
    sim = time.process_time() - start
    attacks = round(result.rounds_mean.value * 8 * TRIALS)  # about one attack per figure-round
    base_roller = SeededRoller(2)
    a, t = fighters[0].figure, fighters[4].figure
    start = time.process_time()
    for _ in range(attacks):
        resolve_attack(base_roller, a, t, spec=fighters[0].attack)
    base = time.process_time() - start
    print("| measurement | CPU time | ratio |")
    print("|---|---|---|")
    print(f"| {attacks} single attacks (baseline) | {base:.2f} s | 1.0 |")
    print(f"| simulate: {TRIALS} fights, 4 heroes vs 4 orcs | {sim:.2f} s | {sim / base:.2f}× |")
    print(
        f"\np_any_down {result.p_any_down.value:.3f} ± {result.p_any_down.stderr:.3f}, "
        f"p_wipe {result.p_wipe.value:.3f}, rounds {result.rounds_mean.value:.1f} "
        f"(p90 {result.rounds_p90})"
    )


if __name__ == "__main__":
    main()
