"""Benchmark: the exact H&H attack forecast against one real attack resolution.

Run from the repository root: ``.venv/bin/python bench/forecast_hh.py``. Prints a Markdown
table; the figures in ``bench/forecast_hh.md`` came from this command.

The forecast enumerates every outcome of the attack; a real attack rolls one. Their ratio,
measured in the same run, is the figure to compare across machines (the VM's speed varies);
the absolute time is printed beside it for the ≤ 5 ms goal of issue 18. "cold" clears the
forecast's caches before each call (a new pair of values), "warm" repeats the same call.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from app.rules.dice import SecureRoller
from app.rules.hh import forecast
from app.rules.hh.attack import AttackSpec, Weapon, resolve_attack
from app.rules.hh.state import Figure

ATTACKER = Figure("a", "Alrik", skills={"Kampfkunst": 15})
DEFENDER = Figure(
    "t", "Troll", skills={"Kampfkunst": 12, "Unbeugsamkeit": 8}, lp=14, lp_max=30, rs=2,
    reactions_left=2,
)  # fmt: skip
SPEC = AttackSpec(weapon=Weapon("Langschwert", die=10, bonus=2))


def _clear_caches() -> None:
    for cached in (forecast._probe_classes, forecast._table_dist, forecast._dice_sum):
        cached.cache_clear()


def _time(call: Callable[[], object], repeat: int, before: Callable[[], None] | None) -> float:
    """Median seconds per call over ``repeat`` calls (CPU time of this process)."""
    samples = []
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.process_time()
        call()
        samples.append(time.process_time() - start)
    return statistics.median(samples)


def main() -> None:
    roller = SecureRoller()
    attack = _time(lambda: resolve_attack(roller, ATTACKER, DEFENDER, spec=SPEC), 2000, None)
    cold = _time(lambda: forecast.forecast_attack(ATTACKER, DEFENDER, SPEC), 30, _clear_caches)
    warm = _time(lambda: forecast.forecast_attack(ATTACKER, DEFENDER, SPEC), 30, None)
    print("| measurement | median CPU time | ratio to one attack |")
    print("|---|---|---|")
    print(f"| resolve_attack (one real attack, baseline) | {attack * 1e6:.1f} µs | 1.0 |")
    print(f"| forecast_attack, cold caches | {cold * 1e3:.2f} ms | {cold / attack:.0f}× |")
    print(f"| forecast_attack, warm caches | {warm * 1e3:.2f} ms | {warm / attack:.0f}× |")


if __name__ == "__main__":
    main()
