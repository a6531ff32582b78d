"""Benchmark of the H&H core rules engine (plain timing script, not a test).

Run: .venv/bin/python bench/rules_hh.py
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable

from app.rules.dice import SecureRoller
from app.rules.hh import AttackSpec, Figure, Weapon, probability_table, resolve_attack
from app.rules.hh.probe import _odds_for_target


class CyclingRoller:
    """Deterministic faces, repeated: attack 3+3 (Volltreffer), defence 4+5 (success),
    table 2W10 = 5+4, damage dice."""

    def __init__(self, faces: list[int]) -> None:
        self._it = itertools.cycle(faces)

    def roll(self, sides: int) -> int:
        return next(self._it)


ATTACKER = Figure("a", skills={"Kampfkunst": 16, "Unbeugsamkeit": 10}, be=1)
DEFENDER = Figure(
    "d", skills={"Kampfkunst": 12, "Unbeugsamkeit": 10}, rs=2, reactions_left=2, lp=40, lp_max=40
)
SPEC = AttackSpec(weapon=Weapon(bonus=1))
# attack 3+3 = 6 VT (target 15 → QS 3); defence 1+2 = 3 → attacker wins, qs(3) = 1 → VT best
# QS 3; table 2W10 − 3 = 5+4−3 = 6 → Kopftreffer (+1 die, «verwirrt»): 4 damage dice.
FACES = [3, 3, 1, 2, 5, 4, 7, 5, 6, 2]


def per_call(
    fn: Callable[[], object], n: int, clock: Callable[[], float] = time.perf_counter
) -> float:
    """Best of 5 runs of ``n`` calls, seconds per call."""
    best = float("inf")
    for _ in range(5):
        t0 = clock()
        for _ in range(n):
            fn()
        best = min(best, (clock() - t0) / n)
    return best


def main() -> None:
    roller = CyclingRoller(FACES)
    check = resolve_attack(roller, ATTACKER, DEFENDER, spec=SPEC)
    assert check.hit and check.tables and check.tables[0].entry.key == "kopftreffer"
    assert check.defence is not None and check.damage > 0

    n = 20_000
    t_attack = per_call(lambda: resolve_attack(roller, ATTACKER, DEFENDER, spec=SPEC), n)
    t_attack_cpu = per_call(
        lambda: resolve_attack(roller, ATTACKER, DEFENDER, spec=SPEC), n, time.process_time
    )
    secure = SecureRoller()
    t_secure = per_call(lambda: resolve_attack(secure, ATTACKER, DEFENDER, spec=SPEC), n)

    def cold_table() -> object:
        _odds_for_target.cache_clear()
        return probability_table(range(2, 31))

    t_cold = per_call(cold_table, 2_000)
    t_warm = per_call(lambda: probability_table(range(2, 31)), 20_000)

    print(f"resolve_attack (VT + defence + crit table + 4 damage dice): {t_attack * 1e6:.1f} µs")
    print(f"  same, CPU time of this process (process_time):          {t_attack_cpu * 1e6:.1f} µs")
    print(f"resolve_attack with SecureRoller (random path):           {t_secure * 1e6:.1f} µs")
    print(f"probability_table(2..30), cold cache:                      {t_cold * 1e3:.3f} ms")
    print(f"probability_table(2..30), warm cache:                      {t_warm * 1e3:.4f} ms")
    t0 = time.perf_counter()
    for _ in range(100_000):
        sum(range(100))
    ref = (time.perf_counter() - t0) / 100_000
    print(f"machine reference: sum(range(100)) =                       {ref * 1e6:.2f} µs")


if __name__ == "__main__":
    main()
