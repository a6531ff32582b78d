"""Benchmark: the DS4 and PF2e risk estimates, 2,000 fights of four heroes against four orcs.

Run from the repository root: ``.venv/bin/python bench/risk_ds4_pf2e.py``. Prints a Markdown
table; the figures in ``bench/forecast_hh.md`` came from this command. The baseline of each
system, measured in the same run, is as many single engine attacks (DS4 ``attack`` with its
Abwehr, PF2e ``strike``) as the fights made: the ratio says what the simulation costs
beyond the attacks themselves (initiative, targets, the policy's forecasts).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from app.rules.ds4 import simulation as ds4_simulation
from app.rules.ds4.combat import AttackKind, Fighter, attack
from app.rules.ds4.equipment import Weapon
from app.rules.ds4.simulation import Combatant as Ds4Combatant
from app.rules.ds4.simulation import simulate as ds4_simulate
from app.rules.expression import parse
from app.rules.odds import RiskResult
from app.rules.pf2e import simulation as pf2e_simulation
from app.rules.pf2e.attacks import strike
from app.rules.pf2e.modifiers import Modifier
from app.rules.pf2e.simulation import Combatant as Pf2eCombatant
from app.rules.pf2e.simulation import StrikeOption
from app.rules.pf2e.simulation import simulate as pf2e_simulate
from app.rules.pf2e.statistics import Statistic

TRIALS = 2000


class SeededRoller:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def roll(self, sides: int) -> int:
        return self.rng.randint(1, sides)


def _count_attacks(module: Any, name: str, run: Callable[[], object]) -> int:
    """The attacks ``run`` makes, counted in an untimed run with the same seed."""
    real = getattr(module, name)
    calls = [0]

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return real(*args, **kwargs)

    setattr(module, name, counting)
    try:
        run()
    finally:
        setattr(module, name, real)
    return calls[0]


def _ds4() -> list[Ds4Combatant]:
    heroes = [
        Ds4Combatant(Fighter(f"h{i}", lebenskraft=20, koerper=8, abwehr=8, schlagen=12),
                     "abenteurer", 8, AttackKind.SCHLAGEN, Weapon("langschwert", wb=2))
        for i in range(4)
    ]  # fmt: skip
    orcs = [
        Ds4Combatant(Fighter(f"o{i}", lebenskraft=15, koerper=8, abwehr=9, schlagen=12),
                     "gegner", 4, AttackKind.SCHLAGEN, None)
        for i in range(4)
    ]  # fmt: skip
    return heroes + orcs


def _stat(name: str, value: int) -> Statistic:
    return Statistic(name, (Modifier("Werteblock", "untyped", value),))


def _pf2e() -> list[Pf2eCombatant]:
    sword = StrikeOption(_stat("Langschwert", 9), parse("1W8+4"))
    axe = StrikeOption(_stat("Orkbeil", 8), parse("1W8+3"))
    heroes = [
        Pf2eCombatant(f"h{i}", "abenteurer", 20, 18, _stat("Wahrnehmung", 6), (sword,), False)
        for i in range(4)
    ]
    orcs = [
        Pf2eCombatant(f"o{i}", "gegner", 20, 16, _stat("Wahrnehmung", 5), (axe,), True)
        for i in range(4)
    ]
    return heroes + orcs


def _timed(call: Callable[[], object]) -> float:
    start = time.process_time()
    call()
    return time.process_time() - start


def _row(label: str, sim: float, result: RiskResult, attacks: int, base: float) -> list[str]:
    return [
        f"| {attacks} single attacks (baseline) | {base:.2f} s | 1.0 |",
        f"| {label}: {TRIALS} fights | {sim:.2f} s | {sim / base:.2f}× |",
        f"| … p_any_down {result.p_any_down.value:.3f} ± {result.p_any_down.stderr:.3f}, "
        f"p_wipe {result.p_wipe.value:.3f}, rounds {result.rounds_mean.value:.1f} "
        f"(p90 {result.rounds_p90}) | | |",
    ]


def main() -> None:
    lines = ["| measurement | CPU time | ratio |", "|---|---|---|"]
    ds4 = _ds4()
    out: list[RiskResult] = []
    sim = _timed(lambda: out.append(ds4_simulate(SeededRoller(1), ds4, "abenteurer", TRIALS)))
    attacks = _count_attacks(
        ds4_simulation, "attack", lambda: ds4_simulate(SeededRoller(1), ds4, "abenteurer", TRIALS)
    )
    roller = SeededRoller(2)
    a, t = ds4[0], ds4[4]
    base = _timed(lambda: [attack(roller, a.fighter, t.fighter, a.weapon, a.kind)
                           for _ in range(attacks)])  # fmt: skip
    lines += _row("DS4 simulate, 4 heroes vs 4 orcs", sim, out[0], attacks, base)
    pf2e = _pf2e()
    out.clear()
    sim = _timed(lambda: out.append(pf2e_simulate(SeededRoller(3), pf2e, "abenteurer", TRIALS)))
    attacks = _count_attacks(
        pf2e_simulation,
        "strike",
        lambda: pf2e_simulate(SeededRoller(3), pf2e, "abenteurer", TRIALS),
    )
    s = pf2e[0].strikes[0]
    base = _timed(lambda: [strike(roller, s.attack, 16, s.damage, attack_number=n % 3 + 1)
                           for n in range(attacks)])  # fmt: skip
    lines += _row("PF2e simulate, 4 heroes vs 4 orcs", sim, out[0], attacks, base)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
