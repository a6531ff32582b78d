"""Exact odds of one DS4 attack before anyone rolls (ds4.md §2), by enumeration.

:func:`forecast_attack` computes the attack's and the Abwehr's PW as
:func:`app.rules.ds4.combat.attack` does (same modifier functions), evaluates every face
(every combination of faces for a PW above 20) with the engine's :func:`evaluate_check`,
and combines them with :func:`damage_after_abwehr`: an Immersieg of the attack is not
reduced, a target that cannot defend rolls no Abwehr. The target is down at LK ≤ 0 and dead
at LK < −KÖR (:func:`condition`).
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from functools import lru_cache
from itertools import product

from app.rules.ds4.check import (
    DIE,
    IMMERSIEG_MAX,
    PATZER_MIN,
    CheckResult,
    check_odds,
    dice_needed,
    evaluate_check,
    final_pw,
)
from app.rules.ds4.combat import (
    AttackKind,
    AttackModifiers,
    Condition,
    Fighter,
    abwehr_modifiers,
    attack_modifiers,
    condition,
    damage_after_abwehr,
)
from app.rules.ds4.equipment import Weapon
from app.rules.odds import ActionForecast, distribution

#: Faces are enumerated for PWs up to this (three W20, 8,000 combinations).
MAX_ENUMERATED_PW = 60
ZERO = Fraction(0)


@lru_cache(maxsize=2048)
def _outcomes(pw: int, immersieg_max: int, patzer_min: int) -> tuple[tuple[CheckResult, int], ...]:
    """The distinct results of a check with ``pw`` over all faces, with their counts."""
    if pw > MAX_ENUMERATED_PW:
        raise ValueError(f"a forecast enumerates PW up to {MAX_ENUMERATED_PW}, got {pw}")
    groups: dict[tuple[bool, int, bool, bool], tuple[CheckResult, int]] = {}
    for faces in product(range(1, DIE + 1), repeat=dice_needed(pw)):
        r = evaluate_check(pw, faces, immersieg_max=immersieg_max, patzer_min=patzer_min)
        key = (r.success, r.result, r.immersieg, r.patzer)
        first, count = groups.get(key, (r, 0))
        groups[key] = (first, count + 1)
    return tuple(groups.values())


def attack_pw(attacker: Fighter, kind: AttackKind, modifiers: AttackModifiers) -> int:
    """The attack's PW as :func:`app.rules.ds4.combat.attack` computes it."""
    mods = attack_modifiers(kind, modifiers, attacker_prone=attacker.prone)
    return final_pw(attacker.attack_value(kind), mods)[0]


def attack_success(
    attacker: Fighter,
    kind: AttackKind,
    modifiers: AttackModifiers,
    *,
    immersieg_max: int = IMMERSIEG_MAX,
    patzer_min: int = PATZER_MIN,
) -> Fraction:
    """The exact chance that the attack check itself succeeds (whatever the target)."""
    pw = attack_pw(attacker, kind, modifiers)
    return check_odds(pw, immersieg_max=immersieg_max, patzer_min=patzer_min).success


def forecast_attack(
    attacker: Fighter,
    target: Fighter,
    weapon: Weapon | None,
    kind: AttackKind,
    modifiers: AttackModifiers | None = None,
    *,
    immersieg_max: int = IMMERSIEG_MAX,
    patzer_min: int = PATZER_MIN,
) -> ActionForecast:
    """The exact outcome distribution of :func:`app.rules.ds4.combat.attack`."""
    mods = modifiers or AttackModifiers()
    att_pw = attack_pw(attacker, kind, mods)
    abw_pw, _ = final_pw(target.abwehr, abwehr_modifiers(target, weapon, kind, mods))
    attacks = _outcomes(att_pw, immersieg_max, patzer_min)
    abwehr = _outcomes(abw_pw, immersieg_max, patzer_min)
    att_total = sum(c for _, c in attacks)
    abw_total = sum(c for _, c in abwehr)
    damage: Counter[int] = Counter()
    hit = crit = fumble = 0
    for att, a_count in attacks:
        weight = a_count * abw_total
        fumble += weight if att.patzer else 0
        if not att.success:
            damage[0] += weight
            continue
        hit += weight
        if att.immersieg or not target.can_defend:
            crit += weight if att.immersieg else 0
            damage[damage_after_abwehr(att, None)] += weight
            continue
        for abw, b_count in abwehr:
            damage[damage_after_abwehr(att, abw)] += a_count * b_count
    total = att_total * abw_total
    dist = distribution(damage, total)
    return ActionForecast(
        defends=target.can_defend,
        p_hit=Fraction(hit, total),
        p_crit=Fraction(crit, total),
        p_fumble=Fraction(fumble, total),
        damage=dist,
        p_down=sum((p for d, p in dist.items() if _after(target, d) is not Condition.OK), ZERO),
        p_dead=sum((p for d, p in dist.items() if _after(target, d) is Condition.DEAD), ZERO),
    )


def _after(target: Fighter, damage: int) -> Condition:
    return condition(target.lebenskraft - damage, target.koerper)
